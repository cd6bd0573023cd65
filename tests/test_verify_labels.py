"""``mislabeled-figure`` and ``conflated-experiments`` on sentences written for these tests:
what makes a label or a join sure, and the correct prose that must pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from verify_fixtures import replace_body, span, verify_mutant

from ledger.report import FileResult

Doc = dict[str, Any]
S4_CLOSE = "These are the authors' results, not PCT measurements."


def add_metric(doc: Doc, name: str, value: float, label: str, vocabulary: list[str],
               kind: str, experiment: str | None = None) -> None:
    scope = doc["benchmark_scope"]
    scope["reported_metrics"][name] = value
    spec: dict[str, Any] = {"label": label, "kind": kind, "vocabulary": vocabulary}
    if experiment:
        spec["experiment"] = experiment
    scope.setdefault("metric_specs", {})[name] = spec


def add_fact(doc: Doc, claim: str) -> None:
    doc["facts"].append({"id": f"F{len(doc['facts']) + 1}", "claim": claim,
                         "source_ids": ["S4"],
                         "evidence_type": "author_reported_benchmark_not_independently_reproduced"})


def add_sentence(doc: Doc, sentence: str) -> None:
    replace_body(doc, S4_CLOSE, S4_CLOSE + " " + sentence)


def rules_at(result: FileResult, doc: Doc, text: str, nth: int = 0) -> dict[str, str]:
    line, column, end = span(doc["body"], text, nth)
    return {f.rule: f.severity.value for f in result.findings if f.pointer == "/body"
            and f.line == line and f.column is not None and f.end_column is not None
            and f.column < end and column < f.end_column}


def _windows(doc: Doc) -> None:
    add_metric(doc, "base_model_context_tokens", 8192, "base model's trained context window",
               ["tokens", "context window"], "count")
    add_metric(doc, "library_window_tokens", 2040, "library default window",
               ["tokens", "window"], "count")
    add_fact(doc, "The authors train with an 8,192-token context and the library defaults to "
                  "a window of 2040 tokens.")


def test_a_word_that_also_names_the_traced_metric_is_no_mislabel(tmp_path: Path) -> None:
    """"window" is the vocabulary of another metric, but the traced metric's own label says
    "context window": the word fits the figure's evidence as well as the other."""
    def mutate(doc: Doc) -> None:
        _windows(doc)
        add_sentence(doc, "The authors quote the base model's 8,192-token window.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert "mislabeled-figure" not in rules_at(result, doc, "8,192"), result.findings


def test_a_word_of_another_metric_only_is_still_a_mislabel(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        _windows(doc)
        add_metric(doc, "prompt_speedup_x", 6.5, "prompt speedup", ["speedup"], "multiplier")
        add_metric(doc, "decode_throughput_x", 2.5, "decode throughput gain", ["throughput"],
                   "multiplier")
        add_fact(doc, "The authors report a 6.5x prompt speedup and 2.5x decode throughput.")
        add_sentence(doc, "The authors report 6.5x the decode throughput.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert rules_at(result, doc, "6.5x").get("mislabeled-figure") == "error", result.findings


def _ranges(doc: Doc) -> None:
    for name, value, family in (("ttft_low_x", 1.6, "TTFT"), ("ttft_high_x", 2.4, "TTFT"),
                                ("throughput_low_x", 3.1, "throughput"),
                                ("throughput_high_x", 4.7, "throughput")):
        add_metric(doc, name, value, f"{family} multiple", [family], "multiplier")
    add_fact(doc, "The authors report TTFT 1.6-2.4x lower and throughput 3.1-4.7x higher.")


def test_both_ends_of_a_range_share_its_label(tmp_path: Path) -> None:
    """The label before a range describes both ends, though the word after the range (the next
    result's label) is nearer to the high end."""
    def mutate(doc: Doc) -> None:
        _ranges(doc)
        add_sentence(doc, "In their runs, time to first token shrank 1.6 to 2.4 times and "
                          "decode throughput climbed 3.1 to 4.7 times.")
    doc, result = verify_mutant(tmp_path, mutate)
    for figure in ("1.6", "2.4 times", "3.1", "4.7 times"):
        assert "mislabeled-figure" not in rules_at(result, doc, figure), result.findings
    doc, result = verify_mutant(tmp_path, lambda d: (_ranges(d), add_sentence(
        d, "In their runs, time to first token shrank 1.6x to 2.4x and decode throughput "
           "climbed 3.1x to 4.7x.")))
    for figure in ("1.6x", "2.4x", "3.1x", "4.7x"):
        assert "mislabeled-figure" not in rules_at(result, doc, figure), result.findings


def test_a_range_labelled_as_another_metric_is_a_mislabel(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        _ranges(doc)
        add_sentence(doc, "In their runs, throughput 1.6 to 2.4 times higher came first.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert rules_at(result, doc, "1.6").get("mislabeled-figure") == "error", result.findings


def _experiments(doc: Doc) -> None:
    add_metric(doc, "pinned_cache_pct", 15, "share of the cache pinned", ["pinned"], "percent",
               "tuning")
    add_metric(doc, "scheduler_requests_x", 7.5, "requests served over round-robin",
               ["requests"], "multiplier", "scheduler evaluation")
    add_metric(doc, "prefetch_stall_cut_pct", 35, "stall reduction from prefetching",
               ["stalls"], "percent", "prefetch study")
    add_metric(doc, "prefetch_speedup_x", 2.2, "prefetch speedup", ["prefetch"],
               "multiplier", "prefetch study")
    add_fact(doc, "The authors report that with 15% of the cache pinned the scheduler serves "
                  "up to 7.5x more requests than round-robin; the prefetcher cuts stalls by "
                  "35% and speeds loads up 2.2x.")


def conflated(result: FileResult) -> list[str]:
    return [f.severity.value for f in result.findings if f.rule == "conflated-experiments"]


def test_a_combination_the_source_states_is_no_join(tmp_path: Path) -> None:
    """The pinned share is the scheduler run's setting: the fact says so in one statement."""
    _, result = verify_mutant(tmp_path, lambda d: (_experiments(d), add_sentence(
        d, "With 15% of the cache pinned, the authors report up to 7.5x more requests than "
           "round-robin.")))
    assert conflated(result) == [], result.findings


def test_a_result_of_another_experiment_joined_is_an_error(tmp_path: Path) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: (_experiments(d), add_sentence(
        d, "With stalls 35% lower, the authors report up to 7.5x more requests than "
           "round-robin.")))
    assert rules_at(result, doc, "7.5x").get("conflated-experiments") == "error", \
        result.findings


def test_sentences_that_keep_two_results_apart(tmp_path: Path) -> None:
    for sentence in (
            "The two studies measure different things, so 7.5x and 35% say nothing about "
            "each other.",
            "Per the authors, 7.5x and 35% cannot be ranked against each other.",
            "The 7.5x and the 35% do not agree on what the bottleneck is."):
        _, result = verify_mutant(tmp_path, lambda d, s=sentence: (
            _experiments(d), add_sentence(d, s)))
        assert conflated(result) == [], (sentence, result.findings)


def test_a_range_belongs_to_an_experiment_only_with_both_ends(tmp_path: Path) -> None:
    """2.2 is the prefetch study's value, but "2.2x to 3.1x" is a range the study never gave:
    one end coinciding with its value does not make the range its."""
    _, result = verify_mutant(tmp_path, lambda d: (_experiments(d), add_sentence(
        d, "The authors report 2.2x to 3.1x more requests at one client and up to 7.5x at "
           "eight.")))
    assert conflated(result) == [], result.findings


def _budget(doc: Doc) -> None:
    add_metric(doc, "equal_budget_throughput_x", 1.85, "throughput multiple at equal power "
               "and cost", ["throughput", "power", "cost"], "multiplier")
    add_fact(doc, "The authors report 1.85x the throughput for the same power and cost.")


def test_the_word_right_after_a_figure_labels_it(tmp_path: Path) -> None:
    """"lower latency" follows the figure; the "cost" of the condition after it is no label."""
    doc, result = verify_mutant(tmp_path, lambda d: (_budget(d), add_sentence(
        d, "The authors report 1.85x lower latency for the same power and cost envelope.")))
    assert rules_at(result, doc, "1.85x").get("mislabeled-figure") == "error", result.findings
    doc, result = verify_mutant(tmp_path, lambda d: (_budget(d), add_sentence(
        d, "The authors report 1.85x the throughput for the same power and cost envelope.")))
    assert "mislabeled-figure" not in rules_at(result, doc, "1.85x"), result.findings


def _baselines(doc: Doc) -> None:
    for name, value, baseline in (("over_lighttpd_x", 17, "Lighttpd"),
                                  ("over_nginx_x", 4.5, "nginx")):
        add_metric(doc, name, value, f"request multiple over {baseline}", ["requests"],
                   "multiplier")
    add_fact(doc, "The authors report 17x the requests of Lighttpd and 4.5x those of nginx.")


def test_figures_of_two_baselines_swapped(tmp_path: Path) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: (_baselines(d), add_sentence(
        d, "The authors report 4.5x over Lighttpd and 17x over nginx in requests served.")))
    assert rules_at(result, doc, "4.5x").get("mislabeled-figure") == "error", result.findings
    assert rules_at(result, doc, "17x").get("mislabeled-figure") == "error", result.findings
    doc, result = verify_mutant(tmp_path, lambda d: (_baselines(d), add_sentence(
        d, "The authors report 17x over Lighttpd and 4.5x over nginx in requests served.")))
    assert not [f for f in result.findings if f.rule == "mislabeled-figure"
                and f.message.startswith(("'17x'", "'4.5x'"))], result.findings


def _window(doc: Doc) -> None:
    add_fact(doc, "The library keeps 3 anchor tokens and a window of 509 recent tokens.")
    doc["inferences"].append({"id": f"I{len(doc['inferences']) + 1}",
                              "claim": "The cache holds 3 + 509 = 512 entries.",
                              "basis_fact_ids": [doc["facts"][-1]["id"]],
                              "label": "PCT analysis"})


def test_a_count_moved_onto_another_counted_noun(tmp_path: Path) -> None:
    """"509 anchor tokens": the sources count 509 recent tokens and, separately, 3 anchor
    tokens. The desk's own sum restating the bare 509 does not make the count right."""
    doc, result = verify_mutant(tmp_path, lambda d: (_window(d), add_sentence(
        d, "The library keeps 509 anchor tokens by default.")))
    assert rules_at(result, doc, "509").get("mislabeled-figure") == "error", result.findings
    doc, result = verify_mutant(tmp_path, lambda d: (_window(d), add_sentence(
        d, "The library keeps 509 recent tokens by default.")))
    assert rules_at(result, doc, "509") == {}, result.findings


def _pair_fact(doc: Doc) -> None:
    add_fact(doc, "The report lists context limits for Qwen-7B and Mistral-7B of 24K and 48K, "
                  "and says mean and P90 queueing delay fell by 35% and 55%.")


def swaps(result: FileResult) -> list[str]:
    return [f.severity.value for f in result.findings
            if f.rule == "mislabeled-figure" and "opposite order" in f.message]


def test_a_respectively_pair_written_in_the_opposite_order(tmp_path: Path) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: (_pair_fact(d), add_sentence(
        d, "The report says Qwen-7B and Mistral-7B handle 48K and 24K of context.")))
    assert rules_at(result, doc, "48K and 24K").get("mislabeled-figure") == "warning", \
        result.findings
    doc, result = verify_mutant(tmp_path, lambda d: (_pair_fact(d), add_sentence(
        d, "The report says mean and P90 queueing delay dropped by 55% and 35%.")))
    assert rules_at(result, doc, "55% and 35%").get("mislabeled-figure") == "warning", \
        result.findings


def test_a_pair_reordered_with_its_names_is_no_swap(tmp_path: Path) -> None:
    for sentence in ("The report says Mistral-7B and Qwen-7B handle 48K and 24K of context.",
                     "The report says Qwen-7B and Mistral-7B handle 24K and 48K of context.",
                     "The report says P90 and mean queueing delay dropped by 55% and 35%."):
        _, result = verify_mutant(tmp_path, lambda d, s=sentence: (
            _pair_fact(d), add_sentence(d, s)))
        assert swaps(result) == [], (sentence, result.findings)


def _parameters(doc: Doc) -> None:
    add_metric(doc, "page_size_tokens", 32, "page size in tokens", ["tokens"], "count")
    add_metric(doc, "eviction_batch_pages", 96, "eviction batch in pages", ["pages"], "count")
    add_fact(doc, "The allocator uses a page size of 32 tokens and an eviction batch of 96 "
                  "pages.")


def test_a_value_given_the_name_of_another_parameter(tmp_path: Path) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: (_parameters(d), add_sentence(
        d, "The allocator works with an eviction batch of 32 by default.")))
    assert rules_at(result, doc, "32").get("mislabeled-figure") == "error", result.findings
    doc, result = verify_mutant(tmp_path, lambda d: (_parameters(d), add_sentence(
        d, "The allocator works with a page size of 32 by default.")))
    assert "mislabeled-figure" not in rules_at(result, doc, "32"), result.findings
