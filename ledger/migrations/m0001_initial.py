"""Version 1: the log, its head, articles with their parts, and runs."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Connection

VERSION = 1
DESCRIPTION = "append-only log, articles (every version) with their parts, runs and run metrics"


def _article_part(meta: sa.MetaData, name: str, *columns: sa.Column) -> sa.Table:  # type: ignore[type-arg]
    return sa.Table(
        name, meta,
        sa.Column("pk", sa.Integer, primary_key=True),
        sa.Column("article_pk", sa.Integer, sa.ForeignKey("articles.pk"), nullable=False, index=True),
        sa.Column("article_id", sa.String, nullable=False, index=True),
        sa.Column("version", sa.Integer, nullable=False),
        *columns,
    )


def _log(meta: sa.MetaData) -> None:
    sa.Table("log_head", meta,
             sa.Column("id", sa.Integer, primary_key=True),
             sa.Column("size", sa.BigInteger, nullable=False),
             sa.Column("chain_hash", sa.String, nullable=False),
             sa.Column("updated_at", sa.String, nullable=False))
    sa.Table("log_entries", meta,
             sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
             sa.Column("kind", sa.String, nullable=False, index=True),
             sa.Column("subject", sa.String, nullable=False, index=True),
             sa.Column("recorded_at", sa.String, nullable=False),
             sa.Column("payload", sa.Text, nullable=False),
             sa.Column("leaf_hash", sa.String, nullable=False),
             sa.Column("chain_hash", sa.String, nullable=False))


def _articles(meta: sa.MetaData) -> None:
    sa.Table("articles", meta,
             sa.Column("pk", sa.Integer, primary_key=True),
             sa.Column("article_id", sa.String, nullable=False, index=True),
             sa.Column("version", sa.Integer, nullable=False),
             sa.Column("entry_seq", sa.BigInteger, nullable=False),
             sa.Column("digest", sa.String, nullable=False),
             sa.Column("title", sa.Text, nullable=False),
             sa.Column("status", sa.String, nullable=False),
             sa.Column("as_of_date", sa.Date, nullable=False),
             sa.Column("publication_date", sa.Date, nullable=False),
             sa.Column("recorded_at", sa.String, nullable=False),
             sa.UniqueConstraint("article_id", "version"))
    S, T, D, F, I, B = sa.String, sa.Text, sa.Date, sa.Float, sa.Integer, sa.Boolean  # noqa: E741
    _article_part(meta, "sources",
                  sa.Column("source_id", S, nullable=False, index=True),
                  sa.Column("url", T, nullable=False), sa.Column("title", T, nullable=False),
                  sa.Column("publisher", T, nullable=False), sa.Column("published_at", D),
                  sa.Column("retrieved_at", D, nullable=False),
                  sa.Column("is_primary", B, nullable=False))
    _article_part(meta, "facts",
                  sa.Column("fact_id", S, nullable=False), sa.Column("claim", T, nullable=False),
                  sa.Column("evidence_type", S, nullable=False),
                  sa.Column("source_ids", S, nullable=False))
    _article_part(meta, "inferences",
                  sa.Column("inference_id", S, nullable=False),
                  sa.Column("claim", T, nullable=False), sa.Column("label", T, nullable=False),
                  sa.Column("basis_fact_ids", S, nullable=False))
    _article_part(meta, "guardrails",
                  sa.Column("ordinal", I, nullable=False), sa.Column("guardrail_id", S),
                  sa.Column("status", S, nullable=False), sa.Column("rule_kind", S),
                  sa.Column("text", T, nullable=False))
    _article_part(meta, "measurements",
                  sa.Column("measurement_id", S, nullable=False),
                  sa.Column("metric", S, nullable=False), sa.Column("value", F, nullable=False),
                  sa.Column("unit", S, nullable=False),
                  sa.Column("run_id", S, nullable=False, index=True),
                  sa.Column("measured_at", D, nullable=False))
    _article_part(meta, "figures",
                  sa.Column("ordinal", I, nullable=False), sa.Column("text", T, nullable=False),
                  sa.Column("kind", S, nullable=False), sa.Column("value", F),
                  sa.Column("span_start", I, nullable=False), sa.Column("span_end", I, nullable=False),
                  sa.Column("line_no", I, nullable=False), sa.Column("col_no", I, nullable=False),
                  sa.Column("sentence", T), sa.Column("fact_id", S),
                  sa.Column("source_ids", S, nullable=False), sa.Column("metric", S),
                  sa.Column("measurement_id", S), sa.Column("run_id", S))
    dependencies = _article_part(meta, "dependencies",
                                 sa.Column("node", S, nullable=False),
                                 sa.Column("depends_on", S, nullable=False))
    sa.Index("ix_dependencies_depends_on", dependencies.c.depends_on)


def _runs(meta: sa.MetaData) -> None:
    sa.Table("runs", meta,
             sa.Column("pk", sa.Integer, primary_key=True),
             sa.Column("run_id", sa.String, nullable=False, index=True),
             sa.Column("revision", sa.Integer, nullable=False),
             sa.Column("status", sa.String, nullable=False),
             sa.Column("started_at", sa.String, nullable=False),
             sa.Column("ended_at", sa.String),
             sa.Column("git_commit", sa.String),
             sa.Column("git_dirty", sa.Boolean),
             sa.Column("verification_level", sa.String, nullable=False),
             sa.Column("entry_seq", sa.BigInteger, nullable=False),
             sa.UniqueConstraint("run_id", "revision"))
    sa.Table("run_metrics", meta,
             sa.Column("pk", sa.Integer, primary_key=True),
             sa.Column("run_id", sa.String, nullable=False, index=True),
             sa.Column("revision", sa.Integer, nullable=False),
             sa.Column("name", sa.String, nullable=False),
             sa.Column("aggregation", sa.String, nullable=False),
             sa.Column("value", sa.Float, nullable=False),
             sa.Column("unit", sa.String, nullable=False),
             sa.Column("sample_count", sa.Integer, nullable=False),
             sa.Column("entry_seq", sa.BigInteger, nullable=False),
             sa.UniqueConstraint("run_id", "name", "aggregation"))


def upgrade(conn: Connection) -> None:
    meta = sa.MetaData()
    _log(meta)
    _articles(meta)
    _runs(meta)
    meta.create_all(conn)
    # The head row exists from the start, so concurrent first appends lock it, never race to
    # insert it.
    conn.execute(meta.tables["log_head"].insert().values(
        id=1, size=0, chain_hash="0" * 64, updated_at=""))
