"""``ledger schema export|check``"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..errors import UsageError
from ..schema import check_schemas, export_schemas
from ._common import add_command

__all__ = ["register"]


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = add_command(subparsers, "schema", "Generate or check the JSON Schemas in schemas/.",
                    "ledger schema check")
    sub = p.add_subparsers(dest="schema_command", metavar="ACTION", required=True)
    export = add_command(sub, "export", "Rewrite schemas/*.schema.json from the models.",
                         "ledger schema export")
    check = add_command(sub, "check", "Exit 1 when committed schemas differ from the models.",
                        "ledger schema check --format json")
    for q in (export, check):
        q.add_argument("--dir", type=Path, default=Path("schemas"),
                       help="schema directory (default: schemas/ in the working directory)")
        q.add_argument("--format", choices=["text", "json"], default="text")
    export.set_defaults(func=_export)
    check.set_defaults(func=_check)


def _export(args: argparse.Namespace) -> int:
    written = [str(p) for p in export_schemas(args.dir)]
    print(json.dumps({"written": written}) if args.format == "json" else "\n".join(written))
    return 0


def _check(args: argparse.Namespace) -> int:
    if not args.dir.is_dir():
        raise UsageError(f"{args.dir}: no schema directory here; run from the repository root "
                         "or pass --dir")
    drifted = check_schemas(args.dir)
    if args.format == "json":
        print(json.dumps({"drifted": drifted, "ok": not drifted}))
    elif drifted:
        print(f"out of date: {', '.join(drifted)}; run `ledger schema export`")
    else:
        print("schemas match the models")
    return 1 if drifted else 0
