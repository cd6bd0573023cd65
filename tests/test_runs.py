"""ledger.runs: recording, sealing and comparing measurement runs."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from db_fixtures import ledger_url  # noqa: F401
from pydantic import ValidationError

from ledger.cli import main
from ledger.db import Ledger
from ledger.errors import NotFound, SealedRunError, UsageError
from ledger.models import Run, RunMetric, RunStatus
from ledger.runs import RunRecorder, capture_environment, diff_runs, git_state, new_run_id

ROOT = Path(__file__).resolve().parent.parent
T0 = dt.datetime(2026, 11, 29, 20, 0, tzinfo=dt.UTC)


def _metric(name: str, value: float, aggregation: str = "p50") -> RunMetric:
    return RunMetric(name=name, value=value, unit="ms", aggregation=aggregation, sample_count=10)


def _finished(run_id: str, ttft: float) -> Run:
    return Run(id=run_id, status=RunStatus.finished, started_at=T0,
               ended_at=T0 + dt.timedelta(minutes=1), command=["replay", "--warm"],
               parameters={"warm": True}, metrics=[_metric("ttft", ttft)],
               agent_fields={"routing_policy": "prefix-affinity"})


@pytest.fixture
def ledger(ledger_url: str) -> Ledger:
    with Ledger.open(ledger_url) as opened:
        yield opened


def test_record_and_read_back_a_sealed_run(ledger: Ledger) -> None:
    run = _finished("run-a", 40.0)
    assert ledger.record_run(run) == "run-a"
    assert ledger.get_run("run-a") == run
    with pytest.raises(SealedRunError, match="sealed"):
        ledger.add_metrics("run-a", [_metric("tpot", 3.0)])
    with pytest.raises(SealedRunError):
        ledger.record_run(run)
    assert ledger.audit().ok


def test_recorder_seals_finished_with_environment_and_git(ledger: Ledger) -> None:
    with RunRecorder(ledger, command=["replay"], parameters={"turns": 4}, seed=7, cwd=ROOT) as rec:
        assert ledger.get_run(rec.run_id).status is RunStatus.running
        rec.metric("ttft", 12.5, unit="ms", aggregation="p99", sample_count=100)
        rec.agent_fields["cache_warmth"] = "warm"
        rec.flush()
        rec.metric("hit_rate", 0.9, unit="ratio", aggregation="mean", sample_count=100)
    run = ledger.get_run(rec.run_id)
    assert run.status is RunStatus.finished and run.sealed and run.ended_at is not None
    assert [m.name for m in run.metrics] == ["ttft", "hit_rate"]
    assert run.agent_fields == {"cache_warmth": "warm"} and run.seed == 7
    assert re.fullmatch(r"[0-9a-f]{40}", run.git_commit or "") and run.git_dirty is not None
    assert run.environment["python"] and "pydantic" in run.environment["packages"]
    with pytest.raises(SealedRunError):
        ledger.finish_run(rec.run_id)


def test_recorder_marks_a_raising_block_failed(ledger: Ledger) -> None:
    with pytest.raises(RuntimeError, match="instance died"), \
            RunRecorder(ledger, command=["replay"]) as rec:
        rec.metric("ttft", 1.0, unit="ms", aggregation="p50", sample_count=1)
        raise RuntimeError("instance died")
    run = ledger.get_run(rec.run_id)
    assert run.status is RunStatus.failed and run.error == "RuntimeError: instance died"
    assert len(run.metrics) == 1


def test_duplicate_metric_and_bad_metric_are_usage_errors(ledger: Ledger) -> None:
    with RunRecorder(ledger, command=["x"]) as rec:
        rec.metric("ttft", 1.0, unit="ms", aggregation="p50", sample_count=1)
        rec.flush()
        with pytest.raises(UsageError, match="twice"):
            ledger.add_metrics(rec.run_id, [_metric("ttft", 2.0)])
        with pytest.raises(UsageError, match="'Bad Name'"):
            rec.metric("Bad Name", 1.0, unit="ms", aggregation="p50", sample_count=1)


def test_unknown_run_is_not_found(ledger: Ledger) -> None:
    with pytest.raises(NotFound, match="no run 'nope'"):
        ledger.get_run("nope")
    with pytest.raises(NotFound):
        ledger.finish_run("nope")


def test_list_runs_by_status_and_diff(ledger: Ledger) -> None:
    ledger.record_run(_finished("run-cold", 400.0))
    ledger.record_run(_finished("run-warm", 100.0))
    running = Run(id="run-live", status=RunStatus.running, started_at=T0, command=["x"])
    ledger.record_run(running)
    assert [r.id for r in ledger.list_runs()] == ["run-cold", "run-live", "run-warm"]
    assert [r.id for r in ledger.list_runs(RunStatus.running)] == ["run-live"]
    diff = diff_runs(ledger.get_run("run-cold"), ledger.get_run("run-warm"))
    assert diff["metrics"][0]["ratio_b_over_a"] == pytest.approx(0.25)


def test_run_model_requires_time_zones_and_end_of_final_runs() -> None:
    with pytest.raises(ValidationError, match="time zone"):
        Run(id="run-x", status=RunStatus.running, started_at=dt.datetime(2026, 1, 1), command=[])
    with pytest.raises(ValidationError, match="needs ended_at"):
        Run(id="run-x", status=RunStatus.finished, started_at=T0, command=[])


def test_environment_and_git_outside_a_repository(tmp_path: Path) -> None:
    env = capture_environment(["pydantic", "no-such-package-xyz"])
    assert set(env["packages"]) == {"pydantic"} and env["cpu_count"] >= 1
    assert git_state(tmp_path) == (None, None)
    assert re.fullmatch(r"run-\d{8}T\d{6}Z-[0-9a-f]{8}", new_run_id())


def test_runs_cli_list_show_diff(ledger_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger.open(ledger_url) as ledger:
        ledger.record_run(_finished("run-cold", 400.0))
        ledger.record_run(_finished("run-warm", 100.0))
    capsys.readouterr()
    assert main(["runs", "list", "--db", ledger_url, "--format", "json"]) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == ["run-cold", "run-warm"]
    assert main(["runs", "show", "run-warm", "--db", ledger_url]) == 0
    out = capsys.readouterr().out
    assert re.search(r"ttft\s+ms\s+p50\s+100\s+spread unknown\s+0\s+10", out), out
    assert main(["runs", "diff", "run-cold", "run-warm", "--db", ledger_url]) == 0
    assert "x0.25" in capsys.readouterr().out
    assert main(["runs", "show", "missing", "--db", ledger_url]) == 2
    assert "no run 'missing'" in capsys.readouterr().err


def test_latest_names_the_run_started_last(ledger: Ledger) -> None:
    with pytest.raises(NotFound, match="no run in the ledger yet"):
        ledger.get_run("latest")
    hour = dt.timedelta(hours=1)
    ledger.record_run(_finished("run-b", 41.0).model_copy(
        update={"started_at": T0 + hour, "ended_at": T0 + 2 * hour}))
    ledger.record_run(_finished("run-a", 40.0))
    assert ledger.get_run("latest").id == "run-b"
