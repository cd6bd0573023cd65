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
SYSTEMS = ["reference", "reference-tcp", "raw", "memcpy"]


def test_store_benchmark_writes_every_figure(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    done = subprocess.run(
        [sys.executable, "benchmarks/store_vs_mooncake.py", "--systems", ",".join(SYSTEMS),
         "--batch-mib", "4", "--rounds", "1", "--latency-samples", "2", "--max-count", "64",
         "--json", str(out)],
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
        assert {"raw", "memcpy"} <= set(row[sizes[-1]])
    targets = doc["targets"]
    assert "reference put 256 KiB >= 0.6x raw" in targets
    assert all(isinstance(t["met"], bool) and t["ratio"] > 0 for t in targets.values())
    assert "targets:" in done.stdout and "ratios (reference /" in done.stdout
