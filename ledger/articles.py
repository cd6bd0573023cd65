"""Articles in the ledger: every version, its parts, its figures and their dependencies.

Ingesting an article appends one ``article`` log entry holding the whole document (the
authoritative copy) and inserts projection rows for queries: sources, facts, inferences,
guardrails, measurements, the body's figures with what each traced to, and dependency edges
(``fig:3 -> F4``, ``F4 -> S4``, ``M1 -> run:<id>``). A new version never changes an old one.

Figures depend on the evidence they trace to (:func:`ledger.verify.tracing.trace_figures`) and
on the sources cited in their paragraph: the desk closes each paragraph with its ``[S#]``
markers, so a figure in that paragraph rests on those sources even when it traces to a
benchmark-scope metric rather than to a fact.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy import Connection

from .errors import DatabaseError, NotFound
from .log import Appender, canonical_json
from .models import Article
from .tables import (
    ArticleRow,
    DependencyRow,
    FactRow,
    FigureRow,
    GuardrailRow,
    InferenceRow,
    LogEntry,
    MeasurementRow,
    SourceRow,
    sql_table,
)
from .verify.text import line_col
from .verify.tracing import TracedFigure, trace_figures

if TYPE_CHECKING:
    from .db import Ledger

__all__ = [
    "ArticleVersion",
    "IngestResult",
    "article_history",
    "document_digest",
    "figure_node",
    "get_article",
    "ingest_article",
    "json_diff",
    "list_articles",
    "load_entry",
    "metric_node",
    "paragraph_citations",
    "projection_rows",
    "run_node",
]

_ARTICLES = sql_table(ArticleRow)
_CITATION = re.compile(r"\[(S[0-9]+)\]")


@dataclass(frozen=True)
class IngestResult:
    article_id: str
    version: int
    entry_seq: int
    digest: str
    unchanged: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"article_id": self.article_id, "version": self.version,
                "entry_seq": self.entry_seq, "digest": self.digest, "unchanged": self.unchanged}


@dataclass
class ArticleVersion:
    """One stored version: its metadata, and its differences from the version before."""

    article_id: str
    version: int
    entry_seq: int
    digest: str
    title: str
    status: str
    recorded_at: str
    changes: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"article_id": self.article_id, "version": self.version,
                "entry_seq": self.entry_seq, "digest": self.digest, "title": self.title,
                "status": self.status, "recorded_at": self.recorded_at, "changes": self.changes}


def figure_node(ordinal: int) -> str:
    return f"fig:{ordinal}"


def run_node(run_id: str) -> str:
    return f"run:{run_id}"


def metric_node(run_id: str, metric: str) -> str:
    return f"metric:{run_id}/{metric}"


def document_digest(document: dict[str, Any]) -> str:
    """sha256 of the document's RFC 8785 canonical JSON."""
    return hashlib.sha256(canonical_json(document)).hexdigest()


def _row_version(row: Any) -> ArticleVersion:
    return ArticleVersion(row.article_id, row.version, row.entry_seq, row.digest, row.title,
                          row.status, row.recorded_at)


def _latest_row(conn: Connection, article_id: str) -> Any:
    t = _ARTICLES
    return conn.execute(sa.select(t).where(t.c.article_id == article_id)
                        .order_by(t.c.version.desc()).limit(1)).first()


def ingest_article(ledger: Ledger, article: Article) -> IngestResult:
    """Store ``article`` as its next version; an identical document is not stored again.

    The caller decides whether an article with verification errors may be stored.
    Raises :class:`DatabaseError`.
    """
    document = article.to_json_dict()
    digest = document_digest(document)
    # project from the document as the log holds it (RFC 8785 sorts object keys), so that an
    # audit rebuilding the rows from the log gets them in the same order
    article = Article.model_validate_json(canonical_json(document))
    with ledger.write() as app:
        latest = _latest_row(app.conn, article.id)
        if latest is not None and latest.digest == digest:
            return IngestResult(article.id, latest.version, latest.entry_seq, digest, True)
        version = 1 if latest is None else latest.version + 1
        seq = app.append("article", article.id,
                         {"version": version, "digest": digest, "document": document})
        _project(app, article, version, seq, digest)
    return IngestResult(article.id, version, seq, digest)


def projection_rows(article: Article, version: int, seq: int, digest: str,
                    recorded_at: str) -> dict[sa.Table, list[dict[str, Any]]]:
    """Every projection row one article version produces, by table (the ``articles`` row
    first, the per-version parts without their ``article_pk``). Ingest inserts these; an
    audit rebuilds them from the log entry and compares them with the stored rows."""
    rows: dict[sa.Table, list[dict[str, Any]]] = {_ARTICLES: [{
        "article_id": article.id, "version": version, "entry_seq": seq, "digest": digest,
        "title": article.title, "status": article.status.value,
        "as_of_date": article.as_of_date, "publication_date": article.publication_date,
        "recorded_at": recorded_at}]}
    key = {"article_id": article.id, "version": version}
    parts = _part_rows(article)
    traced = trace_figures(article)
    parts[sql_table(FigureRow)] = [_figure_row(article, i, t) for i, t in enumerate(traced, 1)]
    parts[sql_table(DependencyRow)] = [{"node": a, "depends_on": b}
                                      for a, b in sorted(_edges(article, traced))]
    for table, values in parts.items():
        rows[table] = [key | v for v in values]
    return rows


def _project(app: Appender, article: Article, version: int, seq: int, digest: str) -> None:
    conn = app.conn
    rows = projection_rows(article, version, seq, digest, _entry_time(conn, seq))
    result = conn.execute(sa.insert(_ARTICLES).values(**rows.pop(_ARTICLES)[0]))
    inserted = result.inserted_primary_key
    if inserted is None:  # pragma: no cover - every supported dialect returns the key
        raise DatabaseError("the database did not return the new article row's key")
    for table, values in rows.items():
        if values:
            conn.execute(sa.insert(table), [{"article_pk": inserted[0]} | v for v in values])


def _entry_time(conn: Connection, seq: int) -> str:
    t = sql_table(LogEntry)
    return str(conn.execute(sa.select(t.c.recorded_at).where(t.c.seq == seq)).scalar_one())


def _part_rows(article: Article) -> dict[sa.Table, list[dict[str, Any]]]:
    return {
        sql_table(SourceRow): [
            {"source_id": s.id, "url": s.url, "title": s.title, "publisher": s.publisher,
             "published_at": s.published_at, "retrieved_at": s.retrieved_at,
             "is_primary": s.primary} for s in article.sources],
        sql_table(FactRow): [
            {"fact_id": f.id, "claim": f.claim, "evidence_type": f.evidence_type.value,
             "source_ids": json.dumps(f.source_ids)} for f in article.facts],
        sql_table(InferenceRow): [
            {"inference_id": i.id, "claim": i.claim, "label": i.label,
             "basis_fact_ids": json.dumps(i.basis_fact_ids)} for i in article.inferences],
        sql_table(GuardrailRow): [
            {"ordinal": n, "guardrail_id": c.id, "status": c.status.value,
             "rule_kind": c.rule.kind if c.rule else None, "text": c.text}
            for n, c in enumerate(article.corrections, 1)],
        sql_table(MeasurementRow): [
            {"measurement_id": m.id, "metric": m.metric, "value": m.value, "unit": m.unit,
             "run_id": m.run_id, "measured_at": m.measured_at}
            for m in article.measurements or []],
    }


def paragraph_citations(body: str, offset: int) -> list[str]:
    """Source ids cited (``[S#]``) in the paragraph of ``body`` that holds ``offset``."""
    start = body.rfind("\n\n", 0, offset)
    end = body.find("\n\n", offset)
    paragraph = body[start + 2 if start >= 0 else 0: end if end >= 0 else len(body)]
    return list(dict.fromkeys(_CITATION.findall(paragraph)))


def _sentence(body: str, start: int, end: int) -> str:
    left = max(body.rfind(". ", 0, start), body.rfind("\n", 0, start))
    right_candidates = [i for i in (body.find(". ", end), body.find("\n", end)) if i >= 0]
    right = min(right_candidates) + 1 if right_candidates else len(body)
    return body[left + 1 if left >= 0 else 0: right].strip()


def _figure_row(article: Article, ordinal: int, traced: TracedFigure) -> dict[str, Any]:
    fig = traced.figure
    line, col = line_col(article.body, fig.start)
    first = next((t for t in traced.traces if t.fact_id), None)
    sources = sorted({s for t in traced.traces for s in t.source_ids}
                     | set(paragraph_citations(article.body, fig.start)))
    def pick(attr: str) -> Any:
        return next((getattr(t, attr) for t in traced.traces if getattr(t, attr)), None)

    return {"ordinal": ordinal, "text": fig.text, "kind": fig.kind.value,
            "value": float(fig.value) if fig.value is not None else None,
            "span_start": fig.start, "span_end": fig.end, "line_no": line, "col_no": col,
            "sentence": _sentence(article.body, fig.start, fig.end),
            "fact_id": first.fact_id if first else None, "source_ids": json.dumps(sources),
            "metric": pick("metric"), "measurement_id": pick("measurement_id"),
            "run_id": pick("run_id"), "traces": json.dumps([t.to_dict() for t in traced.traces])}


def _edges(article: Article, traced: list[TracedFigure]) -> set[tuple[str, str]]:
    edges: set[tuple[str, str]] = set()
    for f in article.facts:
        edges |= {(f.id, s) for s in f.source_ids} | {(f.id, m) for m in f.measurement_ids or []}
    for i in article.inferences:
        edges |= {(i.id, f) for f in i.basis_fact_ids}
    for m in article.measurements or []:
        edges |= {(m.id, run_node(m.run_id)), (m.id, metric_node(m.run_id, m.metric))}
    for n, t in enumerate(traced, 1):
        node = figure_node(n)
        edges |= {(node, s) for s in paragraph_citations(article.body, t.figure.start)}
        for trace in t.traces:
            targets = [trace.fact_id, trace.inference_id, trace.measurement_id, *trace.source_ids]
            if trace.run_id:
                targets.append(run_node(trace.run_id))
            if trace.metric:
                targets.append(f"scope:{trace.metric}")
            edges |= {(node, x) for x in targets if x}
    return edges


def load_entry(conn: Connection, seq: int) -> dict[str, Any]:
    """The decoded payload of log entry ``seq``. Raises :class:`NotFound`."""
    t = sql_table(LogEntry)
    payload = conn.execute(sa.select(t.c.payload).where(t.c.seq == seq)).scalar_one_or_none()
    if payload is None:
        raise NotFound(f"no log entry {seq}")
    return dict(json.loads(payload))


def _version_row(conn: Connection, article_id: str, version: int | None) -> Any:
    if version is None:
        row = _latest_row(conn, article_id)
    else:
        t = _ARTICLES
        row = conn.execute(sa.select(t).where(t.c.article_id == article_id,
                                              t.c.version == version)).first()
    if row is None:
        which = "" if version is None else f" version {version}"
        raise NotFound(f"no article {article_id!r}{which} in the ledger")
    return row


def _document(conn: Connection, row: Any) -> dict[str, Any]:
    return dict(load_entry(conn, row.entry_seq)["data"]["document"])


def get_article(conn: Connection, article_id: str, version: int | None = None) -> Article:
    """The stored document, validated again. Raises :class:`NotFound`."""
    row = _version_row(conn, article_id, version)
    return Article.model_validate_json(json.dumps(_document(conn, row)))


def article_history(conn: Connection, article_id: str) -> list[ArticleVersion]:
    """Every version, oldest first, each with its changes from the one before."""
    t = _ARTICLES
    rows = conn.execute(sa.select(t).where(t.c.article_id == article_id)
                        .order_by(t.c.version)).all()
    if not rows:
        raise NotFound(f"no article {article_id!r} in the ledger")
    versions, previous = [], None
    for row in rows:
        entry = load_entry(conn, row.entry_seq)
        document = dict(entry["data"]["document"])
        version = _row_version(row)
        # what a reader is shown comes from the logged entry, not from the table row
        version.title, version.status = document["title"], document["status"]
        version.recorded_at, version.digest = entry["recorded_at"], entry["data"]["digest"]
        version.changes = json_diff(previous, document) if previous is not None else []
        versions.append(version)
        previous = document
    return versions


def list_articles(conn: Connection) -> list[ArticleVersion]:
    t = _ARTICLES
    latest = (sa.select(t.c.article_id, sa.func.max(t.c.version).label("version"))
              .group_by(t.c.article_id).subquery())
    rows = conn.execute(sa.select(t).join(latest, sa.and_(
        t.c.article_id == latest.c.article_id, t.c.version == latest.c.version))
        .order_by(t.c.article_id)).all()
    return [_row_version(r) for r in rows]


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def json_diff(old: Any, new: Any, pointer: str = "") -> list[dict[str, Any]]:
    """Differences as ``{"op": "add"|"remove"|"replace", "path": pointer, ...}`` (RFC 6902 ops)."""
    return list(_diff(old, new, pointer))


def _diff(old: Any, new: Any, pointer: str) -> Iterator[dict[str, Any]]:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(old.keys() | new.keys()):
            path = f"{pointer}/{_escape(key)}"
            if key not in new:
                yield {"op": "remove", "path": path, "old": old[key]}
            elif key not in old:
                yield {"op": "add", "path": path, "value": new[key]}
            else:
                yield from _diff(old[key], new[key], path)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new)):
            yield from _diff(a, b, f"{pointer}/{i}")
    elif old != new:
        yield {"op": "replace", "path": pointer, "old": old, "value": new}
