"""Typed quantities: each figure's kind, unit and noun, and when two quantities agree."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.quantities import Kind, Verdict, compare, metric_quantity, typed_figures


def kinds(text: str) -> list[tuple[str, str]]:
    return [(f.text, q.describe()) for f, q in typed_figures(text)]


@pytest.mark.parametrize("text, expected", [
    ("on 12 GB200 GPUs", [("12", "count of gb200 gpus")]),
    ("The vendor employs 12 engineers.", [("12", "count of engineers")]),
    ("Each configuration ran three times", [("three times", "count of times")]),
    ("3.8 times the throughput", [("3.8 times", "multiplier")]),
    ("a threefold gain", [("threefold", "multiplier")]),
    ("a hundredfold difference", [("hundredfold", "multiplier")]),
    ("a 46-fold cut", [("46-fold", "multiplier")]),
    ("480% faster", [("480%", "percent (increase)")]),
    ("up 5 percentage points", [("5 percentage points", "points (increase)")]),
    ("40 GiB/s per client", [("40", "rate in GiB/s")]),
    ("two 200 Gb/s NICs", [("two", "number"), ("200", "rate in Gb/s")]),
    ("3.66 TiB/min", [("3.66", "rate in TiB/min")]),
    ("1,200 tokens/s", [("1,200", "rate in tokens/s")]),
    ("a 4 KiB page", [("4", "size in KiB")]),
    ("about 59 minutes", [("59", "duration in minutes")]),
    ("on 16x H200 GPUs", [("16x", "count of h200 gpus")]),
    ("6.6 TiB/s spread over 180 storage nodes",
     [("6.6", "rate in TiB/s"), ("180", "count of storage nodes")]),
])
def test_kinds(text: str, expected: list[tuple[str, str]]) -> None:
    assert kinds(text) == expected


def test_range_is_one_quantity() -> None:
    assert kinds("22 to 32% lower") == [("22", "percent (decrease)"), ("32%", "percent (decrease)")]


@pytest.mark.parametrize("text", [
    "The earlier post, on Llama 3 70B, puts it", "a 4K context window", "a 7B model",
    "Llama-7B on a single GPU", "between GPU and CPU memory", "on H100 and GB200",
])
def test_names_with_digits_are_not_figures(text: str) -> None:
    assert kinds(text) == []


@pytest.mark.parametrize("text", [
    "it answered fastest with the 8B Qwen3 model", "a 70B Llama checkpoint loads slowly",
    "the 13B Mistral-based model", "next to the 34B Yi", "a 1.3B OPT variant",
    "on the 405B Acme-Chat model",
])
def test_a_model_size_before_the_models_name_is_no_count(text: str) -> None:
    """"the 7B Llama-2 model": 7B is the size of the named model, not seven billion models."""
    assert kinds(text) == []


@pytest.mark.parametrize("text", [
    "it served 7B requests", "the index holds 2B Reddit posts", "up to 70B Llama models fit",
])
def test_a_number_in_billions_of_other_things_stays_a_figure(text: str) -> None:
    assert [f.text for f, _ in typed_figures(text)] == [text.split("B ")[0].split()[-1] + "B"]


def q(text: str):  # the first quantity of a text
    return typed_figures(text)[0][1]


@pytest.mark.parametrize("figure, evidence, verdict", [
    ("380% faster", "4.8 times the speed", Verdict.match),
    ("480% faster", "4.8 times the speed", Verdict.hundredfold),  # it is 380% faster
    ("6.6 TB/s", "6.6 TiB/s", Verdict.unit),
    ("40 Gb/s", "40 GB/s", Verdict.unit),
    ("1024 GiB", "1 TiB", Verdict.match),
    ("4 KiB", "4 TiB/min", Verdict.kind),
    ("2 nodes", "2x lower latency", Verdict.kind),
    ("12 engineers", "12 GB200 GPUs", Verdict.noun),
    ("12 accelerators", "12 GPUs", Verdict.match),
    ("5%", "5 percentage points", Verdict.points),
    ("500 storage nodes", "500 client nodes", Verdict.modifier),
    # the same unit spelled two ways is one unit: a rounded value still matches
    ("0.12 seconds", "0.1165 s", Verdict.match),
    ("1.5 milliseconds", "1.46 ms", Verdict.match),
])
def test_compare(figure: str, evidence: str, verdict: Verdict) -> None:
    fq, eq = q(figure), q(evidence)
    assert compare(fq, fq.values[0], eq.values[0], eq, eq.kind is Kind.percent) is verdict


def test_percent_conversion_needs_more_than_rounding() -> None:
    """84% lower is 6.25 times lower: it must not trace "6 times"."""
    fq, eq = q("6 times the throughput"), q("84% lower TTFT")
    assert compare(fq, Decimal(6), Decimal(84), eq, True) is not Verdict.match


def test_metric_names() -> None:
    rate = metric_quantity("peak_read_tib_s")
    assert rate is not None and rate.kind is Kind.rate and rate.unit and rate.unit.symbol == "TiB/s"
    pct = metric_quantity("ant_ttft_reduction_pct")
    assert pct is not None and (pct.kind, pct.direction) == (Kind.percent, "decrease")
    mult = metric_quantity("median_ttft_speedup")
    assert mult is not None and mult.kind is Kind.multiplier
    nodes = metric_quantity("graysort_storage_nodes")
    assert nodes is not None and (nodes.kind, nodes.noun) == (Kind.count, "node")


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_typing_never_raises(text: str) -> None:
    for figure, quantity in typed_figures(text):
        assert text[figure.start:figure.end] == figure.text
        for value in quantity.values:
            compare(quantity, value, value, quantity, quantity.kind is Kind.percent)


@given(st.lists(st.sampled_from(["12", "3.8", "46x", "two", "GB/s", "Gb/s", "TiB", "%", "times",
                                 "fold", "nodes", "GPUs", "per", "second", "to", "-", " ", "0",
                                 "percentage points", "1e9", ".", ","]), max_size=40))
def test_typing_never_raises_on_figure_soup(parts: list[str]) -> None:
    text = " ".join(parts)
    for _figure, quantity in typed_figures(text):
        for value in quantity.values:
            compare(quantity, value, value * 2, quantity, False)
