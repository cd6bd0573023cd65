"""Cross-checks between the log and every query table built from it.

The log is authoritative; every other table (``articles`` and the per-version parts --
``sources``, ``facts``, ``inferences``, ``guardrails``, ``measurements``, ``figures``,
``dependencies`` -- plus ``runs``, ``run_metrics`` and ``source_snapshots``) is a projection
of it. An audit feeds every verified entry to :class:`ProjectionCheck`, which

* recomputes each article entry's digest from the document it holds (a version whose
  document was swapped while it kept an older digest is caught), and checks that versions
  count up from 1;
* rebuilds, from the entry alone, every row that entry projects, with the same functions
  ingest and run recording use (:func:`ledger.articles.projection_rows`,
  :func:`ledger.runs.run_projection_rows`, :func:`snapshot_row`);

and :meth:`ProjectionCheck.finish` then compares those rows, column by column, with the stored
ones. A row edited, deleted or invented behind the log's back is reported with the entry it
contradicts and the column that differs.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from pydantic import ValidationError
from sqlalchemy import Connection

from .articles import document_digest, projection_rows
from .models import Article, Run
from .runs import run_projection_rows
from .tables import (
    ArticleRow,
    DependencyRow,
    FactRow,
    FigureRow,
    GuardrailRow,
    InferenceRow,
    MeasurementRow,
    RunMetricRow,
    RunRow,
    SourceRow,
    SourceSnapshotRow,
    sql_table,
)

__all__ = ["ProjectionCheck", "snapshot_row"]

#: Surrogate keys: assigned by the database, not by the log.
_SURROGATE = frozenset({"pk", "article_pk"})
#: Tables whose rows belong to an article version (keyed by article id and version).
_ARTICLE_PARTS = [sql_table(t) for t in (SourceRow, FactRow, InferenceRow, GuardrailRow,
                                         MeasurementRow, FigureRow, DependencyRow)]
_ENTRY_TABLES = [sql_table(t) for t in (ArticleRow, RunRow, RunMetricRow, SourceSnapshotRow)]

Problem = tuple[int, str]


def snapshot_row(data: dict[str, Any], seq: int) -> dict[str, Any]:
    """The ``source_snapshots`` row of one ``source.snapshot`` entry's data."""
    columns = [c.name for c in sql_table(SourceSnapshotRow).columns if c.name not in _SURROGATE]
    return {c: data.get(c) for c in columns if c != "entry_seq"} | {"entry_seq": seq}


def _norm(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    return value


def _columns(table: sa.Table) -> list[str]:
    return [c.name for c in table.columns if c.name not in _SURROGATE]


def _row_tuple(table: sa.Table, row: Any) -> tuple[Any, ...]:
    get = row.get if isinstance(row, dict) else row._mapping.get
    return tuple(_norm(get(c)) for c in _columns(table))


class ProjectionCheck:
    """Collects what each entry says (:meth:`visit`), then compares the tables (:meth:`finish`)."""

    def __init__(self) -> None:
        #: table name -> entry seq -> the rows that entry projects
        self.expected: dict[str, dict[int, list[tuple[Any, ...]]]] = defaultdict(dict)
        #: (article id, version) -> entry seq
        self.versions: dict[tuple[str, int], int] = {}
        self._latest_version: dict[str, int] = {}
        self._run_metric_keys: dict[str, set[tuple[str, str]]] = {}
        self.problem: Problem | None = None

    def _fail(self, seq: int, text: str) -> None:
        if self.problem is None:
            self.problem = (seq, f"entry {seq}: {text}")

    def _expect(self, seq: int, rows: dict[sa.Table, list[dict[str, Any]]]) -> None:
        for table, values in rows.items():
            self.expected[table.name][seq] = [_row_tuple(table, v) for v in values]

    def visit(self, seq: int, body: dict[str, Any]) -> None:
        kind, data = body.get("kind"), body.get("data") or {}
        try:
            if kind == "article":
                self._article(seq, body, data)
            elif kind == "run":
                self._run(seq, data)
            elif kind == "source.snapshot":
                self._expect(seq, {sql_table(SourceSnapshotRow): [snapshot_row(data, seq)]})
        except (KeyError, TypeError, ValueError, ValidationError) as exc:
            self._fail(seq, f"its {kind} record cannot be read ({type(exc).__name__}: "
                            f"{str(exc).splitlines()[0]})")

    def _article(self, seq: int, body: dict[str, Any], data: dict[str, Any]) -> None:
        document, subject = data["document"], body["subject"]
        digest, version = data["digest"], data["version"]
        if document_digest(document) != digest:
            self._fail(seq, f"article {subject} version {version}: its document does not hash "
                            f"to the digest it records (sha256:{str(digest)[:16]}...); the "
                            "version was forged or altered")
        expected_version = self._latest_version.get(subject, 0) + 1
        if version != expected_version:
            self._fail(seq, f"article {subject}: records version {version} where version "
                            f"{expected_version} comes next")
        self._latest_version[subject] = max(version, self._latest_version.get(subject, 0))
        article = Article.model_validate_json(json.dumps(document))
        if article.id != subject:
            self._fail(seq, f"article {subject}: its document has id {article.id}")
        self.versions[(subject, version)] = seq
        self._expect(seq, projection_rows(article, version, seq, digest, body["recorded_at"]))

    def _run(self, seq: int, data: dict[str, Any]) -> None:
        run = Run.model_validate_json(json.dumps(data["run"]))
        seen = self._run_metric_keys.setdefault(run.id, set())
        new = [m for m in run.metrics if m.key not in seen]
        seen.update(m.key for m in new)
        self._expect(seq, run_projection_rows(run, int(data["revision"]), seq, new))

    # --- comparing ------------------------------------------------------------------------

    def finish(self, conn: Connection) -> Problem | None:
        """``(entry, problem)`` for the first disagreement (lowest entry), or None."""
        found = [self.problem]
        for table in _ENTRY_TABLES:
            found.append(self._compare(conn, table, self._by_entry(conn, table)))
        for table in _ARTICLE_PARTS:
            found.append(self._compare(conn, table, self._by_version(conn, table)))
        problems = [p for p in found if p is not None]
        return min(problems) if problems else None

    @staticmethod
    def _by_entry(conn: Connection, table: sa.Table) -> dict[int | None, list[tuple[Any, ...]]]:
        stored: dict[int | None, list[tuple[Any, ...]]] = defaultdict(list)
        for row in conn.execute(sa.select(table)).all():
            stored[row._mapping["entry_seq"]].append(_row_tuple(table, row))
        return stored

    def _by_version(self, conn: Connection,
                    table: sa.Table) -> dict[int | None, list[tuple[Any, ...]]]:
        stored: dict[int | None, list[tuple[Any, ...]]] = defaultdict(list)
        for row in conn.execute(sa.select(table)).all():
            key = (row._mapping["article_id"], row._mapping["version"])
            stored[self.versions.get(key)].append(_row_tuple(table, row))
        return stored

    def _compare(self, conn: Connection, table: sa.Table,
                 stored: dict[int | None, list[tuple[Any, ...]]]) -> Problem | None:
        expected = self.expected.get(table.name, {})
        for seq in sorted(set(expected) | {s for s in stored if s is not None}):
            problem = _compare_rows(table, seq, expected.get(seq, []), stored.get(seq, []))
            if problem is not None:
                return seq, problem
        orphans = stored.get(None)
        if orphans:
            seq = max(self.versions.values(), default=0)
            return seq, (f"table {table.name} has {len(orphans)} row(s) that no log entry "
                         f"records (invented), e.g. {_describe(table, orphans[0])}")
        return None


def _describe(table: sa.Table, row: tuple[Any, ...], limit: int = 4) -> str:
    pairs = [f"{c}={v!r}" for c, v in zip(_columns(table), row) if v is not None][:limit]
    return ", ".join(pairs)


def _compare_rows(table: sa.Table, seq: int, expected: list[tuple[Any, ...]],
                  stored: list[tuple[Any, ...]]) -> str | None:
    """What differs between the rows entry ``seq`` projects and the rows stored for it."""
    missing = list(expected)
    extra = []
    for row in stored:
        if row in missing:
            missing.remove(row)
        else:
            extra.append(row)
    if not missing and not extra:
        return None
    where = f"entry {seq}: table {table.name}"
    if extra and missing:
        return f"{where}: {_column_diff(table, missing, extra[0])} (edited)"
    if missing:
        return (f"{where}: {len(missing)} row(s) the log entry records are missing "
                f"(deleted), e.g. {_describe(table, missing[0])}")
    return (f"{where}: {len(extra)} row(s) that its log entry does not say (invented), "
            f"e.g. {_describe(table, extra[0])}")


def _column_diff(table: sa.Table, candidates: list[tuple[Any, ...]], row: tuple[Any, ...]) -> str:
    """Name the columns where ``row`` differs from the closest expected row."""
    columns = _columns(table)
    best = max(candidates, key=lambda c: sum(a == b for a, b in zip(c, row)))
    diffs = [f"{c} is {b!r} where the log says {a!r}"
             for c, a, b in zip(columns, best, row) if a != b]
    return "; ".join(diffs[:3])
