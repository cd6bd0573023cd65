"""Readings found on the twelfth session's corpus work (sets AP and AQ: datacenter power and
cooling, on-device inference), each written here as a case of its own, with the correct text it
must leave alone beside it:

* the desk locating documents ("PCT observed all sources on ...", "the posts we found") is
  reading, not a measurement;
* a person a trade-press report quotes ("Urs Hölzle credited the weather") owns nothing the
  checker can settle; an outlet named as the one that relayed a report ("as relayed by X") must
  publish it;
* a dated document ("A May 28 follow-up explains", "DCX's May 29, 2026 explainer") credits the
  figures it gives; a number that is half of a design's name ("4-bit weights") needs no credit;
* a figure counted per another thing than its facts ("kW per CDU" for "kW per rack") is
  mislabeled; a metric whose lower-case name cannot tell Gb/s from GB/s yields to a fact that
  writes the unit;
* masses and glued lengths ("1400kg", "2236mm") and a trillion written "T" ("3.3T tokens") are
  read as quantities; a hyphenated modifier is its words ("GenAI-capable");
* a guardrail that denies where work runs is broken by a verb that means running there, and an
  observed footprint is a measured one.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from verify_fixtures import (
    Doc,
    Mutation,
    add_inference,
    add_metric,
    fact,
    guardrail,
    paragraph,
    rules_at,
    verify_with,
)

from ledger.quantities import Kind, Verdict, compare, typed_figures
from ledger.verify.attribution import attributes, desk_claims

# --- the desk reading documents ----------------------------------------------------------------


@pytest.mark.parametrize("sentence", [
    "PCT observed all sources on November 17, 2026.",
    "None of the posts we found gives a tokens-per-second figure for a phone.",
    "PCT saw both pages on May 2.",
    "It is the best-documented path we found for running Llama on Android, at up to 4x.",
    "Both are the authors' results rather than PCT measurements.",
])
def test_the_desk_locating_documents_is_no_measurement(sentence: str) -> None:
    assert desk_claims(sentence, ("PCT",)) is None


@pytest.mark.parametrize("sentence", [
    "PCT observed 40% lower latency on its own rig.",
    "The figures we measured show 2x.",
    "We found 40% lower latency.",
    "In testing we found 2x.",
    "The gain matches the roughly 2x average PCT observed in its own tests.",
])
def test_the_desk_finding_a_result_is_still_its_claim(sentence: str) -> None:
    assert desk_claims(sentence, ("PCT",)) is not None


# --- persons and outlets --------------------------------------------------------------------------

def _secondary_source(doc: Doc) -> None:
    doc["sources"].append({
        "id": "S7", "title": "Mooncake gains ground", "publisher": "Data Center Knowledge",
        "authors": ["Rich Miller"], "published_at": "2026-05-08", "retrieved_at": "2026-11-04",
        "url": "https://www.datacenterknowledge.com/mooncake-gains-ground", "primary": False})


def _person_paragraph(source: str) -> Mutation:
    return paragraph(f"The operator's engineers tuned each hall. Urs Hölzle credited seasonal "
                     f"weather and facility-by-facility tuning. [{source}]")


def test_a_person_a_report_quotes_is_not_misattributed(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _secondary_source, _person_paragraph("S7"))
    assert "misattributed-source" not in rules_at(result, doc, "Urs Hölzle")


def test_a_person_beside_a_primary_source_that_lists_others_is_misattributed(
        tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _person_paragraph("S4"))
    assert rules_at(result, doc, "Urs Hölzle").get("misattributed-source") == "error"


@pytest.mark.parametrize(("wording", "flagged"), [
    ("as relayed by MacRumors", True),
    ("as relayed by Data Center Knowledge", False),
    ("as reported by MacRumors", True),
    ("reported by MacRumors on May 8", True),
])
def test_the_outlet_that_relayed_a_report_must_publish_it(tmp_path: Path, wording: str,
                                                          flagged: bool) -> None:
    outlet = wording.split(" by ")[1].split(" on ")[0]
    doc, result = verify_with(tmp_path, _secondary_source, paragraph(
        f"The hit-rate claims come from the vLLM team's post, {wording}. [S7]"))
    found = rules_at(result, doc, outlet).get("misattributed-source")
    assert (found == "error") is flagged


def test_a_figure_reported_by_a_third_party_names_no_outlet(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _secondary_source, fact(
        "The average was 96%, per the EPA."), paragraph(
        "The operator framed this against the 96% average reported by the EPA. [S7]"))
    assert "misattributed-source" not in rules_at(result, doc, "EPA")


# --- credit ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("paragraph_text", [
    "A May 28 follow-up explains why in-row units struggle: rack densities rose to 60-100 kW.",
    "DCX's May 29, 2026 explainer sets out the loops: the facility side carries 12 kW.",
])
def test_a_dated_document_credits_its_figures(paragraph_text: str) -> None:
    assert attributes(paragraph_text, ("DCX",))


def test_an_undated_indefinite_test_credits_nobody() -> None:
    assert not attributes("A test runs 2x faster.")


def test_a_number_in_a_designs_name_needs_no_credit(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, fact(
        "The scheme uses 4-bit groupwise weights and 8-bit activations."), paragraph(
        "The quantization scheme is specific: 4-bit groupwise weights with 8-bit per-token "
        "dynamic activations."))
    assert "unattributed-figure" not in rules_at(result, doc, "4-bit groupwise")
    doc, result = verify_with(tmp_path, fact("The cache holds 4 replicas per key."), paragraph(
        "The cache holds 4 replicas per key."))
    assert "unattributed-figure" in rules_at(result, doc, "4 replicas")


def test_an_authors_result_stated_as_fact_in_the_desks_conclusion_is_flagged(
        tmp_path: Path) -> None:
    conclusion = ("PCT's conclusion: Mooncake Store is the best-documented shared cache we "
                  "found{}, but buyers should test their own traces.")
    doc, result = verify_with(tmp_path, paragraph(conclusion.format(", at up to 3.8x the throughput")))
    assert rules_at(result, doc, "3.8x").get("unattributed-figure") == "warning"
    doc, result = verify_with(tmp_path, paragraph(conclusion.format("")))
    assert "unattributed-figure" not in rules_at(result, doc, "PCT's conclusion")
    doc, result = verify_with(tmp_path, paragraph(
        "PCT's conclusion: if the 3.8x holds at scale, buyers pay for far less prefill."))
    assert "unattributed-figure" not in rules_at(result, doc, "3.8x")


# --- what a figure is counted per, and a metric's unit --------------------------------------------

@pytest.mark.parametrize(("body", "flagged"), [
    ("The report says 60-120 kW per CDU is now the standard. [S4]", True),
    ("The report says 60-120 kW per server rack is now the standard. [S4]", False),
    ("The report says 60-120 kW per cabinet is now the standard. [S4]", False),
    ("The report says 60-120 kW is now the standard. [S4]", False),
])
def test_a_figure_counted_per_another_thing_is_mislabeled(tmp_path: Path, body: str,
                                                          flagged: bool) -> None:
    doc, result = verify_with(tmp_path, fact("60-120 kW per rack is the new standard."),
                              paragraph(body))
    found = rules_at(result, doc, "60-120").get("mislabeled-figure")
    assert (found == "warning") is flagged


def _bandwidth_metric(doc: Doc) -> None:
    add_metric(doc, "m5_bandwidth_gbps", 153, "M5 memory bandwidth", ["bandwidth"], "quantity")


def test_a_lower_case_metric_name_yields_to_the_facts_unit(tmp_path: Path) -> None:
    steps = (_bandwidth_metric, fact("The M5 has 153GB/s of unified memory bandwidth."))
    doc, result = verify_with(tmp_path, *steps, paragraph(
        "The authors put the M5's memory bandwidth at 153Gb/s. [S4]"))
    assert rules_at(result, doc, "153").get("unit-mismatch") == "error"
    doc, result = verify_with(tmp_path, *steps, paragraph(
        "The authors put the M5's memory bandwidth at 153GB/s. [S4]"))
    assert "unit-mismatch" not in rules_at(result, doc, "153")


def _sizing(unit: str) -> Mutation:
    def add(doc: Doc) -> None:
        # 7.35 GB rounds to the operand's 7: "7 bytes" is what the arithmetic multiplies by
        i = add_inference(doc, f"1.05B parameters at 7 bytes is about 7.35 {unit}.",
                          inputs={"params_b": 1.05}, steps=(("size_gb", "params_b * 7", 7.35),))
        doc["inferences"][i]["computation"]["steps"][0]["unit"] = "GB"
    return add


def test_an_inferences_operand_in_its_unit_is_no_unit_slip(tmp_path: Path) -> None:
    _, result = verify_with(tmp_path, _sizing("GB"))
    assert not [f for f in result.findings if f.rule == "unit-mismatch"]
    _, result = verify_with(tmp_path, _sizing("Gb"))
    assert [f.message.split(":")[1].split(" is ")[0] for f in result.findings
            if f.rule == "unit-mismatch"] == [" '7.35'"]


# --- quantities -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "kind", "unit", "value"), [
    ("a 1400kg payload", Kind.mass, "kg", Decimal(1400)),
    ("weighs 3,086 lb", Kind.mass, "lb", Decimal(3086)),
    ("the 2236mm frame", Kind.length, "mm", Decimal(2236)),
])
def test_masses_and_glued_lengths_are_quantities(text: str, kind: Kind, unit: str,
                                                 value: Decimal) -> None:
    ((_, q),) = typed_figures(text)
    assert q.kind is kind and q.unit is not None and q.unit.symbol == unit
    assert q.values == (value,)


def test_a_mass_in_another_unit_is_a_unit_mismatch(tmp_path: Path) -> None:
    evidence = fact("The frame's maximum payload is 1400kg.", "primary_documentation")
    doc, result = verify_with(tmp_path, evidence, paragraph(
        "The specification keeps the maximum payload at 1400lb. [S4]"))
    assert rules_at(result, doc, "1400").get("unit-mismatch") == "error"
    doc, result = verify_with(tmp_path, evidence, paragraph(
        "The specification keeps the maximum payload at 1400kg. [S4]"))
    assert rules_at(result, doc, "1400") == {}


def test_a_trillion_written_t_scales_a_count() -> None:
    ((_, q),) = typed_figures("The model was trained on 3.3T tokens.")
    assert q.kind is Kind.count and q.noun == "token" and q.values == (Decimal("3.3e12"),)


def test_a_hyphenated_modifier_is_its_words() -> None:
    ((_, a),) = typed_figures("close to 1 billion GenAI-capable smartphones")
    ((_, b),) = typed_figures("close to 1 billion GenAI capable smartphones")
    assert compare(a, a.values[0], b.values[0], b, False) is Verdict.match
    ((_, c),) = typed_figures("close to 1 billion feature-only smartphones")
    assert compare(a, a.values[0], c.values[0], c, False) is Verdict.modifier


# --- a range whose ends are two experiments' values ------------------------------------------------

def _two_periods(*facts: str) -> list[Mutation]:
    return [*(fact(f) for f in facts), guardrail(
        "Do not merge the fourth-quarter PUE (1.16) with the trailing 12-month PUE (1.19).",
        {"kind": "separate_experiments", "experiments": [
            {"name": "fourth quarter", "values": [1.16], "terms": ["fourth-quarter"]},
            {"name": "trailing 12 months", "values": [1.19], "terms": ["trailing 12-month"]}]})]


def test_a_range_between_two_experiments_values_joins_them(tmp_path: Path) -> None:
    steps = _two_periods("PUE was 1.16 in the fourth quarter.", "PUE was 1.19 over twelve months.")
    doc, result = verify_with(tmp_path, *steps, paragraph(
        "The report puts fourth-quarter PUE at between 1.16 and 1.19 over the trailing 12-month "
        "period. [S4]"))
    assert rules_at(result, doc, "1.19").get("conflated-experiments") == "error"
    doc, result = verify_with(tmp_path, *steps, paragraph(
        "The report puts fourth-quarter PUE at 1.16. Over the trailing 12-month period it was "
        "1.19. [S4]"))
    assert "conflated-experiments" not in rules_at(result, doc, "1.19")


def test_a_range_a_fact_gives_whole_joins_nothing(tmp_path: Path) -> None:
    steps = _two_periods("Quarterly PUE ranged between 1.16 and 1.19 across the sites.")
    doc, result = verify_with(tmp_path, *steps, paragraph(
        "The report says quarterly PUE ranged between 1.16 and 1.19 across the sites. [S4]"))
    assert "conflated-experiments" not in rules_at(result, doc, "1.19")


# --- guardrails by meaning --------------------------------------------------------------------------

def test_a_denied_place_of_work_is_broken_by_a_verb_of_running(tmp_path: Path) -> None:
    rule = guardrail("Do not say Mooncake runs on the Neural Engine; it uses the CPU and GPU.")
    doc, result = verify_with(tmp_path, rule, paragraph(
        "The store also dispatches work to the Neural Engine."))
    assert rules_at(result, doc, "dispatches").get("guardrail") == "warning"
    doc, result = verify_with(tmp_path, rule, paragraph(
        "The store does not target the Neural Engine."))
    assert "guardrail" not in rules_at(result, doc, "Neural Engine")


def test_an_observed_footprint_is_a_measured_one(tmp_path: Path) -> None:
    rule = guardrail("Do not present the 1.9 GB or 7.6 GB sizing estimates as measured memory "
                     "footprints.")
    sizing = "At 4 bits the weights come to 1.9 GB; at fp16 they take 7.6 GB."
    doc, result = verify_with(tmp_path, rule, paragraph(
        f"{sizing} These are the footprints PCT observed on device."))
    assert rules_at(result, doc, "footprints PCT observed").get("guardrail") == "warning"
    doc, result = verify_with(tmp_path, rule, paragraph(
        f"{sizing} These are desk estimates, not measurements."))
    assert "guardrail" not in rules_at(result, doc, "desk estimates")


# --- the article's names as agents, without compiling the verbs again ------------------------------

def test_named_agents_match_as_the_one_alternation_would() -> None:
    from ledger.verify import attribution as a

    names = ("Acme Labs", "Acme", "Data Center Knowledge")
    escaped = sorted((re.escape(n) for n in names), key=len, reverse=True)
    alternation = "|".join(escaped)
    reference = re.compile(
        rf"\b(?:{alternation}){a._GAP}\s+(?:{a._VERB_INFLECTED})\b"
        rf"|\b(?:{alternation})(?:'s|’s|s'|s’)\s+(?:[\w-]+\s+){{0,3}}?{a._PRODUCT}\b"
        rf"|\b(?:by|to|from|per)\s+(?:the\s+)?(?:{alternation})\b"
        rf"|\b(?:{alternation})(?:'s|’s)\s+(?:(?:[A-Z][\w.-]*\s+){{0,2}}"
        rf"(?:[a-z][\w-]*\s+){{1,4}}?)?(?:by\s+|to\s+|of\s+|at\s+|from\s+)?"
        rf"(?:about\s+|up\s+to\s+|nearly\s+)?\d")
    agents = a._extra_pattern(names)
    assert agents is not None
    for text in ["Acme Labs reports 2x, and Acme's post gives 3x.",
                 "The 96% figure is per Data Center Knowledge; Acme's hit rate rose by 40.",
                 "AcmeX said nothing; by Acme Labs' count, Acme Labs has measured 4x.",
                 "Acme Labs Acme reported; Acme's Widget-X 3.1 reaches 2x."]:
        assert list(agents.finditer(text)) == [m.group() for m in reference.finditer(text)]
