"""Helpers for commands that use the ledger database: ``--db``, ``--format`` and opening it."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..db import ENV_VAR, Ledger, resolve_url
from ..errors import NotFound
from ..models import Run
from ..runs import get_run
from ._common import write_output

__all__ = ["add_db_options", "dumps", "emit", "open_ledger", "run_lookup"]


def add_db_options(parser: argparse.ArgumentParser) -> None:
    """``--db URL`` and ``--format text|json``, shared by every database command."""
    parser.add_argument(
        "--db", metavar="URL",
        help=f"ledger database: a SQLite path or URL, or postgresql+psycopg://... "
        f"(default: ${ENV_VAR}, else ./ledger.db)")
    parser.add_argument("--format", choices=["text", "json"], default="text")


def open_ledger(args: argparse.Namespace, *, create: bool = False) -> Ledger:
    """The ledger named by ``--db`` / ``$LEDGER_DB_URL``; only ``create=True`` makes a new one."""
    return Ledger.open(resolve_url(args.db, os.environ), create=create)


def dumps(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


def emit(args: argparse.Namespace, data: Any, text: Callable[[Any], str]) -> None:
    """Print ``data`` as JSON or through ``text``, per ``--format``."""
    write_output(dumps(data) if args.format == "json" else text(data), None)


@contextmanager
def run_lookup(ledger: Ledger) -> Iterator[Callable[[str], Run | None]]:
    """A function from run id to the ledger's run (None when it is not there), for the
    measurement check of ``verify --db`` and ``ingest``."""
    with ledger.read() as conn:

        def lookup(run_id: str) -> Run | None:
            try:
                return get_run(conn, run_id)
            except NotFound:
                return None

        yield lookup
