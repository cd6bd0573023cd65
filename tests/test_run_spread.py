"""Runs carry per-round samples and their spread; old run files import with spread unknown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_replay_ledger import CONFIG

from ledger.cli import main
from ledger.db import Ledger
from replay.spread import spread

ROOT = Path(__file__).resolve().parent.parent
OLD_RUN = ROOT / "examples" / "runs" / "run-20261129T205820Z-6ad7c66b.json"


def test_spread_is_the_bootstrap_interval_of_the_median() -> None:
    s = spread([1.0, 2.0, 3.0, 4.0, 100.0])
    assert s is not None and s["median"] == 3.0 and (s["min"], s["max"]) == (1.0, 100.0)
    assert 1.0 <= s["ci_low"] <= 3.0 <= s["ci_high"] <= 100.0 and s["confidence"] == 0.95
    assert spread([1.0, 2.0, 3.0, 4.0, 100.0]) == s  # seeded: the same samples, the same CI
    assert spread([5.0]) is None


@pytest.mark.slow
def test_a_run_in_rounds_records_samples_spread_load_and_threads(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "replay.yaml"
    cfg.write_text(CONFIG + "rounds: 2\n")
    db = str(tmp_path / "l.db")
    assert main(["run", str(cfg), "--db", db, "--out", str(tmp_path / "out"),
                 "--format", "json"]) == 0
    run_id = json.loads(capsys.readouterr().out)["run_id"]
    with Ledger.open(db) as ledger:
        run = ledger.get_run(run_id)
    hit = next(m for m in run.metrics if m.name == "store_hit_rate")
    assert hit.samples is not None and len(hit.samples) == 2
    assert hit.spread is not None and hit.spread.min <= hit.spread.ci_low <= hit.spread.ci_high
    assert run.machine_load is not None and "loadavg" in run.machine_load["start"]
    assert run.threads["torch"] == 1
    capsys.readouterr()
    assert main(["runs", "show", run_id, "--db", db]) == 0
    out = capsys.readouterr().out
    assert "rounds: 2" in out and "load average" in out and "threads: torch=1" in out
    assert "hit_rate (fraction, ratio)" in out and "[" in out


def test_an_old_run_file_imports_with_spread_unknown(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "l.db")
    assert main(["runs", "import", str(OLD_RUN), "--db", db]) == 0
    capsys.readouterr()
    assert main(["runs", "show", OLD_RUN.stem, "--db", db]) == 0
    out = capsys.readouterr().out
    assert "spread unknown" in out and "machine load: not recorded" in out
    assert "reproductions: none recorded (level: measured)" in out
    assert len([line for line in out.splitlines() if line.strip()]) < 45  # a table, not a wall


@pytest.mark.slow
def test_max_rounds_adds_rounds_until_the_interval_is_bounded(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    from replay.config import parse_config
    from replay.runner import run_config
    from replay.spread import interval_widths, widths_text
    data = yaml.safe_load(CONFIG) | {"rounds": 2, "interval": {
        "max_rounds": 3, "relative_width": 1e-9, "metrics": ["no_store_p50_ttft"]}}
    run = run_config(parse_config(data, base_dir=tmp_path))
    assert len(run.rounds) == 3  # an unreachable width: it stops at max_rounds
    assert set(interval_widths(run)) == {"no_store_p50_ttft"}
    assert "after 3 rounds" in widths_text(run) and "target 0%" in widths_text(run)
    data["interval"]["relative_width"] = 1e9
    assert len(run_config(parse_config(data, base_dir=tmp_path)).rounds) == 2
