"""Readings found on the eleventh session's corpus work (sets AM and AN: interconnect and memory
standards, GPU clouds), each written here as a case of its own, with the correct text it must
leave alone beside it:

* a ratio's number kept and its unit changed ("2% more efficient" for 2x, "10x compression" for
  10%) is a ``unit-mismatch``;
* a sum works in the units its figures carry ("144 x 800 Gb/s = 115.2 Tb/s"), a power is an
  operator ("2^10 = 1,024"), and a figure said again in another unit right after it ("288 Gb, or
  36 GB") is a conversion the reader can redo;
* lengths (metres, feet, micrometres) and transfer rates (GT/s) are units of their own;
* a join guardrail's experiments are told apart by their own words and by the kinds its text
  gives their values, not by a word or unit both share.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_fixtures import (
    Doc,
    Mutation,
    add_fact,
    fact,
    guardrail,
    paragraph,
    rules_at,
    verify_with,
)

from ledger.quantities import Kind, typed_figures

# --- a ratio's unit changed ----------------------------------------------------------------------

#: (the evidence, the body with the unit changed and the changed figure, the body as the
#: evidence has it and its figure)
_UNIT_SWAPS = {
    "multiplier as percent": ("The kernels are up to 2.7x more efficient.",
                              "The authors find the kernels up to 2.7% more efficient. [S4]",
                              "2.7%", "The authors find the kernels up to 2.7x more efficient. "
                              "[S4]", "2.7x"),
    "metres as feet": ("Cables are optimised for under 4 meters.",
                       "The specification optimises cables for under 4 feet. [S4]", "4 feet",
                       "The specification optimises cables for under 4 meters. [S4]",
                       "4 meters"),
    "a flag's milliseconds as seconds": (
        "The example runs with --join_timeout_ms 10000.",
        "The documentation's example sets a 10,000 s join timeout. [S4]", "10,000 s",
        "The documentation's example sets a 10,000 ms join timeout. [S4]", "10,000 ms"),
    "dollars as euros": ("A single node costs $1,667 a month.",
                         "The vendor's page prices a single node at €1,667 a month. [S4]",
                         "€1,667", "The vendor's page prices a single node at $1,667 a month. "
                         "[S4]", "$1,667"),
}


@pytest.mark.parametrize("case", _UNIT_SWAPS, ids=list(_UNIT_SWAPS))
def test_a_changed_unit_is_a_unit_mismatch(tmp_path: Path, case: str) -> None:
    evidence, wrong, wrong_at, right, right_at = _UNIT_SWAPS[case]
    doc, result = verify_with(tmp_path, fact(evidence, "primary_documentation"),
                              paragraph(wrong))
    assert rules_at(result, doc, wrong_at).get("unit-mismatch") == "error"
    doc, result = verify_with(tmp_path, fact(evidence, "primary_documentation"),
                              paragraph(right))
    assert rules_at(result, doc, right_at) == {}


def test_a_percent_written_as_a_multiplier_is_a_unit_mismatch(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, fact("The format gives 10% memory compression."),
                              paragraph("The authors report 10x memory compression. [S4]"))
    assert rules_at(result, doc, "10x").get("unit-mismatch") == "error"


def test_multipliers_listed_before_a_result_noun_stay_multipliers() -> None:
    kinds = [q.kind for _, q in typed_figures("The 3.5x, 63x and 10x figures remain claims.")]
    assert kinds == [Kind.multiplier] * 3
    (_, q), = typed_figures("the 8x H100 nodes")
    assert q.kind is Kind.count and q.noun == "node"  # a count of machines stays a count


# --- sums in units, powers and conversions -------------------------------------------------------

def test_a_sum_in_its_operands_unit_agrees_with_a_result_in_a_larger_one() -> None:
    from ledger.verify.worked import worked_sums
    body = "The port counts agree: 144 x 800 Gb/s = 115.2 Tb/s for the switch."
    assert [(w.computed, w.agrees) for w in worked_sums(body)] == [(115200.0, True)]
    body = body.replace("115.2", "115.9")
    assert [w.agrees for w in worked_sums(body)] == [False]


def test_a_power_is_an_operator(tmp_path: Path) -> None:
    from ledger.verify.worked import worked_sums
    assert [w.agrees for w in worked_sums("A 10-bit id gives 2^10 = 1,024 addresses.")] == [True]
    assert [w.agrees for w in worked_sums("A 10-bit id gives 2^10 = 2,048 addresses.")] == [False]
    doc, result = verify_with(tmp_path, paragraph(
        "By PCT's count, a 10-bit identifier gives 2^10 = 2,048 distinct addresses."))
    assert rules_at(result, doc, "2,048").get("arithmetic") == "error"


def _conversion(body: str) -> list[tuple[str, bool, str]]:
    from ledger.verify.worked import worked_sums
    return [(body[w.result_start:w.result_end], w.agrees, w.fits) for w in worked_sums(body)
            if w.converts]


def test_a_figure_said_again_in_another_unit_is_a_conversion() -> None:
    assert _conversion("A stack gives 288 Gb, or 36 GB.") == [("36", True, "")]
    assert _conversion("A stack gives 288 Gb, or 32 GB.") == [("32", False, "")]
    assert _conversion("It holds 153.6 GB (143 GiB).") == [("143", True, "")]
    # the decimal and binary prefixes mixed up are a looseness, not a wrong conversion
    assert _conversion("a 1 TB (1,024 GB) volume") == [("1,024", True, "")]
    # two values side by side in the same unit, or far apart, are no conversion
    assert _conversion("a 4 TB, or 8 TB, pool") == []
    assert _conversion("rated 400 Gb/s, or 800 GB/s on the larger part") == []


def test_a_conversion_whose_number_fits_another_prefix_is_a_unit_mismatch(tmp_path: Path
                                                                          ) -> None:
    assert _conversion("144 x 21 = 3,024 W, about 3.0 MW") == [("3.0", False, "kW")]
    ports = fact("A 144-port switch saves 21 W per port.", "primary_documentation")
    doc, result = verify_with(tmp_path, ports, paragraph(
        "On PCT's arithmetic, 144 ports at 21 W each come to 144 x 21 = 3,024 W, about 3.0 MW "
        "per switch."))
    assert rules_at(result, doc, "3.0 MW").get("unit-mismatch") == "error"
    doc, result = verify_with(tmp_path, ports, paragraph(
        "On PCT's arithmetic, 144 ports at 21 W each come to 144 x 21 = 3,024 W, about 3.0 kW "
        "per switch."))
    assert rules_at(result, doc, "3.0 kW") == {}


def test_a_product_written_with_a_glued_x_and_a_spaced_unit_is_read() -> None:
    from ledger.figures import extract_figures
    assert [f.text for f in extract_figures("the SN6810 (128x800 Gb/s)")] == ["128", "800"]
    assert [f.text for f in extract_figures("a 1920x1080 panel")] == []


def test_a_factor_before_a_price_is_a_number() -> None:
    kinds = [q.kind for _, q in typed_figures("plus 200 × $0.0032 for GiB of RAM")]
    assert kinds == [Kind.number, Kind.money]


# --- units of length and of transfers ------------------------------------------------------------

def test_lengths_and_transfer_rates_are_units() -> None:
    def read(text: str) -> tuple[Kind, str | None]:
        (_, q), = typed_figures(text)
        return q.kind, q.unit.symbol if q.unit else None
    assert read("cables under 4 m long") == (Kind.length, "m")
    assert read("775 micrometers thick")[0] is Kind.length
    assert read("200 GT/s per lane") == (Kind.rate, "GT/s")
    assert read("100m tokens")[0] is Kind.count  # millions, glued: no metres
    assert read("a 125m-parameter model")[0] is Kind.number


# --- noun phrases, attribution and owners -------------------------------------------------------

def test_a_count_reads_its_noun_through_model_names() -> None:
    (_, q), = typed_figures("It submitted three GB300 NVL72 configurations, all in MXFP8.")
    assert q.noun == "configuration"
    (_, q), = typed_figures("eight H100 GPUs")
    assert q.noun == "gpu"


#: Sentences the attribution grammar reads as crediting someone, and one it must not.
_CREDITS = {
    "Two answers from the consortium's own webinar follow-up are useful.": True,
    "the tallest configuration the standard allows.": True,
    "The specification defines 32 channels.": True,
    "A later revision (v5) restates the headline as up to 2.51x.": True,
    "A consulting primer last verified on June 7, 2026 repeats the 3.25x figure.": True,
    "A summary of that post on machinedaily.ai adds the reason: 128 GB/s.": True,
    "The mechanism it presented at Hot Chips is electrical.": True,
    "The stack allows 32 channels.": False,
    "The cache holds 40 GB of blocks.": False,
}


@pytest.mark.parametrize("text", _CREDITS)
def test_standards_bodies_and_placed_documents_attribute(text: str) -> None:
    from ledger.verify.attribution import _ATTRIBUTION_RE
    assert bool(_ATTRIBUTION_RE.search(text)) is _CREDITS[text]


def _secondary_titled(title: str) -> Mutation:
    def add(doc: Doc) -> None:
        doc["sources"].append({"id": "S7", "title": title, "publisher": "AI Wiki",
                               "published_at": None, "retrieved_at": "2026-11-04",
                               "url": "https://aiwiki.example/quantum-x", "primary": False})
        add_fact(doc, "Announced at GTC on March 18, 2025.", "secondary_reporting")
        doc["facts"][-1]["source_ids"] = ["S7"]
    return add


def test_a_secondary_page_about_an_event_reports_its_subject(tmp_path: Path) -> None:
    sentence = "NVIDIA announced both switch families at GTC on March 18, 2025. [S7]"
    doc, result = verify_with(tmp_path, _secondary_titled("NVIDIA Quantum-X Photonics"),
                              paragraph(sentence))
    assert "misattributed-source" not in rules_at(result, doc, "NVIDIA")
    # a page that does not name the subject gives no ground to read it as the event's report
    doc, result = verify_with(tmp_path, _secondary_titled("Co-packaged optics switches"),
                              paragraph(sentence))
    assert rules_at(result, doc, "NVIDIA").get("misattributed-source") == "error"
    # a reporting verb names whose statement it is, whatever the page is titled
    doc, result = verify_with(tmp_path, _secondary_titled("NVIDIA Quantum-X Photonics"),
                              paragraph("NVIDIA writes that both switch families were shown at "
                                        "GTC on March 18, 2025. [S7]"))
    assert rules_at(result, doc, "NVIDIA").get("misattributed-source") == "error"


def test_a_count_of_addresses_is_named_in_the_plural() -> None:
    (_, q), = typed_figures("gives 1,024 distinct addresses")
    assert q.describe() == "count of distinct addresses"


# --- inferences and dates -----------------------------------------------------------------------

def test_a_percent_with_no_direction_of_its_own_restates_either_way() -> None:
    from ledger.models import Computation, ComputationStep, Inference
    from ledger.verify.restated import _inference_values, _states
    inf = Inference(id="I1", claim="Uplift 11/8 = 1.375, i.e. 37.5%, versus the quoted 40%.",
                    basis_fact_ids=[], label="PCT analysis",
                    computation=Computation(inputs={}, steps=[
                        ComputationStep(name="ratio", expression="11 / 8", result=1.375)]))
    (fig, q), = typed_figures("the uplift from pin rate alone is 37.5%")
    assert q.direction is None and _states(_inference_values(inf), fig, q)


def test_a_duration_between_two_evidence_dates_traces(tmp_path: Path) -> None:
    def two_readings(doc: Doc) -> None:
        add_fact(doc, "A price reading taken on May 18, 2026.")
        add_fact(doc, "A price reading taken on June 11, 2026.")
    doc, result = verify_with(tmp_path, two_readings, paragraph(
        "The authors' two readings were taken 24 days apart. [S4]"))
    assert "untraced-figure" not in rules_at(result, doc, "24 days")
    doc, result = verify_with(tmp_path, two_readings, paragraph(
        "The authors' two readings were taken 37 days apart. [S4]"))
    assert rules_at(result, doc, "37 days").get("untraced-figure") == "error"


# --- a join guardrail's experiments -------------------------------------------------------------

def test_a_join_guardrails_bracketed_values_and_shared_words() -> None:
    import json

    from verify_fixtures import load

    from ledger.models import Article
    from ledger.verify.guardrails import rule_from_prose
    article = Article.model_validate_json(json.dumps(load()))
    rule = rule_from_prose("Do not merge Micron's sample figures (11 Gbps, 2.8 TB/s) with the "
                           "JEDEC standard's figures (8 Gb/s, 2 TB/s) as one result.", article)
    assert rule is not None and rule.kind == "separate_experiments"
    micron, jedec = rule.experiments
    assert micron.values == [11, 2.8] and jedec.values == [8, 2]
    # "figures" names both and a unit names neither: the words that tell them apart remain
    assert micron.terms == ["Micron", "sample"] and jedec.terms == ["JEDEC", "standard"]


def _separate(doc: Doc) -> None:
    doc["corrections"].append({
        "id": "G9", "status": "prepublication_guardrail",
        "text": "Do not join the link round-trip figures (<1 µs, <4 m cables) with the switch "
                "targets (150/200/250 ns) as one result.",
        "rule": {"kind": "separate_experiments", "experiments": [
            {"name": "link round trip", "values": [1, 4], "terms": ["round trip"]},
            {"name": "switch", "values": [150, 200, 250], "terms": ["port-to-port"]}]}})


def test_a_join_guardrails_values_keep_the_kinds_its_text_gives(tmp_path: Path) -> None:
    # "1, 2 or 4 lanes" are counts, not the guardrail's "<1 µs" and "<4 m"
    doc, result = verify_with(tmp_path, _separate, paragraph(
        "The authors describe links of 1, 2 or 4 lanes at 200 ns port-to-port. [S4]"))
    assert "conflated-experiments" not in {f.rule for f in result.findings}
    doc, result = verify_with(tmp_path, _separate, paragraph(
        "The authors describe a round trip under 1 µs at 200 ns port-to-port. [S4]"))
    assert "conflated-experiments" in {f.rule for f in result.findings}



def test_a_compound_duration_is_no_conversion_of_its_first_part() -> None:
    assert _conversion("The run takes about 285 s (4 minutes 45 seconds).") == []
    assert _conversion("The run takes about 285 s (4.75 minutes).") == [("4.75", True, "")]
    assert _conversion("A stack gives 288 Gb, or 36 GB, 12 GB more.") == [("36", True, "")]


def test_a_conversions_number_explains_only_figures_of_its_kind(tmp_path: Path) -> None:
    # "0.20 hours (12 minutes)" explains the 12 minutes, not the 12 regions of its sentence
    doc, result = verify_with(tmp_path, fact(
        "The benchmark defines 12 variants; each step takes 12 minutes."), paragraph(
        "The authors' benchmark defines 12 regions; each step takes 0.20 hours (12 minutes). "
        "[S4]"))
    assert "mislabeled-figure" in rules_at(result, doc, "12 regions")
    assert rules_at(result, doc, "12 minutes") == {}


# --- points written as a percent, credit per cited part -----------------------------------------

def test_the_gap_of_two_percents_of_a_paragraph_written_as_a_percent(tmp_path: Path) -> None:
    scaling = fact("Scaling efficiency was 68.6% of ideal at four times the GPUs and 76.5% "
                   "of ideal at twice the GPUs.")
    doc, result = verify_with(tmp_path, scaling, paragraph(
        "The authors report 68.6% of ideal at four times the GPUs, and 76.5% at twice the "
        "GPUs, an improvement of 7.9% on the four-fold figure. [S4]"))
    assert rules_at(result, doc, "7.9%").get("percentage-points") == "error"
    doc, result = verify_with(tmp_path, scaling, paragraph(
        "The authors report 68.6% of ideal at four times the GPUs, and 76.5% at twice the "
        "GPUs, 7.9 percentage points better. [S4]"))
    assert "percentage-points" not in rules_at(result, doc, "7.9 percentage points")


def _second_source(doc: Doc) -> None:
    doc["sources"].append({"id": "S7", "title": "Azure MLPerf results", "publisher": "Azure",
                           "published_at": "2026-06-04", "retrieved_at": "2026-11-04",
                           "url": "https://azure.example/mlperf", "primary": True})
    add_fact(doc, "A 4,096-GPU deployment reached the target in 9.77 minutes.")
    add_fact(doc, "Azure reached the target in 7.07 minutes on 8,192 GPUs.",
             "author_reported_benchmark_not_independently_reproduced")
    doc["facts"][-1]["source_ids"] = ["S7"]


def test_a_paragraphs_credit_for_one_source_is_not_anothers(tmp_path: Path) -> None:
    uncredited = ("A 4,096-GPU deployment reached the target in 9.77 minutes. [S4] For "
                  "context, Azure's submission reached it in 7.07 minutes; that is Azure's "
                  "figure. [S7]")
    doc, result = verify_with(tmp_path, _second_source, paragraph(uncredited))
    assert rules_at(result, doc, "9.77").get("unattributed-figure") == "warning"
    doc, result = verify_with(tmp_path, _second_source, paragraph(
        uncredited.replace("A 4,096-GPU deployment reached", "The authors report that a "
                           "4,096-GPU deployment reached")))
    assert "unattributed-figure" not in rules_at(result, doc, "9.77")


def test_a_forbidden_word_before_a_negated_verb_keeps_the_guardrail(tmp_path: Path) -> None:
    rail = guardrail("Do not present per-accelerator bandwidth as a specification "
                            "figure; the ports per accelerator are a vendor decision.")
    doc, result = verify_with(tmp_path, rail, paragraph(
        "How many ports an accelerator exposes is a decision the specification does not fix, "
        "so per-accelerator bandwidth is the vendor's to state."))
    assert not [f for f in result.findings if f.rule == "guardrail"
                and "per-accelerator" in f.message]
    doc, result = verify_with(tmp_path, rail, paragraph(
        "The per-accelerator bandwidth is a specification figure that buyers can rely on."))
    assert [f for f in result.findings if f.rule == "guardrail" and "per-accelerator"
            in f.message]


# --- the held-out set AO, after its one blind run ------------------------------------------------

def test_a_size_after_a_model_name_is_a_figure() -> None:
    from ledger.figures import extract_figures
    assert [f.text for f in extract_figures("GPT-3's weights take 175 GB; GPT-3 175GB")] == [
        "175", "175"]
    assert [f.text for f in extract_figures("Llama 3.1 405B and Llama 3 70B.")] == []


def test_a_year_like_number_before_a_plural_noun_counts_it() -> None:
    (_, q), = typed_figures("its title cites 2000 synthetic failures")
    assert q.kind is Kind.count and q.noun == "failure"
    for text in ("the 2024 models", "in 2000 runs"):
        (_, q), = typed_figures(text)
        assert q.kind is Kind.year, text


def test_a_preposition_opening_a_sentence_names_no_person() -> None:
    from ledger.verify.persons import is_person_name
    assert not is_person_name("Against DeepSpeed")
    assert is_person_name("Jules Damji")


def test_results_coordinated_with_an_article_are_items() -> None:
    from ledger.verify.conflations import _ITEM_SEP_RE
    text = "the authors report a 3.5x speedup on 2 nodes and a 9.7x speedup on 4 nodes"
    assert len(_ITEM_SEP_RE.split(text)) == 2


def test_a_flag_names_its_values_unit() -> None:
    (_, q), = typed_figures("run with --join_timeout_ms 10000")
    assert q.kind is Kind.duration and q.unit is not None and q.unit.symbol == "ms"
    (_, q), = typed_figures("and --mtbf-secs=300")
    assert q.unit is not None and q.unit.symbol == "s"


def test_a_middle_initial_ends_no_sentence() -> None:
    from ledger.verify.prose import sentences
    text = "A post by Eric Liang and Jules S. Damji gives 2x. The next sentence. It ends in C. Then"
    assert [s.text for s in sentences(text)] == [
        "A post by Eric Liang and Jules S. Damji gives 2x.", "The next sentence.",
        "It ends in C. Then"]


def test_a_year_before_a_verb_stays_a_year() -> None:
    (_, q), = typed_figures("Coverage of Advancing AI 2025 lists three features")[:1]
    assert q.kind is Kind.year


def _label_rail(value: float, forbidden: list[str]) -> Mutation:
    return guardrail(f"Do not call the {value:g}% effective training time a throughput figure.",
                     {"kind": "forbidden_label", "value": value, "forbidden": forbidden,
                      "scope": "clause"})


def test_both_ends_of_a_change_share_its_label(tmp_path: Path) -> None:
    shares = fact("Effective training time rose from 44% to 80% at O(100K) GPUs.")
    rail = _label_rail(80, ["throughput"])
    doc, result = verify_with(tmp_path, shares, rail, paragraph(
        "The authors report that throughput rose from 44% to 80%. [S4]"))
    assert rules_at(result, doc, "80%").get("guardrail") == "error"
    doc, result = verify_with(tmp_path, shares, rail, paragraph(
        "The authors report that effective training time rose from 44% to 80%. [S4]"))
    assert "guardrail" not in rules_at(result, doc, "80%")


def test_a_figure_the_evidence_writes_alike_is_a_doubt_not_an_error(tmp_path: Path) -> None:
    # the fact's "in 2000 runs" reads as a year; the body's "2,000 runs" is the same words
    runs = fact("The authors repeated the job in 2000 runs of the benchmark.")
    doc, result = verify_with(tmp_path, runs, paragraph(
        "The authors repeated the job over 2,000 runs of the benchmark. [S4]"))
    assert rules_at(result, doc, "2,000").get("untraced-figure") == "warning"
    doc, result = verify_with(tmp_path, runs, paragraph(
        "The authors repeated the job over 2,400 runs of the benchmark. [S4]"))
    assert rules_at(result, doc, "2,400").get("untraced-figure") == "error"


def test_a_word_many_names_share_names_no_one() -> None:
    from ledger.verify.owners import owners_in
    from ledger.verify.sourcenames import matches
    assert not matches("Microsoft Research", ["Google Research blog", "google", "research"])
    assert matches("Google Research", ["Google Research blog", "google", "research"])
    assert [o[2] for o in owners_in("Microsoft Research publicised the work in a post.")] == [
        "Microsoft Research"]


def test_a_unit_written_in_another_case_is_not_written_alike(tmp_path: Path) -> None:
    table = fact("The checkpoint is 18.8 Gb on disk.", "primary_documentation")
    doc, result = verify_with(tmp_path, table, paragraph(
        "The documentation lists the checkpoint at 18.8 GB. [S4]"))
    assert rules_at(result, doc, "18.8 GB").get("unit-mismatch") == "error"
