"""What went wrong with a figure that traces to nothing, where the evidence settles it
(sentences written for these tests, on the desk's seed). Each is reported beside the
``untraced-figure``, under the rule of the mistake:

* a multiplier written as a change of a hundred times its value ("620% faster" for 6.2x) is a
  ``percentage-points`` error that says what the change is;
* a date that no evidence gives is a ``date-order`` error naming the evidence's nearest date,
  the same day of another year first;
* a figure standing where an inference's computation step puts its result, beside one of the
  step's operands or in a sentence that says it is the desk's count, is an ``arithmetic`` error
  naming the step;
* "N requests a day" is a rate per day, so a per-hour figure restated per day is a
  ``unit-mismatch``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from verify_fixtures import Doc, add_fact, findings_at, replacing, rules_at, span, verify_with

from ledger.quantities import typed_figures

LAST = "Before assigning monetary value to a cache hit"


def paragraph(text: str):  # type: ignore[no-untyped-def]
    return replacing(LAST, text + "\n\n" + LAST)


def fact(claim: str):  # type: ignore[no-untyped-def]
    return lambda doc: add_fact(doc, claim)


def inference(claim: str, inputs: dict[str, float],
              steps: list[dict[str, Any]]):  # type: ignore[no-untyped-def]
    def step(doc: Doc) -> None:
        doc["inferences"].append({
            "id": f"I{len(doc['inferences']) + 1}", "claim": claim, "basis_fact_ids": [],
            "label": "PCT arithmetic", "computation": {"inputs": inputs, "steps": steps}})
    return step


# --- a multiplier as a whole change ---------------------------------------------------------

@pytest.mark.parametrize(("said", "right"), [
    ("prefill ran 620% faster", "520% more"),
    ("prefill work was cut by 400%", "75% less"),
])
def test_a_multiplier_written_as_a_hundredfold_change_is_a_percentage_points_error(
        tmp_path: Path, said: str, right: str) -> None:
    figure = said.split()[-2] if said.endswith("faster") else said.split()[-1]
    claim = ("With the shared store the authors' prefill ran 6.2x faster." if "620" in said
             else "The shared store cut the authors' prefill work 4x.")
    doc, result = verify_with(tmp_path, fact(claim), paragraph(
        f"With the shared store, the authors report that {said}. [S4]"))
    found = {f.rule: f for f in findings_at(result, doc, figure)}
    assert found["percentage-points"].severity.value == "error"
    assert right in found["percentage-points"].message
    assert "untraced-figure" in found  # the figure still traces to nothing as written


def test_the_change_stated_right_raises_nothing(tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, fact("With the shared store the authors' prefill ran 6.2x faster."),
        paragraph("With the shared store, the authors report that prefill ran 520% "
                  "faster. [S4]"))
    assert rules_at(result, doc, "520%") == {}


# --- a date no evidence gives ---------------------------------------------------------------

def test_a_slipped_year_is_a_date_order_error_naming_the_same_day(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, paragraph(
        "The integration benchmark that vLLM posted on May 6, 2025 ran on a single rack. [S4]"))
    found = {f.rule: f for f in findings_at(result, doc, "May 6, 2025")}
    assert found["date-order"].severity.value == "error"
    assert "same day of another year is 2026-05-06" in found["date-order"].message


def test_a_date_the_evidence_gives_raises_no_date_order(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, paragraph(
        "The integration benchmark that vLLM posted on May 6, 2026 ran on a single rack. [S4]"))
    assert "date-order" not in rules_at(result, doc, "May 6, 2026")


# --- a computation step's result restated wrongly -------------------------------------------

_SSDS = inference("Raw capacity comes to 92.16 TB.",
                  {"drives": 12, "tb_each": 7.68},
                  [{"name": "per_node", "expression": "drives * tb_each", "result": 92.16,
                    "unit": "TB"}])
_DRIVES = fact("Each of the authors' storage nodes holds twelve 7.68 TB drives.")


def test_a_wrong_result_beside_the_steps_operand_is_an_arithmetic_error(
        tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _DRIVES, _SSDS, paragraph(
        "The authors' storage nodes hold drives of 7.68 TB each, which comes to 96.16 TB per "
        "node once all twelve are in. [S4]"))
    found = {f.rule: f for f in findings_at(result, doc, "96.16")}
    assert found["arithmetic"].severity.value == "error"
    assert "per_node" in found["arithmetic"].message and "92.16" in found["arithmetic"].message


def test_the_right_result_beside_the_operand_raises_nothing(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _DRIVES, _SSDS, paragraph(
        "The authors' storage nodes hold drives of 7.68 TB each, which comes to 92.16 TB per "
        "node once all twelve are in. [S4]"))
    assert rules_at(result, doc, "92.16") == {}


def test_a_figure_of_another_unit_beside_the_operand_is_no_step_result(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _DRIVES, _SSDS, paragraph(
        "The authors' storage nodes hold drives of 7.68 TB each and draw 95 W at idle. [S4]"))
    assert "arithmetic" not in rules_at(result, doc, "95 W")


def test_a_wrong_count_in_a_sentence_that_says_it_is_the_desks_is_arithmetic(
        tmp_path: Path) -> None:
    days = inference("From June 24, 2024 to May 6, 2026 is 681 days.",
                     {"y2024": 191, "y2025": 365, "y2026": 125},
                     [{"name": "days", "expression": "y2024 + y2025 + y2026", "result": 681,
                       "unit": "days"}])
    doc, result = verify_with(tmp_path, days, paragraph(
        "By the desk's count, the paper and the integration benchmark are 618 days apart."))
    found = {f.rule: f for f in findings_at(result, doc, "618")}
    assert "681 days" in found["arithmetic"].message


# --- rates per day --------------------------------------------------------------------------

def test_a_count_a_day_is_a_rate() -> None:
    [(_, q)] = typed_figures("served 2.4 million requests a day")
    assert q.unit is not None and q.unit.symbol == "requests/day"


def test_a_per_hour_figure_restated_per_day_is_a_unit_mismatch(tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, fact("The authors' cluster served 2.4 million requests an hour at peak."),
        paragraph("At peak the authors' cluster served 2.4 million requests a day. [S4]"))
    assert rules_at(result, doc, "2.4 million").get("unit-mismatch") == "error"


# --- prices per unit of time ----------------------------------------------------------------

@pytest.mark.parametrize(("text", "unit"), [
    ("a rental of $2 an hour", "$/h"), ("$1.85 per GPU-hour", "$/h"), ("$10/day", "$/day"),
    ("the total daily cost is $87,072", "$/day"), ("the $87,072 daily cost", "$/day"),
    ("$0.14 per million tokens", None), ("$5 per month", None),
])
def test_a_price_keeps_its_time_base(text: str, unit: str | None) -> None:
    [(_, q)] = typed_figures(text)
    assert (q.unit.symbol if q.unit else None) == unit


def test_an_hourly_price_restated_per_day_is_a_unit_mismatch(tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, fact("The authors rented each GB200 at $6.50 per GPU-hour."),
        paragraph("The authors' GB200s rented at $6.50 a day each. [S4]"))
    assert rules_at(result, doc, "$6.50").get("unit-mismatch") == "error"
    _, right = verify_with(
        tmp_path, fact("The authors rented each GB200 at $6.50 per GPU-hour."),
        paragraph("The authors' GB200s rented at $6.50 an hour each, or $156 a day. [S4]"))
    assert "unit-mismatch" not in {f.rule for f in right.findings}


# --- readings that hid a wrong unit or a percent read as points -----------------------------

def test_a_range_of_percents_written_in_points_is_not_two_gaps(tmp_path: Path) -> None:
    # 30 - 17 = 13 and 30 - 13 = 17: each end is also a gap between the fact's percents
    doc, result = verify_with(tmp_path, fact(
        "The authors report 25-30% lower TTFT on chat traces and a 13-17% speed-up on agent "
        "traces."), paragraph("On agent traces the authors report a speed-up of 13-17 "
                              "percentage points. [S4]"))
    assert rules_at(result, doc, "13-17").get("percentage-points") == "error"


def test_a_rise_in_points_between_two_stated_percents_still_traces(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, fact(
        "The authors report the hit rate rose from 40% to 80% with the shared store."),
        paragraph("With the shared store the authors' hit rate rose by 40 percentage "
                  "points. [S4]"))
    assert rules_at(result, doc, "40 percentage points") == {}


def test_a_worked_sum_does_not_excuse_a_result_in_the_wrong_unit(tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, fact("At 125 tokens per second per user the authors' decode takes 8 ms per "
                       "token."),
        paragraph("At the authors' 125 tokens per second per user, 1,000 divided by 125 is "
                  "8 s per token. [S4]"))
    assert rules_at(result, doc, "8 s").get("unit-mismatch") == "error"


# --- numbers inside names -------------------------------------------------------------------

@pytest.mark.parametrize(("sentence", "token"), [
    ("The authors' integration ran on vLLM v0.9.2 with the connector enabled. [S4]", "v0.9.2"),
    ("The authors served a 405B model through the connector. [S4]", "405B"),
])
def test_a_version_or_model_size_no_evidence_writes_is_untraced(
        tmp_path: Path, sentence: str, token: str) -> None:
    doc, result = verify_with(tmp_path, paragraph(sentence))
    assert rules_at(result, doc, token).get("untraced-figure") == "error"


def test_a_version_or_model_size_the_evidence_writes_is_not(tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, fact("The authors ran vLLM v0.9.2 with a 405 billion parameter model."),
        paragraph("The authors' integration ran on vLLM v0.9.2 and served a 405B model. [S4]"))
    assert rules_at(result, doc, "v0.9.2") == {} and rules_at(result, doc, "405B") == {}


def test_a_ratio_step_without_a_unit_and_a_sum_of_literals_have_results_too(
        tmp_path: Path) -> None:
    ratio = inference("Cache-on against cache-off throughput is about 2.9 times.",
                      {"on_rps": 14.5, "off_rps": 5.0},
                      [{"name": "ratio", "expression": "on_rps / off_rps", "result": 2.9}])
    doc, result = verify_with(tmp_path, ratio, paragraph(
        "With the cache the authors served 14.5 requests per second, about 3.4 times "
        "the rate without it. [S4]"))
    assert "2.9" in {f.rule: f for f in findings_at(result, doc, "3.4 times")}[
        "arithmetic"].message
    gap = inference("Hit rates of 61.5% and 48.2% differ by 13.3 points.", {},
                    [{"name": "gap", "expression": "61.5 - 48.2", "result": 13.3,
                      "unit": "percentage points"}])
    doc, result = verify_with(tmp_path, gap, paragraph(
        "The authors' hit rate rose to 61.5%, 13.8 percentage points above the old "
        "pool. [S4]"))
    assert "13.3" in {f.rule: f for f in findings_at(result, doc, "13.8 percentage points")}[
        "arithmetic"].message


# --- the statistic a fact gives a figure ----------------------------------------------------

@pytest.mark.parametrize(("claim", "sentence", "figure", "rule"), [
    ("The authors' peak prefill throughput reached 920 tokens per second.",
     "The authors' prefill averaged 920 tokens per second.", "920", "mislabeled-figure"),
    ("The authors' store moves up to 73 GB/s per node.",
     "The authors' store moves an average of 73 GB/s per node.", "73", "mislabeled-figure"),
    ("The authors' peak prefill throughput reached 920 tokens per second.",
     "The authors' prefill peaked at 920 tokens per second.", "920", None),
])
def test_a_figure_given_another_statistic_than_its_fact_gives_is_mislabeled(
        tmp_path: Path, claim: str, sentence: str, figure: str, rule: str | None) -> None:
    doc, result = verify_with(tmp_path, fact(claim), paragraph(sentence + " [S4]"))
    found = rules_at(result, doc, figure)
    assert (found.get("mislabeled-figure") == "error") if rule else (
        "mislabeled-figure" not in found)


# --- where an unattributed claim is shown ---------------------------------------------------

def test_a_claim_in_the_products_voice_is_shown_from_its_subject(tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, fact("The authors measured a 71% cut in prefill work with Mooncake Store."),
        paragraph("On agent traces, Mooncake Store cuts prefill work by 71%. [S4]"))
    found = [f for f in findings_at(result, doc, "71%") if f.rule == "unattributed-figure"]
    assert found and found[0].column == span(doc["body"], "Mooncake Store cuts")[1]


def test_a_list_whose_lead_in_points_back_takes_the_credit_before_it(tmp_path: Path) -> None:
    claim = "The authors measured 3.8x throughput and 46x lower median TTFT on 12 GB200s."
    credited = ("The authors report 3.8x throughput and 46x lower median TTFT on their "
                "GB200s. [S4]")
    listed = "- Throughput: 3.8x, on twelve GB200s. [S4]\n- Median TTFT: 46x lower. [S4]"
    for lead, expected in (("Laid out one per line, the two read as follows:", set()),
                           ("Laid out one per line:", {"unattributed-figure"})):
        doc, result = verify_with(tmp_path, fact(claim), paragraph(
            f"{credited}\n\n{lead}\n\n{listed}"))
        got = {f.rule for f in findings_at(result, doc, "3.8x", nth=1)} & {
            "unattributed-figure"}
        assert got == expected, lead


def test_a_bit_width_the_evidence_names_as_a_format_is_a_name(tmp_path: Path) -> None:
    def formats(doc: Doc) -> None:
        add_fact(doc, "The authors stored the cache in f16 and in q8_0.")
    doc, result = verify_with(tmp_path, formats, paragraph(
        "The authors' cache need not stay in 16-bit floats. [S4]"))
    assert "untraced-figure" not in rules_at(result, doc, "16-bit")
    doc, result = verify_with(tmp_path, formats, paragraph(
        "The authors' cache need not stay in 7-bit floats. [S4]"))
    assert rules_at(result, doc, "7-bit").get("untraced-figure") == "error"
