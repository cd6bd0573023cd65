"""Progress on long CLI work: bars on a terminal, log lines elsewhere, one step per unit."""

from __future__ import annotations

import io
import logging

import pytest

from ledger.progress import progress
from replay.config import parse_config
from replay.runner import replay_steps, run_config


def test_without_a_terminal_each_step_is_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ledger.progress")
    with progress(3, "ingesting", enabled=False) as step:
        for name in ("a.json", "b.json", "c.json"):
            step(name)
    lines = [r.getMessage() for r in caplog.records]
    assert [line.split(" (")[0] for line in lines] == [
        "ingesting: 1/3 a.json", "ingesting: 2/3 b.json", "ingesting: 3/3 c.json"]


def test_on_a_terminal_a_bar_is_drawn_on_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    with progress(2, "replaying", enabled=True) as step:
        step("round 1/1, arm a")
        step("round 1/1, arm b")
    assert "replaying" in err.getvalue()


def test_a_replay_reports_one_step_per_arm_and_round() -> None:
    cfg = parse_config({
        "name": "t", "model": {"layers": 1, "heads": 2, "width": 32, "vocab_size": 512},
        "trace": {"generator": {"kind": "no_reuse", "sessions": 2, "prompt_tokens": [32, 64], "vocab_size": 512}},
        "delay_scale": 0, "rounds": 2, "instances": {"count": 1},
        "arms": [{"name": "a"}, {"name": "b"}]})
    labels: list[str] = []
    run_config(cfg, on_step=labels.append)
    assert len(labels) == replay_steps(cfg) == 4
    assert labels == ["round 1/2, arm a", "round 1/2, arm b", "round 2/2, arm a", "round 2/2, arm b"]
