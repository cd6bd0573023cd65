"""``ledger report`` on the desk's seed article: the time to write the page, and its size.

Times, in the same run and interleaved round by round, each as a fresh ``ledger`` process (what
an editor or CI runs):

* **baseline**: ``ledger verify ARTICLE`` (the checks the report runs too);
* **report**: ``ledger report ARTICLE -o report.html`` (the checks, every figure's evidence chain,
  the page written).

Prints the median wall time of each, the ratio report/verify, and the page's size. The issue's
targets: under 1 s and under 1 MB.

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
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.html"
        verify, report = [], []
        for _ in range(args.rounds):
            verify.append(_time(["verify", args.article]))
            report.append(_time(["report", args.article, "-o", str(out)]))
        size = out.stat().st_size
    v, r = statistics.median(verify), statistics.median(report)
    print(f"article: {Path(args.article).name}, rounds: {args.rounds}")
    print(f"ledger verify: median {v:.3f} s")
    print(f"ledger report: median {r:.3f} s (report/verify {r / v:.2f}x)")
    print(f"report.html: {size:,} bytes ({size / 1e6:.3f} MB)")


if __name__ == "__main__":
    main()
