"""``python -m replay``: run, trace, import-vllm, schema, break-even; plots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def run(argv: list[str]) -> tuple[int, str]:
    lines: list[str] = []
    rc = main(argv, out=lines.append)
    return rc, "\n".join(lines)


def test_every_command_has_help_with_an_example() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():  # type: ignore[union-attr]
        assert "example:" in (p.epilog or ""), name


def test_run_prints_a_table_and_writes_results_and_plots(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "name: cli\n"
        "trace: {generator: {kind: long_document_qa, document_tokens: 128, sessions: 3,"
        " vocab_size: 512}}\n"
        "model: {layers: 1, heads: 2, width: 32, vocab_size: 512, torch_threads: 1}\n"
        "delay_scale: 0\n"
        f"cost_model: {ROOT / 'examples' / 'cost-model.yaml'}\n"
        "arms: [{name: cold}, {name: warm, warmth: warm}]\n"
        "compare: [cold, warm]\n")
    rc, out = run(["run", str(cfg), "--out", str(tmp_path / "out")])
    assert rc == 0, out
    assert "p50 TTFT ms" in out and "cold" in out and "warm" in out
    for name in ("results.json", "ttft.png", "hit_rate.png", "cost.png"):
        assert (tmp_path / "out" / name).stat().st_size > 0
    assert (tmp_path / "out" / "ttft.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    doc = json.loads((tmp_path / "out" / "results.json").read_text())
    assert set(doc["arms"]) == {"cold", "warm"}
    table = (tmp_path / "out" / "slo_sensitivity.txt").read_text()
    assert "illustrative prices" in table and "x1 " in table and "x0.5" in table
    rows = json.loads((tmp_path / "out" / "slo_sensitivity.json").read_text())
    assert [r["factor"] for r in rows] == [0.5, 0.75, 1.0, 1.5, 2.0, 3.0]


def test_plots_say_what_they_show(tmp_path: Path) -> None:
    import yaml

    from replay.config import parse_config
    from replay.plots import cost_figure, ttft_figure
    from replay.runner import run_config

    data = yaml.safe_load(
        "name: plots\n"
        "trace: {generator: {kind: long_document_qa, document_tokens: 128, sessions: 2,"
        " vocab_size: 512}}\n"
        "model: {layers: 1, heads: 2, width: 32, vocab_size: 512, torch_threads: 1}\n"
        "delay_scale: 0\nslo: {ttft_s: 0.25, e2e_s: 2.0}\n"
        f"cost_model: {ROOT / 'examples' / 'cost-model.yaml'}\n"
        "arms: [{name: cold}, {name: warm, warmth: warm}]\n")
    run = run_config(parse_config(data, base_dir=tmp_path))
    (ax,) = ttft_figure(run).axes
    assert "SLO: TTFT under 250 ms" in [line.get_label() for line in ax.get_lines()]
    cost = cost_figure(run)
    assert cost is not None
    (ax,) = cost.axes
    assert "illustrative prices" in ax.get_title() and "USD" in ax.get_title()
    assert ax.get_ylabel() == "USD per 1,000 completions meeting the SLO"
    assert "per 1,000 completions meeting the SLO" in ax.get_title()
    assert [t.get_text().endswith(" USD") for t in ax.texts] == [True, True]  # value labels


def test_run_with_a_bad_config_exits_2(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("name: x\ntrace: {generator: {kind: nope}}\n")
    assert run(["run", str(cfg)])[0] == 2


def test_trace_and_import(tmp_path: Path) -> None:
    rc, out = run(["trace", "coding_agent", "--set", "sessions=2", "--set", "turns=3"])
    assert rc == 0
    assert len(json.loads(out)["sessions"]) == 2
    assert run(["trace", "coding_agent", "--set", "sessions"])[0] == 2
    assert run(["trace", "coding_agent", "--set", "sessions=0"])[0] == 2
    conv = tmp_path / "conv.json"
    conv.write_text(json.dumps([{"id": "a", "messages": [{"role": "user", "content": "hi"}]}]))
    rc, out = run(["import-vllm", str(conv), "--out", str(tmp_path / "t.json")])
    assert rc == 0 and (tmp_path / "t.json").exists()


def test_schema_check_detects_drift(tmp_path: Path) -> None:
    assert run(["schema", "--check", str(ROOT / "schemas" / "trace.schema.json")])[0] == 0
    stale = tmp_path / "s.json"
    stale.write_text("{}")
    assert run(["schema", "--check", str(stale)])[0] == 1
    assert run(["schema", "--check", str(tmp_path / "missing.json")])[0] == 2


@pytest.mark.slow
def test_break_even_command_reports_prediction_and_measurement() -> None:
    rc, out = run(["break-even", "--rounds", "3", "--layers", "1", "--width", "32"])
    assert rc == 0
    assert "break-even prefix: predicted" in out


def test_package_exports_are_pinned() -> None:
    import replay
    assert sorted(replay.__all__) == sorted(set(replay.__all__))
    for name in replay.__all__:
        assert getattr(replay, name) is not None
    assert {"run_config", "ServingInstance", "Trace", "Router", "CostModel"} <= set(replay.__all__)
