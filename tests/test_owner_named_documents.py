"""``misattributed-source`` for a document a sentence names without a marker, by its date or
by its title in quotes, and for owners written with a date, a quoted title or two people
between the possessive and its noun (sentences written for these tests, on the desk's seed,
whose S4 is vLLM's May 6, 2026 post "Serving Agentic Workloads at Scale with vLLM x Mooncake"
by Yifan Qiao and others)."""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_fixtures import replacing, rules_at, verify_with

LAST = "Before assigning monetary value to a cache hit"


def _verify(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    return verify_with(tmp_path, replacing(LAST, text + "\n\n" + LAST))


@pytest.mark.parametrize(("sentence", "owner"), [
    ("NVIDIA's May 6, 2026 comparison puts the agentic gain in context.", "NVIDIA's"),
    ('NVIDIA\'s "Serving Agentic Workloads" post puts the agentic gain in context.',
     "NVIDIA's"),
    ("In a post dated May 6, 2026, NVIDIA's Yifan Qiao and Ao Shen reported the agentic "
     "gain.", "NVIDIA's"),
])
def test_a_wrong_owner_of_a_document_named_by_date_or_title(
        tmp_path: Path, sentence: str, owner: str) -> None:
    doc, result = _verify(tmp_path, sentence)
    assert rules_at(result, doc, owner).get("misattributed-source") == "error"


@pytest.mark.parametrize("sentence", [
    "vLLM's May 6, 2026 comparison puts the agentic gain in context.",
    'vLLM\'s "Serving Agentic Workloads" post puts the agentic gain in context.',
    "In a post dated May 6, 2026, vLLM's Yifan Qiao and Ao Shen reported the agentic gain.",
])
def test_the_right_owner_raises_nothing(tmp_path: Path, sentence: str) -> None:
    doc, result = _verify(tmp_path, sentence)
    assert "misattributed-source" not in rules_at(result, doc, "vLLM's")
