"""The ledger database: where it is, how to open it, and the :class:`Ledger` facade.

A ledger is a SQLite file (``ledger.db`` in the working directory by default) or a PostgreSQL
database (``postgresql+psycopg://user@host/db``). Opening one applies pending migrations and
refuses a ledger written by newer code. Every write goes through :meth:`Ledger.write`, which
locks the append-only log for the transaction; SQLAlchemy errors never leave this module
untranslated: they become :class:`~ledger.errors.DatabaseError`.

Tables are in :mod:`ledger.tables`, the log in :mod:`ledger.log`; articles, runs and sources
have modules of their own whose functions the facade's methods call.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

import sqlalchemy as sa
from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from . import articles, runs
from .articles import ArticleVersion, IngestResult
from .errors import DatabaseError, LedgerError, NotFound, UsageError
from .levels import Reproduction
from .log import Appender, AuditResult, TreeHead, audit_log, lock_head, utc_now
from .migrations import LATEST, current_version, migrate
from .models import Article, Run, RunMetric, RunStatus
from .projections import ProjectionCheck

__all__ = [
    "DEFAULT_URL",
    "ENV_VAR",
    "SQLITE_BUSY_TIMEOUT_S",
    "Ledger",
    "create_ledger_engine",
    "normalise_url",
    "redact",
    "resolve_url",
    "translate_errors",
]

logger = logging.getLogger(__name__)

#: The ledger used when no URL is given: a SQLite file in the working directory.
DEFAULT_URL = "sqlite:///ledger.db"
#: The environment variable the CLI reads for the URL (the library never reads it).
ENV_VAR = "LEDGER_DB_URL"
_READ_ONLY = "ledger_read_only"
#: How long a SQLite writer waits for another writer's lock before failing.
SQLITE_BUSY_TIMEOUT_S = 120.0


def resolve_url(value: str | None, environ: Mapping[str, str]) -> str:
    """``--db`` if given, else ``$LEDGER_DB_URL``, else :data:`DEFAULT_URL`."""
    return normalise_url(value or environ.get(ENV_VAR) or DEFAULT_URL)


def normalise_url(url: str) -> str:
    """A plain path means a SQLite file; ``postgresql://`` means the psycopg 3 driver.

    Raises :class:`UsageError` for a URL SQLAlchemy cannot parse.
    """
    if "://" not in url:
        return f"sqlite:///{Path(url).expanduser()}"
    if url.startswith(("postgresql://", "postgres://")):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    try:
        make_url(url)
    except ArgumentError as exc:
        raise UsageError(f"not a database URL: {url!r} ({exc})") from exc
    return url


def redact(url: str) -> str:
    """The URL with any password hidden, for messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def _sqlite_setup(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, open transactions, so that each one can be IMMEDIATE:
        # a writer takes the write lock before it reads the log head.
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        # Readers take a WAL snapshot without blocking writers; writers lock at once.
        read_only = conn.get_execution_options().get(_READ_ONLY, False)
        conn.exec_driver_sql("BEGIN DEFERRED" if read_only else "BEGIN IMMEDIATE")


def create_ledger_engine(url: str) -> Engine:
    """An engine for ``url`` with the ledger's connection settings. Raises :class:`UsageError`."""
    url = normalise_url(url)
    try:
        if url.startswith("sqlite"):
            engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S})
            _sqlite_setup(engine)
            return engine
        return create_engine(url, pool_pre_ping=True)
    except (ArgumentError, ImportError) as exc:
        raise UsageError(f"cannot use database URL {redact(url)}: {exc}") from exc


@contextmanager
def translate_errors(action: str, url: str = "") -> Iterator[None]:
    """Turn SQLAlchemy (and driver) errors into :class:`DatabaseError` naming ``action``."""
    try:
        yield
    except SQLAlchemyError as exc:
        detail = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        where = f" ({redact(url)})" if url else ""
        raise DatabaseError(f"{action} failed{where}: {detail}") from exc


def _require_sqlite_file(url: str) -> None:
    parsed = make_url(url)
    database = parsed.database
    if parsed.get_backend_name() != "sqlite" or database in (None, "", ":memory:"):
        return
    if not Path(str(database)).is_file():
        raise NotFound(f"no ledger at {database} (`ledger ingest` creates one)")


class Ledger:
    """An open ledger database. Use :meth:`open`; close it (or use ``with``) when done.

    Every method raises :class:`DatabaseError` when the database fails, and
    :class:`NotFound` for an id that is not stored.
    """

    def __init__(self, engine: Engine, url: str):
        self.engine, self.url = engine, url

    @classmethod
    def open(cls, url: str | None = None, *, create: bool = True,
             migrate_to: int = LATEST) -> Ledger:
        """Open (creating and upgrading as needed) the ledger at ``url`` (default ``ledger.db``).

        With ``create=False`` a missing or empty database is an error rather than a new
        ledger (so that auditing a mistyped path cannot report an empty, valid log).
        ``migrate_to`` stops at an older schema version; it exists to test migrations (writes
        assume the latest schema).

        Raises :class:`UsageError` for a malformed URL, :class:`MigrationError` for a ledger
        newer than this code, :class:`NotFound` when ``create`` is False and there is no
        ledger, :class:`DatabaseError` when the database cannot be reached.
        """
        url = normalise_url(url or DEFAULT_URL)
        if not create:
            _require_sqlite_file(url)
        engine = create_ledger_engine(url)
        try:
            with translate_errors("opening the ledger", url), engine.begin() as conn:
                if not create and current_version(conn) == 0:
                    raise NotFound(f"no ledger at {redact(url)} (`ledger ingest` creates one)")
                applied = migrate(conn, target=migrate_to, now=utc_now())
        except LedgerError:
            engine.dispose()
            raise
        if applied:
            logger.info("ledger %s migrated to schema version %d", redact(url), applied[-1])
        return cls(engine, url)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Ledger({redact(self.url)!r})"

    # --- transactions ---------------------------------------------------------------------

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A connection for queries: one transaction that sees one consistent snapshot
        (REPEATABLE READ on PostgreSQL, a WAL read snapshot on SQLite), so an audit running
        beside writers never sees half of a later append."""
        with translate_errors("reading the ledger", self.url), self.engine.connect() as conn:
            conn.execution_options(**{_READ_ONLY: True})
            if conn.dialect.name == "postgresql":
                conn.execution_options(isolation_level="REPEATABLE READ")
            with conn.begin():
                yield conn

    @contextmanager
    def write(self) -> Iterator[Appender]:
        """A transaction holding the log lock; append entries through the yielded appender.

        Everything written in the block commits together with its log entries, or not at all.
        """
        with translate_errors("writing to the ledger", self.url), self.engine.begin() as conn:
            appender = lock_head(conn)
            yield appender
            appender.close()

    def schema_version(self) -> int:
        with self.read() as conn:
            return current_version(conn)

    # --- the log --------------------------------------------------------------------------

    def audit(self, checkpoint: TreeHead | None = None) -> AuditResult:
        """Recompute every hash (see :func:`ledger.log.audit_log`) and check that the query
        tables agree with the log (:mod:`ledger.projections`); never raises for a bad log."""
        check = ProjectionCheck()
        with self.read() as conn:
            result = audit_log(conn, checkpoint, visit=check.visit)
            if result.ok:
                found = check.finish(conn)
                if found is not None:
                    result.bad_entry, result.problem = found
        return result

    def tree_head(self) -> TreeHead:
        """The current tree head, after an audit of every entry.

        Raises :class:`IntegrityError` when the log does not verify (a checkpoint of a broken
        log would vouch for it).
        """
        result = self.audit()
        result.raise_for_problem()
        return TreeHead(result.size, result.root, result.chain, utc_now())

    def entry(self, seq: int) -> dict[str, Any]:
        """The decoded payload of log entry ``seq``. Raises :class:`NotFound`."""

        with self.read() as conn:
            return articles.load_entry(conn, seq)

    def count(self, table: sa.Table) -> int:
        with self.read() as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())

    # --- articles -------------------------------------------------------------------------

    def ingest(self, article: Article) -> IngestResult:
        """Store ``article`` as a new version (unless identical to the latest one)."""

        return articles.ingest_article(self, article)

    def get_article(self, article_id: str, version: int | None = None) -> Article:
        """The latest (or the given) version of an article. Raises :class:`NotFound`."""

        with self.read() as conn:
            return articles.get_article(conn, article_id, version)

    def history(self, article_id: str) -> list[ArticleVersion]:
        """Every stored version, oldest first. Raises :class:`NotFound`."""

        with self.read() as conn:
            return articles.article_history(conn, article_id)

    def list_articles(self) -> list[ArticleVersion]:
        """The latest version of every article."""

        with self.read() as conn:
            return articles.list_articles(conn)

    # --- reproductions (see ledger.reproductions) ------------------------------------------

    def record_reproduction(self, reproduction: Reproduction) -> int:
        """Append a reproduction of a recorded run; returns its entry number."""
        from .reproductions import record_reproduction

        return record_reproduction(self, reproduction)

    def reproductions(self, run_id: str) -> list[Reproduction]:
        """Every recorded reproduction of ``run_id``, oldest first."""
        from .reproductions import reproductions_of

        with self.read() as conn:
            return reproductions_of(conn, run_id)

    # --- runs (see ledger.runs) -----------------------------------------------------------

    def record_run(self, run: Run) -> str:
        """Store a new run (see :func:`ledger.runs.record_run`); returns its id."""

        return runs.record_run(self, run)

    def add_metrics(self, run_id: str, metrics: list[RunMetric]) -> Run:

        return runs.add_metrics(self, run_id, metrics)

    def finish_run(self, run_id: str, **changes: Any) -> Run:

        return runs.finish_run(self, run_id, **changes)

    def get_run(self, run_id: str) -> Run:

        with self.read() as conn:
            return runs.get_run(conn, run_id)

    def list_runs(self, status: RunStatus | None = None) -> list[Run]:

        with self.read() as conn:
            return runs.list_runs(conn, status)
