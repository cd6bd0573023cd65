"""The article model: lossless round trip of the committed articles, strictness, extensions."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from verify_fixtures import SECOND, SEED, load

from ledger.models import (
    Article,
    Correction,
    DistinctDatesRule,
    EvidenceType,
    ForbiddenLabelRule,
)


@pytest.mark.parametrize("path", [SEED, SECOND], ids=["seed", "second"])
def test_round_trip_is_lossless_against_the_file(path: Path) -> None:
    raw = path.read_text(encoding="utf-8")
    article = Article.model_validate_json(raw)
    dumped = article.to_json_dict()
    assert dumped == json.loads(raw)
    assert json.dumps(dumped, indent=2, ensure_ascii=False) + "\n" == raw  # order kept too


def test_seed_values_load_as_types() -> None:
    a = Article.model_validate_json(SEED.read_text(encoding="utf-8"))
    assert str(a.as_of_date) == "2026-11-04" and a.sources[1].published_at is None
    assert a.facts[3].evidence_type is (
        EvidenceType.author_reported_benchmark_not_independently_reproduced)
    assert isinstance(a.corrections[0].rule, ForbiddenLabelRule)
    assert isinstance(a.corrections[3].rule, DistinctDatesRule)
    assert a.inferences[1].computation is not None


def test_optional_parts_may_be_absent() -> None:
    doc = load()
    for c in doc["corrections"]:
        c.pop("rule", None)
        c.pop("id")
    doc["inferences"][1].pop("computation")
    Article.model_validate_json(json.dumps(doc))


@pytest.mark.parametrize("change, where", [
    (lambda d: d.update(editorial_word_count="558"), "editorial_word_count"),
    (lambda d: d.update(tittle="typo"), "tittle"),
    (lambda d: d["facts"][0].update(evidence_type="rumour"), "evidence_type"),
    (lambda d: d["sources"][0].update(published_at="24 June 2024"), "published_at"),
    (lambda d: d["facts"][0].update(id="fact-1"), "id"),
    (lambda d: d.pop("body"), "body"),
    (lambda d: d["corrections"][0]["rule"].update(kind="nonsense"), "rule"),
    (lambda d: d["corrections"][0]["rule"].update(forbidden=[]), "forbidden"),
])
def test_invalid_documents_name_the_field(change, where: str) -> None:
    doc = copy.deepcopy(load())
    change(doc)
    with pytest.raises(ValidationError) as info:
        Article.model_validate_json(json.dumps(doc))
    assert where in str(info.value)


def test_extension_fields_are_kept() -> None:
    doc = load()
    doc["x-desk-note"] = {"owner": "spotlight"}
    doc["facts"][0]["x-checked-by"] = "editor"
    a = Article.model_validate_json(json.dumps(doc))
    assert a.to_json_dict()["x-desk-note"] == {"owner": "spotlight"}
    assert a.to_json_dict()["facts"][0]["x-checked-by"] == "editor"


def test_correction_rule_is_discriminated_by_kind() -> None:
    c = Correction.model_validate_json(json.dumps({"status": "prepublication_guardrail", "text": "t", "rule": {
        "kind": "distinct_dates", "dates": {"a": "2024-01-01", "b": "2024-02-01"}}}))
    assert isinstance(c.rule, DistinctDatesRule)
