"""``ledger sources fetch``: snapshot what each source URL says today.

Documentation pages change under the same URL. Each fetch records status, final URL (after
redirects), content type, the sha256 and size of the body and the retrieval time as a
``source.snapshot`` log entry, and keeps the body in a content-addressed directory
(``<dir>/sha256/ab/abcdef...``). A fetch whose hash differs from the source's previous
successful snapshot is marked ``changed``; ``ledger impact --changed`` then lists the figures
to re-check. The readable text of each body (:mod:`ledger.readable`) is stored beside it, under
its own sha256, logged with the snapshot (``text_sha256``, or ``text_error`` saying why there is
none) together with the page's own metadata; ``ledger verify --db`` grounds quotes in it.

Fetching uses httpx with timeouts, a redirect limit, a body size limit (the download stops
there) and retries with exponential backoff on connection errors, timeouts, 429 and 5xx.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import sqlalchemy as sa
from sqlalchemy import Connection

from .errors import ExtractError, UsageError
from .extras import missing_extra
from .log import utc_now
from .readable import extract
from .snapshots import DEFAULT_SNAPSHOT_DIR
from .tables import ArticleRow, SourceRow, SourceSnapshotRow, sql_table

if TYPE_CHECKING:
    from .db import Ledger

__all__ = [
    "DEFAULT_SNAPSHOT_DIR",
    "FetchConfig",
    "FetchResult",
    "SnapshotStore",
    "fetch_sources",
    "fetch_url",
    "latest_sources",
    "record_snapshot",
]

logger = logging.getLogger(__name__)

_RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
_SNAPSHOTS = sql_table(SourceSnapshotRow)


@dataclass(frozen=True)
class FetchConfig:
    timeout_s: float = 15.0
    connect_timeout_s: float = 5.0
    max_bytes: int = 20 * 1024 * 1024
    retries: int = 3
    backoff_s: float = 0.5
    max_backoff_s: float = 8.0
    max_redirects: int = 10
    user_agent: str = "kv-evidence-ledger/0.1 (source snapshot)"

    def __post_init__(self) -> None:
        for name in ("timeout_s", "connect_timeout_s", "max_bytes"):
            if getattr(self, name) <= 0:
                raise UsageError(f"fetch setting {name} must be positive")
        if self.retries < 0 or self.backoff_s < 0:
            raise UsageError("fetch settings retries and backoff_s must not be negative")


@dataclass
class FetchResult:
    """One fetch. ``error`` is set when no usable body came back (``sha256`` may still be set
    for an HTTP error page)."""

    url: str
    retrieved_at: str
    final_url: str | None = None
    status_code: int | None = None
    content_type: str | None = None
    sha256: str | None = None
    size: int | None = None
    attempts: int = 0
    error: str | None = None
    body: bytes | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("body")
        return data


class SnapshotStore:
    """Bodies by sha256 under ``root``; written to a temporary file, fsynced, then renamed."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def path(self, sha256: str) -> Path:
        return self.root / "sha256" / sha256[:2] / sha256

    def put(self, body: bytes) -> str:
        """Store ``body``; returns its sha256. Raises :class:`UsageError` if it cannot write."""
        digest = hashlib.sha256(body).hexdigest()
        target = self.path(digest)
        if target.is_file():
            return digest
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as fh:
                fh.write(body)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except OSError as exc:
            raise UsageError(f"cannot write snapshot under {self.root}: {exc.strerror}") from exc
        return digest

    def get(self, sha256: str) -> bytes:
        """The body stored under ``sha256``; raises :class:`UsageError` when it is missing."""
        try:
            return self.path(sha256).read_bytes()
        except OSError as exc:
            raise UsageError(f"snapshot {sha256[:16]} is not under {self.root} "
                             f"({exc.strerror}); give the snapshot directory it was saved "
                             "in (--snapshots)") from exc


def _read_limited(response: httpx.Response, limit: int) -> bytes:
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > limit:
            raise _TooLarge(f"body larger than the {limit}-byte limit")
        chunks.append(chunk)
    return b"".join(chunks)


class _TooLarge(Exception):
    pass


def _attempt(client: httpx.Client, url: str, config: FetchConfig, result: FetchResult) -> bool:
    """One try; returns True when it is worth retrying."""
    try:
        with client.stream("GET", url) as response:
            result.status_code = response.status_code
            result.final_url = str(response.url)
            result.content_type = response.headers.get("content-type")
            if response.status_code in _RETRY_STATUS:
                result.error = f"HTTP {response.status_code}"
                return True
            body = _read_limited(response, config.max_bytes)
    except _TooLarge as exc:
        result.error = str(exc)
        return False
    except httpx.TooManyRedirects:
        result.error = f"more than {config.max_redirects} redirects"
        return False
    except httpx.TransportError as exc:
        result.error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return True
    except httpx.InvalidURL as exc:
        result.error = f"invalid URL: {exc}"
        return False
    result.body, result.size = body, len(body)
    result.sha256 = hashlib.sha256(body).hexdigest()
    result.error = None if response.status_code < 400 else f"HTTP {response.status_code}"
    return False


def fetch_url(client: httpx.Client, url: str, config: FetchConfig = FetchConfig(), *,
              sleep: Callable[[float], None] = time.sleep) -> FetchResult:
    """Fetch ``url`` with retries; never raises for network or HTTP problems (see ``error``)."""
    result = FetchResult(url=url, retrieved_at=utc_now())
    for attempt in range(config.retries + 1):
        result.attempts = attempt + 1
        result.retrieved_at = utc_now()
        if not _attempt(client, url, config, result) or attempt == config.retries:
            break
        delay = min(config.backoff_s * 2 ** attempt, config.max_backoff_s)
        logger.info("retrying %s in %.1fs after %s", url, delay, result.error)
        sleep(delay)
    return result


def latest_sources(conn: Connection, article_id: str | None = None) -> list[Any]:
    """``(article_id, source_id, url)`` of every source of each article's latest version."""
    a, s = sql_table(ArticleRow), sql_table(SourceRow)
    latest = (sa.select(a.c.article_id, sa.func.max(a.c.version).label("version"))
              .group_by(a.c.article_id).subquery())
    query = (sa.select(s.c.article_id, s.c.source_id, s.c.url)
             .join(a, a.c.pk == s.c.article_pk)
             .join(latest, sa.and_(a.c.article_id == latest.c.article_id,
                                   a.c.version == latest.c.version))
             .order_by(s.c.article_id, s.c.pk))
    if article_id is not None:
        query = query.where(s.c.article_id == article_id)
    return list(conn.execute(query).all())


def _previous_sha(conn: Connection, article_id: str, source_id: str) -> str | None:
    t = _SNAPSHOTS
    return conn.execute(sa.select(t.c.sha256).where(
        t.c.article_id == article_id, t.c.source_id == source_id, t.c.error.is_(None))
        .order_by(t.c.pk.desc()).limit(1)).scalar_one_or_none()


def _readable(store: SnapshotStore, body: bytes, content_type: str | None,
              name: str | None) -> dict[str, Any]:
    """Extract the body's readable text into the store; the columns that describe it."""
    try:
        readable = extract(body, content_type, name)
    except ExtractError as exc:
        return {"text_sha256": None, "text_error": str(exc), "page_meta": None}
    except ModuleNotFoundError as exc:  # the body is kept; its text can be added later
        missing = missing_extra(exc)
        if missing is None:
            raise
        return {"text_sha256": None, "text_error": f"text not extracted: {missing}",
                "page_meta": None}
    meta = readable.meta.to_dict()
    return {"text_sha256": store.put(readable.text.encode("utf-8")), "text_error": None,
            "page_meta": json.dumps(meta, ensure_ascii=False) if meta else None}


def record_snapshot(ledger: Ledger, store: SnapshotStore, article_id: str, source_id: str,
                    result: FetchResult, *, origin: str = "fetch") -> dict[str, Any]:
    """Store the body and its readable text, and log the snapshot; returns the log record.

    ``changed`` is set when the body differs from the source's previous good snapshot.
    """
    text: dict[str, Any] = {"text_sha256": None, "text_error": None, "page_meta": None}
    if result.body is not None:
        store.put(result.body)
    if result.body is not None and result.ok:
        text = _readable(store, result.body, result.content_type, result.final_url or result.url)
    with ledger.write() as app:
        previous = _previous_sha(app.conn, article_id, source_id)
        changed = result.ok and previous is not None and previous != result.sha256
        data = {"article_id": article_id, "source_id": source_id, "changed": changed,
                "previous_sha256": previous, "origin": origin} | result.to_dict() | text
        seq = app.append("source.snapshot", f"{article_id}:{source_id}", data)
        app.conn.execute(sa.insert(_SNAPSHOTS).values(
            article_id=article_id, source_id=source_id, url=result.url,
            final_url=result.final_url, status_code=result.status_code,
            content_type=result.content_type, sha256=result.sha256, size=result.size,
            retrieved_at=result.retrieved_at, changed=changed, previous_sha256=previous,
            error=result.error, entry_seq=seq, origin=origin, **text))
    return data | {"entry_seq": seq}


def fetch_sources(ledger: Ledger, article_id: str | None = None, *,
                  snapshot_dir: str | Path = DEFAULT_SNAPSHOT_DIR,
                  config: FetchConfig = FetchConfig(),
                  transport: httpx.BaseTransport | None = None) -> list[dict[str, Any]]:
    """Fetch every source of the latest version of each article (or of ``article_id``).

    Each URL is fetched once per call even if several articles cite it. Returns one record
    per source (what was appended to the log). Raises :class:`NotFound` for an unknown
    article, :class:`DatabaseError`, :class:`UsageError` when snapshots cannot be written.
    """
    with ledger.read() as conn:
        sources = latest_sources(conn, article_id)
    if article_id is not None and not sources:
        ledger.get_article(article_id)  # raises NotFound for an unknown article
    store = SnapshotStore(snapshot_dir)
    fetched: dict[str, FetchResult] = {}
    timeout = httpx.Timeout(config.timeout_s, connect=config.connect_timeout_s)
    with httpx.Client(timeout=timeout, follow_redirects=True, transport=transport,
                      max_redirects=config.max_redirects,
                      headers={"user-agent": config.user_agent}) as client:
        records = []
        for row in sources:
            if row.url not in fetched:
                fetched[row.url] = fetch_url(client, row.url, config)
            records.append(record_snapshot(ledger, store, row.article_id, row.source_id,
                                           fetched[row.url]))
    return records
