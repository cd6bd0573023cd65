"""Snapshots without the network: saved files, and WARC archives (ISO 28500) in and out.

* :func:`add_file` records a saved copy of one source (``ledger sources add ARTICLE:S# FILE``);
* :func:`import_warc` records every ``response`` or ``resource`` record of a WARC file whose
  target URL is a source's URL (``ledger sources import ARCHIVE.warc.gz``);
* :func:`export_warc` writes every good snapshot of an article as a ``response`` record, dated
  with its retrieval time (``ledger sources export ARTICLE --warc OUT.warc.gz``).

The bodies go through unchanged, so add -> export -> import into another ledger keeps every
sha256. WARC reading and writing use warcio.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import mimetypes
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from .errors import DocumentError, NotFound, UsageError
from .sources import FetchResult, SnapshotStore, latest_sources, record_snapshot
from .tables import SourceSnapshotRow, sql_table

if TYPE_CHECKING:
    from .db import Ledger

__all__ = ["ImportSummary", "add_file", "export_warc", "import_warc", "parse_retrieved_at"]

_SNAPSHOTS = sql_table(SourceSnapshotRow)


def _need_warcio() -> Any:
    try:
        import warcio
    except ImportError as exc:
        raise UsageError("WARC archives need warcio: pip install "
                         "'kv-evidence-ledger[sources]'") from exc
    return warcio


def parse_retrieved_at(value: str | None) -> str:
    """An ISO date or date-time as the log's UTC form; now when ``value`` is None."""
    if value is None:
        return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    try:
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise UsageError(f"--retrieved-at {value!r} is not an ISO date (2026-11-04) or "
                         "date-time") from exc
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _split_target(target: str) -> tuple[str, str]:
    article_id, _, source_id = target.rpartition(":")
    if not article_id or not source_id.startswith("S"):
        raise UsageError(f"{target!r}: name the source as ARTICLE_ID:S#")
    return article_id, source_id


def _result(url: str, body: bytes, retrieved_at: str, content_type: str | None,
            status: int | None = None) -> FetchResult:
    return FetchResult(url=url, retrieved_at=retrieved_at, final_url=url, status_code=status,
                       content_type=content_type, sha256=hashlib.sha256(body).hexdigest(),
                       size=len(body), attempts=0, body=body)


def add_file(ledger: Ledger, target: str, path: str | Path, *, store: SnapshotStore,
             url: str | None = None, retrieved_at: str | None = None) -> dict[str, Any]:
    """Record the saved file ``path`` as a snapshot of ``ARTICLE_ID:S#``."""
    article_id, source_id = _split_target(target)
    article = ledger.get_article(article_id)
    source = next((s for s in article.sources if s.id == source_id), None)
    if source is None:
        raise NotFound(f"article {article_id} has no source {source_id}")
    try:
        body = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror}") from exc
    ctype = mimetypes.guess_type(str(path))[0]
    if str(path).lower().endswith((".md", ".markdown")):
        ctype = "text/markdown"
    result = _result(url or source.url, body, parse_retrieved_at(retrieved_at), ctype)
    return record_snapshot(ledger, store, article_id, source_id, result, origin="add")


@dataclass
class ImportSummary:
    records: list[dict[str, Any]] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    already: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"records": self.records, "unmatched": self.unmatched, "already": self.already}


def _url_key(url: str) -> str:
    return url.split("#", 1)[0].rstrip("/")


def _read_warc(path: str | Path) -> list[tuple[str, str, bytes, str | None, int | None]]:
    """``(url, retrieved_at, body, content type, status)`` of each page record, all or none."""
    warcio = _need_warcio()
    from warcio.archiveiterator import ArchiveIterator

    pages, seen = [], 0
    try:
        with open(path, "rb") as fh:
            for record in ArchiveIterator(fh, check_digests="raise"):
                seen += 1
                if record.rec_type not in ("response", "resource"):
                    continue
                url = record.rec_headers.get_header("WARC-Target-URI") or ""
                date = record.rec_headers.get_header("WARC-Date") or ""
                body = record.content_stream().read()
                if _unread(record.raw_stream):
                    raise EOFError(f"the record for {url} ends {_unread(record.raw_stream)} "
                                   "byte(s) early")
                if record.http_headers is not None:
                    ctype = record.http_headers.get_header("Content-Type")
                    status = int(record.http_headers.get_statuscode() or 0) or None
                else:
                    ctype, status = record.rec_headers.get_header("Content-Type"), None
                pages.append((url, parse_retrieved_at(date) if date else "", body, ctype, status))
    except OSError as exc:
        raise DocumentError(str(path), f"cannot read the archive: {exc.strerror or exc}") from exc
    except (warcio.exceptions.ArchiveLoadFailed, EOFError, ValueError, UsageError,
            AttributeError, TypeError, KeyError, IndexError) as exc:  # warcio on cut headers
        raise DocumentError(str(path), "truncated, damaged or not a WARC archive "
                            f"({type(exc).__name__}: {str(exc).splitlines()[0][:160]}); "
                            "nothing was imported") from exc
    except Exception as exc:  # zlib and gzip errors come in several types
        if type(exc).__module__ in ("zlib", "gzip", "_compression"):
            raise DocumentError(str(path), "truncated or damaged WARC archive (compressed "
                                f"stream ends early: {exc}); nothing was imported") from exc
        raise
    if not seen and Path(path).stat().st_size:
        raise DocumentError(str(path), "no WARC record could be read: truncated before its "
                            "first record, or not a WARC archive; nothing was imported")
    return pages


def _unread(stream: Any) -> int:
    """Bytes a record's block still owes after its stream ran dry (0 for a whole record)."""
    from warcio.limitreader import LimitReader

    for _ in range(8):
        if isinstance(stream, LimitReader):
            return max(int(stream.limit), 0)
        stream = getattr(stream, "stream", None)
        if stream is None:
            break
    return 0


def _known(ledger: Ledger, article_id: str, source_id: str, sha: str, when: str) -> bool:
    t = _SNAPSHOTS
    with ledger.read() as conn:
        return conn.execute(sa.select(t.c.pk).where(
            t.c.article_id == article_id, t.c.source_id == source_id, t.c.sha256 == sha,
            t.c.retrieved_at == when)).first() is not None


def import_warc(ledger: Ledger, path: str | Path, *, store: SnapshotStore) -> ImportSummary:
    """Record each page of the archive as a snapshot of every source with its URL."""
    pages = _read_warc(path)
    with ledger.read() as conn:
        by_url: dict[str, list[tuple[str, str]]] = {}
        for row in latest_sources(conn):
            by_url.setdefault(_url_key(row.url), []).append((row.article_id, row.source_id))
    summary = ImportSummary()
    for url, when, body, ctype, status in sorted(pages, key=lambda p: p[1]):
        targets = by_url.get(_url_key(url))
        if not targets:
            summary.unmatched.append(url)
            continue
        result = _result(url, body, when or parse_retrieved_at(None), ctype, status)
        for article_id, source_id in targets:
            if _known(ledger, article_id, source_id, result.sha256 or "", result.retrieved_at):
                summary.already += 1
                continue
            summary.records.append(record_snapshot(ledger, store, article_id, source_id,
                                                   result, origin="import"))
    return summary


def _warc_date(retrieved_at: str) -> str:
    when = dt.datetime.fromisoformat(retrieved_at.replace("Z", "+00:00"))
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def export_warc(ledger: Ledger, article_id: str, out: str | Path, *,
                store: SnapshotStore) -> list[dict[str, Any]]:
    """Write every good snapshot of ``article_id``'s sources to ``out`` (gzipped WARC)."""
    _need_warcio()
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    ledger.get_article(article_id)  # NotFound for an unknown article
    t = _SNAPSHOTS
    with ledger.read() as conn:
        rows = conn.execute(sa.select(t).where(
            t.c.article_id == article_id, t.c.error.is_(None), t.c.sha256.is_not(None))
            .order_by(t.c.pk)).all()
    if not rows:
        raise UsageError(f"article {article_id} has no snapshot to export; run `ledger sources "
                         "fetch` or `ledger sources add` first")
    written, seen = [], set()
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True)
    for row in rows:
        key = (row.url, row.sha256, row.retrieved_at)
        if key in seen:
            continue
        seen.add(key)
        body = store.get(row.sha256)
        status = row.status_code or 200
        headers = [("Content-Type", row.content_type or "application/octet-stream"),
                   ("Content-Length", str(len(body)))]
        http = StatusAndHeaders(f"{status} OK", headers, protocol="HTTP/1.1")
        record = writer.create_warc_record(
            row.url, "response", payload=io.BytesIO(body), http_headers=http,
            warc_headers_dict={"WARC-Date": _warc_date(row.retrieved_at)})
        writer.write_record(record)
        written.append({"source_id": row.source_id, "url": row.url, "sha256": row.sha256,
                        "retrieved_at": row.retrieved_at})
    try:
        Path(out).write_bytes(buffer.getvalue())
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror}") from exc
    return written
