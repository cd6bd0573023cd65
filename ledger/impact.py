"""``ledger impact``: everything that depends on a source, fact, run or metric, transitively.

The graph is the ``dependencies`` table of the latest version of each article (see
:mod:`ledger.articles`): ``fig:3 -> F4 -> S4``, ``M1 -> run:<id>``. Impact walks the edges
backwards from the target and returns every figure (with its line, column and sentence, the
things to re-check), fact, inference, measurement and article it reaches.

Targets: ``S4`` / ``F4`` / ``I1`` / ``M1`` (in every article that has it, or in one article with
``ARTICLE_ID:S4``), a run id (or ``run:<id>``), ``<run id>/<metric>`` for one run metric, and
``scope:<metric>`` for a metric of an article's benchmark scope.
"""

from __future__ import annotations

import json
import logging
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection

from .articles import get_article, list_articles, metric_node, run_node
from .errors import ExtractError, NotFound
from .grounding import contains
from .sources import SnapshotStore
from .tables import (
    ArticleRow,
    DependencyRow,
    FigureRow,
    MeasurementRow,
    RunRow,
    SourceRow,
    SourceSnapshotRow,
    sql_table,
)

__all__ = ["ArticleImpact", "Impact", "changed_sources", "failed_sources", "impact",
           "stale_quotes"]

logger = logging.getLogger(__name__)

_LOCAL = re.compile(r"^[SFIMG][1-9][0-9]*$")
_GLOBAL = ("run:", "metric:", "scope:")


@dataclass
class ArticleImpact:
    """What depends on the target inside one article (its latest version)."""

    article_id: str
    version: int
    nodes: list[str] = field(default_factory=list)
    figures: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        kinds: dict[str, list[str]] = defaultdict(list)
        for node in self.nodes:
            if not node.startswith(("fig:", "run:", "metric:", "scope:")):
                kinds[{"F": "facts", "I": "inferences", "M": "measurements",
                       "S": "sources"}.get(node[0], "other")].append(node)
        return {"article_id": self.article_id, "version": self.version, **kinds,
                "figures": self.figures}


@dataclass
class Impact:
    target: str
    articles: list[ArticleImpact] = field(default_factory=list)
    snapshots: list[dict[str, Any]] = field(default_factory=list)

    @property
    def figure_count(self) -> int:
        return sum(len(a.figures) for a in self.articles)

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target, "figure_count": self.figure_count,
                "articles": [a.to_dict() for a in self.articles], "snapshots": self.snapshots}


def _node_for(conn: Connection, target: str) -> tuple[str, str | None]:
    """``(node, article_id or None)`` for a target as the user wrote it."""
    if ":" in target and _LOCAL.match(target.rsplit(":", 1)[1]) and not target.startswith(
            _GLOBAL):
        article_id, node = target.rsplit(":", 1)
        return node, article_id
    if _LOCAL.match(target) or target.startswith(_GLOBAL):
        return target, None
    if "/" in target:
        run_id, metric = target.split("/", 1)
        return metric_node(run_id, metric), None
    return run_node(target), None


def _reverse_walk(edges: list[tuple[str, str]], start: str) -> list[str]:
    dependents: dict[str, list[str]] = defaultdict(list)
    for node, depends_on in edges:
        dependents[depends_on].append(node)
    seen, queue = {start}, [start]
    while queue:
        for node in dependents.get(queue.pop(), []):
            if node not in seen:
                seen.add(node)
                queue.append(node)
    seen.discard(start)
    return sorted(seen, key=_order)


def _order(node: str) -> tuple[int, str, int]:
    prefix = node.split(":")[0] if ":" in node else node[0]
    number = re.search(r"(\d+)$", node)
    rank = ["S", "F", "I", "M", "fig"].index(prefix) if prefix in ("S", "F", "I", "M", "fig") else 9
    return rank, node.rstrip("0123456789"), int(number.group(1)) if number else 0


def _exists(conn: Connection, article_pk: int, node: str, edges: list[tuple[str, str]]) -> bool:
    if any(node in edge for edge in edges):
        return True
    if node.startswith("S"):
        t = sql_table(SourceRow)
        return conn.execute(sa.select(t.c.pk).where(
            t.c.article_pk == article_pk, t.c.source_id == node)).first() is not None
    return False


def _figures(conn: Connection, article_pk: int, nodes: list[str]) -> list[dict[str, Any]]:
    ordinals = [int(n.split(":")[1]) for n in nodes if n.startswith("fig:")]
    if not ordinals:
        return []
    t = sql_table(FigureRow)
    rows = conn.execute(sa.select(t).where(t.c.article_pk == article_pk, t.c.ordinal.in_(ordinals))
                        .order_by(t.c.ordinal)).all()
    return [{"ordinal": r.ordinal, "text": r.text, "kind": r.kind, "line": r.line_no,
             "column": r.col_no, "sentence": r.sentence, "fact_id": r.fact_id,
             "source_ids": json.loads(r.source_ids), "metric": r.metric,
             "run_id": r.run_id, "traces": json.loads(r.traces) if r.traces else None}
            for r in rows]


def _target_known(conn: Connection, node: str) -> bool:
    if node.startswith("run:"):
        t = sql_table(RunRow)
        return conn.execute(sa.select(t.c.pk).where(t.c.run_id == node[4:])).first() is not None
    if node.startswith("metric:"):
        run_id, metric = node[7:].split("/", 1)
        t = sql_table(MeasurementRow)
        return conn.execute(sa.select(t.c.pk).where(t.c.run_id == run_id,
                                                    t.c.metric == metric)).first() is not None
    return False


def impact(conn: Connection, target: str) -> Impact:
    """Everything that depends on ``target`` in the latest version of every article.

    Raises :class:`NotFound` when no article (and no run) knows the target.
    """
    node, only_article = _node_for(conn, target)
    result = Impact(target)
    latest = {v.article_id: v for v in list_articles(conn)}
    pks = _latest_pks(conn)
    d = sql_table(DependencyRow)
    for article_id, version in latest.items():
        if only_article is not None and article_id != only_article:
            continue
        pk = pks[article_id]
        edges = [(r.node, r.depends_on) for r in conn.execute(
            sa.select(d.c.node, d.c.depends_on).where(d.c.article_pk == pk)).all()]
        if not _exists(conn, pk, node, edges):
            continue
        nodes = _reverse_walk(edges, node)
        result.articles.append(ArticleImpact(article_id, version.version, nodes,
                                             _figures(conn, pk, nodes)))
    if not result.articles and not _target_known(conn, node):
        where = f" in article {only_article}" if only_article else ""
        raise NotFound(f"nothing in the ledger is or depends on {target!r}{where}")
    if node.startswith("S"):
        result.snapshots = [s for s in changed_sources(conn, include_unchanged=True)
                            if s["source_id"] == node
                            and any(a.article_id == s["article_id"] for a in result.articles)]
    return result


def _latest_pks(conn: Connection) -> dict[str, int]:
    t = sql_table(ArticleRow)
    latest = (sa.select(t.c.article_id, sa.func.max(t.c.version).label("version"))
              .group_by(t.c.article_id).subquery())
    rows = conn.execute(sa.select(t.c.article_id, t.c.pk).join(latest, sa.and_(
        t.c.article_id == latest.c.article_id, t.c.version == latest.c.version))).all()
    return {r.article_id: r.pk for r in rows}


def changed_sources(conn: Connection, *, include_unchanged: bool = False) -> list[dict[str, Any]]:
    """The latest good snapshot of each fetched source; only those marked changed by default.

    A failed fetch does not hide an earlier change: failures are in :func:`failed_sources`.
    """
    t = sql_table(SourceSnapshotRow)
    latest = (sa.select(sa.func.max(t.c.pk).label("pk")).where(t.c.error.is_(None))
              .group_by(t.c.article_id, t.c.source_id).subquery())
    rows = conn.execute(sa.select(t).where(t.c.pk.in_(sa.select(latest.c.pk)))
                        .order_by(t.c.article_id, t.c.source_id)).all()
    return [{"article_id": r.article_id, "source_id": r.source_id, "url": r.url,
             "sha256": r.sha256, "previous_sha256": r.previous_sha256, "changed": r.changed,
             "retrieved_at": r.retrieved_at, "entry_seq": r.entry_seq}
            for r in rows if include_unchanged or r.changed]


def failed_sources(conn: Connection) -> list[dict[str, Any]]:
    """Sources whose latest fetch failed: whether they changed since is unknown."""
    t = sql_table(SourceSnapshotRow)
    latest = (sa.select(sa.func.max(t.c.pk).label("pk"))
              .group_by(t.c.article_id, t.c.source_id).subquery())
    rows = conn.execute(sa.select(t).where(t.c.pk.in_(sa.select(latest.c.pk)),
                                           t.c.error.is_not(None))
                        .order_by(t.c.article_id, t.c.source_id)).all()
    return [{"article_id": r.article_id, "source_id": r.source_id, "url": r.url,
             "error": r.error, "retrieved_at": r.retrieved_at} for r in rows]


def stale_quotes(conn: Connection, store: SnapshotStore) -> list[dict[str, Any]]:
    """Quotes found in the snapshot taken at retrieval and gone from the latest one, with the
    facts they support (latest version of each article)."""
    from .snapshots import ledger_lookup, snapshot_rows

    lookup = ledger_lookup(conn, store)
    stale = []
    for article_id, source_id in sorted(snapshot_rows(conn)):
        try:
            article = get_article(conn, article_id)
        except NotFound:
            continue
        source = next((s for s in article.sources if s.id == source_id), None)
        quoted = [(f, q) for f in article.facts for q in f.quotes or [] if q.source_id == source_id]
        if source is None or not quoted:
            continue
        try:
            snaps = lookup(article_id, source)
        except ExtractError as exc:
            logger.warning("%s:%s: %s", article_id, source_id, exc)
            continue
        if snaps is None or snaps.latest is snaps.at_retrieval:
            continue
        for fact, quote in quoted:
            if (contains(snaps.at_retrieval.normalized, quote.text)
                    and not contains(snaps.latest.normalized, quote.text)):
                stale.append({"article_id": article_id, "source_id": source_id,
                              "fact_id": fact.id, "quote": quote.text,
                              "retrieved_at": snaps.at_retrieval.retrieved_at,
                              "latest_at": snaps.latest.retrieved_at})
    return stale
