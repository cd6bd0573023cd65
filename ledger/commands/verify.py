"""``ledger verify PATH...``"""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import NotFound
from ..formats import to_github, to_junit, to_sarif
from ..levels import ReproductionsFor
from ..models import Run
from ..report import Report
from ..reporting.build import build_view
from ..reporting.evidence import RunLookup
from ..reporting.text import render_markdown, render_verify_text
from ..snapshots import DEFAULT_SNAPSHOT_DIR, folder_lookup
from ..verify import Check, verify_paths
from ..verify.grounding import grounding_check
from ..verify.levels import level_check
from ..verify.runs import measurement_check
from ..verify.spread import spread_check
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
                   help="check measurements against the runs in this ledger, and quotes "
                   "against its source snapshots (default: $LEDGER_DB_URL; without either, "
                   "runs are not checked and a note says so)")
    p.add_argument("--snapshots", default=DEFAULT_SNAPSHOT_DIR, metavar="DIR",
                   help="where the ledger's snapshot texts are (with --db; default: "
                   f"{DEFAULT_SNAPSHOT_DIR})")
    p.add_argument("--sources", metavar="DIR",
                   help="check quotes against saved pages named by source id (S1.pdf, "
                   "S2.md, S3.html), in DIR/<article id>/ or DIR (instead of the ledger's "
                   "snapshots)")
    p.set_defaults(func=run)


def _grounding(args: argparse.Namespace) -> list[Check]:
    if not args.sources:
        return []
    return [grounding_check(folder_lookup(args.sources))]


def run(args: argparse.Namespace) -> int:
    url = args.db or os.environ.get("LEDGER_DB_URL")
    if not url:
        report = verify_paths(args.paths, strict=args.strict,
                              extra_checks=[measurement_check(None), level_check(None),
                                            *_grounding(args)])
        text = _render(args.format, report, None)
    else:
        from ..db import Ledger  # only here: plain verification never imports the database layer
        from ..reproductions import all_reproductions
        from ..runs import get_run

        with Ledger.open(url, create=False) as ledger, ledger.read() as conn:
            def lookup(run_id: str) -> Run | None:
                try:
                    return get_run(conn, run_id)
                except NotFound:
                    return None

            from ..snapshots import ledger_lookup
            from ..sources import SnapshotStore

            grounding = _grounding(args) or [
                grounding_check(ledger_lookup(conn, SnapshotStore(args.snapshots)))]
            found = all_reproductions(conn)
            report = verify_paths(args.paths, strict=args.strict, extra_checks=[
                measurement_check(lookup), level_check(lambda run_id: found.get(run_id, [])),
                spread_check(lookup),
                *grounding])
            text = _render(args.format, report, lookup, lambda run_id: found.get(run_id, []))
    write_output(text, args.output)
    if args.output and args.format != "text":
        print(report.summary, file=sys.stderr)
    return report.exit_code


def _render(fmt: str, report: Report, lookup: RunLookup | None,
            reproductions: ReproductionsFor | None = None) -> str:
    """Text and Markdown read the articles again (sentences, nearest evidence, figures)."""
    if fmt not in ("text", "markdown"):
        return FORMATTERS[fmt](report)
    views = [build_view(r.path, lookup, result=r, figures=fmt == "markdown",
                        reproductions=reproductions) for r in report.files]
    if fmt == "markdown":
        return render_markdown(report, views)
    return render_verify_text(report, views)
