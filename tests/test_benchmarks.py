"""The store benchmark runs end to end on tiny settings and writes a complete result file.

Only the shape is checked (every system and size measured, ratios for both of our rows, each
target evaluated): figures are for ``benchmarks/``, never for assertions in tests.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = ["reference", "reference-tcp", "raw", "c-socket", "memcpy"]


def test_store_benchmark_writes_every_figure(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    done = subprocess.run(
        [sys.executable, "benchmarks/store_vs_mooncake.py", "--systems", ",".join(SYSTEMS),
         "--batch-mib", "4", "--rounds", "1", "--latency-samples", "2", "--max-count", "64",
         "--output", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    doc = json.loads(out.read_text())
    sizes = [str(s) for s in doc["params"]["sizes"]]
    for system in SYSTEMS:
        per = doc["results"][system]
        assert "error" not in per, per
        for size in sizes:
            figures = per[size]
            assert figures["put_gbps"] > 0 and figures["get_gbps"] > 0
            assert figures["put_p99_ms"] >= figures["put_p50_ms"] > 0
    assert set(doc["ratios"]) == {"reference", "reference-tcp"}
    for row in doc["ratios"].values():
        assert set(row) == set(sizes)
        assert {"raw", "c-socket", "memcpy"} <= set(row[sizes[-1]])
    targets = doc["targets"]
    assert "reference-tcp put 256 KiB >= 0.6x c-socket" in targets
    assert all(isinstance(t["met"], bool) and t["ratio"] > 0 for t in targets.values())
    assert "targets:" in done.stdout and "ratios (reference /" in done.stdout


def test_every_benchmark_writes_results_under_an_ignored_folder_or_output() -> None:
    """Running a README benchmark command never overwrites a tracked file: each script takes
    ``--output`` and otherwise writes to benchmarks/out/, which git ignores."""
    scripts = [p for p in sorted((ROOT / "benchmarks").glob("*.py"))
               if '__name__ == "__main__"' in p.read_text()]
    assert len(scripts) >= 10
    missing = [p.name for p in scripts if "add_output_option(" not in p.read_text()]
    assert missing == []
    ignored = subprocess.run(["git", "check-ignore", "-q", "benchmarks/out/x.json"], cwd=ROOT,
                             check=False)
    assert ignored.returncode == 0, "benchmarks/out/ must be ignored by git"


def test_a_benchmark_prints_its_ratios_and_writes_them_where_told(tmp_path: Path) -> None:
    out = tmp_path / "hashing.json"
    done = subprocess.run(
        [sys.executable, "benchmarks/bench_hashing.py", "--tokens", "512", "--rounds", "1",
         "--output", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120,
        check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert set(doc["ratios"]) == {"sha256_cbor / sha256 speed", "xxhash / sha256 speed",
                                  "xxhash_cbor / sha256 speed"}
    for label, value in doc["ratios"].items():
        assert f"ratio: {label} = {value:.2f}" in done.stdout
    assert doc["command"][1:3] == ["benchmarks/bench_hashing.py", "--tokens"]
    assert f"results: {out}" in done.stdout


def test_the_record_runs_readme_commands_and_names_date_command_and_load(tmp_path: Path) -> None:
    """``benchmarks/record.py`` runs the README's benchmark commands as written and records,
    for each, its command, start, load average and ratios; a name outside the table is refused."""
    record = tmp_path / "2026-12-01" / "record.json"
    done = subprocess.run([sys.executable, "benchmarks/record.py", "--only", "bench_hashing",
                           "--output", str(record)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    doc = json.loads(record.read_text())
    assert doc["date"] and doc["commit"] and doc["machine"]["cpus"]
    (run,) = doc["runs"]
    assert run["command"] == ["python", "benchmarks/bench_hashing.py"]  # as the README says
    assert run["exit_code"] == 0 and len(run["load_average_before"]) == 3
    assert "sha256_cbor / sha256 speed" in run["ratios"]
    assert json.loads((record.parent / run["result_file"]).read_text())["ratios"]
    refused = subprocess.run([sys.executable, "benchmarks/record.py", "--only", "nosuch"],
                             cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert refused.returncode == 2 and "not in the README's benchmark table" in refused.stderr
