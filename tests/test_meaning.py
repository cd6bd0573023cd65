"""Guardrails by meaning: lemmas, synonyms and prose phrasings."""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_fixtures import replace_body, verify_mutant

from ledger.verify.meaning import find_lemmas, prose_rule


@pytest.mark.parametrize("term, text", [
    ("GPU savings", "a GPU saving of 20 times"),
    ("savings", "this saves up to 5x"),
    ("improvement", "throughput improved 121%"),
    ("faster", "87.4% quicker responses"),
    ("cost", "a lower price per token"),
])
def test_terms_match_their_forms_and_synonyms(term: str, text: str) -> None:
    assert find_lemmas(text, [term])


def test_unrelated_words_do_not_match() -> None:
    assert not find_lemmas("the throughput rose", ["cost", "latency"])


def test_prose_rules_are_read() -> None:
    rule = prose_rule("Do not credit the paper's 6.4x to RadixAttention alone: it adds more.")
    # "alone": credit to RadixAttention as the sole cause is what the rule forbids
    assert rule is not None and rule.kind == "credit_to" and rule.forbidden == [
        "RadixAttention"] and rule.sole
    rule = prose_rule("The README's 3-10x range is a summary claim; do not present it as a "
                      "measured benchmark.")
    assert rule is not None and rule.kind == "present_as" and len(rule.values[0]) == 2
    assert prose_rule("Keep the tone measured.") is None


def test_prose_guardrail_is_enforced_as_a_warning(tmp_path: Path) -> None:
    def mutate(doc: dict) -> None:
        doc["corrections"].append({
            "status": "prepublication_guardrail",
            "text": "Do not credit the 3.8 times to the store alone; the routing changed too."})
        replace_body(doc, "They reported 3.8 times the throughput",
                     "They reported that the store alone accounts for 3.8 times the throughput")
    _, result = verify_mutant(tmp_path, mutate)
    found = [f for f in result.findings if f.rule == "guardrail"]
    assert found and found[0].severity.value == "warning"
    assert not [f for f in result.findings if f.rule == "unchecked-guardrail"]


def test_structured_rule_matches_by_lemma(tmp_path: Path) -> None:
    _, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, "a 46-fold reduction in median time to first token", "a 46-fold cost saving"))
    assert [f for f in result.findings if f.rule == "guardrail"]
