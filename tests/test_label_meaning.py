"""``mislabeled-figure`` reads what a metric is (its quantity kind, its unit) and what the
grammar attaches to a figure, not just which metric words sit near it. Sentences, metrics and
values written for these tests:

* a metric whose spec writes its unit ("TB/s", "seconds") is of that kind, so a multiplier that
  coincides with its value ("fivefold" against 4.8 TB/s) is no trace of it and its words cannot
  mislabel the multiplier;
* a metric word that only qualifies a constraint ("within a latency budget", "under a p99
  latency SLO") states a condition, not what the figure measures;
* the unit written after a figure ("3.25 seconds") names its quantity kind, not its metric: the
  metric words around it still decide ("a time to first token of 3.25 seconds" for an average
  end-to-end latency);
* "a 6144 token context" counts tokens, like "a 6,144-token context".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_fixtures import Doc, add_fact, add_metric, adding, rules_at, verify_with

from ledger.quantities import typed_figures


def _bandwidth(doc: Doc) -> None:
    add_metric(doc, "hbm_bandwidth_tbs", 4.8, "HBM bandwidth per GPU", ["bandwidth", "TB/s"],
               "quantity")
    add_fact(doc, "The vendor lists 4.8 TB/s of HBM bandwidth per GPU.")


@pytest.mark.parametrize(("sentence", "figure"), [
    ("Under heavy load the tail latency grew roughly fivefold.", "fivefold"),
    ("Queueing made the end-to-end latency about five times longer.", "five times"),
    ("At the largest batch the mean latency rose 5x over the single-request case.", "5x"),
])
def test_a_multiplier_is_no_trace_of_a_rate_metric_written_with_its_unit(
        tmp_path: Path, sentence: str, figure: str) -> None:
    doc, result = verify_with(tmp_path, _bandwidth, adding(sentence))
    assert "mislabeled-figure" not in rules_at(result, doc, figure), result.findings


def _speedup(doc: Doc) -> None:
    add_metric(doc, "serving_speedup", 3.7, "serving speedup over open-source engines",
               ["speedup", "faster"], "multiplier", "vendor serving study")
    add_fact(doc, "The vendor reports a 3.7x serving speedup over open-source engines, "
                  "counted as requests per second under latency cutoffs.")


@pytest.mark.parametrize("sentence", [
    "Their 3.7x is about how many requests one node completes within a latency budget.",
    "The 3.7x counts requests finished under a p99 latency SLO of two seconds.",
    "A 3.7x gain, measured as requests served inside a fixed latency target, is the claim.",
])
def test_a_metric_word_that_qualifies_a_constraint_is_no_label(tmp_path: Path,
                                                               sentence: str) -> None:
    doc, result = verify_with(tmp_path, _speedup, adding(sentence))
    assert "mislabeled-figure" not in rules_at(result, doc, "3.7x"), result.findings


def test_a_figure_named_by_the_constrained_metric_is_still_mislabeled(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _speedup, adding(
        "The vendor reports 3.7x lower latency within the same request budget."))
    assert rules_at(result, doc, "3.7x").get("mislabeled-figure") == "error", result.findings


def _latency(doc: Doc) -> None:
    add_metric(doc, "batch8_latency_s", 3.25, "average end-to-end latency at batch 8",
               ["latency", "seconds", "s"], "quantity")
    add_fact(doc, "The vendor reports an average end-to-end latency of 3.25 s at batch 8.")


@pytest.mark.parametrize(("sentence", "figure"), [
    ("At batch 8 the engine produced its output with a time to first token of 3.25 seconds.",
     "3.25"),
    ("Time to first token came to 3.25 s at batch 8, the vendor says.", "3.25"),
    ("The vendor gives TTFT as 3.25 seconds at batch 8.", "3.25"),
])
def test_the_unit_after_a_figure_is_no_label_of_its_metric(tmp_path: Path, sentence: str,
                                                           figure: str) -> None:
    doc, result = verify_with(tmp_path, _latency, adding(sentence))
    assert rules_at(result, doc, figure).get("mislabeled-figure") == "error", result.findings


def test_the_right_metric_with_its_unit_is_no_mislabel(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _latency, adding(
        "At batch 8 the average latency was 3.25 seconds."))
    assert "mislabeled-figure" not in rules_at(result, doc, "3.25"), result.findings


@pytest.mark.parametrize(("text", "noun"), [
    ("Llama 2 13B with a 6144 token context served 410 tokens/s.", "token"),
    ("a 6,144-token context", "token"),
    ("the model ran on a 24 GPU cluster", "gpu"),
    ("they added 512 client nodes", "node"),
    ("it spread over 180 storage nodes", "node"),
])
def test_a_singular_counted_noun_before_the_head_is_what_the_number_counts(text: str,
                                                                           noun: str) -> None:
    quantity = typed_figures(text)[-2 if "410" in text else 0][1]
    assert quantity.noun == noun, quantity


def test_a_token_context_written_without_a_hyphen_traces_to_the_same_count(
        tmp_path: Path) -> None:
    def window(doc: Doc) -> None:
        add_fact(doc, "The vendor served a model with 6144 token context length at 410 "
                      "tokens/s.")
    doc, result = verify_with(tmp_path, window, adding(
        "The vendor served the model with a 6,144-token context at 410 tokens/s."))
    assert "mislabeled-figure" not in rules_at(result, doc, "6,144"), result.findings
