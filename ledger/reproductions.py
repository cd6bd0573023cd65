"""Reproductions in the ledger: each rerun of a recorded run, linked to the original.

``ledger reproduce`` appends one ``reproduction`` log entry per rerun, its subject the original
run's id and its data a :class:`~ledger.levels.Reproduction` (date, machine fingerprint,
operator, revision, which metrics held and which did not, and the cited figures it checked).
Levels are read straight from these entries, so no query table can disagree with them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy import Connection

from .levels import Reproduction
from .tables import LogEntry, sql_table

if TYPE_CHECKING:
    from .db import Ledger

__all__ = ["KIND", "all_reproductions", "record_reproduction", "reproductions_of"]

#: The log entry kind of a reproduction.
KIND = "reproduction"


def record_reproduction(ledger: Ledger, reproduction: Reproduction) -> int:
    """Append ``reproduction`` to the log; returns its entry number."""
    with ledger.write() as app:
        return app.append(KIND, reproduction.original, reproduction.to_dict())


def _entries(conn: Connection, run_id: str | None) -> list[Reproduction]:
    import json

    t = sql_table(LogEntry)
    query = sa.select(t.c.payload).where(t.c.kind == KIND).order_by(t.c.seq)
    if run_id is not None:
        query = query.where(t.c.subject == run_id)
    return [Reproduction.from_dict(json.loads(p)["data"]) for p in conn.execute(query).scalars()]


def reproductions_of(conn: Connection, run_id: str) -> list[Reproduction]:
    """Every recorded reproduction of ``run_id``, oldest first."""
    return _entries(conn, run_id)


def all_reproductions(conn: Connection) -> dict[str, list[Reproduction]]:
    """Every recorded reproduction, by original run id."""
    found: dict[str, list[Reproduction]] = {}
    for r in _entries(conn, None):
        found.setdefault(r.original, []).append(r)
    return found
