"""Verification levels: derived from the ledger, shown by `show` and `figures`, checked in prose."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from db_fixtures import ledger_url, make_article, write_articles  # noqa: F401

from ledger.cli import main
from ledger.db import Ledger
from ledger.levels import Level, Reproduction, article_levels, same_machine
from ledger.models import Article, Run, RunMetric, RunStatus
from ledger.verify.levels import claimed_level, level_check

RUN = "run-20261129T205820Z-aaaabbbb"


def _doc(sentence: str) -> dict:
    doc = make_article(1, body=f"{sentence} [S1]")
    doc["measurements"] = [{"id": "M1", "metric": "hit_rate", "value": 0.845, "unit": "fraction",
                            "run_id": RUN, "measured_at": "2026-11-29"}]
    doc["facts"][0]["measurement_ids"] = ["M1"]
    return doc


def _run() -> Run:
    t = dt.datetime(2026, 11, 29, 20, 58, tzinfo=dt.UTC)
    return Run(id=RUN, status=RunStatus.finished, started_at=t, ended_at=t, command=["x"],
               environment={"machine_id": "m-original", "cpu": "c", "operator": "desk"},
               metrics=[RunMetric(name="hit_rate", value=0.845, unit="fraction",
                                  aggregation="ratio", sample_count=3)])


def _reproduction(independent: bool, held: tuple[str, ...] = ("hit_rate",)) -> Reproduction:
    return Reproduction(original=RUN, run_id="run-20261130T010000Z-ccccdddd",
                        date="2026-11-30T01:00:00Z", machine="abc123", operator="desk",
                        revision="deadbeef", independent=independent, held=held)


def test_levels_rise_only_with_recorded_reproductions(ledger_url: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    article = Article.model_validate_json(json.dumps(_doc("The hit rate was 84.5%.")))
    with Ledger.open(ledger_url) as ledger:
        ledger.record_run(_run())
        ledger.ingest(article)

        def levels() -> tuple[str, str]:
            capsys.readouterr()
            assert main(["show", article.id, "--db", ledger_url, "--format", "json"]) == 0
            shown = json.loads(capsys.readouterr().out)["levels"]
            return shown["M1"]["level"], shown["F1"]["level"]

        assert levels() == ("measured", "measured")
        ledger.record_reproduction(_reproduction(False, held=()))  # a rerun that did not hold
        assert levels() == ("measured", "measured")
        ledger.record_reproduction(_reproduction(False))
        assert levels() == ("reproduced", "reproduced")
        ledger.record_reproduction(_reproduction(True))
        assert levels() == ("independently-reproduced", "independently-reproduced")
        assert ledger.audit().ok


def test_a_source_fact_is_reported_and_a_measurement_measured() -> None:
    article = Article.model_validate_json(json.dumps(_doc("The hit rate was 84.5%.")))
    article.facts[0].measurement_ids = None
    levels = article_levels(article)
    assert levels["F1"].level is Level.reported and levels["M1"].level is Level.measured


def test_same_machine_compares_what_both_recorded() -> None:
    assert same_machine({"machine_id": "a", "cpu": "x"}, {"machine_id": "a", "cpu": "y"})
    assert not same_machine({"machine_id": "a"}, {"machine_id": "b"})
    assert same_machine({"cpu": "x", "cpu_count": 2}, {"cpu": "x", "machine_id": "b"})
    assert not same_machine({"cpu": "x"}, {"cpu": "z"})


@pytest.mark.parametrize(("sentence", "level"), [
    ("The figure was independently reproduced.", Level.independently_reproduced),
    ("It has not been independently reproduced.", None),
    ("A rerun confirmed the ratio.", Level.reproduced),
    ("The vendor's figure is unverified and yet to be confirmed.", None),
])
def test_claimed_level(sentence: str, level: Level | None) -> None:
    assert claimed_level(sentence) is level


def test_independently_reproduced_for_a_measured_figure_is_a_warning(tmp_path: Path) -> None:
    article = Article.model_validate_json(json.dumps(_doc(
        "The hit rate, independently reproduced, was 84.5%.")))
    (finding,) = level_check(None)(article)
    assert finding.rule == "overclaimed-level" and finding.severity.value == "warning"
    assert "84.5%" in finding.message and "measured" in finding.message
    assert finding.sentence is not None and "independently reproduced" in finding.sentence
    # with the ledger's record of an independent rerun, the claim holds
    assert level_check(lambda run_id: [_reproduction(True)])(article) == []
    assert level_check(lambda run_id: [_reproduction(False)])(article) != []


def test_verify_cli_warns_and_figures_shows_the_level(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    (path,) = write_articles(tmp_path, [_doc("The hit rate was independently verified at 84.5%.")])
    capsys.readouterr()
    assert main(["verify", str(path), "--strict", "--format", "json"]) == 1
    assert "overclaimed-level" in capsys.readouterr().out
    assert main(["figures", str(path), "--format", "json"]) == 0
    figures = json.loads(capsys.readouterr().out)["figures"]
    assert [f["level"] for f in figures if f["text"] == "84.5%"] == ["measured"]
    db = tmp_path / "l.db"
    with Ledger.open(str(db)) as ledger:
        ledger.record_run(_run())
        ledger.record_reproduction(_reproduction(True))
    assert main(["figures", str(path), "--db", str(db), "--format", "json"]) == 0
    figures = json.loads(capsys.readouterr().out)["figures"]
    assert [f["level"] for f in figures if f["text"] == "84.5%"] == ["independently-reproduced"]
    assert main(["figures", str(path), "--db", str(db)]) == 0
    assert "[independently-reproduced] M1" in capsys.readouterr().out
