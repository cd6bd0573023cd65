"""Typed quantities behind misses of untraced-figure, percentage-points and unit-mismatch: a
multiplier traced to a computation input that counts people or servers, repetitions traced to a
bare number, "multiplies X N times" read as repetitions, a context length in tokens masked as a
name, compute rates without a unit, points written against a multiplier or a level. Every
sentence is written here."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ledger.quantities import Kind, Verdict, compare, metric_quantity, typed_figures
from ledger.verify.tracing import EvidenceIndex, Trace, trace_figure


def _index(*claims: str, inputs: dict[str, float] | None = None) -> EvidenceIndex:
    index = EvidenceIndex()
    for i, claim in enumerate(claims):
        index.add_text(claim, Trace("fact", f"/facts/{i}/claim", fact_id=f"F{i + 1}"))
    for name, value in (inputs or {}).items():
        index.add_number(value, Trace("computation", f"/inferences/0/computation/inputs/{name}",
                                      inference_id="I1"))
    return index


def _traced(text: str, index: EvidenceIndex, at: int = 0) -> bool:
    fig, q = typed_figures(text)[at]
    return trace_figure(fig, index, q).traced


def _kinds(text: str) -> list[tuple[str, str]]:
    return [(f.text, q.kind.value) for f, q in typed_figures(text)]


# --- a multiplier and a computation input that counts things ---------------------------------

@pytest.mark.parametrize("body", [
    "Goodput tripled once the router knew the prefixes.",
    "The new scheduler gives a threefold cut in queueing delay.",
    "Decode speed rose 3x on the long prompts.",
])
@pytest.mark.parametrize("name", ["users", "replicas", "rack_nodes", "gpus"])
def test_a_multiplier_never_traces_to_an_input_that_counts_things(body: str, name: str) -> None:
    assert not _traced(body, _index(inputs={name: 3}))


@pytest.mark.parametrize("name", ["speedup", "gain_ratio", "x", "scale_factor", "k"])
def test_a_multiplier_traces_to_an_input_named_as_a_ratio_or_untyped(name: str) -> None:
    assert _traced("Goodput tripled once the router knew the prefixes.",
                   _index(inputs={name: 3}))


# --- repetitions ------------------------------------------------------------------------------

@pytest.mark.parametrize("body", [
    "Each configuration was repeated 8 times.",
    "The maintainers ran every sweep eight times.",
    "We reran the trace 8 times to be sure.",
])
def test_repetitions_never_trace_to_a_bare_number(body: str) -> None:
    index = _index("The sample config quantizes to 8-bit and pins 8 as the page count.")
    assert not _traced(body, index)


def test_repetitions_trace_to_a_count_of_runs() -> None:
    index = _index("Every number is the median of 8 runs.")
    assert _traced("Each configuration was repeated 8 times.", index)
    assert _traced("The maintainers ran every sweep eight times.", index)


# --- "multiplies X N times" -------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Prefix sharing multiplies effective capacity 12 times.",
    "The new allocator boosted batch size six times over the old one.",
    "Offloading to host memory reduces HBM pressure 4 times.",
    "The rewrite sped up cold starts nine times.",
])
def test_a_scaling_verb_makes_n_times_a_multiplier(text: str) -> None:
    assert [k for _, k in _kinds(text)] == ["multiplier"]


@pytest.mark.parametrize("text", [
    "The vendor improved the kernel three times this year.",
    "They increased the queue depth 4 times before it stalled.",
    "The team ran the suite five times.",
])
def test_repetitions_stay_repetitions(text: str) -> None:
    assert [(k, q.noun) for (_, k), (_, q) in zip(_kinds(text), typed_figures(text),
                                                 strict=True)] == [("count", "time")]


def test_a_multiplier_after_a_scaling_verb_traces_to_the_multiple() -> None:
    index = _index("The authors report 12x more effective capacity with prefix sharing.")
    assert _traced("Prefix sharing multiplies effective capacity 12 times.", index)


# --- a context length that is a claim ---------------------------------------------------------

@pytest.mark.parametrize("text", [
    "A single H100 served up to 512K context tokens.",
    "It accepts up to 256K context on one card.",
    "Nothing longer than 64K context fits.",
])
def test_a_bounded_context_length_is_a_count_of_tokens(text: str) -> None:
    ((fig, q),) = typed_figures(text)
    assert (q.kind, q.noun) == (Kind.count, "token")
    index = _index("The model card lists a 200K context window.")
    assert not trace_figure(fig, index, q).traced


def test_a_context_length_in_a_name_stays_masked() -> None:
    assert typed_figures("the 32K context model and an 8K window variant") == []
    index = _index("The paper serves 512K context tokens on one H100.")
    assert _traced("A single H100 served up to 512K context tokens.", index)


# --- compute rates ----------------------------------------------------------------------------

@pytest.mark.parametrize("figure, evidence, verdict", [
    ("2.1 TFLOPs/s", "2.1 PFLOPs/s", Verdict.unit),
    ("900 TFLOPS", "900 GFLOPS", Verdict.unit),
    ("1,979 TFLOP/s", "1,979 TFLOPS", Verdict.match),
    ("1.98 PFLOPS", "1,979 TFLOPs/s", Verdict.match),
    ("640 TFLOPs/s", "640 GB/s", Verdict.unit),
])
def test_compute_rates_have_a_unit(figure: str, evidence: str, verdict: Verdict) -> None:
    ((_, fq),) = typed_figures(figure)
    ((_, eq),) = typed_figures(evidence)
    assert fq.kind is Kind.rate
    assert compare(fq, fq.values[0], eq.values[0], eq, False) is verdict


def test_a_metric_named_in_flops_is_a_rate() -> None:
    q = metric_quantity("bf16_dense_tflops")
    assert q is not None and q.unit is not None and q.unit.symbol == "TFLOP/s"
    ((fig, fq),) = typed_figures("It sustains about 410 PFLOPs/s.")
    index = EvidenceIndex()
    index.add_number(410, Trace("metric", "/benchmark_scope/reported_metrics/bf16_dense_tflops",
                                metric="bf16_dense_tflops"), quantity=q)
    t = trace_figure(fig, index, fq)
    assert not t.traced and t.misses[0].verdict is Verdict.unit


# --- percentage points ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["recall_gain_points", "em_delta_pp", "accuracy_pts"])
def test_a_metric_named_in_points_is_points(name: str) -> None:
    q = metric_quantity(name)
    assert q is not None and q.kind is Kind.points


@pytest.mark.parametrize("text", [
    "recall rose 3–9 percentage points over the baseline",
    "a 4-7 percentage point gain on the long tasks",
])
def test_a_range_in_percentage_points_is_points(text: str) -> None:
    ((_, q),) = typed_figures(text)
    assert q.kind is Kind.points


@pytest.mark.parametrize("body", [
    "Caching would cut the wait by 95 percentage points.",
    "That trims latency by 80.0 percentage points.",
])
def test_points_for_a_multiplier_are_a_percent_change(body: str) -> None:
    index = _index("The vendor reports 20x lower waiting time and 5x lower latency.")
    fig, q = typed_figures(body)[0]
    t = trace_figure(fig, index, q)
    assert not t.traced and any(m.verdict is Verdict.points for m in t.misses)


def test_a_percent_change_against_a_multiplier_still_traces() -> None:
    index = _index("The vendor reports 20x lower waiting time.")
    assert _traced("Caching would bring a 95% cut in the wait.", index)


@pytest.mark.parametrize("body", [
    "The hit ratio rose by 30%.",
    "Acceptance improved 30% with the bigger drafter.",
    "The share of cached prompts grew by 30 percent.",
])
def test_a_rise_equal_to_its_starting_level_is_not_that_level(body: str) -> None:
    index = _index("The hit ratio went from 30% to 60% with the larger cache.")
    fig, q = typed_figures(body)[0]
    assert q.direction == "increase"
    assert not trace_figure(fig, index, q).traced


def test_a_level_and_a_rise_in_points_still_trace() -> None:
    index = _index("The hit ratio went from 30% to 60% with the larger cache.")
    assert _traced("The hit ratio started at 30%.", index)
    assert _traced("The hit ratio rose by 30 percentage points.", index)
    assert _traced("The hit ratio rose by 100%.", _index(
        "The hit ratio went from 30% to 60%, a 100% increase."))


def test_points_values_are_exact() -> None:
    ((_, q),) = typed_figures("recall rose 3–9 percentage points over the baseline")
    assert q.values == (Decimal(3), Decimal(9))


# --- more ways to write a multiplier ----------------------------------------------------------

@pytest.mark.parametrize("text, value", [
    ("Cache hits trebled after the change.", "3"),
    ("Goodput quintupled on the long traces.", "5"),
    ("Quadrupling the pool did not help.", "4"),
    ("Queueing delay fell by a factor of 4 under load.", "4"),
    ("The new kernel is faster by a factor of 2.5 than the old one.", "2.5"),
    ("It brought a factor-of-three gain in goodput.", "3"),
])
def test_multiplier_words_and_factors(text: str, value: str) -> None:
    ((fig, q),) = typed_figures(text)
    assert q.kind is Kind.multiplier and fig.values == (Decimal(value),)


def test_a_factor_traces_to_a_multiplier_not_a_count() -> None:
    assert _traced("Queueing delay fell by a factor of 4 under load.",
                   _index("The vendor reports 4x lower queueing delay."))
    assert not _traced("Queueing delay fell by a factor of 4 under load.",
                       _index("The test ran on 4 GPUs."))


# --- compound modifiers: "a 131,072-token context" --------------------------------------------

@pytest.mark.parametrize("text, kind, unit, noun", [
    ("Each request carries a 65,536-token prompt.", Kind.count, None, "token"),
    ("The store keeps a 65,536-byte block per layer.", Kind.size, "B", None),
    ("It waits out a 45-second cold start.", Kind.duration, "second", None),
    ("They used a 24-GPU pod for the sweep.", Kind.count, None, "gpu"),
    ("The 3-node cluster held 8 GPUs each.", Kind.count, None, "node"),
    ("A 96-GB card holds the weights.", Kind.size, "GB", None),
    ("The 50,000-request trace took a day.", Kind.count, None, "request"),
])
def test_a_compound_modifier_types_its_number(text: str, kind: Kind, unit: str | None,
                                              noun: str | None) -> None:
    fig, q = typed_figures(text)[0]
    assert (q.kind, q.unit.symbol if q.unit else None, q.noun) == (kind, unit, noun), fig.text


def test_bit_widths_and_other_compounds_stay_as_they_were() -> None:
    assert [q.kind for _, q in typed_figures("a 16-bit baseline")] == [Kind.number]
    assert [q.kind for _, q in typed_figures("an 8-way split")] == [Kind.number]
    assert [q.kind for _, q in typed_figures("a 40-point rise")] == [Kind.points]
    assert [q.kind for _, q in typed_figures("a 12-fold gain")] == [Kind.multiplier]


def test_a_size_in_a_compound_is_a_unit_change_from_tokens() -> None:
    index = _index("The desk assumes a 65,536-token prompt for the sizing.")
    fig, q = typed_figures("The sizing assumes a 65,536-byte prompt.")[0]
    t = trace_figure(fig, index, q)
    assert not t.traced and any(m.verdict is Verdict.unit for m in t.misses)
    assert _traced("The sizing assumes a 65,536-token prompt.", index)


@pytest.mark.parametrize("text", [
    "Adding 10% to 640 gives about 704.",
    "Taking 25% off 480 leaves 360.",
    "Dividing the pool by 12 means 8 sessions each.",
])
def test_a_verb_after_a_number_is_no_counted_noun(text: str) -> None:
    nouns = [q.noun for f, q in typed_figures(text) if f.text in ("640", "480", "12")]
    assert nouns == [None]


def test_a_bare_number_in_arithmetic_traces_to_a_rate_with_that_number() -> None:
    index = _index("The README states 640 TFLOPS in the compute-bound case.")
    fig, q = next((f, q) for f, q in typed_figures("Adding 10% to 640 gives about 704.")
                  if f.text == "640")
    assert trace_figure(fig, index, q).traced
