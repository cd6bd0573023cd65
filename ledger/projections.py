"""Cross-checks between the log and the query tables built from it.

The log is authoritative; ``articles``, ``runs``, ``run_metrics`` and ``source_snapshots`` are
projections of it. An audit feeds every verified entry to :class:`ProjectionCheck` and then
checks that each projection row names an entry of the right kind and subject whose payload
agrees with the row (version and digest, revision and status, metric value, snapshot hash),
and that every such entry has its row. A row edited behind the log's back is thus reported
with the entry it contradicts. (Rows derived per article version -- facts, figures,
dependencies -- are recomputed from the stored document and not checked here.)
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection

from .tables import ArticleRow, RunMetricRow, RunRow, SourceSnapshotRow, sql_table

__all__ = ["ProjectionCheck"]


class ProjectionCheck:
    """Collects what each entry says (:meth:`visit`), then compares the tables (:meth:`finish`)."""

    def __init__(self) -> None:
        self.expected: dict[str, dict[int, tuple[Any, ...]]] = {
            "article": {}, "run": {}, "source.snapshot": {}}
        self.metrics: dict[int, dict[tuple[str, str], float]] = {}

    def visit(self, seq: int, body: dict[str, Any]) -> None:
        kind, data = body.get("kind"), body.get("data") or {}
        if kind == "article":
            self.expected["article"][seq] = (body["subject"], data.get("version"),
                                             data.get("digest"))
        elif kind == "run":
            run = data.get("run") or {}
            self.expected["run"][seq] = (body["subject"], data.get("revision"), run.get("status"))
            self.metrics[seq] = {(m.get("name"), m.get("aggregation")): m.get("value")
                                 for m in run.get("metrics", [])}
        elif kind == "source.snapshot":
            self.expected["source.snapshot"][seq] = (body["subject"], data.get("sha256"))

    def finish(self, conn: Connection) -> tuple[int, str] | None:
        """``(entry, problem)`` for the first disagreement, or None."""
        a, r, s, m = (sql_table(ArticleRow), sql_table(RunRow), sql_table(SourceSnapshotRow),
                      sql_table(RunMetricRow))
        checks = [
            ("article", "articles", sa.select(a.c.entry_seq, a.c.article_id, a.c.version, a.c.digest)),
            ("run", "runs", sa.select(r.c.entry_seq, r.c.run_id, r.c.revision, r.c.status)),
            ("source.snapshot", "source_snapshots", sa.select(
                s.c.entry_seq, (s.c.article_id + ":" + s.c.source_id), s.c.sha256)),
        ]
        found = [self._compare(conn, kind, table, query) for kind, table, query in checks]
        found.append(self._metrics(conn, m))
        problems = [p for p in found if p is not None]
        return min(problems) if problems else None

    def _compare(self, conn: Connection, kind: str, table: str, query: Any) -> tuple[int, str] | None:
        expected = dict(self.expected[kind])
        for row in conn.execute(query).all():
            seq, values = row[0], tuple(row[1:])
            if expected.pop(seq, None) != values:
                return seq, (f"entry {seq}: table {table} has a row {values} that its log "
                             "entry does not say (edited or invented)")
        if expected:
            seq = min(expected)
            return seq, f"entry {seq}: the {kind} it records has no row in table {table} (deleted)"
        return None

    def _metrics(self, conn: Connection, m: Any) -> tuple[int, str] | None:
        for row in conn.execute(sa.select(m.c.entry_seq, m.c.name, m.c.aggregation, m.c.value,
                                          m.c.run_id)).all():
            said = self.metrics.get(row.entry_seq, {}).get((row.name, row.aggregation))
            if said is None or float(said) != row.value:
                return row.entry_seq, (f"entry {row.entry_seq}: table run_metrics has "
                                       f"{row.run_id} {row.name} [{row.aggregation}] = "
                                       f"{row.value}, which its log entry does not say")
        return None
