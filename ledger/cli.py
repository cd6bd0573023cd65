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
from collections.abc import Sequence

from .errors import LedgerError
from .extras import missing_extra

__all__ = ["COMMAND_EXTRA", "COMMAND_INDEX", "COMMAND_MODULES", "build_parser", "main"]

#: Every command, the module that registers it and its one-line help. ``main`` imports only the
#: module of the command being run, so a slow import (torch, sqlalchemy) or a broken optional
#: part never slows down or breaks ``ledger verify``. tests/test_cli_index.py keeps this in step.
COMMAND_INDEX: dict[str, tuple[str, str]] = {
    "verify": ("ledger.commands.verify", "check articles before publication"),
    "figures": ("ledger.commands.figures", "list the figures in a body and what each traces to"),
    "report": ("ledger.commands.report", "write the fact-check report of an article as HTML"),
    "schema": ("ledger.commands.schema", "generate or check the JSON Schemas in schemas/"),
    "ingest": ("ledger.commands.store", "verify, then store an article version"),
    "show": ("ledger.commands.store", "show a stored article, source, fact, run or entry"),
    "history": ("ledger.commands.store", "list the versions of an article with their changes"),
    "checkpoint": ("ledger.commands.audit", "write the current tree head to a file"),
    "audit": ("ledger.commands.audit", "recompute every hash; exit 3 on any mismatch"),
    "impact": ("ledger.commands.impact", "everything that depends on a source, fact or run"),
    "export": ("ledger.commands.impact", "export the provenance graph (PROV-JSON)"),
    "runs": ("ledger.commands.runs", "list, show and compare measurement runs"),
    "sources": ("ledger.commands.sources", "snapshot source URLs"),
    "run": ("ledger.commands.replay", "run a replay config and record it as a sealed run"),
    "reproduce": ("ledger.commands.replay", "rerun a recorded run and compare"),
    "ingest-bench": ("ledger.commands.replay", "import a `vllm bench serve` result as a run"),
}
#: commands whose missing parts are all installed by one wider extra than the module's own
COMMAND_EXTRA: dict[str, str] = {"run": "replay", "reproduce": "replay"}
COMMAND_MODULES = list(dict.fromkeys(module for module, _ in COMMAND_INDEX.values()))

_EPILOG = """examples:
  ledger verify claims/pct-2026-11-04-spotlight-mooncake-store.json
  ledger verify claims/ --format json
  ledger schema check

run `ledger COMMAND --help` for the options and an example of each command."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser. With ``command``, only that command's module is imported (the others get a
    stub carrying their one-line help; ``""`` means no command was given, for top-level help);
    without it, every command is registered in full."""
    parser = argparse.ArgumentParser(
        prog="ledger",
        description="Evidence ledger: verify articles before publication and trace every figure "
        "to dated evidence.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    if command is not None and command != "" and command not in COMMAND_INDEX:
        command = None  # unknown: register everything so argparse names the choices
    if command is None:
        for name in COMMAND_MODULES:
            importlib.import_module(name).register(subparsers)
        return parser
    module = COMMAND_INDEX[command][0] if command else ""
    if module:
        importlib.import_module(module).register(subparsers)
    for name, (other, help_text) in COMMAND_INDEX.items():
        if other != module:
            subparsers.add_parser(name, help=help_text)
    return parser


def _command_in(argv: Sequence[str]) -> str | None:
    """The first positional argument: the command (options before it take no values)."""
    return next((arg for arg in argv if not arg.startswith("-")), "")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = _command_in(argv)
    try:
        return _main(argv, command)
    except ModuleNotFoundError as exc:  # an optional part: say which extra to install
        missing = missing_extra(exc, COMMAND_EXTRA.get(command or ""))
        if missing is None:
            raise
        print(f"ledger {command}: {missing}" if command else f"ledger: {missing}", file=sys.stderr)
        return missing.exit_code


def _main(argv: list[str], command: str | None) -> int:
    parser = build_parser(command)
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
