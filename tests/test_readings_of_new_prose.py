"""Readings found on the seventh session's first blind sets (Y and Z) and on W and X, each
written here as a sentence of its own on the desk's seed, with the mistake the reading must
still catch beside it:

* a unit's definition ("eight bits per byte") needs no evidence;
* metrics that differ in one word of their names ("..._write_util_..." and
  "..._read_util_...") share the words before a list of both;
* a model's size in a claim ("one 8B configuration") is a name, not a result;
* a compound that opens with a stop word ("4K-versus-16K") counts nothing;
* a work a teller refers to ("pointed to an OSTI.GOV paper") is not the cited source;
* a date no evidence gives is a ``date-order`` error only when it is one part off an
  evidence date; otherwise it is simply untraced;
* a fact's "Meta and Crusoe authors" names the employers of the source's authors;
* a label word a fact writes beside the same number labels the figure as that fact does;
* "Nor did we test" is the desk saying what it did not do;
* "(1 GB = 1e9 bytes)" is a unit definition;
* a number written in a computation's expression ("100 - 60") is an operand it states;
* a sum in words may chain several operators with the usual precedence and state its result
  in a larger unit ("175 billion times 3, divided by 8, or 65.6 GB");
* a computation step "in million tokens" gives millions of tokens, qualified by its name;
* an ordinal percentile ("the 90th percentile") names a statistic.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from verify_fixtures import (
    CLOSE,
    Doc,
    add_fact,
    add_metric,
    claim_errors,
    fact,
    findings_at,
    inference_article,
    paragraph,
    replacing,
    rules_at,
    verify_with,
)

from ledger.figures import extract_figures
from ledger.models import Article
from ledger.quantities import typed_figures
from ledger.verify.arithmetic import check_arithmetic
from ledger.verify.worked import worked_sums


def step_inference(claim: str, steps: list[dict[str, Any]],
                   inputs: dict[str, float] | None = None):  # type: ignore[no-untyped-def]
    def add(doc: Doc) -> None:
        doc["inferences"].append({
            "id": f"I{len(doc['inferences']) + 1}", "claim": claim, "basis_fact_ids": [],
            "label": "PCT arithmetic",
            "computation": {"inputs": inputs or {}, "steps": steps}})
    return add


# --- a unit's definition --------------------------------------------------------------------

def test_a_units_definition_needs_no_evidence(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, paragraph(
        "PCT's arithmetic: a 300 Gb/s link is 37.5 GB/s once divided by eight bits per byte."),
        step_inference("A 300 Gb/s link is 37.5 GB/s.", [
            {"name": "gbyte_s", "expression": "link_gbit_s / 8", "result": 37.5,
             "unit": "GB/s"}], {"link_gbit_s": 300}))
    assert rules_at(result, doc, "eight") == {}


def test_a_count_that_is_no_definition_still_needs_evidence(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, paragraph(
        "PCT's arithmetic: a 300 Gb/s link is 37.5 GB/s over nine bits per second of "
        "overhead."), step_inference("A 300 Gb/s link is 37.5 GB/s.", [
            {"name": "gbyte_s", "expression": "link_gbit_s / 8", "result": 37.5,
             "unit": "GB/s"}], {"link_gbit_s": 300}))
    assert "untraced-figure" in rules_at(result, doc, "nine")


# --- sibling metrics share the words before a list of both ----------------------------------

def _siblings(doc: Doc) -> None:  # the write metric has no spec, so no words of its own
    doc["benchmark_scope"]["reported_metrics"]["bench_write_util_gbit_s"] = 77
    add_metric(doc, "bench_read_util_gbit_s", 84.6, "average network utilization, read phase",
               ["network utilization"], "quantity", "eight-node run")


def test_words_before_a_list_of_sibling_metrics_label_both(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _siblings, paragraph(
        "The authors measured average network utilization of 77 Gbit/s in the write phase "
        "and 84.6 Gbit/s in the read phase. [S4]"))
    assert "mislabeled-figure" not in rules_at(result, doc, "77")


def test_the_siblings_own_word_still_mislabels(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _siblings, paragraph(
        "The authors measured a read network utilization of 77 Gbit/s. [S4]"))
    assert "mislabeled-figure" in rules_at(result, doc, "77")


# --- a model's size in a claim ---------------------------------------------------------------

def test_a_model_size_in_a_claim_is_a_name() -> None:
    article = inference_article(
        "The chart's 16K versus 4K context lengths are a fourfold difference on one 8B "
        "configuration.", {"liger_k": 16, "hf_k": 4}, [("ratio", "liger_k / hf_k", 4)])
    assert claim_errors(article) == []


def test_a_wrong_result_in_the_same_claim_is_still_found() -> None:
    article = inference_article(
        "The chart's 16K versus 4K context lengths are a 5 times difference on one 8B "
        "configuration.", {"liger_k": 16, "hf_k": 4}, [("ratio", "liger_k / hf_k", 4)])
    assert any("'5" in m for m in claim_errors(article))


# --- compounds that open with a stop word ----------------------------------------------------

def test_a_comparison_compound_counts_nothing() -> None:
    [(fig, q), *_] = typed_figures("The README's 4K-versus-16K comparison")
    assert fig.text == "4K" and q.noun is None
    [(_, q)] = typed_figures("8 H100-80GB cards")
    assert q.noun == "card"  # a product name in the noun phrase is kept
    [(_, q)] = typed_figures("a 16-GPU node")
    assert q.noun == "gpu"


# --- a work a teller refers to ---------------------------------------------------------------

def test_a_work_the_source_refers_to_is_not_the_cited_source(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, paragraph(
        "One of the authors pointed to an OSTI.GOV paper that examined 23,000 jobs. [S4]"),
        fact("The authors cite a study of 23,000 HPC jobs."))
    assert "misattributed-source" not in rules_at(result, doc, "OSTI.GOV")


def test_the_cited_source_given_a_wrong_owner_is_still_found(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, paragraph(
        "An OSTI.GOV paper examined 23,000 jobs. [S4]"),
        fact("The authors cite a study of 23,000 HPC jobs."))
    assert rules_at(result, doc, "OSTI.GOV").get("misattributed-source") == "error"


# --- untraced dates ----------------------------------------------------------------------------

def test_a_date_far_from_every_evidence_date_is_untraced_only(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, paragraph(
        "MLCommons released its results on August 17, 2025, the authors note. [S4]"))
    found = rules_at(result, doc, "August 17, 2025")
    assert "untraced-figure" in found and "date-order" not in found


def test_a_date_one_part_off_is_still_a_date_order_error(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, paragraph(
        "The integration benchmark that vLLM posted on May 9, 2026 ran on a single rack. [S4]"))
    found = {f.rule: f for f in findings_at(result, doc, "May 9, 2026")}
    assert found["date-order"].severity.value == "error"
    assert "nearest is 2026-05-06" in found["date-order"].message


# --- employers named in a fact ----------------------------------------------------------------

def test_a_facts_employers_of_the_authors_own_the_source(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, fact(
        "Mooncake and Acme authors report a 3.8x throughput gain."), paragraph(
        "The Acme post reports a 3.8x gain. [S4]"))
    assert "misattributed-source" not in rules_at(result, doc, "Acme")


def test_an_employer_no_fact_names_is_still_a_wrong_owner(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, fact(
        "Mooncake authors report a 3.8x throughput gain."), paragraph(
        "The Acme post reports a 3.8x gain. [S4]"))
    assert "misattributed-source" in rules_at(result, doc, "Acme")


# --- a fact's word beside the same number ------------------------------------------------------

def _cost_and_degradation(doc: Doc) -> None:
    add_metric(doc, "placement_degradation_pct", 30, "performance degradation from placement",
               ["degradation"], "percent", "placement study")
    add_fact(doc, "A secondary summary says frame-based spine switches raise network cost by "
                  "about 30%.", "secondary_reporting")


def test_a_word_the_fact_writes_beside_the_number_labels_it(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _cost_and_degradation, paragraph(
        "A secondary write-up attributes a roughly 30% higher network cost to frame-based "
        "spine switches. [S4]"))
    assert "mislabeled-figure" not in rules_at(result, doc, "30%")


def test_a_word_the_fact_writes_elsewhere_does_not(tmp_path: Path) -> None:
    def setup(doc: Doc) -> None:
        add_metric(doc, "placement_degradation_pct", 30,
                   "performance degradation from placement", ["degradation"], "percent",
                   "placement study")
        add_fact(doc, "Fragmented placement degraded performance by 30%; the fabric's "
                      "network cost was not disclosed.")
    doc, result = verify_with(tmp_path, setup, paragraph(
        "The authors report a 30% higher network cost from fragmented placement. [S4]"))
    assert "mislabeled-figure" in rules_at(result, doc, "30%")


# --- the desk's inverted negation ------------------------------------------------------------

def test_nor_did_we_test_claims_no_measurement(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, replacing(
        CLOSE, CLOSE + " We ran no benchmark. Nor did we test the 46x figure."))
    assert "desk-claims-authors-figure" not in {f.rule for f in result.findings}


def test_we_tested_still_claims_the_figures(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, replacing(
        CLOSE, CLOSE + " And we tested the 46x figure on our own cluster."))
    assert "desk-claims-authors-figure" in {f.rule for f in result.findings}


# --- unit definitions, operands and chains of arithmetic -------------------------------------

def _article(**inference: Any) -> Article:
    doc = json.loads(inference_article("x", {"a": 1}, [("b", "a", 1)]).model_dump_json())
    doc["inferences"] = [{"id": "I1", "basis_fact_ids": [], "label": "PCT analysis",
                          **inference}]
    return Article.model_validate_json(json.dumps(doc))


def test_a_unit_definition_with_an_exponent_is_no_equation() -> None:
    article = _article(claim="80 GB is 80e9 bytes.", assumptions=[
        "Decimal gigabytes (1 GB = 1e9 bytes)."],
        computation={"inputs": {"gb": 80}, "steps": [
            {"name": "b", "expression": "gb * 1e9", "result": 8e10}]})
    assert [f.message for f in check_arithmetic(article)] == []


def test_a_claims_percent_may_be_an_operand_the_expression_writes() -> None:
    article = _article(
        claim="A 60%-of-standard price is a 40% saving, 10 percentage points less than a "
              "50% discount.",
        computation={"inputs": {}, "steps": [
            {"name": "saving", "expression": "100 - 60", "result": 40, "unit": "%"},
            {"name": "gap", "expression": "50 - 40", "result": 10,
             "unit": "percentage points"}]})
    assert claim_errors(article) == []
    wrong = _article(
        claim="A 60%-of-standard price is a 45% saving.",
        computation={"inputs": {}, "steps": [
            {"name": "saving", "expression": "100 - 60", "result": 40, "unit": "%"}]})
    assert claim_errors(wrong) != []


def _sums(body: str) -> list[tuple[str, str, bool]]:
    return [(body[w.expr_start:w.expr_end], body[w.result_start:w.result_end], w.agrees)
            for w in worked_sums(body)]


def test_a_chained_sum_in_words_is_read_whole_with_precedence() -> None:
    body = ("At 3 bits the weights take 175 billion times 3, divided by 8, or 65.6 GB. "
            "Each call costs 0.5 plus 149 times 0.03 is 4.97 seconds.")
    assert _sums(body) == [("175 billion times 3, divided by 8", "65.6", True),
                           ("0.5 plus 149 times 0.03", "4.97", True)]
    assert [a for _, _, a in _sums(body.replace("65.6", "62.6"))] == [False, True]


def test_a_sum_of_units_may_state_its_result_in_a_larger_unit() -> None:
    body = "175 billion weights times 2 bytes is 350 GB in decimal units."
    assert _sums(body) == [("175 billion weights times 2", "350", True)]
    assert _sums(body.replace("350 GB", "360 GB"))[0][2] is False


# --- computation steps in millions -----------------------------------------------------------

def _tokens(doc: Doc) -> None:
    doc["inferences"].append({
        "id": "I9", "claim": "10,000 requests of 2,000 input and 500 output tokens cost $175.",
        "basis_fact_ids": [], "label": "PCT arithmetic", "computation": {
            "inputs": {"requests": 10000, "input_each": 2000, "output_each": 500},
            "steps": [
                {"name": "input_tokens_millions", "expression": "requests * input_each / 1e6",
                 "result": 20, "unit": "million tokens"},
                {"name": "output_tokens_millions",
                 "expression": "requests * output_each / 1e6", "result": 5,
                 "unit": "million tokens"}]}})


def test_a_step_in_millions_gives_millions(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _tokens, paragraph(
        "PCT's illustration: 20 million input tokens and 5 million output tokens."))
    assert rules_at(result, doc, "20 million") == {}
    assert rules_at(result, doc, "5 million") == {}


def test_a_step_in_millions_keeps_the_qualifier_of_its_name(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _tokens, paragraph(
        "PCT's illustration: 20 million output tokens and 5 million input tokens."))
    assert rules_at(result, doc, "20 million").get("mislabeled-figure") == "error"


# --- ordinal percentiles -----------------------------------------------------------------------

def test_an_ordinal_percentile_names_a_statistic() -> None:
    assert [f.values for f in extract_figures(
        "the 7-minute median and the one-hour 90th percentile")] == [(7,)]
    assert [f.values for f in extract_figures("the 99th-percentile latency was 3 ms")] == [(3,)]
    assert [f.text for f in extract_figures("90% finished within an hour")] == ["90%"]
