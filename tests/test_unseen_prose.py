"""Mechanisms behind false errors found on unseen prose (corpus set H): a coarser figure of an
evidence value that is itself rounded, arithmetic written out in words, a figure the sentence
denies, a figure named again as a reference. Every sentence here is written for the test."""

from __future__ import annotations

from ledger.quantities import typed_figures
from ledger.verify.tracing import EvidenceIndex, Trace, trace_figure


def _index(*claims: str) -> EvidenceIndex:
    index = EvidenceIndex()
    for i, claim in enumerate(claims):
        index.add_text(claim, Trace("fact", f"/facts/{i}/claim", fact_id=f"F{i + 1}"))
    return index


def _traced(index: EvidenceIndex, sentence: str, text: str) -> bool:
    for fig, q in typed_figures(sentence):
        if fig.text == text:
            return trace_figure(fig, index, q).traced
    raise AssertionError(f"{text!r} is no figure of {sentence!r}")


def test_a_figure_one_place_coarser_than_a_midpoint_may_round_either_way() -> None:
    # 0.0625, 4.35 ms and 2.45x are printed values, rounded themselves: the value behind
    # 4.35 may be 4.347, which rounds to 4.3
    index = _index("The probe's miss ratio was 0.0625.", "A lookup took 4.35 ms.",
                   "The new path ran 2.45x faster than the old one.",
                   "Its cache held 6.5 GB.")
    for sentence, text in (("a miss ratio of about 0.062", "0.062"),
                           ("a miss ratio of about 0.063", "0.063"),
                           ("each lookup takes about 4.3 ms", "4.3"),
                           ("each lookup takes about 4.4 ms", "4.4"),
                           ("a path some 2.4x faster", "2.4x"),
                           ("a path some 2.5x faster", "2.5x")):
        assert _traced(index, sentence, text), sentence
    for sentence, text in (("a miss ratio of about 0.061", "0.061"),
                           ("each lookup takes about 4.2 ms", "4.2"),
                           ("a path some 2.3x faster", "2.3x"),
                           ("a cache of 6 GB", "6")):  # whole numbers stay half-up
        assert not _traced(index, sentence, text), sentence


def test_a_model_named_by_its_size_again_is_no_figure() -> None:
    from ledger.figures import extract_figures

    def texts(body: str) -> list[str]:
        return [f.text for f in extract_figures(body)]

    assert texts("The lab served Qwen 2.5 72B at 310 tokens per second; the 72B run used "
                 "eight cards.") == ["310", "eight"]
    assert texts("Mistral 7B answered first. Later the 7B trial was repeated on 4 GPUs.") == [
        "4"]
    assert texts("On Llama 3 405B the cache filled; the 405B deployment then paged "
                 "out.") == []
    # a size no model name carries stays a figure; so does a context length
    assert texts("Llama 3 70B was tested, and then a 13B run.") == ["13B"]
    assert texts("Qwen 2 7B reads prompts of 7K tokens.") == ["7K"]


def test_the_one_of_a_reciprocal_written_in_words_is_no_figure() -> None:
    from ledger.figures import extract_figures

    def texts(body: str) -> list[str]:
        return [f.text for f in extract_figures(body)]

    assert texts("a share of about 40% (1 divided by 2.5)") == ["40%", "2.5"]
    assert texts("so 1 divided by 8 leaves 0.125 of the time") == ["8", "0.125"]
    assert texts("shares of 1/4.2 and 1/6.5 of the peak") == ["4.2", "6.5"]
    assert texts("the rest is 1 minus 0.35, or 0.65") == ["0.35", "0.65"]
    assert texts("that is 100 minus 61.5, so 38.5% remains") == ["61.5", "38.5%"]
    # a 1 or 100 that counts something, or divides nothing, stays a figure
    assert texts("1 node divided by region") == ["1"]
    assert texts("100 minutes minus setup") == ["100"]
    assert texts("the 11 divided by 3.85") == ["11", "3.85"]


def _unattributed_at(tmp_path, credited: str, later: str, figure: str) -> list[str]:  # type: ignore[no-untyped-def]
    from test_unattributed import unattributed
    from verify_fixtures import replace_body, verify_mutant

    def mutate(doc):  # type: ignore[no-untyped-def]
        doc["facts"].append({
            "id": "F90", "claim": "The May 6 post reports 7.4 times the requests per node.",
            "source_ids": ["S4"],
            "evidence_type": "author_reported_benchmark_not_independently_reproduced"})
        replace_body(doc, "Reuse also has boundaries.",
                     f"{credited}\n\n{later}\n\nReuse also has boundaries.")
    doc, result = verify_mutant(tmp_path, mutate)
    return unattributed(result, doc, figure, doc["body"].count(figure) - 1)


def test_a_credited_figure_named_again_by_its_bare_number_is_no_new_claim(tmp_path) -> None:  # type: ignore[no-untyped-def]
    credited = "The post reports that the pool serves 7.4 times the requests per node. [S4]"
    for later in ("The open question is not whether 7.4 is large but whether it lasts.",
                  "Whether 7.4 survives a colder trace is for a buyer to test.",
                  "A team should weigh 7.4 against what the extra nodes cost."):
        assert _unattributed_at(tmp_path, credited, later, "7.4") == [], later
    # the same figure with its unit states the result again; never credited, even bare, it
    # is an unattributed figure
    assert _unattributed_at(tmp_path, credited, "The pool serves 7.4 times the requests.",
                            "7.4 times") == ["error"]
    assert _unattributed_at(tmp_path, "The pool is new.",
                            "Whether 7.4 survives a colder trace is for a buyer to test.",
                            "7.4") == ["error"]


def test_a_misreading_the_sentence_denies_is_no_finding(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from test_tracing_mechanisms import _doc_with, _rules_at

    claim = "On the recall suite the small model trails the large one by 7.25 points."
    for sentence, figure in (
            ("The small model trails by 7.25 percentage points, not 7.25%.", "7.25%"),
            ("That is a gap of 7.25 points rather than a 7.25% drop.", "7.25%"),
            ("Read it as 7.25 percentage points and never as 7.25 percent.", "7.25 percent")):
        assert "percentage-points" not in _rules_at(tmp_path, _doc_with(claim, sentence),
                                                    figure), sentence
    for sentence, figure in (
            ("The small model trails by 7.25%.", "7.25%"),
            # denied, but the sentence gives no reading that traces: still the wrong unit
            ("The small model trails, not by 7.25%.", "7.25%"),
            ("The gap is 7.25%, not 7.25 points.", "7.25%")):
        assert _rules_at(tmp_path, _doc_with(claim, sentence), figure).get(
            "percentage-points") == "error", sentence
    size = "Each worker pins a 24 GiB cache."
    assert "unit-mismatch" not in _rules_at(tmp_path, _doc_with(
        size, "Each worker pins 24 GiB of cache, not 24 GB."), "24 GB")
    assert _rules_at(tmp_path, _doc_with(size, "Each worker pins 24 GB of cache."),
                     "24 GB").get("unit-mismatch") == "error"


def test_the_time_left_after_a_speedup_is_its_reciprocal() -> None:
    index = _index("The new decoder runs 2x faster than the old one.",
                   "The fused kernel is 4x quicker on long prompts.")
    for sentence, text in (("so a step takes half as long", "half"),
                           ("each prompt needs half the time it did", "half"),
                           ("the kernel needs 0.25x the latency", "0.25x"),
                           ("a batch now finishes in half of the time", "half")):
        assert _traced(index, sentence, text), sentence
    for sentence, text in (("the pool keeps half the GPUs", "half"),  # no time: no reciprocal
                           ("a step takes 0.4x the time", "0.4x"),  # 1 / 2.5, not given
                           ("the kernel needs 0.2x the latency", "0.2x")):
        assert not _traced(index, sentence, text), sentence


def _with_gap(sentence: str):  # type: ignore[no-untyped-def]
    from verify_fixtures import load

    doc = load()
    doc["facts"].append({
        "id": "F90", "claim": "The vendor reports 2,400 requests per second on the small model "
        "and 320 requests per second on the large one.", "source_ids": ["S4"],
        "evidence_type": "author_reported_benchmark_not_independently_reproduced"})
    doc["inferences"].append({
        "id": "I9", "basis_fact_ids": ["F90"], "label": "PCT analysis",
        "claim": "The mirror's 312 requests per second is 8 requests per second, or 2.5%, "
                 "below the vendor's 320.",
        "computation": {"inputs": {"vendor_rps": 320, "mirror_rps": 312},
                        "steps": [{"name": "gap", "expression": "vendor_rps - mirror_rps",
                                   "result": 8},
                                  {"name": "gap_pct", "expression": "gap / vendor_rps * 100",
                                   "result": 2.5}]}})
    close = "These are the authors' results, not PCT measurements."
    doc["body"] = doc["body"].replace(close, close + " " + sentence, 1)
    return doc


def test_a_sourced_figure_sharing_only_its_unit_with_a_result_restates_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from test_tracing_mechanisms import _rules_at

    for sentence in (
            "A log from the mirror shows 2,400 requests per second on the small model and 312 "
            "on the large one.",
            "An outside test of the mirror measured above 2,400 served requests per second on "
            "the small model and above 312 on the large model.",
            "Operators of the mirror clocked 2,400 requests per second for the small model, "
            "then 312 for the large one."):
        assert "arithmetic" not in _rules_at(tmp_path, _with_gap(sentence), "2,400"), sentence
    # the result itself restated with another value stays an arithmetic error
    for sentence in (
            "The mirror's 312 requests per second is 9 requests per second below the "
            "vendor's 320.",
            "So the mirror's 312 requests per second sits 6 requests per second below the "
            "vendor's 320."):
        figure = "9 requests" if " 9 " in sentence else "6 requests"
        rules = _rules_at(tmp_path, _with_gap(sentence), figure)
        assert rules.get("arithmetic") == "error", (sentence, rules)


def test_a_fraction_in_digits_is_the_multiplier_a_word_states() -> None:
    # "1/2 the memory" in the evidence, "half the memory" in the body: one multiplier
    index = _index("The vendor says the int8 index needs 1/2 the disk of the raw one and "
                   "the int4 index 1/4 of it.", "Pruned, a layer takes 3/4 as much time.")
    for sentence, text in (("the int8 index takes half the disk", "half"),
                           ("an int8 index halves the disk", "halves"),
                           ("the int4 index needs 0.25x the disk", "0.25x"),
                           ("a pruned layer runs in 0.75x the time", "0.75x")):
        assert _traced(index, sentence, text), sentence
    for text in ("Released on 1/2/2024 with a 3/4 split of the shards.",):
        assert [f.kind.value for f, _ in typed_figures(text)].count("multiplier") == 0, text
