"""SQLModel tables of the ledger database, separate from the pydantic I/O models.

The authoritative record is :class:`LogEntry`: every write appends one entry whose ``payload`` is
RFC 8785 canonical JSON (see :mod:`ledger.log`). Every other table is a queryable projection of
log entries: each row names the ``entry_seq`` that produced it, rows are only ever inserted, and a
correction is a new row (a new article version, a new run revision) that supersedes the old one.
:class:`LogHead` is the single row that appends lock and advance.

The tables live in their own registry (:data:`metadata`) so that nothing else that uses SQLModel
in the same process can collide with them. The DDL that creates them is in
:mod:`ledger.migrations`; a test pins that the two agree.
"""

from __future__ import annotations

import datetime as dt
from typing import cast

import sqlalchemy as sa
from sqlalchemy import BigInteger, Column, Index, Text, UniqueConstraint
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

__all__ = [
    "ArticleRow",
    "DependencyRow",
    "FactRow",
    "FigureRow",
    "GuardrailRow",
    "InferenceRow",
    "LogEntry",
    "LogHead",
    "MeasurementRow",
    "RunMetricRow",
    "RunRow",
    "SchemaVersion",
    "SourceRow",
    "SourceSnapshotRow",
    "Table",
    "metadata",
    "sql_table",
]


class Table(SQLModel, registry=registry()):
    """Base of the ledger's tables (their own metadata, not SQLModel's global one)."""


metadata = Table.metadata


def _text() -> Column:  # type: ignore[type-arg]
    return Column(Text, nullable=False)


def _text_null() -> Column:  # type: ignore[type-arg]
    return Column(Text, nullable=True)


class SchemaVersion(Table, table=True):
    __tablename__ = "ledger_schema_version"
    id: int = Field(primary_key=True)
    version: int
    applied_at: str


class LogHead(Table, table=True):
    """The one row (id 1) holding the log's size and chain head; appends lock it."""

    __tablename__ = "log_head"
    id: int = Field(primary_key=True)
    size: int = Field(sa_column=Column(BigInteger, nullable=False))
    chain_hash: str
    updated_at: str


class LogEntry(Table, table=True):
    """One append-only log entry. ``payload`` is the exact canonical JSON that was hashed."""

    __tablename__ = "log_entries"
    seq: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    kind: str = Field(index=True)
    subject: str = Field(index=True)
    recorded_at: str
    payload: str = Field(sa_column=_text())
    leaf_hash: str
    chain_hash: str


class _ArticlePart(Table):
    """Columns every per-article-version row carries."""

    pk: int | None = Field(default=None, primary_key=True)
    article_pk: int = Field(foreign_key="articles.pk", index=True)
    article_id: str = Field(index=True)
    version: int


class ArticleRow(Table, table=True):
    """One stored version of an article; the document itself is the log entry's payload."""

    __tablename__ = "articles"
    __table_args__ = (UniqueConstraint("article_id", "version"),)
    pk: int | None = Field(default=None, primary_key=True)
    article_id: str = Field(index=True)
    version: int
    entry_seq: int = Field(sa_column=Column(BigInteger, nullable=False))
    digest: str
    title: str = Field(sa_column=_text())
    status: str
    as_of_date: dt.date
    publication_date: dt.date
    recorded_at: str


class SourceRow(_ArticlePart, table=True):
    __tablename__ = "sources"
    source_id: str = Field(index=True)
    url: str = Field(sa_column=_text())
    title: str = Field(sa_column=_text())
    publisher: str = Field(sa_column=_text())
    published_at: dt.date | None = None
    retrieved_at: dt.date
    is_primary: bool


class FactRow(_ArticlePart, table=True):
    __tablename__ = "facts"
    fact_id: str
    claim: str = Field(sa_column=_text())
    evidence_type: str
    source_ids: str = Field(description="JSON list")


class InferenceRow(_ArticlePart, table=True):
    __tablename__ = "inferences"
    inference_id: str
    claim: str = Field(sa_column=_text())
    label: str = Field(sa_column=_text())
    basis_fact_ids: str = Field(description="JSON list")


class GuardrailRow(_ArticlePart, table=True):
    __tablename__ = "guardrails"
    ordinal: int
    guardrail_id: str | None = None
    status: str
    rule_kind: str | None = None
    text: str = Field(sa_column=_text())


class MeasurementRow(_ArticlePart, table=True):
    __tablename__ = "measurements"
    measurement_id: str
    metric: str
    value: float
    unit: str
    run_id: str = Field(index=True)
    measured_at: dt.date


class FigureRow(_ArticlePart, table=True):
    """A figure printed in the body and what it traced to when the version was stored."""

    __tablename__ = "figures"
    ordinal: int
    text: str = Field(sa_column=_text())
    kind: str
    value: float | None = None
    span_start: int
    span_end: int
    line_no: int
    col_no: int
    sentence: str | None = Field(default=None, sa_column=_text_null())
    fact_id: str | None = None
    source_ids: str = Field(description="JSON list")
    metric: str | None = None
    measurement_id: str | None = None
    run_id: str | None = None
    traces: str | None = Field(default=None, sa_column=_text_null(),
                               description="JSON list of every trace (migration 4)")


class DependencyRow(_ArticlePart, table=True):
    """An edge ``node -> depends_on`` inside one article version (``F4 -> S4``, ``fig:3 -> F4``)."""

    __tablename__ = "dependencies"
    __table_args__ = (Index("ix_dependencies_depends_on", "depends_on"),)
    node: str
    depends_on: str


class RunRow(Table, table=True):
    """One revision of a run; the highest revision is current, the full record is the payload."""

    __tablename__ = "runs"
    __table_args__ = (UniqueConstraint("run_id", "revision"),)
    pk: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(index=True)
    revision: int
    status: str
    started_at: str
    ended_at: str | None = None
    git_commit: str | None = None
    git_dirty: bool | None = None
    verification_level: str
    entry_seq: int = Field(sa_column=Column(BigInteger, nullable=False))


class RunMetricRow(Table, table=True):
    __tablename__ = "run_metrics"
    __table_args__ = (UniqueConstraint("run_id", "name", "aggregation"),)
    pk: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(index=True)
    revision: int
    name: str
    aggregation: str
    value: float
    unit: str
    sample_count: int
    entry_seq: int = Field(sa_column=Column(BigInteger, nullable=False))


class SourceSnapshotRow(Table, table=True):
    """One fetch of a source URL (added by migration 2)."""

    __tablename__ = "source_snapshots"
    pk: int | None = Field(default=None, primary_key=True)
    article_id: str = Field(index=True)
    source_id: str
    url: str = Field(sa_column=_text())
    final_url: str | None = Field(default=None, sa_column=_text_null())
    status_code: int | None = None
    content_type: str | None = None
    sha256: str | None = None
    size: int | None = None
    retrieved_at: str
    changed: bool
    previous_sha256: str | None = None
    error: str | None = Field(default=None, sa_column=_text_null())
    entry_seq: int = Field(sa_column=Column(BigInteger, nullable=False))
    text_sha256: str | None = None  # migration 5: the readable text in the snapshot store
    text_error: str | None = Field(default=None, sa_column=_text_null())
    page_meta: str | None = Field(default=None, sa_column=_text_null())  # JSON
    origin: str | None = None  # fetch, add, import


def sql_table(model: type[Table]) -> sa.Table:
    """The SQLAlchemy Core table of a table model (typed, for queries)."""
    return cast(sa.Table, model.__table__)  # type: ignore[attr-defined]
