"""The seed article against saved copies of its real sources (../shared/sources, not committed):
every quote is found; a changed figure, a changed quote and an edited page are each caught."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from snapshot_fixtures import SEED, SEED_FILES, SEED_ID, SHARED_SOURCES, seed

from ledger.cli import main
from ledger.db import Ledger
from ledger.models import Article

pytestmark = [
    pytest.mark.skipif(not (SHARED_SOURCES / "S4.md").is_file(),
                       reason=f"saved seed sources not found at {SHARED_SOURCES}"),
    pytest.mark.slow,
]

GROUNDING = {"quote-not-found", "stale-quote", "ungrounded-figure", "snapshot-unreadable",
             "quote-source-not-cited", "unquoted-fact"}
CAPTION = "improves throughput by 3.8x, reduces P50 TTFT by 46x"


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[str, str]:
    db, snaps = str(tmp_path / "seed.db"), str(tmp_path / "snaps")
    with Ledger.open(db) as ledger:
        ledger.ingest(Article.model_validate_json(SEED.read_text(encoding="utf-8")))
    for source_id, name in SEED_FILES.items():
        assert main(["sources", "add", f"{SEED_ID}:{source_id}", str(SHARED_SOURCES / name),
                     "--db", db, "--snapshots", snaps, "--retrieved-at", "2026-11-04"]) == 0
    return db, snaps


def _verify(capsys: pytest.CaptureFixture[str], path: Path, db: str, snaps: str
            ) -> list[dict[str, Any]]:
    capsys.readouterr()
    main(["verify", str(path), "--db", db, "--snapshots", snaps, "--format", "json"])
    return [f for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"] in GROUNDING]


def _mutant(tmp_path: Path, change: Any) -> Path:
    doc = copy.deepcopy(seed())
    change(doc)
    path = tmp_path / f"{SEED_ID}.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def _fact(doc: dict[str, Any], fact_id: str) -> dict[str, Any]:
    return next(f for f in doc["facts"] if f["id"] == fact_id)


def test_every_quote_is_found_in_the_saved_sources(
        seeded: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    db, snaps = seeded
    assert _verify(capsys, SEED, db, snaps) == []
    assert sum(len(f.get("quotes", [])) for f in seed()["facts"]) >= 10


def test_a_figure_changed_in_one_fact_is_ungrounded(
        tmp_path: Path, seeded: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    def change(doc: dict[str, Any]) -> None:
        fact = _fact(doc, "F4")
        fact["claim"] = fact["claim"].replace("46×", "48×")
    findings = _verify(capsys, _mutant(tmp_path, change), *seeded)
    assert [(f["rule"], f["pointer"]) for f in findings] == [("ungrounded-figure",
                                                              "/facts/3/claim")]
    assert "'48×'" in findings[0]["message"]


def test_a_quote_changed_by_one_word_is_not_found(
        tmp_path: Path, seeded: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    def change(doc: dict[str, Any]) -> None:
        quote = _fact(doc, "F2")["quotes"][0]
        quote["text"] = quote["text"].replace("only reduces", "greatly reduces")
    findings = _verify(capsys, _mutant(tmp_path, change), *seeded)
    assert [(f["rule"], f["pointer"]) for f in findings] == [("quote-not-found",
                                                              "/facts/1/quotes/0/text")]
    message = findings[0]["message"]
    assert "closest passage" in message and "APC only reduces the time of processing" in message


def test_an_edited_page_makes_the_quote_stale_and_shows_in_impact(
        tmp_path: Path, seeded: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    db, snaps = seeded
    page = (SHARED_SOURCES / "S4.md").read_text(encoding="utf-8")
    assert CAPTION in page
    edited = tmp_path / "S4-edited.md"
    edited.write_text(page.replace(CAPTION, CAPTION.replace("3.8x", "3.6x")), encoding="utf-8")
    assert main(["sources", "add", f"{SEED_ID}:S4", str(edited), "--db", db,
                 "--snapshots", snaps, "--retrieved-at", "2026-11-30"]) == 0
    assert "CHANGED" in capsys.readouterr().out
    findings = _verify(capsys, SEED, db, snaps)
    assert [(f["rule"], f["pointer"]) for f in findings] == [("stale-quote",
                                                              "/facts/3/quotes/2/text")]
    assert main(["impact", "--changed", "--db", db, "--snapshots", snaps,
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (stale,) = data["stale_quotes"]
    assert (stale["fact_id"], stale["source_id"]) == ("F4", "S4")
    figures = [f["text"] for f in stale["impact"]["articles"][0]["figures"]]
    assert any(text.startswith("3.8") for text in figures), figures  # the body's "3.8 times"
    assert "8.6-fold" in figures
    assert [c["target"] for c in data["changed"]] == [f"{SEED_ID}:S4"]
