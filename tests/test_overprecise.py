"""overprecise-figure and derived-figure: figures at the precision their runs' spread supports."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from db_fixtures import make_article, write_articles

from ledger.cli import main
from ledger.db import Ledger
from ledger.models import Article, MetricSpread, Run, RunMetric, RunStatus
from ledger.verify.spread import spread_check

RUN = "run-20261130T010000Z-aaaabbbb"
DAY = dt.datetime(2026, 11, 30, 1, 0, tzinfo=dt.UTC)


def _metric(name: str, value: float, low: float, high: float, unit: str = "fraction") -> RunMetric:
    return RunMetric(name=name, value=value, unit=unit, aggregation="ratio", sample_count=36,
                     samples=[low, value, high],
                     spread=MetricSpread(median=value, min=low, max=high, ci_low=low,
                                         ci_high=high))


def _run() -> Run:
    return Run(id=RUN, status=RunStatus.finished, started_at=DAY, ended_at=DAY, command=["x"],
               metrics=[_metric("hit_rate", 0.405, 0.370, 0.472),
                        _metric("stable_rate", 0.845, 0.8451, 0.8452),
                        _metric("ttft_a", 0.98, 0.73, 1.38, "s"),
                        _metric("ttft_b", 0.37, 0.24, 0.45, "s")])


def _article(body: str, *, derived: str | None = None, speedup: float = 2.6,
             interval: list[float] | None = None) -> Article:
    doc = make_article(1, body=body + " [S1]")
    doc["measurements"] = [
        {"id": "M1", "metric": "hit_rate", "value": 0.405, "unit": "fraction", "run_id": RUN,
         "measured_at": "2026-11-30", "interval": interval},
        {"id": "M2", "metric": "stable_rate", "value": 0.845, "unit": "fraction", "run_id": RUN,
         "measured_at": "2026-11-30"},
        {"id": "M3", "metric": "ttft_a", "value": 0.98, "unit": "s", "run_id": RUN,
         "measured_at": "2026-11-30"},
        {"id": "M4", "metric": "ttft_b", "value": 0.37, "unit": "s", "run_id": RUN,
         "measured_at": "2026-11-30"}]
    if derived is not None:
        doc["measurements"].append({"id": "M5", "metric": "ttft_speedup", "value": speedup,
                                    "unit": "ratio", "run_id": RUN, "measured_at": "2026-11-30",
                                    "derived_from": {"expression": derived}})
    return Article.model_validate_json(json.dumps(doc))


def _rules(body: str, **kw: object) -> list[tuple[str, str]]:
    check = spread_check(lambda run_id: _run() if run_id == RUN else None)
    kw.setdefault("interval", [0.37, 0.47] if "38-" not in body else [0.38, 0.47])
    return [(f.rule, f.message) for f in check(_article(body, **kw))]  # type: ignore[arg-type]


@pytest.mark.parametrize(("body", "overprecise"), [
    ("The hit rate was 40.5%.", True),       # the interval 37.0-47.2 does not print as 40.5
    ("The hit rate was 37-47%.", False),     # a range that covers the interval
    ("The hit rate was 38-47%.", True),      # a range narrower than the interval
    ("The hit rate was about 41%.", False),  # hedged, inside the interval
    ("The hit rate was roughly 40.5%.", False),  # hedged, inside it
    ("The stable rate was 84.5%.", False),   # the whole interval prints as 84.5
])
def test_overprecise_figure(body: str, overprecise: bool) -> None:
    found = [m for r, m in _rules(body) if r == "overprecise-figure"]
    assert bool(found) is overprecise, found
    if overprecise:
        assert "37.0 to 47.2" in found[0] or "37 to 47" in found[0]


def test_a_stated_interval_must_be_the_runs() -> None:
    found = _rules("The hit rate was 37-47%.", interval=[0.41, 0.47])  # narrower: refused
    assert ("run-mismatch" in {r for r, _ in found}) and "0.37 to 0.472" in found[0][1]
    assert _rules("The hit rate was 30-50%.", interval=[0.30, 0.50]) == []  # wider: allowed


def test_derived_figure_is_recomputed_and_carries_its_inputs_spread() -> None:
    # 0.98 / 0.37 = 2.65; the interval is 0.73/0.45 .. 1.38/0.24 = 1.6 .. 5.8
    assert _rules("It was 2.65 times faster.", derived="M3 / M4", speedup=2.65) == [
        ("overprecise-figure", "'2.65 times' (M5, ttft_speedup) is printed finer than its 95% "
                               "interval 1.62 to 5.75 at that precision")]
    assert _rules("It was 2.65 times faster.", derived="M3 / M4", speedup=2.65,
                  interval=None)[0][0] == "overprecise-figure"
    wrong = _rules("It was 3.1 times faster.", derived="M3 / M4", speedup=3.1)
    assert [r for r, _ in wrong][0] == "derived-figure" and "gives 2.649" in wrong[0][1]
    unknown = _rules("It was 2.65 times faster.", derived="M3 / M9", speedup=2.65)
    assert [r for r, _ in unknown] == ["derived-figure"] and "M9" in unknown[0][1]


def test_verify_db_reports_overprecise_figure(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "l.db")
    with Ledger.open(db) as ledger:
        ledger.record_run(_run())
    doc = _article("The hit rate was 40.5%.").to_json_dict()
    (path,) = write_articles(tmp_path / "claims", [doc])
    capsys.readouterr()
    assert main(["verify", str(path), "--db", db]) == 1
    out = capsys.readouterr().out
    assert "[overprecise-figure]" in out and "The hit rate was 40.5%." in out
