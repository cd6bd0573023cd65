"""``ledger verify PATH...``"""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import NotFound
from ..formats import to_github, to_junit, to_sarif
from ..models import Run
from ..report import Report
from ..reporting.build import build_view
from ..reporting.evidence import RunLookup
from ..reporting.text import render_markdown, render_verify_text
from ..verify import verify_paths
from ..verify.runs import measurement_check
from ._common import add_command, write_output

__all__ = ["FORMATTERS", "register"]

FORMATTERS = {
    "text": Report.to_text,
    "markdown": Report.to_text,  # rendered from the articles' views: see _render
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
    p.add_argument("--db", metavar="URL",
                   help="check measurements against the runs in this ledger (default: "
                   "$LEDGER_DB_URL; without either, runs are not checked and a note says so)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    url = args.db or os.environ.get("LEDGER_DB_URL")
    if not url:
        report = verify_paths(args.paths, strict=args.strict, extra_checks=[measurement_check(None)])
        text = _render(args.format, report, None)
    else:
        from ..db import Ledger  # only here: plain verification never imports the database layer
        from ._ledger import run_lookup

        with Ledger.open(url, create=False) as ledger, run_lookup(ledger) as lookup:
            report = verify_paths(args.paths, strict=args.strict,
                                  extra_checks=[measurement_check(lookup)])
            text = _render(args.format, report, lookup)
    write_output(text, args.output)
    if args.output and args.format != "text":
        print(report.summary, file=sys.stderr)
    return report.exit_code


def _render(fmt: str, report: Report, lookup: RunLookup | None) -> str:
    """Text and Markdown read the articles again (sentences, nearest evidence, figures)."""
    if fmt not in ("text", "markdown"):
        return FORMATTERS[fmt](report)
    views = [build_view(r.path, lookup, result=r, figures=fmt == "markdown")
             for r in report.files]
    if fmt == "markdown":
        return render_markdown(report, views)
    return render_verify_text(report, views)
