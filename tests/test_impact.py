"""ledger impact and ledger export: what depends on a source, fact, run or metric."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from db_fixtures import ledger_url, make_article  # noqa: F401

from ledger.cli import main
from ledger.db import Ledger
from ledger.errors import NotFound
from ledger.impact import impact
from ledger.models import Article, Run, RunMetric, RunStatus
from ledger.schema import load_article
from ledger.verify.tracing import trace_figures

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "claims" / "pct-2026-11-04-spotlight-mooncake-store.json"
RUN_ID = "run-impact-test"


def _seed() -> Article:
    article, _ = load_article(SEED)
    assert article is not None
    return article


def _measured_article() -> Article:
    doc = make_article(5, body="Warm prefix caching cut the median time to first token to "
                               "41.5 ms on the desk's replay. [S1]")
    doc["measurements"] = [{"id": "M1", "metric": "ttft_p50", "value": 41.5, "unit": "ms",
                            "run_id": RUN_ID, "measured_at": "2026-11-04"}]
    doc["facts"][0]["measurement_ids"] = ["M1"]
    return Article.model_validate_json(json.dumps(doc))


def _figures(result: dict) -> set[str]:
    return {f["text"] for a in result["articles"] for f in a["figures"]}


def test_impact_of_s4_lists_every_body_figure_that_traces_to_it(
        ledger_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    article = _seed()
    traced_to_s4 = {t.figure.text for t in trace_figures(article)
                    if any("S4" in tr.source_ids for tr in t.traces)}
    with Ledger.open(ledger_url) as ledger:
        ledger.ingest(article)
    capsys.readouterr()
    assert main(["impact", f"{article.id}:S4", "--db", ledger_url, "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    found = _figures(result)
    assert traced_to_s4 and traced_to_s4 <= found
    assert {"3.8 times", "46-fold", "8.6-fold", "1.7%", "92.2%"} <= found
    assert not {"62.5%", "June 24, 2024"} & found  # other paragraphs, other sources
    assert "F4" in result["articles"][0]["facts"]
    assert main(["impact", "scope:median_ttft_speedup", "--db", ledger_url, "--format", "json"]) == 0
    assert "46-fold" in _figures(json.loads(capsys.readouterr().out))
    assert all(f["line"] >= 1 and f["sentence"] for a in result["articles"] for f in a["figures"])


def test_impact_through_a_measurement_to_its_run(ledger_url: str) -> None:
    with Ledger.open(ledger_url) as ledger:
        ledger.record_run(Run(id=RUN_ID, status=RunStatus.running,
                              started_at=_seed_time(), command=["replay"]))
        ledger.ingest(_measured_article())
        with ledger.read() as conn:
            by_run = impact(conn, RUN_ID).to_dict()
            by_metric = impact(conn, f"{RUN_ID}/ttft_p50").to_dict()
            by_fact = impact(conn, "t5-2026-11-04:M1").to_dict()
            with pytest.raises(NotFound):
                impact(conn, "run-unknown")
    assert _figures(by_run) == {"41.5"} == _figures(by_metric)
    assert by_run["articles"][0]["measurements"] == ["M1"]
    assert by_run["articles"][0]["facts"] == ["F1"]
    assert _figures(by_fact) == {"41.5"}


def _seed_time():  # type: ignore[no-untyped-def]
    import datetime as dt
    return dt.datetime(2026, 11, 4, 9, 0, tzinfo=dt.UTC)


def test_impact_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "l.db")
    assert main(["impact", "S4", "--db", db]) == 2
    assert "no ledger at" in capsys.readouterr().err
    Ledger.open(db).close()
    assert main(["impact", "--db", db]) == 2
    assert "either an ID or --changed" in capsys.readouterr().err
    assert main(["impact", "S4", "--db", db]) == 2
    assert main(["impact", "--changed", "--db", db]) == 0
    assert "no changed sources" in capsys.readouterr().out


def test_export_prov_json(ledger_url: str, tmp_path: Path) -> None:
    with Ledger.open(ledger_url) as ledger:
        ledger.record_run(Run(id=RUN_ID, status=RunStatus.finished, started_at=_seed_time(),
                              ended_at=_seed_time(), command=["replay"],
                              metrics=[RunMetric(name="ttft_p50", value=41.5, unit="ms",
                                                 aggregation="p50", sample_count=20)]))
        ledger.ingest(_measured_article())
    out = tmp_path / "prov.json"
    assert main(["export", "--format", "prov-json", "--db", ledger_url, "--output", str(out)]) == 0
    doc = json.loads(out.read_text())
    run = f"ledger:run/{RUN_ID}"
    assert run in doc["activity"]
    generated = [g for g in doc["wasGeneratedBy"].values() if g["prov:activity"] == run]
    entities = {g["prov:entity"] for g in generated}
    assert "ledger:figure/t5-2026-11-04/v1/1" in entities
    assert any(e.startswith("ledger:metric/") for e in entities)
    derived = {(d["prov:generatedEntity"], d["prov:usedEntity"])
               for d in doc["wasDerivedFrom"].values()}
    assert ("ledger:figure/t5-2026-11-04/v1/1", "ledger:source/t5-2026-11-04/S1") in derived
