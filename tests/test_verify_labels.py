"""``mislabeled-figure`` and ``conflated-experiments`` on sentences written for these tests:
what makes a label or a join sure, and the correct prose that must pass."""

from __future__ import annotations

from pathlib import Path

from verify_fixtures import (
    Doc,
    add_fact,
    add_inference,
    add_metric,
    add_sentence,
    adding,
    rules_at,
    verify_mutant,
    verify_with,
)

from ledger.report import FileResult


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
    doc, result = verify_with(tmp_path, _ranges, adding(
        "In their runs, time to first token shrank 1.6 to 2.4 times and decode throughput "
        "climbed 3.1 to 4.7 times."))
    for figure in ("1.6", "2.4 times", "3.1", "4.7 times"):
        assert "mislabeled-figure" not in rules_at(result, doc, figure), result.findings
    doc, result = verify_with(tmp_path, _ranges, adding(
        "In their runs, time to first token shrank 1.6x to 2.4x and decode throughput "
        "climbed 3.1x to 4.7x."))
    for figure in ("1.6x", "2.4x", "3.1x", "4.7x"):
        assert "mislabeled-figure" not in rules_at(result, doc, figure), result.findings


def test_a_range_labelled_as_another_metric_is_a_mislabel(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _ranges, adding(
        "In their runs, throughput 1.6 to 2.4 times higher came first."))
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
    _, result = verify_with(tmp_path, _experiments, adding(
        "With 15% of the cache pinned, the authors report up to 7.5x more requests than "
        "round-robin."))
    assert conflated(result) == [], result.findings


def test_a_result_of_another_experiment_joined_is_an_error(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _experiments, adding(
        "With stalls 35% lower, the authors report up to 7.5x more requests than "
        "round-robin."))
    assert rules_at(result, doc, "7.5x").get("conflated-experiments") == "error", \
        result.findings


def test_sentences_that_keep_two_results_apart(tmp_path: Path) -> None:
    for sentence in (
            "The two studies measure different things, so 7.5x and 35% say nothing about "
            "each other.",
            "Per the authors, 7.5x and 35% cannot be ranked against each other.",
            "The 7.5x and the 35% do not agree on what the bottleneck is."):
        _, result = verify_with(tmp_path, _experiments, adding(sentence))
        assert conflated(result) == [], (sentence, result.findings)


def test_a_range_belongs_to_an_experiment_only_with_both_ends(tmp_path: Path) -> None:
    """2.2 is the prefetch study's value, but "2.2x to 3.1x" is a range the study never gave:
    one end coinciding with its value does not make the range its."""
    _, result = verify_with(tmp_path, _experiments, adding(
        "The authors report 2.2x to 3.1x more requests at one client and up to 7.5x at "
        "eight."))
    assert conflated(result) == [], result.findings


def _budget(doc: Doc) -> None:
    add_metric(doc, "equal_budget_throughput_x", 1.85, "throughput multiple at equal power "
               "and cost", ["throughput", "power", "cost"], "multiplier")
    add_fact(doc, "The authors report 1.85x the throughput for the same power and cost.")


def test_the_word_right_after_a_figure_labels_it(tmp_path: Path) -> None:
    """"lower latency" follows the figure; the "cost" of the condition after it is no label."""
    doc, result = verify_with(tmp_path, _budget, adding(
        "The authors report 1.85x lower latency for the same power and cost envelope."))
    assert rules_at(result, doc, "1.85x").get("mislabeled-figure") == "error", result.findings
    doc, result = verify_with(tmp_path, _budget, adding(
        "The authors report 1.85x the throughput for the same power and cost envelope."))
    assert "mislabeled-figure" not in rules_at(result, doc, "1.85x"), result.findings


def _baselines(doc: Doc) -> None:
    for name, value, baseline in (("over_lighttpd_x", 17, "Lighttpd"),
                                  ("over_nginx_x", 4.5, "nginx")):
        add_metric(doc, name, value, f"request multiple over {baseline}", ["requests"],
                   "multiplier")
    add_fact(doc, "The authors report 17x the requests of Lighttpd and 4.5x those of nginx.")


def test_figures_of_two_baselines_swapped(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _baselines, adding(
        "The authors report 4.5x over Lighttpd and 17x over nginx in requests served."))
    assert rules_at(result, doc, "4.5x").get("mislabeled-figure") == "error", result.findings
    assert rules_at(result, doc, "17x").get("mislabeled-figure") == "error", result.findings
    doc, result = verify_with(tmp_path, _baselines, adding(
        "The authors report 17x over Lighttpd and 4.5x over nginx in requests served."))
    assert not [f for f in result.findings if f.rule == "mislabeled-figure"
                and f.message.startswith(("'17x'", "'4.5x'"))], result.findings


def _window(doc: Doc) -> None:
    add_fact(doc, "The library keeps 3 anchor tokens and a window of 509 recent tokens.")
    add_inference(doc, "The cache holds 3 + 509 = 512 entries.",
                  basis_fact_ids=(doc["facts"][-1]["id"],))


def test_a_count_moved_onto_another_counted_noun(tmp_path: Path) -> None:
    """"509 anchor tokens": the sources count 509 recent tokens and, separately, 3 anchor
    tokens. The desk's own sum restating the bare 509 does not make the count right."""
    doc, result = verify_with(tmp_path, _window, adding(
        "The library keeps 509 anchor tokens by default."))
    assert rules_at(result, doc, "509").get("mislabeled-figure") == "error", result.findings
    doc, result = verify_with(tmp_path, _window, adding(
        "The library keeps 509 recent tokens by default."))
    assert rules_at(result, doc, "509") == {}, result.findings


def _pair_fact(doc: Doc) -> None:
    add_fact(doc, "The report lists context limits for Qwen-7B and Mistral-7B of 24K and 48K, "
                  "and says mean and P90 queueing delay fell by 35% and 55%.")


def swaps(result: FileResult) -> list[str]:
    return [f.severity.value for f in result.findings
            if f.rule == "mislabeled-figure" and "opposite order" in f.message]


def test_a_respectively_pair_written_in_the_opposite_order(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _pair_fact, adding(
        "The report says Qwen-7B and Mistral-7B handle 48K and 24K of context."))
    assert rules_at(result, doc, "48K and 24K").get("mislabeled-figure") == "warning", \
        result.findings
    doc, result = verify_with(tmp_path, _pair_fact, adding(
        "The report says mean and P90 queueing delay dropped by 55% and 35%."))
    assert rules_at(result, doc, "55% and 35%").get("mislabeled-figure") == "warning", \
        result.findings


def test_a_pair_reordered_with_its_names_is_no_swap(tmp_path: Path) -> None:
    for sentence in ("The report says Mistral-7B and Qwen-7B handle 48K and 24K of context.",
                     "The report says Qwen-7B and Mistral-7B handle 24K and 48K of context.",
                     "The report says P90 and mean queueing delay dropped by 55% and 35%."):
        _, result = verify_with(tmp_path, _pair_fact, adding(sentence))
        assert swaps(result) == [], (sentence, result.findings)


def _parameters(doc: Doc) -> None:
    add_metric(doc, "page_size_tokens", 32, "page size in tokens", ["tokens"], "count")
    add_metric(doc, "eviction_batch_pages", 96, "eviction batch in pages", ["pages"], "count")
    add_fact(doc, "The allocator uses a page size of 32 tokens and an eviction batch of 96 "
                  "pages.")


def test_a_value_given_the_name_of_another_parameter(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _parameters, adding(
        "The allocator works with an eviction batch of 32 by default."))
    assert rules_at(result, doc, "32").get("mislabeled-figure") == "error", result.findings
    doc, result = verify_with(tmp_path, _parameters, adding(
        "The allocator works with a page size of 32 by default."))
    assert "mislabeled-figure" not in rules_at(result, doc, "32"), result.findings


# --- correct prose from an editor who writes differently: none of it is a mislabel ---------

def mislabels(result: FileResult) -> list[str]:
    return [f.message for f in result.findings if f.rule == "mislabeled-figure"]


def test_a_bare_number_that_coincides_with_a_metric_proves_no_label_wrong(
        tmp_path: Path) -> None:
    """"r=10" is a setting; that a 10 GiB/s metric exists does not make it that metric."""
    def mutate(doc: Doc) -> None:
        add_metric(doc, "small_block_ceiling_gibps", 10, "small-block ceiling", ["ceiling"],
                   "quantity")
        add_metric(doc, "batch_depth", 3, "default batch depth", ["batch"], "count")
        add_fact(doc, "Small blocks top out near 10 GiB/s; the default batch depth is 3.")
        add_sentence(doc, "With the deeper r=10 batch the reads slowed down.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert "mislabeled-figure" not in rules_at(result, doc, "r=10"), result.findings


def test_the_verb_means_is_no_statistic(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        add_metric(doc, "bill_cut_pct", 36, "bill reduction", ["bill reduction"], "percent")
        add_metric(doc, "mean_queue_x", 2.5, "mean queueing multiple", ["mean"], "multiplier")
        add_fact(doc, "The authors report a 36% bill reduction and a 2.5x mean queueing gain.")
        add_sentence(doc, "A 36% cut means paying 64% of the old bill.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert "mislabeled-figure" not in rules_at(result, doc, "36%"), result.findings


def _statistics(doc: Doc) -> None:
    add_metric(doc, "mean_wait_x", 5.5, "mean TTFT multiple", ["TTFT"], "multiplier")
    add_metric(doc, "p99_wait_x", 9.5, "P99 TTFT multiple", ["TTFT"], "multiplier")
    add_fact(doc, "The authors report TTFT 5.5x better at the mean and 9.5x better at P99.")


def test_a_statistic_after_at_belongs_to_the_figure_before_it(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _statistics, adding(
        "The authors report TTFT up to 5.5x better at the mean and 9.5x at P99."))
    assert mislabels(result) == [], result.findings
    doc, result = verify_with(tmp_path, _statistics, adding(
        "The authors report TTFT up to 5.5x better at P99 and 9.5x at the mean."))
    assert rules_at(result, doc, "9.5x").get("mislabeled-figure") == "error", result.findings


def _speeds(doc: Doc) -> None:
    add_metric(doc, "step_latency_cut_x", 2.4, "end-to-end latency reduction", ["latency"],
               "multiplier")
    add_metric(doc, "kernel_speedup_x", 6.1, "kernel speedup", ["faster", "kernel"],
               "multiplier")
    add_metric(doc, "memory_efficiency_x", 5.2, "memory efficiency gain", ["memory"],
               "multiplier")
    add_fact(doc, "The authors report a 6.1x kernel speedup, 2.4x lower step latency and "
                  "5.2x better memory efficiency.")


def test_faster_fits_any_speed_metric_but_not_memory(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _speeds, adding(
        "PCT's reading: if the kernel gets 6.1 times faster while the whole step gets "
        "2.4 times faster, the kernel dominated the step."))
    assert "mislabeled-figure" not in rules_at(result, doc, "2.4 times"), result.findings
    doc, result = verify_with(tmp_path, _speeds, adding(
        "The authors report that generation runs 5.2 times faster."))
    assert rules_at(result, doc, "5.2 times").get("mislabeled-figure") == "error", \
        result.findings


def test_a_size_named_by_a_metric_of_that_size_is_no_mislabel(tmp_path: Path) -> None:
    """96 KB coincides with a context metric of unknown kind (96 thousand tokens), but "page"
    names a metric in KB: the trace is the doubtful part, not the word."""
    def mutate(doc: Doc) -> None:
        add_metric(doc, "longest_ctx_k", 96, "longest context (thousands of tokens)",
                   ["context"], "quantity")
        add_metric(doc, "smallest_page_kb", 48, "smallest page (KB)", ["page"], "quantity")
        add_fact(doc, "Contexts run to 96k tokens; pages start at 48 KB.")
        add_sentence(doc, "The allocator supports pages of 48KB and 96KB.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert "mislabeled-figure" not in rules_at(result, doc, "96"), result.findings


def _paged_kernels(doc: Doc) -> None:
    add_metric(doc, "over_alpha_x", 1.3, "throughput over Alpha paged kernels",
               ["throughput"], "multiplier")
    add_metric(doc, "over_beta_x", 1.4, "throughput over Beta paged kernels",
               ["throughput"], "multiplier")
    add_fact(doc, "Throughput is 1.3x that of Alpha's paged kernels and 1.4x Beta's.")


def test_a_baseline_list_read_respectively(tmp_path: Path) -> None:
    _, result = verify_with(tmp_path, _paged_kernels, adding(
        "Throughput is up to 1.3x and 1.4x higher than with the paged kernels of Alpha and "
        "Beta respectively."))
    assert mislabels(result) == [], result.findings


def test_the_desks_arithmetic_may_reorder_a_facts_figures(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        add_fact(doc, "The rig pairs a 24 GB card with a host CPU holding 192 GB of memory.")
        add_inference(doc, "192 GB is 8 times 24 GB.", basis_fact_ids=(doc["facts"][-1]["id"],),
                      inputs={"host_gb": 192, "card_gb": 24},
                      steps=(("ratio", "host_gb / card_gb", 8),))
        add_sentence(doc, "PCT's arithmetic: the rig's 192 GB of CPU memory is 8 times its "
                          "24 GB.")
    _, result = verify_mutant(tmp_path, mutate)
    assert mislabels(result) == [], result.findings


def _named_experiments(doc: Doc) -> None:
    add_metric(doc, "alpha_capacity_x", 2.1, "Alpha-7B capacity", ["capacity"], "multiplier",
               "Alpha-7B on one GPU")
    add_metric(doc, "beta_capacity_x", 4.4, "Beta-70B capacity", ["capacity"], "multiplier",
               "Beta-70B with pipeline parallelism")
    add_metric(doc, "shortest_ctx_k", 24, "shortest context (K)", ["context"], "quantity",
               "Alpha-7B on one GPU")
    add_metric(doc, "longest_ctx_k", 96, "longest context (K)", ["context"], "quantity",
               "Alpha-7B on one GPU")
    add_metric(doc, "page_kb", 48, "page size (KB)", ["page"], "quantity",
               "Beta-70B with pipeline parallelism")
    add_fact(doc, "The abstract gives 2.1x for Alpha-7B; it gives 4.4x for Beta-70B; "
                  "contexts of 24k and 96k; pages of 48 KB.")


def test_list_items_that_each_name_their_experiment(tmp_path: Path) -> None:
    """The name that introduces a list item may sit two commas before its figure."""
    _, result = verify_with(tmp_path, _named_experiments, adding(
        "The abstract gives 2.1x for Alpha-7B, and grants Beta-70B, served across several "
        "nodes, up to 4.4x in capacity."))
    assert conflated(result) == [], result.findings


def test_values_listed_side_by_side_are_no_join(tmp_path: Path) -> None:
    _, result = verify_with(tmp_path, _named_experiments, adding(
        "The static runs use context lengths of 24k, 48k and 96k."))
    assert conflated(result) == [], result.findings


def _balancers(doc: Doc) -> None:
    for name, value, label in (("rr_mean_x", 3.3, "mean TTFT vs round-robin"),
                               ("ql_mean_x", 2.7, "mean TTFT vs least-loaded balancer")):
        add_metric(doc, name, value, label, ["TTFT"], "multiplier")
    add_fact(doc, "Against round-robin, mean TTFT is 3.3x better; against the least-loaded "
                  "balancer, 2.7x.")


def test_a_baseline_that_opens_the_sentence(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _balancers, adding(
        "Against a least-loaded balancer: mean TTFT up to 3.3x better."))
    assert rules_at(result, doc, "3.3x").get("mislabeled-figure") == "error", result.findings
    _, result = verify_with(tmp_path, _balancers, adding(
        "Against a round-robin scheduler: mean TTFT up to 3.3x better."))
    assert mislabels(result) == [], result.findings


def test_a_baseline_list_read_respectively_in_the_wrong_order(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _paged_kernels, adding(
        "Throughput is up to 1.3x and 1.4x higher than with the paged kernels of Beta and "
        "Alpha respectively."))
    assert rules_at(result, doc, "1.4x").get("mislabeled-figure") == "error", result.findings


def _tags(doc: Doc) -> None:
    for name, value, label in (("recall_q8", 71.5, "recall score q8"),
                               ("recall_q3", 48.25, "recall score q3"),
                               ("speed_x", 3.5, "decode speedup")):
        add_metric(doc, name, value, label, ["recall"], "quantity",
                   "Zeta-13B quality" if name != "speed_x" else "Zeta-13B speed")
    add_fact(doc, "Recall is 71.5 with q8 and 48.25 with q3; decoding runs 3.5x faster on "
                  "Zeta-13B.")


def test_a_figure_tagged_with_another_metrics_name(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _tags, adding(
        "The authors report recall of 71.5 with q3 and 48.25 with q8."))
    assert "mislabeled-figure" in rules_at(result, doc, "48.25"), result.findings
    assert "mislabeled-figure" in rules_at(result, doc, "71.5"), result.findings
    _, result = verify_with(tmp_path, _tags, adding(
        "The authors report recall of 71.5 with q8 and 48.25 with q3, and decoding 3.5x "
        "faster on Zeta-13B."))
    assert mislabels(result) == [], result.findings


def _ttft(doc: Doc) -> None:
    add_metric(doc, "p50_ttft_speedup", 7.5, "median TTFT speedup", ["TTFT"], "multiplier")
    add_fact(doc, "The authors report a 7.5x median TTFT speedup.")


def test_time_to_first_token_is_a_latency(tmp_path: Path) -> None:
    """"latency" fits a TTFT figure; "end-to-end latency", a different latency, does not."""
    doc, result = verify_with(tmp_path, _ttft, adding(
        "The authors report 7.5x lower latency to the first token."))
    assert "mislabeled-figure" not in rules_at(result, doc, "7.5x"), result.findings
    doc, result = verify_with(tmp_path, _ttft, adding(
        "The authors report 7.5x lower end-to-end latency."))
    assert rules_at(result, doc, "7.5x").get("mislabeled-figure") == "error", result.findings


def test_the_hardware_a_figure_ran_on_is_no_tag(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        add_metric(doc, "offload_ttft_x", 11, "offload TTFT speedup", ["TTFT"], "multiplier")
        add_metric(doc, "superchip_ttft_x", 23, "TTFT speedup on the Omega-9 superchip",
                   ["TTFT"], "multiplier")
        add_fact(doc, "Offloading cut TTFT 11x on Omega-9 and 23x on the Omega-9 superchip.")
        add_sentence(doc, "Offloading cut TTFT by up to 11x on Omega-9 nodes.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert "mislabeled-figure" not in rules_at(result, doc, "11x"), result.findings


def _engines(doc: Doc) -> None:
    add_metric(doc, "one_card_alphaserve_tokens_k", 30,
               "tokens AlphaServe handles on one card (thousands)", ["tokens"], "count",
               "one-card capacity")
    add_metric(doc, "one_card_betalm_tokens_k", 10,
               "tokens BetaLM handles on one card (thousands)", ["tokens"], "count",
               "one-card capacity")
    add_fact(doc, "On one card AlphaServe handles 30k tokens, while BetaLM gets about 10k.")


def test_two_systems_figures_swapped(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _engines, adding(
        "On one card, AlphaServe held 10k tokens where BetaLM managed about 30k."))
    assert "mislabeled-figure" in rules_at(result, doc, "10k"), result.findings
    assert "mislabeled-figure" in rules_at(result, doc, "30k"), result.findings
    _, result = verify_with(tmp_path, _engines, adding(
        "On one card, AlphaServe held 30k tokens where BetaLM managed about 10k."))
    assert mislabels(result) == [], result.findings


def _tasks(doc: Doc) -> None:
    add_metric(doc, "reasoning_tasks", 14, "reasoning tasks scored", ["tasks"], "count")
    add_metric(doc, "tp_degree", 6, "tensor-parallel degree", ["tensor parallelism"], "count")
    add_fact(doc, "The suite scores the model on 14 reasoning tasks with a tensor-parallel "
                  "degree of 6; version 14 of the harness was used.")


def test_a_count_moved_onto_hardware(tmp_path: Path) -> None:
    """14 counts reasoning tasks; "14 GPUs" moves it onto hardware, though a bare 14 (a
    version) elsewhere in the facts matches the number."""
    doc, result = verify_with(tmp_path, _tasks, adding(
        "The authors scored the model on 14 GPUs."))
    assert rules_at(result, doc, "14 GPUs").get("mislabeled-figure") == "error", \
        result.findings
    doc, result = verify_with(tmp_path, _tasks, adding(
        "The authors spread the model over 6 GPUs."))
    assert "mislabeled-figure" not in rules_at(result, doc, "6 GPUs"), result.findings


def test_a_word_after_and_labels_the_figures_after_it(tmp_path: Path) -> None:
    """"... 2.1 to 2.9 times smaller and a fetch delay 1.6 to 1.8 times lower": the delay is
    the second range's, not the first's."""
    def mutate(doc: Doc) -> None:
        add_metric(doc, "size_cut_low_x", 2.1, "cache size reduction, low end", ["size"],
                   "multiplier")
        add_metric(doc, "size_cut_high_x", 2.9, "cache size reduction, high end", ["size"],
                   "multiplier")
        add_metric(doc, "delay_cut_low_x", 1.6, "fetch delay reduction, low end", ["delay"],
                   "multiplier")
        add_metric(doc, "delay_cut_high_x", 1.8, "fetch delay reduction, high end",
                   ["delay"], "multiplier")
        add_fact(doc, "The authors report caches 2.1-2.9x smaller and fetch delay 1.6-1.8x "
                      "lower.")
        add_sentence(doc, "The authors report caches 2.1 to 2.9 times smaller and a total "
                          "fetch delay 1.6 to 1.8 times lower.")
    doc, result = verify_mutant(tmp_path, mutate)
    for figure in ("2.1 to", "2.9 times", "1.6 to", "1.8 times"):
        assert "mislabeled-figure" not in rules_at(result, doc, figure), result.findings


def test_two_figures_set_against_each_other_are_no_swapped_list(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        add_fact(doc, "The hosted service took 51 ms per token and 9,410 ms to the first token.")
        add_sentence(doc, "The hosted service took 9,410 ms to the first token, though its "
                          "51 ms per token was the best of the field.")
    _, result = verify_mutant(tmp_path, mutate)
    assert swaps(result) == [], result.findings


def test_a_metric_named_only_by_its_setting_takes_any_label(tmp_path: Path) -> None:
    """A metric whose name says only where it was measured (``kernel_setup_us``) and that has
    no spec may be called a latency, a cost or an overhead with equal right: no label of it can
    be proved wrong, so none is an error."""
    def mutate(doc: Doc) -> None:
        doc["benchmark_scope"]["reported_metrics"]["kernel_setup_us"] = 37
        add_fact(doc, "The authors time the kernel set-up at 37 microseconds per layer.")
        add_sentence(doc, "The authors put the set-up throughput cost at 37 µs per layer.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert "mislabeled-figure" not in rules_at(result, doc, "37 µs"), result.findings


def test_a_metric_whose_name_names_its_family_is_still_checked(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        doc["benchmark_scope"]["reported_metrics"]["p50_ttft_gain_x"] = 3.7
        add_fact(doc, "The authors report a 3.7x lower median time to first token.")
        add_sentence(doc, "The authors report 3.7x higher throughput.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert rules_at(result, doc, "3.7x").get("mislabeled-figure") == "error", result.findings
