"""``ledger report`` on the desk's seed article: the time to write the page, and its size.

Times, in the same run and interleaved round by round, each as a fresh ``ledger`` process (what
an editor or CI runs):

* **baseline**: ``ledger verify ARTICLE`` (the checks the report runs too);
* **report**: ``ledger report ARTICLE -o report.html`` (the checks, every figure's evidence chain,
  the page written).

Prints the median wall time of each, the ratio report/verify, the page's size, and (in this
process, imports excluded, figure cache cleared) the median time to build and render the page.
The issue's targets: under 1 s and under 1 MB. Run it on a quiet machine: on a loaded one every
figure grows.

    .venv/bin/python benchmarks/bench_report.py --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results_file import Results, add_output_option  # benchmarks/results_file.py

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "claims" / "pct-2026-11-04-spotlight-mooncake-store.json"


def _time(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ledger", *args], check=False, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--article", default=str(SEED))
    add_output_option(parser)
    args = parser.parse_args()
    res = Results("bench_report", args)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.html"
        verify, report = [], []
        for _ in range(args.rounds):
            verify.append(_time(["verify", args.article]))
            report.append(_time(["report", args.article, "-o", str(out)]))
        size = out.stat().st_size
    from ledger.figures import _extract
    from ledger.reporting import build_view, render_html

    build_view(args.article)  # the imports out of the timing
    inside = []
    for _ in range(args.rounds):
        _extract.cache_clear()  # no figure cache carried from the round before
        start = time.perf_counter()
        render_html(build_view(args.article))
        inside.append(time.perf_counter() - start)
    v, r = statistics.median(verify), statistics.median(report)
    print(f"article: {Path(args.article).name}, rounds: {args.rounds}")
    print(f"ledger verify: median {v:.3f} s")
    print(f"ledger report: median {r:.3f} s (report/verify {r / v:.2f}x)")
    print(f"report.html: {size:,} bytes ({size / 1e6:.3f} MB)")
    print(f"build and render in process: median {statistics.median(inside) * 1000:.0f} ms")
    res.row(verify_s=v, report_s=r, report_bytes=size, in_process_s=statistics.median(inside))
    res.ratio("ledger report time / ledger verify time", r / v)
    res.save()


if __name__ == "__main__":
    main()
