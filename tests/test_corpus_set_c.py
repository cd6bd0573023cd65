"""Held-out corpus set C: its manifest is well-formed and every edit applies.

This module never runs ``ledger verify`` on set C (that is ``benchmarks/bench_accuracy.py``'s
job, once, at the end). It checks only what the manifest promises: each article fits the schema
and the models, each edit's ``find`` text occurs in the named field, and each span lies in the
replacement text.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from ledger.models import Article

ROOT = Path(__file__).parent / "corpus" / "set-c"
SCHEMA = Path(__file__).parents[1] / "schemas" / "article.schema.json"
RULES = {
    "untraced-figure",
    "mislabeled-figure",
    "unit-mismatch",
    "percentage-points",
    "unattributed-figure",
    "misattributed-source",
    "desk-claims-authors-figure",
    "guardrail",
    "conflated-experiments",
    "unsupported-conclusion",
    "arithmetic",
    "date-order",
    "dangling-citation",
}
MANIFEST: dict[str, Any] = json.loads((ROOT / "manifest.json").read_text(encoding="utf-8"))
DOCS: dict[str, dict[str, Any]] = {
    a["id"]: json.loads((ROOT / a["file"]).read_text(encoding="utf-8"))
    for a in MANIFEST["articles"]
}


def _field(doc: dict[str, Any], pointer: str) -> Any:
    node: Any = doc
    for part in pointer.lstrip("/").split("/"):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def _apply(text: str, edit: dict[str, Any]) -> tuple[str, str] | None:
    """The edited text and the replacement, or None when ``find`` has too few occurrences."""
    pos = -1
    for _ in range(edit.get("occurrence", 1)):
        pos = text.find(edit["find"], pos + 1)
        if pos < 0:
            return None
    return text[:pos] + edit["replace"] + text[pos + len(edit["find"]) :], edit["replace"]


def test_manifest_shape_and_counts() -> None:
    assert MANIFEST["set"] == "set-c" and MANIFEST["holdout"] is True
    assert len(MANIFEST["articles"]) >= 6
    assert len({a["system"] for a in MANIFEST["articles"]}) == len(MANIFEST["articles"])
    rules = Counter(m["rule"] for m in MANIFEST["mutations"])
    assert set(rules) == RULES, set(rules) ^ RULES
    assert min(rules.values()) >= 3
    assert len(MANIFEST["mutations"]) >= 60 and len(MANIFEST["benign"]) >= 15
    ids = [m["id"] for m in MANIFEST["mutations"]] + [b["id"] for b in MANIFEST["benign"]]
    assert len(ids) == len(set(ids))
    assert all(m["severity"] in {"error", "warning"} for m in MANIFEST["mutations"])


@pytest.mark.parametrize("article_id", sorted(DOCS))
def test_article_fits_schema_and_models(article_id: str) -> None:
    doc = DOCS[article_id]
    jsonschema.validate(doc, json.loads(SCHEMA.read_text(encoding="utf-8")))
    Article.model_validate_json(json.dumps(doc))
    listed = next(a for a in MANIFEST["articles"] if a["id"] == article_id)
    assert listed["sources"] == [s["url"] for s in doc["sources"]]


@pytest.mark.parametrize("item", MANIFEST["mutations"] + MANIFEST["benign"], ids=lambda i: i["id"])
def test_edit_applies(item: dict[str, Any]) -> None:
    edit = item["edit"]
    field = _field(DOCS[item["article"]], edit.get("pointer", "/body"))
    assert isinstance(field, str)
    applied = _apply(field, edit)
    assert applied is not None, f"{item['id']}: find text not in field"
    new, replacement = applied
    assert new != field
    if "span" in item:
        assert item["span"] in replacement, f"{item['id']}: span outside the replacement"


def _word_count(body: str) -> int:
    return sum(1 for token in body.split() if not re.fullmatch(r"(\[S\d+\])+[.,;:]?", token))


@pytest.mark.parametrize("article_id", sorted(DOCS))
def test_editorial_word_count_excludes_citation_markers(article_id: str) -> None:
    doc = DOCS[article_id]
    assert doc["editorial_word_count"] == _word_count(doc["body"])
    assert "[S1]" in doc["body"]
    assert _word_count(doc["body"]) < len(doc["body"].split())


def test_half_the_articles_carry_quotes() -> None:
    with_quotes = [a for a, d in DOCS.items() if any(f.get("quotes") for f in d["facts"])]
    assert 0 < len(with_quotes) < len(DOCS)
