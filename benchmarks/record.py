"""Record one dated run of the benchmarks the README quotes, so that its figures name their run.

The commands are read from the README's benchmark table (``| `python benchmarks/...` | ...``)
and run one after another, exactly as written, each with ``--output`` pointing next to the
record. The record (``--output``; default ``benchmarks/out/record/record.json``, which git
ignores) holds the date, the commit, the machine and, per command, when it started, how long
it took, its exit code, the load average before and after (the machine is shared), its result
file and the ratios it printed.

    python benchmarks/record.py --only store_vs_mooncake,bench_shm_copy \\
        --output benchmarks/results/2026-12-01/record.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from results_file import OUT_DIR, add_output_option  # benchmarks/results_file.py

ROOT = Path(__file__).resolve().parents[1]
_ROW = re.compile(r"^\| `python (benchmarks/(\w+)\.py[^`]*)` \|")
_RATIO = re.compile(r"^ratio: (.+) = (\S+)$")


def readme_commands(readme: Path = ROOT / "README.md") -> dict[str, list[str]]:
    """Each benchmark script the README's table runs, with its arguments as written."""
    found: dict[str, list[str]] = {}
    for line in readme.read_text(encoding="utf-8").splitlines():
        match = _ROW.match(line)
        if match:
            found[match.group(2)] = shlex.split(match.group(1))
    return found


def _git_commit() -> str:
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    return done.stdout.strip() or "unknown"


def _run_one(name: str, argv: list[str], folder: Path, timeout_s: float) -> dict[str, Any]:
    output = folder / f"{name}.json"
    command = ["python", *argv]
    started, load_before = dt.datetime.now(dt.UTC), os.getloadavg()
    t0 = time.monotonic()
    try:
        done = subprocess.run([sys.executable, *argv, "--output", str(output)], cwd=ROOT,
                              capture_output=True, text=True, timeout=timeout_s, check=False)
        rc, stdout, stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        rc, stdout, stderr = -1, str(exc.stdout or ""), f"timed out after {timeout_s:.0f} s"
    seconds = time.monotonic() - t0
    ratios = {m.group(1): float(m.group(2)) for m in map(_RATIO.match, stdout.splitlines()) if m}
    print(f"{name}: exit {rc} in {seconds:.0f} s, {len(ratios)} ratio(s)", flush=True)
    return {"name": name, "command": command, "started": started.isoformat(timespec="seconds"),
            "seconds": round(seconds, 1), "exit_code": rc,
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
            "result_file": output.name if output.exists() else None, "ratios": ratios,
            "stderr_tail": stderr.strip().splitlines()[-5:] if rc else []}


def main(argv: list[str] | None = None) -> int:
    """Run the README's benchmarks (or ``--only`` some) and write the record; exit 1 when one
    failed, 2 when ``--only`` names a benchmark the README does not run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated script names (default: all of them)")
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds one benchmark may take (1800)")
    add_output_option(parser)
    args = parser.parse_args(argv)
    commands = readme_commands()
    names = args.only.split(",") if args.only else list(commands)
    unknown = [n for n in names if n not in commands]
    if unknown:
        print(f"error: --only {', '.join(unknown)}: not in the README's benchmark table "
              f"(it runs {', '.join(commands)})", file=sys.stderr)
        return 2
    record_path: Path = args.output or OUT_DIR / "record" / "record.json"
    record_path.parent.mkdir(parents=True, exist_ok=True)
    record: dict[str, Any] = {
        "record": "benchmarks quoted in README.md",
        "command": ["python", *sys.argv],
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": _git_commit(),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version()},
        "runs": [],
    }
    for name in names:
        record["runs"].append(_run_one(name, commands[name], record_path.parent, args.timeout))
        record_path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"results: {record_path}")
    return 1 if any(r["exit_code"] for r in record["runs"]) else 0


if __name__ == "__main__":
    raise SystemExit(main())
