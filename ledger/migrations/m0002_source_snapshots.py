"""Version 2: snapshots of source URLs (``ledger sources fetch``)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Connection

VERSION = 2
DESCRIPTION = "source_snapshots: one row per fetch of a source URL, with the body's sha256"


def upgrade(conn: Connection) -> None:
    meta = sa.MetaData()
    sa.Table("source_snapshots", meta,
             sa.Column("pk", sa.Integer, primary_key=True),
             sa.Column("article_id", sa.String, nullable=False, index=True),
             sa.Column("source_id", sa.String, nullable=False),
             sa.Column("url", sa.Text, nullable=False),
             sa.Column("final_url", sa.Text),
             sa.Column("status_code", sa.Integer),
             sa.Column("content_type", sa.String),
             sa.Column("sha256", sa.String),
             sa.Column("size", sa.Integer),
             sa.Column("retrieved_at", sa.String, nullable=False),
             sa.Column("changed", sa.Boolean, nullable=False),
             sa.Column("previous_sha256", sa.String),
             sa.Column("error", sa.Text),
             sa.Column("entry_seq", sa.BigInteger, nullable=False))
    meta.create_all(conn)
