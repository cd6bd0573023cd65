"""`ledger reproduce` checks what articles publish from a run, names the sentence, records it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from db_fixtures import make_article
from test_replay_ledger import CONFIG

from ledger.cli import main
from ledger.db import Ledger
from ledger.models import Article, Run


def _article(n: int, run: Run, value: float) -> Article:
    sentence = f"With the store, {value * 100:.1f}% of prompt tokens came from cache."
    doc = make_article(n, body=f"{sentence} [S1]")
    doc["measurements"] = [{"id": "M1", "metric": "store_hit_rate", "value": value,
                            "unit": "fraction", "run_id": run.id,
                            "measured_at": (run.ended_at or run.started_at).date().isoformat()}]
    doc["facts"][0]["measurement_ids"] = ["M1"]
    return Article.model_validate_json(json.dumps(doc))


@pytest.mark.slow
def test_reproduce_checks_cited_figures_and_names_the_sentence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "replay.yaml"
    # timing ratios of one tiny round swing with the machine's load; this test is about the
    # cited figure (a hit rate), so the configured checks keep to what the trace fixes
    assert "decode_speedup]" in CONFIG
    cfg.write_text(CONFIG.replace(", decode_speedup]", "]"))
    db = str(tmp_path / "l.db")
    assert main(["run", str(cfg), "--db", db, "--out", str(tmp_path / "o1"),
                 "--format", "json"]) == 0
    run_id = json.loads(capsys.readouterr().out)["run_id"]
    with Ledger.open(db) as ledger:
        run = ledger.get_run(run_id)
        hit = next(m.value for m in run.metrics if m.name == "store_hit_rate")
        ledger.ingest(_article(1, run, hit))
        # the same record, as if the original had measured 30%: a rerun moves it out of tolerance
        data = run.model_dump(mode="json")
        data["id"] = run_id[:-8] + "00000000"
        for m in data["metrics"]:
            if m["name"] == "store_hit_rate":
                m["value"] = 0.30
        planted = Run.model_validate_json(json.dumps(data))
        ledger.record_run(planted)
        ledger.ingest(_article(2, planted, 0.30))

    code = main(["reproduce", run_id, "--db", db, "--out", str(tmp_path / "o2"),
                 "--format", "json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0, result["figures"] + [c for c in result["comparisons"] if not c["ok"]]
    assert result["ok"] and [f["figure"] for f in result["figures"]] == [f"{hit * 100:.1f}%"]
    assert main(["show", "t1-2026-11-04", "--db", db, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["levels"]["M1"]["level"] == "reproduced"

    assert main(["reproduce", "--article", "t2-2026-11-04", "--db", db,
                 "--out", str(tmp_path / "o3")]) == 1
    out = capsys.readouterr().out
    assert out.startswith("NOT REPRODUCED")
    assert "DOES NOT HOLD '30.0%' (t2-2026-11-04 M1, store_hit_rate)" in out
    assert "sentence: With the store, 30.0% of prompt tokens came from cache." in out
    with Ledger.open(db) as ledger:
        (rep,) = ledger.reproductions(planted.id)
        assert not rep.ok and rep.failed == ("store_hit_rate",) and rep.machine
        assert ledger.audit().ok
    assert main(["show", "t2-2026-11-04", "--db", db, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["levels"]["M1"]["level"] == "measured"


def test_reproduce_needs_a_run_or_an_article(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "--db", str(tmp_path / "l.db")]) == 2
    assert "RUN_ID or --article" in capsys.readouterr().err


def test_configured_tolerance_is_measured_from_the_originals_interval() -> None:
    from ledger.reproduce import compare_metrics

    tol = {"ratio": 0.5, "rate": 0.05}
    (row,) = compare_metrics([("speedup", 5.4, "ratio")], [("speedup", 8.4, "ratio")], tol)
    assert not row.ok  # 56% from the single original value
    (row,) = compare_metrics([("speedup", 5.4, "ratio")], [("speedup", 8.4, "ratio")], tol,
                             intervals={"speedup": (1.1, 23.0)})
    assert row.ok and "inside the original's 95% interval" in row.note
    (row,) = compare_metrics([("speedup", 5.4, "ratio")], [("speedup", 40.0, "ratio")], tol,
                             intervals={"speedup": (1.1, 23.0)})
    assert not row.ok and "73.9% from the original" in row.note


@pytest.mark.parametrize(("text", "value", "unit", "holds"), [
    ("30-50%", 0.47, "fraction", True), ("30-50%", 0.51, "fraction", True),  # 0.01 past 50%
    ("30-50%", 0.56, "fraction", False), ("30-50%", 0.24, "fraction", False),
    ("1.1-23 times", 8.4, "ratio", True), ("1.8-8.6 times", 8.66, "ratio", True),
    ("0.66-2.8", 0.65, "ratio", True), ("0.66-2.8", 0.32, "ratio", False),  # 52% under 0.66
    ("1.8-8.6 times", 13.0, "ratio", False),  # 51% over 8.6
    ("84.5%", 0.80, "fraction", True), ("84.5%", 0.79, "fraction", False),  # 0.05 absolute
    ("2.7 times", 4.0, "ratio", True), ("2.7 times", 4.3, "ratio", False),  # 50% relative
])
def test_a_cited_figure_holds_inside_its_range_or_tolerance(text: str, value: float, unit: str,
                                                             holds: bool) -> None:
    from ledger.cited import figure_holds
    from ledger.figures import extract_figures

    figure = extract_figures(f"It was {text}.")[0]
    assert figure_holds(figure, value, unit, {"ratio": 0.5, "rate": 0.05})[0] is holds
