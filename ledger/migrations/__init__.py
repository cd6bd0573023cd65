"""Versioned schema migrations, applied when a ledger is opened.

Each ``mNNNN_*.py`` module holds ``VERSION``, ``DESCRIPTION`` and ``upgrade(conn)`` with the DDL
of that step written out (never generated from today's tables, so that an old step keeps doing
what it did). The version lives in ``ledger_schema_version``. :func:`migrate` runs inside the
caller's transaction, which holds the database's write lock (SQLite ``BEGIN IMMEDIATE``, a
PostgreSQL advisory lock), so processes that open a fresh ledger at once apply each step once.
A ledger whose version is newer than :data:`LATEST` is refused with :class:`MigrationError`.
"""

from __future__ import annotations

import logging
from types import ModuleType

import sqlalchemy as sa
from sqlalchemy import Connection

from ..errors import MigrationError
from . import (
    m0001_initial,
    m0002_source_snapshots,
    m0003_append_only_guards,
    m0004_figure_traces,
    m0005_snapshot_text,
)

__all__ = ["LATEST", "MIGRATIONS", "current_version", "migrate"]

logger = logging.getLogger(__name__)

MIGRATIONS: list[ModuleType] = [
    m0001_initial, m0002_source_snapshots, m0003_append_only_guards, m0004_figure_traces,
    m0005_snapshot_text,
]
LATEST = MIGRATIONS[-1].VERSION
_VERSION_TABLE = "ledger_schema_version"


def _version_table() -> sa.Table:
    return sa.Table(_VERSION_TABLE, sa.MetaData(),
                    sa.Column("id", sa.Integer, primary_key=True),
                    sa.Column("version", sa.Integer, nullable=False),
                    sa.Column("applied_at", sa.String, nullable=False))


def current_version(conn: Connection) -> int:
    """The schema version of the database; 0 for an empty one."""
    if not sa.inspect(conn).has_table(_VERSION_TABLE):
        return 0
    row = conn.execute(sa.select(_version_table().c.version).where(sa.text("id = 1"))).first()
    return int(row[0]) if row else 0


def _lock(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(hashtext(current_schema()))"))


def migrate(conn: Connection, *, target: int = LATEST, now: str = "") -> list[int]:
    """Upgrade to ``target``; returns the versions applied (empty when already current).

    Raises :class:`MigrationError` when the database is newer than this code, or a step fails.
    """
    _lock(conn)
    version = current_version(conn)
    if version > LATEST:
        raise MigrationError(
            f"this ledger has schema version {version}, newer than this kv-evidence-ledger "
            f"supports ({LATEST}); upgrade the package to open it")
    table = _version_table()
    table.create(conn, checkfirst=True)
    applied = []
    for step in MIGRATIONS:
        if version < step.VERSION <= target:
            logger.info("migrating ledger schema to version %d: %s", step.VERSION, step.DESCRIPTION)
            try:
                step.upgrade(conn)
            except sa.exc.SQLAlchemyError as exc:
                raise MigrationError(f"migration to version {step.VERSION} failed: {exc}") from exc
            applied.append(step.VERSION)
    if applied:
        conn.execute(sa.delete(table))
        conn.execute(sa.insert(table).values(id=1, version=applied[-1], applied_at=now))
    return applied
