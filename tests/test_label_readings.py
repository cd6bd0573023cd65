"""What a clause says a figure is, read by grammar rather than by the words near it. Sentences,
metrics and values written for these tests:

* "half" after a determiner ("the other half of the argument", "its second half") is a noun
  naming a part, not a fraction of a quantity: no figure;
* in "the 3 to 4x results" the determiner before the range makes the ``4x`` a result named,
  not a count of results, and the first end takes the multiplier's kind;
* "mean" after a modal, "to", "not" or a figure is the verb ("what would 2.4x mean"), not the
  statistic; a question mark ends the clause a statistic is read in;
* a speedup of no one family ("decoding speedup") may be called a latency or a throughput
  result: the bare family word is no mislabel of it, unless another metric of the scope is of
  that family (then the word names that one);
* a count given for one level of hardware (GPUs, nodes, racks) and written for another ("six
  nodes" for six accelerators) is a count moved, even where the sources count no nodes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_fixtures import Doc, add_fact, add_metric, adding, rules_at, verify_with

from ledger.figures import extract_figures
from ledger.quantities import Kind, typed_figures
from ledger.verify.vocabulary import named_statistics


@pytest.mark.parametrize("sentence", [
    "Scheduling is the other half of the argument.",
    "Its second half covers the eviction policy.",
    "The latter half of the report is about pricing.",
])
def test_half_after_a_determiner_is_a_part_not_a_figure(sentence: str) -> None:
    assert [f.text for f in extract_figures(sentence)] == []


@pytest.mark.parametrize("sentence", [
    "Offloading cut the memory bill by half.",
    "The new kernel needs half the scratch space.",
    "Prefill time fell to roughly half of the baseline.",
])
def test_half_of_a_quantity_stays_a_multiplier(sentence: str) -> None:
    assert [f.text for f in extract_figures(sentence)] == ["half"]


def test_a_range_named_by_a_determiner_is_multipliers_not_a_count() -> None:
    kinds = [(f.text, q.kind) for f, q in typed_figures("The 2 to 5x results hold for one user.")]
    assert kinds == [("2", Kind.multiplier), ("5x", Kind.multiplier)]
    counted = typed_figures("The rack holds the 2 to 5x GPUs we ordered.")
    assert [q.kind for _, q in counted] == [Kind.count, Kind.count]


@pytest.mark.parametrize(("text", "stats"), [
    ("What would 3.1x mean for a small cluster?", set()),
    ("That does not mean the cache is free", set()),
    ("it is hard to mean anything by it", set()),
    ("the mean of six runs", {"mean"}),
    ("a mean latency of 40 ms", {"mean"}),
])
def test_mean_the_verb_is_no_statistic(text: str, stats: set[str]) -> None:
    assert named_statistics(text) == stats


def _peak_gain(doc: Doc) -> None:
    add_metric(doc, "peak_gain_h100", 3.1, "maximum serving throughput gain on H100",
               ["throughput", "gain", "maximum"], "multiplier")
    add_fact(doc, "The vendor reports a maximum serving throughput gain of 3.1x on H100.")


def test_a_statistic_in_the_question_before_is_not_the_figures(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _peak_gain, adding(
        "Is the mean the right summary? If one H100 serves 3.1 times the requests, the fleet "
        "shrinks."))
    assert "mislabeled-figure" not in rules_at(result, doc, "3.1 times"), result.findings


def _decoding(doc: Doc) -> None:
    scope = doc["benchmark_scope"]
    for name in ("throughput_multiplier", "median_ttft_speedup", "end_to_end_latency_speedup"):
        scope["reported_metrics"].pop(name, None)  # no other speed metric in the scope
        (scope.get("metric_specs") or {}).pop(name, None)
    add_metric(doc, "chat_decoding_speedup", 2.6, "decoding speedup on a chat benchmark",
               ["speedup", "faster", "decoding"], "multiplier")
    add_fact(doc, "The authors report a 2.6x decoding speedup on a chat benchmark.")


@pytest.mark.parametrize("sentence", [
    "The 2.6x is a latency result for a single request stream.",
    "Read the 2.6x as a throughput figure for one user at a time.",
])
def test_a_speedup_of_no_family_may_be_called_latency_or_throughput(
        tmp_path: Path, sentence: str) -> None:
    doc, result = verify_with(tmp_path, _decoding, adding(sentence))
    assert "mislabeled-figure" not in rules_at(result, doc, "2.6x"), result.findings


def _decoding_beside_a_latency(doc: Doc) -> None:
    add_metric(doc, "chat_decoding_speedup", 2.6, "decoding speedup on a chat benchmark",
               ["speedup", "faster", "decoding"], "multiplier")
    add_fact(doc, "The authors report a 2.6x decoding speedup on a chat benchmark.")


def test_a_bare_family_word_that_names_another_metric_is_still_a_mislabel(
        tmp_path: Path) -> None:
    # the seed article reports an end-to-end latency speedup: "latency" names that one
    doc, result = verify_with(tmp_path, _decoding_beside_a_latency, adding(
        "The 2.6x is a latency result for a single request stream."))
    assert rules_at(result, doc, "2.6x").get("mislabeled-figure") == "error", result.findings


def test_a_speedup_called_a_named_latency_is_still_checked(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _decoding, adding(
        "The 2.6x is a time to first token result for a single request stream."))
    assert rules_at(result, doc, "2.6x").get("mislabeled-figure") == "error", result.findings


def _six_accelerators(doc: Doc) -> None:
    add_fact(doc, "The vendor ran the sweep on six accelerators and its cache tier serves up "
                  "to four servers.")


@pytest.mark.parametrize(("sentence", "figure"), [
    ("The vendor ran the sweep on six nodes.", "six nodes"),
    ("Its cache tier serves up to four racks.", "four racks"),
])
def test_a_count_moved_to_another_level_of_hardware_is_a_mislabel(
        tmp_path: Path, sentence: str, figure: str) -> None:
    doc, result = verify_with(tmp_path, _six_accelerators, adding(sentence))
    assert rules_at(result, doc, figure).get("mislabeled-figure") == "error", result.findings


def test_the_same_level_of_hardware_traces(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _six_accelerators, adding(
        "The vendor ran the sweep on six GPUs; the tier serves up to four machines."))
    assert "mislabeled-figure" not in rules_at(result, doc, "six GPUs"), result.findings
    assert "mislabeled-figure" not in rules_at(result, doc, "four machines"), result.findings


def _hitchhiker_memory(doc: Doc) -> None:
    # a metric whose system name holds another family's key ("hit"): its own words still say
    # what it measures
    doc["benchmark_scope"]["reported_metrics"]["hitchhiker_memory_saving_pct"] = 35
    add_fact(doc, "The authors report that Hitchhiker needs 35% less memory on a single card.")


@pytest.mark.parametrize("sentence", [
    "On a single card, Hitchhiker reports about 35% lower memory use than its baseline.",
    "Hitchhiker trims the memory footprint by 35% on one card, the authors say.",
])
def test_a_label_whose_quantity_is_the_metrics_own_is_no_mislabel(
        tmp_path: Path, sentence: str) -> None:
    doc, result = verify_with(tmp_path, _hitchhiker_memory, adding(sentence))
    assert "mislabeled-figure" not in rules_at(result, doc, "35%"), result.findings


def test_a_label_of_another_quantity_is_still_a_mislabel(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _decoding_beside_a_latency, adding(
        "The authors say the 2.6x is lower energy per token on a chat benchmark."))
    assert rules_at(result, doc, "2.6x").get("mislabeled-figure") == "error", result.findings


@pytest.mark.parametrize("sentence", [
    "Do not call the 2.6x a latency cut; it is a decoding speedup.",
    "Nor should the 2.6x be presented as a latency result.",
    "The 2.6x should not be read as a latency figure for many users.",
    "Never describe the 2.6x as end-to-end latency.",
])
def test_a_prohibition_in_the_body_asserts_no_label(tmp_path: Path, sentence: str) -> None:
    doc, result = verify_with(tmp_path, _decoding_beside_a_latency, adding(sentence))
    assert "mislabeled-figure" not in rules_at(result, doc, "2.6x"), result.findings
