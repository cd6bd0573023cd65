"""``ledger verify PATH...``"""

from __future__ import annotations

import argparse
import sys

from ..formats import to_github, to_junit, to_sarif
from ..report import Report
from ..verify import verify_paths
from ._common import add_command, write_output

__all__ = ["FORMATTERS", "register"]

FORMATTERS = {
    "text": Report.to_text,
    "json": Report.to_json,
    "sarif": to_sarif,
    "junit": to_junit,
    "github": to_github,
}


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = add_command(
        subparsers, "verify",
        "Check articles before publication: schema, references, dates, figures, guardrails, "
        "arithmetic. Exit 0 when clean, 1 on error findings, 2 when a file cannot be read.",
        "ledger verify claims/pct-2026-11-04-spotlight-mooncake-store.json --format json",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="article JSON files or directories")
    p.add_argument("--format", choices=sorted(FORMATTERS), default="text")
    p.add_argument("--output", metavar="FILE", help="write the report here instead of stdout")
    p.add_argument("--strict", action="store_true", help="warnings fail too")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    report = verify_paths(args.paths, strict=args.strict)
    write_output(FORMATTERS[args.format](report), args.output)
    if args.output and args.format != "text":
        print(report.summary, file=sys.stderr)
    return report.exit_code
