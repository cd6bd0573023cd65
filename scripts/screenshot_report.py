"""Screenshot of the fact-check report for the README: ``python scripts/screenshot_report.py``.

Writes the seed article's report to a temporary file, opens it in the system Chromium with
Playwright (``pip install -e '.[dev]'``; Debian's ``chromium`` package), selects a figure so the
evidence panel shows its chain, and saves ``docs/report-screenshot.png`` (or ``--output``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "claims" / "pct-2026-11-04-spotlight-mooncake-store.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--article", default=str(SEED))
    parser.add_argument("--figure", default="46", help="text of the figure to select")
    parser.add_argument("--output", default=str(ROOT / "docs" / "report-screenshot.png"))
    parser.add_argument("--runs", default=str(ROOT / "examples" / "runs"),
                        help="run files the article's measurements cite")
    parser.add_argument("--dark", action="store_true", help="the dark colour scheme")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("screenshot_report: no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 2
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("screenshot_report: playwright missing: pip install -e '.[dev]'", file=sys.stderr)
        return 2
    from ledger.reporting import build_view, load_run_files, render_html

    with tempfile.TemporaryDirectory() as tmp:
        page_file = Path(tmp) / "report.html"
        runs = load_run_files([args.runs])
        page_file.write_text(render_html(build_view(args.article, runs.get)), encoding="utf-8")
        launch_args = ["--no-sandbox"] if os.geteuid() == 0 else []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=launch_args)
            page = browser.new_page(viewport={"width": 1280, "height": 1100},
                                    color_scheme="dark" if args.dark else "light")
            page.goto(page_file.as_uri())
            figure = page.locator(".fig", has_text=args.figure).first
            figure.click()
            figure.scroll_into_view_if_needed()
            page.screenshot(path=args.output)
            browser.close()
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
