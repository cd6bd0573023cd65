"""``ledger verify --db``: measurements in an article are checked against sealed ledger runs."""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path

import pytest
from db_fixtures import ledger_url  # noqa: F401

from ledger.cli import main
from ledger.db import Ledger
from ledger.models import Run, RunMetric, RunStatus
from ledger.runs import record_run

SEED = Path(__file__).resolve().parent.parent / "claims" / "pct-2026-11-04-spotlight-mooncake-store.json"
ENDED = dt.datetime(2026, 11, 3, 12, 0, tzinfo=dt.UTC)


def _run(run_id: str, status: RunStatus = RunStatus.finished) -> Run:
    return Run(
        id=run_id, status=status, started_at=ENDED - dt.timedelta(minutes=5),
        ended_at=ENDED if status is not RunStatus.running else None, command=["replay"],
        metrics=[RunMetric(name="warm_hit_rate", value=0.8371, unit="ratio", aggregation="mean",
                           sample_count=240)],
    )


def _article(tmp_path: Path, **measurement: object) -> Path:
    doc = copy.deepcopy(json.loads(SEED.read_text(encoding="utf-8")))
    doc["measurements"] = [{
        "id": "M1", "metric": "warm_hit_rate", "value": 0.84, "unit": "ratio",
        "run_id": "run-a", "measured_at": "2026-11-03",
    } | measurement]
    path = tmp_path / "article.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.fixture
def ledger_with_runs(ledger_url: str) -> str:  # noqa: F811
    with Ledger.open(ledger_url) as ledger:
        record_run(ledger, _run("run-a"))
        record_run(ledger, _run("run-open", RunStatus.running))
    return ledger_url


def _verify(path: Path, url: str | None, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict]]:
    args = ["verify", str(path), "--format", "json"] + (["--db", url] if url else [])
    code = main(args)
    return code, json.loads(capsys.readouterr().out)["findings"]


def test_matching_measurement_passes(ledger_with_runs, tmp_path, capsys):
    code, findings = _verify(_article(tmp_path), ledger_with_runs, capsys)
    assert code == 0 and findings == []


@pytest.mark.parametrize(("change", "rule", "pointer"), [
    ({"run_id": "run-missing"}, "unknown-run", "/measurements/0/run_id"),
    ({"run_id": "run-open"}, "unsealed-run", "/measurements/0/run_id"),
    ({"metric": "p99_ttft"}, "run-mismatch", "/measurements/0/metric"),
    ({"value": 0.85}, "run-mismatch", "/measurements/0/value"),
    ({"unit": "percent"}, "run-mismatch", "/measurements/0/unit"),
    ({"measured_at": "2026-11-02"}, "run-mismatch", "/measurements/0/measured_at"),
])
def test_each_broken_link_is_an_error(ledger_with_runs, tmp_path, capsys, change, rule, pointer):
    code, findings = _verify(_article(tmp_path, **change), ledger_with_runs, capsys)
    assert code == 1
    assert [(f["rule"], f["pointer"]) for f in findings] == [(rule, pointer)]


def test_without_a_ledger_a_note_says_runs_were_not_checked(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("LEDGER_DB_URL", raising=False)
    code, findings = _verify(_article(tmp_path), None, capsys)
    assert code == 0
    assert [(f["rule"], f["severity"]) for f in findings] == [("runs-not-checked", "note")]


def test_a_missing_ledger_is_a_usage_error_not_an_empty_pass(tmp_path, capsys):
    code = main(["verify", str(_article(tmp_path)), "--db", str(tmp_path / "nope.db")])
    assert code == 2
    assert "no ledger" in capsys.readouterr().err


def test_ingest_refuses_an_article_whose_run_is_not_in_the_ledger(
    tmp_path: Path, ledger_url: str, capsys: pytest.CaptureFixture[str]  # noqa: F811
) -> None:
    article = _article(tmp_path)
    assert main(["ingest", str(article), "--db", ledger_url]) == 1
    assert "[unknown-run] measurement M1 cites run run-a" in capsys.readouterr().out
    with Ledger.open(ledger_url) as ledger:
        record_run(ledger, _run("run-a"))
    assert main(["ingest", str(article), "--db", ledger_url]) == 0
