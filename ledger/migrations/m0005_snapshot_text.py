"""Version 5: the readable text of each snapshot (``ledger verify`` grounds quotes in it).

``text_sha256`` names the extracted text in the snapshot store (beside the raw body),
``text_error`` says in one line why a body has no readable text, ``page_meta`` keeps the page's
own metadata (site name, author, published and modified dates) as JSON, and ``origin`` says how
the snapshot came: ``fetch``, ``add`` (a saved file) or ``import`` (a WARC record). Rows stored
before this version keep ``NULL``.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Connection

VERSION = 5
DESCRIPTION = "source_snapshots: readable text (sha256), extraction error, page metadata, origin"


def upgrade(conn: Connection) -> None:
    for column in ("text_sha256 VARCHAR", "text_error TEXT", "page_meta TEXT", "origin VARCHAR"):
        conn.execute(sa.text(f"ALTER TABLE source_snapshots ADD COLUMN {column}"))
