"""``ledger report ARTICLE -o report.html`` and ``ledger report --all claims/ -o site/``."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import NotFound, UsageError
from ..levels import ReproductionsFor
from ..models import Run
from ..reporting import build_view, load_run_files, render_html, render_index
from ..reporting.evidence import RunLookup
from ..snapshots import DEFAULT_SNAPSHOT_DIR, folder_lookup
from ..verify import expand_paths
from ..verify.grounding import SnapshotLookup
from ._common import add_command, write_output

__all__ = ["register"]

log = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(
        subparsers, "report",
        "Write the fact-check report of an article: one self-contained HTML page with the body "
        "as written, each figure marked by status, and its evidence chain on click. With --all, "
        "a report per article and an index page. Exit 0 when every article is ready to "
        "publish, 1 when one has errors, 2 on unreadable input.",
        "ledger report claims/pct-2026-11-04-spotlight-mooncake-store.json -o report.html",
    )
    p.add_argument("article", metavar="ARTICLE", nargs="+", help="an article JSON file (with "
                   "--all: directories or files)")
    p.add_argument("-o", "--output", metavar="PATH", required=True,
                   help="the HTML file to write (with --all: a directory)")
    p.add_argument("--all", action="store_true", help="report every article under ARTICLE "
                   "and write an index.html beside the reports")
    p.add_argument("--db", metavar="URL", help="read cited runs from this ledger (default: "
                   "$LEDGER_DB_URL)")
    p.add_argument("--runs", metavar="DIR", action="append", default=[],
                   help="read cited runs from these run files or directories (repeatable)")
    p.add_argument("--plots", metavar="DIR", action="append", default=[],
                   help="where run folders with their plots are (DIR/<run id>/ttft.png; "
                   "default: runs); a plot is shown when its digest matches the run's record")
    p.add_argument("--sources", metavar="DIR",
                   help="saved pages of the sources, named by source id (S1.pdf, S4.md), in "
                   "DIR/<article id>/ or DIR: quotes are looked up in them")
    p.add_argument("--snapshots", default=DEFAULT_SNAPSHOT_DIR, metavar="DIR",
                   help="where the ledger's snapshot texts are (with --db; default: "
                   f"{DEFAULT_SNAPSHOT_DIR})")
    p.set_defaults(func=run)


@dataclass(frozen=True)
class _Data:
    """Where the report reads runs and source snapshots from (None: from nowhere)."""

    runs: RunLookup | None = None
    snapshots: SnapshotLookup | None = None
    reproductions: ReproductionsFor | None = None


@contextlib.contextmanager
def _data(args: argparse.Namespace) -> Iterator[_Data]:
    """Runs from run files and the ledger; snapshots from --sources, else from the ledger.
    Without any, runs are noted as unchecked, as ``ledger verify`` does without --db."""
    files = load_run_files(args.runs)
    folder = folder_lookup(args.sources) if args.sources else None
    db = args.db or os.environ.get("LEDGER_DB_URL")
    if not db:
        yield _Data(files.get if args.runs else None, folder)
        return
    from ..db import Ledger  # only here: a report without --db never imports the database layer
    from ..reproductions import all_reproductions
    from ..runs import get_run
    from ..snapshots import ledger_lookup
    from ..sources import SnapshotStore

    with Ledger.open(db, create=False) as ledger, ledger.read() as conn:
        def lookup(run_id: str) -> Run | None:
            if run_id in files:
                return files[run_id]
            try:
                return get_run(conn, run_id)
            except NotFound:
                return None

        found = all_reproductions(conn)
        yield _Data(lookup, folder or ledger_lookup(conn, SnapshotStore(args.snapshots)),
                    lambda run_id: found.get(run_id, []))


def _plot_dirs(args: argparse.Namespace) -> list[Path]:
    return [Path(d) for d in args.plots or ["runs"]]


def _one(args: argparse.Namespace, data: _Data) -> int:
    view = build_view(args.article[0], data.runs, data.snapshots,
                      reproductions=data.reproductions)
    view.plot_dirs = _plot_dirs(args)
    write_output(render_html(view), args.output)
    print(f"{args.output}: {'ready to publish' if view.ready else 'not ready'} "
          f"({len(view.figures)} figures, {len(view.findings)} findings)", file=sys.stderr)
    return 2 if view.result.unreadable else 0 if view.ready else 1


def _all(args: argparse.Namespace, data: _Data) -> int:
    out = Path(args.output)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {out}: {exc.strerror}") from None
    rows = []
    for path in expand_paths(args.article):
        view = build_view(path, data.runs, data.snapshots, reproductions=data.reproductions)
        view.plot_dirs = _plot_dirs(args)
        name = f"{path.stem}.html"
        write_output(render_html(view), str(out / name))
        rows.append((view, name))
    if not rows:
        raise UsageError(f"no article files under {' '.join(args.article)}")
    write_output(render_index(rows), str(out / "index.html"))
    ready = sum(v.ready for v, _ in rows)
    print(f"{out / 'index.html'}: {ready} of {len(rows)} article(s) ready to publish",
          file=sys.stderr)
    if any(v.result.unreadable for v, _ in rows):
        return 2
    return 0 if ready == len(rows) else 1


def run(args: argparse.Namespace) -> int:
    if not args.all and (len(args.article) > 1 or Path(args.article[0]).is_dir()):
        raise UsageError("give one article file, or use --all for directories and several files")
    with _data(args) as data:
        return _all(args, data) if args.all else _one(args, data)
