"""Version 3: triggers that refuse UPDATE and DELETE on ``log_entries``.

They stop accidents (a stray ``UPDATE``), not an attacker who can drop them: tamper evidence
comes from the hashes and the checkpoint (see :mod:`ledger.log`).
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Connection

VERSION = 3
DESCRIPTION = "append-only guard: triggers refuse UPDATE and DELETE on log_entries"

MESSAGE = "log entries are append-only: correct by appending a new entry"

_SQLITE = [
    (f"CREATE TRIGGER log_entries_no_update BEFORE UPDATE ON log_entries "
     f"BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END"),
    (f"CREATE TRIGGER log_entries_no_delete BEFORE DELETE ON log_entries "
     f"BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END"),
]
_POSTGRESQL = [
    ("CREATE FUNCTION ledger_log_append_only() RETURNS trigger LANGUAGE plpgsql AS "
     f"$$ BEGIN RAISE EXCEPTION '{MESSAGE}'; END $$"),
    ("CREATE TRIGGER log_entries_append_only BEFORE UPDATE OR DELETE ON log_entries "
     "FOR EACH ROW EXECUTE FUNCTION ledger_log_append_only()"),
]


def upgrade(conn: Connection) -> None:
    statements = {"sqlite": _SQLITE, "postgresql": _POSTGRESQL}.get(conn.dialect.name, [])
    for statement in statements:
        conn.execute(sa.text(statement))
