"""``conflated-experiments``: a sentence that names two experiments but keeps them apart -- each
in its own independent clause ("X means Y, and Z means W"), or in its own part of a list cut by
semicolons -- joins nothing; a clause that ties back ("the same setup", "that same run", "combined
with") still joins."""

from __future__ import annotations

import copy
import json
from typing import Any

from verify_fixtures import load

from ledger.models import Article
from ledger.verify.consistency import word_count
from ledger.verify.guardrails import check_guardrails
from ledger.verify.tracing import trace_figures

GUARD = {"status": "prepublication_guardrail",
         "text": "The bench test and the field pilot are separate experiments.",
         "rule": {"kind": "separate_experiments", "experiments": [
             {"name": "bench test", "values": [320, 4.2], "terms": ["bench", "lab rig"]},
             {"name": "field pilot", "values": [35, 1.35], "terms": ["field pilot", "stores"]}]}}


def _joins(body: str, guard: dict[str, Any] = GUARD) -> list[str]:
    doc: dict[str, Any] = copy.deepcopy(load())
    doc["body"] = body + "\n"
    doc["editorial_word_count"] = word_count(doc["body"])
    doc["corrections"] = [guard]
    article = Article.model_validate_json(json.dumps(doc))
    return [f.severity.value for f in check_guardrails(article, trace_figures(article))
            if f.rule == "conflated-experiments"]


def test_independent_clauses_each_with_its_own_subject_keep_experiments_apart() -> None:
    for body in (
        "A 320% gain means 4.2 times the old rate, and 35% more orders means 1.35 times as "
        "many.",
        "The 320% rise is 4.2 times the baseline, but 35% more orders is a count, not a speed.",
        "On the bench a 320% gain was 4.2 times the old rate, while 35% more orders were "
        "served in the field pilot.",
    ):
        assert _joins(body) == [], body


def test_parts_of_a_list_cut_by_semicolons_keep_experiments_apart() -> None:
    for body in (
        "In short: on the bench, the cache reached 4.2 times the old rate; with a smaller pool "
        "it still gained 320%; and in the field pilot, shops served 35% more orders.",
        "Our reading: the bench showed a 320% gain; with only 1.35 times the staff, shops kept "
        "pace; the field pilot's count is 35% more orders.",
        "On the bench the cache ran 4.2 times faster; in the field pilot, shops handled 35% "
        "more orders.",
        "Two results stand out: a 320% gain on the bench; 35% more orders in the field pilot.",
        # each part of a list by commas names its experiment by one of its terms
        "It gained 320% on the lab rig, 35% more orders in the stores.",
    ):
        assert _joins(body) == [], body


def test_a_clause_that_ties_back_to_the_other_experiment_still_joins() -> None:
    for body in (
        "On the bench the cache ran 4.2 times faster, and the same setup handled 35% more "
        "orders.",
        "On the bench the cache ran 4.2 times faster; in that same run it handled 35% more "
        "orders.",
        "The cache ran 4.2 times faster and handled 35% more orders.",
        "The cache ran 4.2 times faster; together with 35% more orders, it won the contract.",
        "A 320% gain means 4.2 times the old rate, and 35% more orders also came from it.",
        "It gained 320% on the lab rig, with the same 35% more orders in the stores.",
    ):
        assert _joins(body) == ["error"], body


def test_each_figure_the_subject_of_its_own_clause_keeps_experiments_apart() -> None:
    """"The X figure is A and the Y figure is B": each figure gets its own experiment, in a
    clause with its own subject and verb, however the clauses are joined."""
    for body in (
        "The 4.2x figure is the bench result and the 35% figure is the field pilot's.",
        "The 4.2x is bench speed while the 35% is the field pilot alone.",
        "One figure is the lab rig's 4.2x and the other is the stores' 35%.",
        "The 4.2x figure is the bench result; the 35% figure is the field pilot's.",
    ):
        assert _joins(body) == [], body
    # a clause of its own that ties back to the run before it still joins
    assert _joins("The 4.2x is the bench result and the 35% is its gain in that same run."
                  ) == ["error"]


def test_a_prohibition_in_the_body_joins_nothing() -> None:
    for body in (
        "Do not call the 4.2x a field pilot result.",
        "Nor should the 35% be presented as a bench figure.",
        "The 4.2 times should not be read as a field pilot result.",
        "Second, never describe the 35% as a lab rig number.",
    ):
        assert _joins(body) == [], body
    # the part after the prohibition is the sentence's own claim again
    assert _joins("Do not call the 4.2x a field pilot result; on the bench it came with 35% "
                  "more orders in that same run.") == ["error"]


def test_a_sentence_that_works_one_experiments_figure_out_of_the_other_is_a_warning() -> None:
    worked = {"status": "prepublication_guardrail",
              "text": "Per-node and per-rack figures are separate.",
              "rule": {"kind": "separate_experiments", "experiments": [
                  {"name": "per node", "values": [12.5], "terms": ["per node"]},
                  {"name": "per rack", "values": [400], "terms": ["per rack"]}]}}

    def joins(body: str) -> list[str]:
        return _joins(body, worked)

    assert joins("PCT's check: 400 TB/s per rack over 32 nodes is 12.5 TB/s per node.") == [
        "warning"]
    # the same two figures joined with no working stay an error
    assert joins("In one run the system moved 400 TB/s per rack with 12.5 TB/s per node.") == [
        "error"]


def test_a_sentence_that_makes_its_results_one_joins_the_items_that_name_their_parts() -> None:
    # each item names its own experiment by one of its terms, which alone keeps them apart
    # (the control); words that make the results one result join them
    apart = "it gained 320% on the lab rig, 35% more orders in the stores."
    assert _joins("Measured separately, " + apart) == []
    for body in ("Together, " + apart, "Combined, " + apart,
                 "One three-store system reached 4.2 times the old rate on the lab rig, 35% "
                 "more orders in the stores.",
                 "At once " + apart):
        assert _joins(body) == ["error"], body


def test_the_two_ends_of_a_spread_and_a_figure_naming_a_document_join_nothing() -> None:
    assert _joins("The gains run from 4.2 times the old rate at one end to 35% more orders at "
                  "the other.") == []
    # "the 4.2x post" names a document: the sentence dates it, it states no bench result
    assert _joins("From the 4.2x post to the field pilot's 35% more orders is 97 days.") == []
    assert _joins("From the 4.2x result to the field pilot's 35% more orders is one "
                  "gain.") == ["error"]


def test_a_runs_setting_is_no_experiments_result() -> None:
    # "at batch 4" sets the run; the 4.2 and 1.35 are the experiments' results
    guard = copy.deepcopy(GUARD)
    guard["rule"]["experiments"][0]["values"] = [320, 4]
    assert _joins("In the field pilot, at batch 4, shops served 35% more orders.", guard) == []
    assert _joins("The field pilot's 35% more orders came with a 4x gain.", guard) == ["error"]
