"""``ledger export --format prov-json``: the ledger as a W3C PROV graph (the ``prov`` package).

* each run is an activity (start and end time, status, git commit) that ``used`` its inputs
  (by digest) and generated its metrics and outputs;
* each article's latest version is an entity and a collection whose members are its figures;
* each figure is an entity ``wasDerivedFrom`` the sources it rests on and, when it traces to a
  ledger measurement, ``wasGeneratedBy`` the run that measured it;
* each source is an entity with its URL and retrieval date; each fetch of it is an entity
  ``wasDerivedFrom`` the source, with the body's sha256.
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from prov.model import PROV_TYPE, ProvDocument
from sqlalchemy import Connection

from .runs import list_runs
from .tables import ArticleRow, FigureRow, SourceRow, SourceSnapshotRow, sql_table

__all__ = ["NAMESPACE", "build_document", "export_prov_json"]

#: The namespace of ledger identifiers (``.invalid``: a name, not a place to fetch).
NAMESPACE = "https://kv-evidence-ledger.invalid/id/"


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def _add_runs(doc: ProvDocument, conn: Connection) -> None:
    for run in list_runs(conn):
        activity = doc.activity(f"ledger:run/{_safe(run.id)}", run.started_at, run.ended_at, {
            "ledger:status": run.status.value, "ledger:git_commit": run.git_commit or "",
            "ledger:git_dirty": bool(run.git_dirty), "ledger:command": " ".join(run.command),
            "ledger:verification_level": run.verification_level.value})
        for name, digest in run.inputs.items():
            doc.used(activity, doc.entity(f"ledger:blob/{_safe(digest)}",
                                          {"ledger:name": name, "ledger:digest": digest}))
        for name, digest in run.outputs.items():
            doc.wasGeneratedBy(doc.entity(f"ledger:blob/{_safe(digest)}",
                                          {"ledger:name": name, "ledger:digest": digest}), activity)
        for m in run.metrics:
            metric = doc.entity(f"ledger:metric/{_safe(run.id)}/{m.name}/{_safe(m.aggregation)}", {
                "ledger:value": m.value, "ledger:unit": m.unit,
                "ledger:aggregation": m.aggregation, "ledger:sample_count": m.sample_count})
            doc.wasGeneratedBy(metric, activity)


def _latest_articles(conn: Connection) -> list[Any]:
    t = sql_table(ArticleRow)
    latest = (sa.select(t.c.article_id, sa.func.max(t.c.version).label("version"))
              .group_by(t.c.article_id).subquery())
    return list(conn.execute(sa.select(t).join(latest, sa.and_(
        t.c.article_id == latest.c.article_id, t.c.version == latest.c.version))
        .order_by(t.c.article_id)).all())


def _add_article(doc: ProvDocument, conn: Connection, row: Any) -> None:
    aid = _safe(row.article_id)
    article = doc.entity(f"ledger:article/{aid}/v{row.version}", {
        PROV_TYPE: "prov:Collection", "ledger:title": row.title,
        "ledger:digest": f"sha256:{row.digest}", "ledger:log_entry": row.entry_seq})
    s, f = sql_table(SourceRow), sql_table(FigureRow)
    for src in conn.execute(sa.select(s).where(s.c.article_pk == row.pk)).all():
        doc.entity(f"ledger:source/{aid}/{src.source_id}", {
            "prov:location": src.url, "ledger:title": src.title,
            "ledger:retrieved_at": src.retrieved_at.isoformat()})
    for fig in conn.execute(sa.select(f).where(f.c.article_pk == row.pk).order_by(f.c.ordinal)):
        entity = doc.entity(f"ledger:figure/{aid}/v{row.version}/{fig.ordinal}", {
            "prov:value": fig.text, "ledger:kind": fig.kind,
            "ledger:line": fig.line_no, "ledger:column": fig.col_no})
        doc.hadMember(article, entity)
        for source_id in json.loads(fig.source_ids):
            doc.wasDerivedFrom(entity, f"ledger:source/{aid}/{source_id}")
        if fig.run_id:
            doc.wasGeneratedBy(entity, f"ledger:run/{_safe(fig.run_id)}")


def _add_snapshots(doc: ProvDocument, conn: Connection) -> None:
    t = sql_table(SourceSnapshotRow)
    for snap in conn.execute(sa.select(t).where(t.c.sha256.is_not(None)).order_by(t.c.pk)):
        entity = doc.entity(f"ledger:snapshot/{snap.pk}", {
            "ledger:sha256": snap.sha256, "ledger:retrieved_at": snap.retrieved_at,
            "ledger:changed": bool(snap.changed)})
        doc.wasDerivedFrom(entity, f"ledger:source/{_safe(snap.article_id)}/{snap.source_id}")


def build_document(conn: Connection) -> ProvDocument:
    """The whole ledger as one PROV document."""
    doc = ProvDocument()
    doc.add_namespace("ledger", NAMESPACE)
    _add_runs(doc, conn)
    for row in _latest_articles(conn):
        _add_article(doc, conn, row)
    _add_snapshots(doc, conn)
    return doc


def export_prov_json(conn: Connection) -> str:
    """PROV-JSON text of :func:`build_document`."""
    return str(build_document(conn).serialize(format="json", indent=2))


