"""The ``ledger`` command line: parse, call the library, print, exit.

Exit codes: 0 success, 1 findings (verification or drift failed), 2 usage error or unreadable
input, 3 integrity failure (the append-only log does not verify).

Each command family lives in ``ledger/commands/<name>.py`` and exposes
``register(subparsers)``; the module list below is the whole wiring.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from typing import Sequence

from .errors import LedgerError

__all__ = ["COMMAND_MODULES", "build_parser", "main"]

COMMAND_MODULES = [
    "ledger.commands.verify",
    "ledger.commands.schema",
    "ledger.commands.figures",
    "ledger.commands.store",
    "ledger.commands.audit",
    "ledger.commands.runs",
    "ledger.commands.impact",
    "ledger.commands.sources",
    "ledger.commands.replay",
]

_EPILOG = """examples:
  ledger verify claims/pct-2026-11-04-spotlight-mooncake-store.json
  ledger verify claims/ --format json
  ledger schema check

run `ledger COMMAND --help` for the options and an example of each command."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ledger",
        description="Evidence ledger: verify articles before publication and trace every figure "
        "to dated evidence.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # argparse exits 2 on usage errors
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.func(args))
    except LedgerError as exc:
        print(f"ledger {args.command}: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
