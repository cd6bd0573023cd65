"""Where ``ledger verify`` finds the readable text of a source: a ledger, or a folder.

* :func:`ledger_lookup`: the snapshots a ledger recorded (``sources fetch``, ``add``,
  ``import``). The snapshot *at retrieval* is the last one taken on or before the source's
  ``retrieved_at`` date (else the first); the *latest* is the last one. Texts come from the
  snapshot store.
* :func:`folder_lookup`: saved pages named by source id (``S1.pdf``, ``S2.md``, ``S3.html``), in
  ``DIR/<article id>/`` or directly in ``DIR``; one snapshot, extracted when first needed.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import ExtractError, UsageError
from .models import Source
from .readable import PageMeta, extract
from .verify.grounding import SnapshotLookup, SnapshotText, SourceSnapshots

if TYPE_CHECKING:  # the database layer is imported only by ledger_lookup's callers
    from sqlalchemy import Connection

    from .sources import SnapshotStore

__all__ = ["DEFAULT_SNAPSHOT_DIR", "folder_lookup", "ledger_lookup", "snapshot_rows"]

#: Where ``ledger sources`` keeps bodies and texts, by sha256.
DEFAULT_SNAPSHOT_DIR = "ledger-snapshots"


def snapshot_rows(conn: Connection, article_id: str | None = None) -> dict[tuple[str, str],
                                                                           list[Any]]:
    """Good snapshots with text, by ``(article_id, source_id)``, oldest first."""
    import sqlalchemy as sa

    from .tables import SourceSnapshotRow, sql_table

    t = sql_table(SourceSnapshotRow)
    query = (sa.select(t.c.article_id, t.c.source_id, t.c.sha256, t.c.text_sha256,
                       t.c.text_error, t.c.page_meta, t.c.retrieved_at, t.c.origin)
             .where(t.c.error.is_(None), sa.or_(t.c.text_sha256.is_not(None),
                                                 t.c.text_error.is_not(None)))
             .order_by(t.c.pk))
    if article_id is not None:
        query = query.where(t.c.article_id == article_id)
    rows: dict[tuple[str, str], list[Any]] = {}
    for row in conn.execute(query).all():
        rows.setdefault((row.article_id, row.source_id), []).append(row)
    return rows


def _at_retrieval(rows: list[Any], source: Source) -> Any:
    day = source.retrieved_at.isoformat()
    before = [r for r in rows if r.retrieved_at[:10] <= day]
    return before[-1] if before else rows[0]


def ledger_lookup(conn: Connection, store: SnapshotStore) -> SnapshotLookup:
    """Snapshots from the ledger on ``conn``, texts from ``store``."""
    rows = snapshot_rows(conn)
    texts: dict[str, SnapshotText] = {}

    def text(row: Any) -> SnapshotText:
        if row.text_sha256 is None:
            raise ExtractError(f"the snapshot of {row.retrieved_at} has no readable text: "
                               f"{row.text_error}")
        if row.text_sha256 not in texts:
            try:
                body = store.get(row.text_sha256).decode("utf-8")
            except UsageError as exc:
                raise ExtractError(str(exc)) from exc
            meta = PageMeta.from_dict(json.loads(row.page_meta) if row.page_meta else None)
            label = f"{row.origin or 'snapshot'} of {row.retrieved_at[:19]}"
            texts[row.text_sha256] = SnapshotText(body, row.retrieved_at, label, meta)
        return texts[row.text_sha256]

    def lookup(article_id: str, source: Source) -> SourceSnapshots | None:
        found = rows.get((article_id, source.id))
        if not found:
            return None
        first_row = _at_retrieval(found, source)
        first = text(first_row)
        same = found[-1].text_sha256 == first_row.text_sha256
        return SourceSnapshots(first, first if same else text(found[-1]))

    return lookup


def folder_lookup(root: str | Path) -> SnapshotLookup:
    """Saved pages in ``root`` named by source id (see the module doc)."""
    base = Path(root)
    if not base.is_dir():
        raise UsageError(f"--sources {root}: not a directory")

    @cache
    def load(path: Path) -> SnapshotText:
        try:
            body = path.read_bytes()
        except OSError as exc:
            raise ExtractError(f"{path}: {exc.strerror}") from exc
        try:
            readable = extract(body, name=path.name)
        except ExtractError as exc:
            raise ExtractError(f"{path.name}: {exc}") from exc
        return SnapshotText(readable.text, "", f"saved page {path.name}", readable.meta)

    def find(article_id: str, source_id: str) -> Path | None:
        for folder in (base / article_id, base):
            matches = sorted(p for p in folder.glob(f"{source_id}.*") if p.is_file())
            if matches:
                return matches[0]
        return None

    def lookup(article_id: str, source: Source) -> SourceSnapshots | None:
        path = find(article_id, source.id)
        if path is None:
            return None
        snap = load(path)
        return SourceSnapshots(snap, snap)

    return lookup
