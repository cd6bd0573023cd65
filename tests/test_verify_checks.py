"""Each fact-checking family with passing and failing cases, on in-memory articles."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from verify_fixtures import SECOND, SEED, load

from ledger.models import Article, DatedStatusRule, ForbiddenLabelRule, SeparateExperimentsRule
from ledger.verify import verify_article, verify_file
from ledger.verify.arithmetic import ArithmeticError_, equations, evaluate
from ledger.verify.consistency import word_count
from ledger.verify.guardrails import rule_from_prose
from ledger.verify.locate import _nearest_pointer, body_locator, pointer_positions
from ledger.verify.tracing import trace_figures


def article(doc: dict[str, Any]) -> Article:
    return Article.model_validate_json(json.dumps(doc))


def with_body(body: str, **changes: Any) -> Article:
    doc = copy.deepcopy(load())
    doc["body"] = body
    doc["editorial_word_count"] = word_count(body)
    doc.update(changes)
    return article(doc)


def rules_of(findings) -> list[str]:
    return [f.rule for f in findings]


# --- the two articles -------------------------------------------------------------------------

@pytest.mark.parametrize("path", [SEED, SECOND], ids=["seed", "second"])
def test_articles_verify_without_any_finding(path: Path) -> None:
    result = verify_file(path)
    assert result.findings == []


@pytest.mark.parametrize("path", [SEED, SECOND], ids=["seed", "second"])
def test_every_body_figure_traces(path: Path) -> None:
    traced = trace_figures(article(load(path)))
    assert len(traced) >= 10
    assert all(t.traced for t in traced)


def test_seed_guardrails_all_carry_rules() -> None:
    guardrails = [c for c in load()["corrections"] if c["status"] == "prepublication_guardrail"]
    kinds = [c["rule"]["kind"] for c in guardrails]
    assert kinds == ["forbidden_label", "separate_experiments", "dated_status", "distinct_dates"]


# --- tracing ----------------------------------------------------------------------------------

def test_percent_and_fraction_are_the_same_value() -> None:
    a = with_body("Cost becomes 0.625 of the start, that is 62.5% of it. [S1]")
    assert [t.traced for t in trace_figures(a)] == [True, True]


def test_figure_rounded_at_printed_precision_traces() -> None:
    a = with_body("Cache hits reached about 92% in that run, the authors reported. [S4]")
    (t,) = trace_figures(a)
    assert t.traced and t.metrics == {"store_cache_hit_pct"}


def test_wrong_precision_does_not_trace() -> None:
    a = with_body("Cache hits reached 92.3% in that run, the authors reported. [S4]")
    assert rules_of(verify_article(a)) == ["untraced-figure"]


def test_month_day_date_matches_any_year_of_evidence() -> None:
    (t,) = trace_figures(with_body("The May 6 report is dated. [S4]"))
    assert t.traced


def test_measurement_traces_with_its_run_id() -> None:
    doc = copy.deepcopy(load())
    doc["measurements"] = [{"id": "M1", "metric": "p50_ttft_ms", "value": 41.5, "unit": "ms",
                            "run_id": "run-2026-11-03-replay", "measured_at": "2026-11-03"}]
    doc["body"] = "Our replay measured a median time to first token of 41.5 ms. [S3]"
    doc["editorial_word_count"] = word_count(doc["body"])
    (t,) = trace_figures(article(doc))
    assert [(tr.origin, tr.measurement_id, tr.run_id) for tr in t.traces] == [
        ("measurement", "M1", "run-2026-11-03-replay")]
    assert verify_article(article(doc)) == []
    doc["body"] = "Our replay measured a throughput of 41.5 ms. [S3]"
    doc["editorial_word_count"] = word_count(doc["body"])
    assert "mislabeled-figure" in rules_of(verify_article(article(doc)))


def test_range_needs_both_ends() -> None:
    ok = with_body("Cache hits moved in the 1.7-92.2% band, the authors reported. [S4]")
    assert [t.traced for t in trace_figures(ok)] == [True]
    bad = with_body("Cache hits moved in the 1.7-93.2% band, the authors reported. [S4]")
    assert rules_of(verify_article(bad)) == ["untraced-figure"]


# --- labels and attribution -------------------------------------------------------------------

def test_attributed_author_figure_passes_and_unattributed_fails() -> None:
    assert verify_article(with_body("The authors reported 3.8 times the throughput. [S4]")) == []
    found = verify_article(with_body("Mooncake delivers 3.8 times the throughput. [S4]"))
    assert rules_of(found) == ["unattributed-figure"]


def test_metric_spec_vocabulary_extends_the_defaults() -> None:
    doc = copy.deepcopy(load())
    doc["benchmark_scope"]["metric_specs"] = {
        "baseline_cache_hit_pct": {"label": "reuse ratio", "vocabulary": ["reuse ratio"]}}
    doc["body"] = "The authors reported a reuse ratio of 1.7% before the store. [S4]"
    doc["editorial_word_count"] = word_count(doc["body"])
    assert verify_article(article(doc)) == []


def test_separate_experiments_in_separate_sentences_pass() -> None:
    a = with_body("The authors reported 3.8 times the throughput on 12 GPUs. Their separate "
                  "scaling experiment reached 60 GPUs. [S4]")
    assert verify_article(a) == []


# --- guardrails in prose ----------------------------------------------------------------------

def test_prose_phrasings_become_rules() -> None:
    a = article(load())
    texts = [c.text for c in a.corrections]
    label = rule_from_prose(texts[0], a)
    assert isinstance(label, ForbiddenLabelRule)
    assert (label.value, label.forbidden) == (46, ["throughput", "GPU savings", "cost savings"])
    conflate = rule_from_prose(texts[1], a)
    assert isinstance(conflate, SeparateExperimentsRule)
    assert [e.values for e in conflate.experiments] == [[12.0], [60.0]]
    status = rule_from_prose(texts[2], a)
    assert isinstance(status, DatedStatusRule)
    assert (status.subjects, str(status.observed_on), [str(d) for d in status.stale_dates]) == (
        ["disk offload"], "2026-11-04", ["2026-05-06"])
    assert rule_from_prose(texts[3], a) is None  # "Original ... publication" names no date
    assert rule_from_prose("Be careful with numbers.", a) is None


def test_unreadable_guardrail_is_a_warning_never_a_pass() -> None:
    doc = copy.deepcopy(load())
    doc["corrections"][3].pop("rule")
    found = verify_article(article(doc))
    assert [(f.rule, f.severity.value, f.pointer) for f in found] == [
        ("unchecked-guardrail", "warning", "/corrections/3/text")]


def test_distinct_dates_from_prose_when_every_item_has_a_date() -> None:
    a = article(load())
    rule = rule_from_prose("The June 24, 2024 paper and today's documentation are distinct "
                           "dates.", a)
    assert rule is not None and sorted(map(str, rule.dates.values())) == [
        "2024-06-24", "2026-11-04"]


# --- arithmetic -------------------------------------------------------------------------------

@pytest.mark.parametrize("expression, value", [
    ("1.25 / 2.0", 0.625), ("1 - 0.625", 0.375), ("2 ** 3", 8.0), ("-(1 + 2) * 3", -9.0),
    ("1.25 ÷ 2", 0.625), ("3 × 2", 6.0),
])
def test_evaluator_computes(expression: str, value: float) -> None:
    assert evaluate(expression) == pytest.approx(value)


@pytest.mark.parametrize("expression", [
    "__import__('os').system('true')", "open('x')", "a.b", "1 / 0", "2 ** 1000", "[1, 2]",
    "lambda: 1", "x + 1", "1 if 1 else 2",
])
def test_evaluator_refuses_anything_else(expression: str) -> None:
    with pytest.raises(ArithmeticError_):
        evaluate(expression)


def test_equations_are_read_from_assumptions() -> None:
    assert equations("Ratio is 1.25 / 2.0 = 0.625; reduction is 1 - 0.625 = 0.375.") == [
        ("1.25 / 2.0", "0.625"), ("1 - 0.625", "0.375")]
    assert equations("Same task mix and latency constraints.") == []


def test_equation_compared_at_printed_precision() -> None:
    doc = copy.deepcopy(load())
    doc["inferences"][1]["assumptions"][3] = "Ratio is 1.25 / 2.0 = 0.63; reduction is 0.375."
    assert verify_article(article(doc)) == []


def test_bad_step_expression_is_reported_not_raised() -> None:
    doc = copy.deepcopy(load())
    doc["inferences"][1]["computation"]["steps"][0]["expression"] = "cost_multiplier / nothing"
    found = verify_article(article(doc))
    assert ("arithmetic", "/inferences/1/computation/steps/0/expression") in [
        (f.rule, f.pointer) for f in found]


# --- consistency ------------------------------------------------------------------------------

def test_word_count_rule() -> None:
    assert word_count("One two [S1]\n\nthree-four 62.5%. [S5][S3]") == 4
    assert word_count(load()["body"]) == 559  # 558 until correction C1 (version 1.0.1) added a word


def test_independent_fact_with_measurements_is_consistent() -> None:
    doc = copy.deepcopy(load())
    doc["facts"][3]["evidence_type"] = "ledger_measurement"
    doc["facts"][3]["measurement_ids"] = ["M1"]
    doc["measurements"] = [{"id": "M1", "metric": "p50_ttft_ms", "value": 41.5, "unit": "ms",
                            "run_id": "run-1", "measured_at": "2026-11-03"}]
    assert "independence-contradiction" not in rules_of(verify_article(article(doc)))


# --- file positions ---------------------------------------------------------------------------

def test_body_offsets_map_into_escaped_json() -> None:
    body = 'Caf\u00e9 "q"\n\U0001F600 x 46x'
    text = json.dumps({"id": "x", "body": body}, ensure_ascii=True)
    locate = body_locator(text, body)
    assert locate is not None
    line, column = locate(body.index("46x"))
    assert text.splitlines()[line - 1][column - 1:column + 2] == "46x"


# --- robustness -------------------------------------------------------------------------------


_PROSE = st.lists(st.sampled_from(
    list("abcdefgxyz ,;:.-%×$[]()\n") + ["46", "3.8", "May 6", " times", "-fold", " GPUs",
                                         "throughput", "[S4]", "disk offload", "June 24, 2024",
                                         " two", " doubles", "the authors", "12.8-13.0"]),
    max_size=60).map("".join)


@settings(max_examples=40, deadline=None)
@given(_PROSE)
def test_any_body_gives_findings_never_an_exception(body: str) -> None:
    if not body.strip():
        return
    for finding in verify_article(with_body(body)):
        if finding.pointer == "/body":
            assert finding.line is not None and finding.column is not None


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3),
    max_leaves=12)


@settings(max_examples=60, deadline=None)
@given(_JSON, st.sampled_from([None, 0, 2]))
def test_pointer_positions_find_every_value(value: Any, indent: int | None) -> None:
    text = json.dumps({"root": value}, indent=indent)
    lines = text.splitlines(keepends=True)
    decoder = json.JSONDecoder()
    for pointer, (line, column) in pointer_positions(text).items():
        offset = sum(len(x) for x in lines[:line - 1]) + column - 1
        node: Any = {"root": value}
        for part in [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]:
            node = node[int(part)] if isinstance(node, list) else node[part]
        assert decoder.raw_decode(text, offset)[0] == node


@settings(max_examples=60, deadline=None)
@given(_JSON, st.sampled_from([None, 0, 2]))
def test_a_findings_value_is_found_where_the_walk_finds_it(value: Any, indent: int | None
                                                           ) -> None:
    """``locate_findings`` descends to each finding's value alone (skipping the others whole);
    it must land where the full walk of every value does, and on a parent for a missing one."""
    text = json.dumps({"root": value}, indent=indent)
    decoder = json.JSONDecoder()
    positions = pointer_positions(text)
    for pointer, where in positions.items():
        assert _nearest_pointer(text, pointer, decoder) == where
        assert _nearest_pointer(text, pointer + "/missing~1key", decoder) == where


def test_forbidden_word_belongs_to_its_nearest_figure() -> None:
    shared = with_body("The authors reported 3.8 times the throughput and a 46-fold reduction "
                       "in median time to first token. [S4]")
    assert verify_article(shared) == []
    also_cost = with_body("The authors reported a 46-fold reduction in median time to first "
                          "token and in cost. [S4]")
    found = verify_article(also_cost)
    assert [(f.rule, f.column) for f in found] == [("guardrail", also_cost.body.index("46") + 1)]


def test_huge_number_in_body_is_untraced_not_a_crash() -> None:
    found = verify_article(with_body("The authors reported " + "9" * 40 + " tokens. [S4]"))
    assert rules_of(found) == ["untraced-figure"]


@pytest.mark.parametrize("text", [
    "Peak compute: 1 EFLOPs/s = 1000 PFLOPs/s.",            # units the table does not list
    "The link is rated in Gb/s (1 Gb/s = 125 MB/s).",
    "Capacity is counted as 1 TiB = 1024 GiB throughout.",
])
def test_a_unit_definition_is_not_an_equation(text: str) -> None:
    assert equations(text) == []


def test_an_equation_with_the_same_unit_on_both_sides_is_still_checked() -> None:
    assert equations("Total is 3 GB = 4 GB in the worst case.") == [("3", "4")]
