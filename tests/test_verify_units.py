"""unit-mismatch: a figure whose number agrees with the evidence under another unit (another
base, bits for bytes, tokens for bytes, a rate of other things), in the body and in the desk's
own inference claims; a number converted to a sibling unit but written under the old one."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from verify_fixtures import (
    DOCUMENTATION,
    Doc,
    add_fact,
    add_inference,
    add_sentence,
    rules_at,
    verify_mutant,
)

from ledger.quantities import UNITS, Verdict, compare, sibling_units, typed_figures


def _verdict(figure: str, evidence: str) -> Verdict:
    (_, fq), (_, eq) = typed_figures(figure)[0], typed_figures(evidence)[0]
    return compare(fq, fq.values[0], eq.values[0], eq, False)


@pytest.mark.parametrize(("figure", "evidence", "verdict"), [
    ("a 3 MB prompt", "a prompt of 3M tokens", Verdict.unit),
    ("2 million bytes of context", "2 million tokens of context", Verdict.unit),
    ("2 million tokens of context", "a 2 MB context", Verdict.unit),
    ("a 2 MiB context", "2 million tokens", Verdict.value),  # 2,097,152 is not 2,000,000
    ("120 tokens/s", "120 GB/s", Verdict.unit),
    ("9.31 GB", "10.0 GB", Verdict.converted),  # 10 GB is 9.31 GiB
    ("9.31 GiB", "10.0 GB", Verdict.match),
    ("800 GB/s", "100 GB/s", Verdict.converted),  # 100 GB/s is 800 Gb/s
    ("9 GB", "10 GB", Verdict.value),  # too few digits to say it was converted
    ("a 640 KB chunk", "chunks of 640 tokens", Verdict.unit),
    ("3 tokens/ms", "3 tokens/s", Verdict.unit),
    ("about 30 s", "about 30,000 us", Verdict.converted),  # 30,000 us is 30 ms exactly
    ("3 Mb", "384 KB", Verdict.value),  # 384 KB is 3.072 Mb: not a conversion to 3 Mb
    ("3.07 Mb", "384 KB", Verdict.match),
])
def test_units_compared_by_base_and_dimension(figure: str, evidence: str,
                                              verdict: Verdict) -> None:
    assert _verdict(figure, evidence) is verdict


@pytest.mark.parametrize(("text", "symbol"), [
    ("about 7Gb of cache", "Gb"), ("a 16Gb die", "Gb"), ("an 8Gbit die", "Gb"),
    ("links of 25 Gbit/s", "Gb/s"), ("(3200Gb) per host", "Gb"),
])
def test_bit_units_written_onto_the_number_are_units_not_names(text: str, symbol: str) -> None:
    (_, q), = typed_figures(text)
    assert q.unit is not None and q.unit.symbol == symbol


def test_sibling_units_are_one_slip_away() -> None:
    assert {u.symbol for u in sibling_units(UNITS["GB/s"])} == {"GiB/s", "Gb/s", "Gib/s"}
    assert {u.symbol for u in sibling_units(UNITS["ms"])} == {"ns", "us", "s"}
    assert sibling_units(UNITS["min"]) == [] and sibling_units(UNITS["W"]) == []


def test_tokens_written_as_bytes_in_the_body(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        add_fact(doc, "The May 6 post describes prompts of up to 3 million tokens.", DOCUMENTATION)
        add_sentence(doc, "Prompts run to 3 million bytes.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert rules_at(result, doc, "3 million").get("unit-mismatch") == "error", result.findings


def test_gigabits_glued_to_the_number(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        add_fact(doc, "The May 6 post sizes the pool at 7GB per node.", DOCUMENTATION)
        add_sentence(doc, "The pool holds 7Gb per node.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert rules_at(result, doc, "7Gb").get("unit-mismatch") == "error", result.findings


def test_number_converted_but_unit_kept(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        add_fact(doc, "The May 6 post sizes the pool at 6.44 GB per node.", DOCUMENTATION)
        add_sentence(doc, "The pool holds 6.00 GB per node.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert rules_at(result, doc, "6.00 GB").get("unit-mismatch") == "error", result.findings
    found = next(f for f in result.findings if f.rule == "unit-mismatch")
    assert "GiB" in found.message


def test_the_desks_own_number_under_another_unit(tmp_path: Path) -> None:
    """The desk's inference states the number in bytes; an untyped computation result with
    the same number does not hide the body's bits."""
    def mutate(doc: Doc) -> None:
        add_inference(doc, "Each cached token takes 65,536 bytes.",
                      inputs={"layers": 32, "bytes_per_layer": 2048},
                      steps=(("token_bytes", "layers * bytes_per_layer", 65536),))
        add_sentence(doc, "By PCT's count each cached token takes 65,536 bits.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert rules_at(result, doc, "65,536").get("unit-mismatch") == "error", result.findings


@pytest.mark.parametrize(("written", "expected"), [("50 Gb/s", ["unit-mismatch"]),
                                                   ("50 GB/s", [])])
def test_a_unit_slip_in_an_inference_claim(tmp_path: Path, written: str,
                                           expected: list[str]) -> None:
    where: list[int] = []

    def mutate(doc: Doc) -> None:
        where.append(add_inference(
            doc, f"Four 100 Gb/s links carry 400 Gb/s, or {written}.",
            inputs={"links": 4, "link_gbps": 100},
            steps=(("total_gbps", "links * link_gbps", 400),
                   ("total_gb_s", "total_gbps / 8", 50))))
    _, result = verify_mutant(tmp_path, mutate)
    pointer = f"/inferences/{where[0]}/claim"
    assert [f.rule for f in result.findings if f.pointer == pointer] == expected
    assert all(f.severity.value == "error" for f in result.findings if f.pointer == pointer)


def test_decimal_values_of_computations_are_exact() -> None:
    from ledger.models import Inference
    from ledger.verify.units import _own_computation

    inf = Inference.model_validate({
        "id": "I9", "claim": "x", "basis_fact_ids": [], "label": "PCT analysis",
        "computation": {"inputs": {"port_gbps": 0.1, "ports": 3},
                        "steps": [{"name": "total", "expression": "port_gbps * ports",
                                   "result": 0.3}]}})
    (ev,) = _own_computation(inf, "/inferences/0")  # only the name with a unit is typed
    assert ev.value == Decimal("0.1") and ev.quantity is not None
    assert ev.quantity.unit is not None and ev.quantity.unit.symbol == "Gb/s"


def test_a_duration_converted_but_unit_kept_beats_a_bare_number(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        doc["benchmark_scope"]["reported_metrics"]["handoff_us"] = 30000
        doc["benchmark_scope"]["reported_metrics"]["pool_nodes"] = 30
        add_sentence(doc, "Each handoff took about 30 s.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert rules_at(result, doc, "30 s").get("unit-mismatch") == "error", result.findings


def test_token_counts_beside_sizes_in_kilobytes_are_not_a_unit_slip(tmp_path: Path) -> None:
    """Evidence lists contexts as bare numbers ("24k, 48k") and pages in KB ("48KB"): the
    body's "48k tokens" is the context, not a size written in tokens."""
    def mutate(doc: Doc) -> None:
        add_fact(doc, "The May 6 post lists pages of 24KB and 48KB, and contexts of 24k and "
                      "48k.", DOCUMENTATION)
        add_sentence(doc, "Contexts run from 24k to 48k tokens.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert "unit-mismatch" not in rules_at(result, doc, "48k tokens"), result.findings


@pytest.mark.parametrize(("written", "expected"), [("X9-96GiB", {"unit-mismatch": "warning"}),
                                                   ("X9-96GB", {})])
def test_a_unit_changed_inside_a_product_name(tmp_path: Path, written: str,
                                              expected: dict[str, str]) -> None:
    def mutate(doc: Doc) -> None:
        add_fact(doc, "The May 6 post ran on X9-96GB accelerators.", DOCUMENTATION)
        add_sentence(doc, f"The runs used {written} accelerators.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert rules_at(result, doc, written) == expected, result.findings


def _lanes(doc: Doc, claim: str, *, unit_fields: bool) -> int:
    """Sixteen lanes whose input name, ``lane_gb_s``, cannot say bits from bytes (names are
    lower case); the step that multiplies it into a total in Gb/s does."""
    i = add_inference(doc, claim, inputs={"lanes": 16, "lane_gb_s": 100},
                      steps=(("total_gbps" if not unit_fields else "total_bw",
                              "lanes * lane_gb_s", 1600),
                             ("total_gbyte_s", "total_gbps / 8" if not unit_fields
                              else "total_bw / 8", 200)))
    if unit_fields:
        steps = doc["inferences"][i]["computation"]["steps"]
        steps[0]["unit"], steps[1]["unit"] = "Gb/s", "GB/s"
    return i


@pytest.mark.parametrize("unit_fields", [False, True])
@pytest.mark.parametrize(("claim", "expected"), [
    ("Sixteen lanes of 100 Gb/s make 1600 Gb/s, or 200 GB/s per card.", []),
    ("At 100 Gb/s a lane, the card's sixteen lanes carry 200 GB/s.", []),
    ("Sixteen lanes of 100 Gb/s make 1600 Gb/s, or 200 Gb/s per card.", ["unit-mismatch"]),
])
def test_a_lower_case_name_takes_its_unit_from_the_step_that_uses_it(
        tmp_path: Path, claim: str, expected: list[str], unit_fields: bool) -> None:
    where: list[int] = []
    _, result = verify_mutant(tmp_path, lambda doc: where.append(
        _lanes(doc, claim, unit_fields=unit_fields)))
    pointer = f"/inferences/{where[0]}/claim"
    assert [f.rule for f in result.findings if f.pointer == pointer] == expected, \
        result.findings
