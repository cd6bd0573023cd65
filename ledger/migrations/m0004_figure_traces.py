"""Version 4: every trace of a figure (``figures.traces``, JSON), not only the first of each kind.

Rows stored before this version keep ``NULL``: their version's document is in the log, and
re-ingesting it does not change it (identical documents are not stored twice).
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Connection

VERSION = 4
DESCRIPTION = "figures.traces: the full list of what each figure traced to, as JSON"


def upgrade(conn: Connection) -> None:
    conn.execute(sa.text("ALTER TABLE figures ADD COLUMN traces TEXT"))
