"""Figure extraction: kinds, values, exact spans, and what must never be a figure."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.figures import FigureKind, extract_figures, quantize


def one(text: str):
    figures = extract_figures(text)
    assert len(figures) == 1, [f.text for f in figures]
    return figures[0]


@pytest.mark.parametrize("text, surface, kind, value", [
    ("grew 3.8 times over", "3.8 times", FigureKind.multiplier, "3.8"),
    ("a 46-fold cut", "46-fold", FigureKind.multiplier, "46"),
    ("46x lower", "46x", FigureKind.multiplier, "46"),
    ("46× lower", "46×", FigureKind.multiplier, "46"),
    ("a forty-six-fold cut", "forty-six-fold", FigureKind.multiplier, "46"),
    ("throughput doubles", "doubles", FigureKind.multiplier, "2"),
    ("cost falls by half", "half", FigureKind.multiplier, "0.5"),
    ("divided by two", "two", FigureKind.number, "2"),
    ("forty-six runs", "forty-six", FigureKind.number, "46"),
    ("rose 62.5% overall", "62.5%", FigureKind.percent, "62.5"),
    ("up 5 percentage points", "5 percentage points", FigureKind.points, "5"),
    ("on 60 GPUs", "60", FigureKind.noun_count, "60"),
    ("took 45 minutes", "45", FigureKind.quantity, "45"),
    ("priced at $1.2M a year", "$1.2M", FigureKind.money, "1.2"),
    ("1,000 requests", "1,000", FigureKind.quantity, "1000"),
    ("past 25K tokens", "25K", FigureKind.quantity, "25000"),
    ("a 1.2M budget", "1.2M", FigureKind.number, "1200000"),
    ("since 2024 it", "2024", FigureKind.year, "2024"),
])
def test_kinds_and_values(text: str, surface: str, kind: FigureKind, value: str) -> None:
    f = one(text)
    assert (f.text, f.kind, f.value) == (surface, kind, Decimal(value))
    assert text[f.start:f.end] == surface


def test_count_with_a_digit_name_in_between() -> None:
    f = one("on 12 GB200 GPUs using")
    assert (f.text, f.kind, f.unit) == ("12", FigureKind.noun_count, "GB200 GPUs")


def test_range_keeps_both_ends_and_unit() -> None:
    f = one("a link of 12.8-13.0 TB/s")
    assert (f.kind, f.value, f.upper, f.unit) == (
        FigureKind.range, Decimal("12.8"), Decimal("13.0"), "TB/s")
    assert f.values == (Decimal("12.8"), Decimal("13.0"))


@pytest.mark.parametrize("text, date, precision", [
    ("first submitted on June 24, 2024 and", dt.date(2024, 6, 24), "day"),
    ("In a May 6, 2026 vLLM report", dt.date(2026, 5, 6), "day"),
    ("on 2024-06-24.", dt.date(2024, 6, 24), "day"),
    ("on 24 June 2024.", dt.date(2024, 6, 24), "day"),
    ("the May 6 roadmap", dt.date(2000, 5, 6), "month_day"),
    ("in June 2024 the", dt.date(2024, 6, 1), "month"),
])
def test_dates_are_one_figure(text: str, date: dt.date, precision: str) -> None:
    f = one(text)
    assert (f.kind, f.date, f.date_precision) == (FigureKind.date, date, precision)


@pytest.mark.parametrize("text", [
    "Kimi-2.5 NVFP4 on GB200 with TP4 and DP8 plus EP",
    "H100 and 1P1D in v5 of E2E",
    "see [S4] and [S12]",
    "https://arxiv.org/abs/2407.00079v5",
    "DeepSeek-R1-671B with DeepSeek 3FS",
    "it extends reuse beyond one instance, first and foremost",
    "a tenant often pays attention",
    "you may want it",
])
def test_names_citations_urls_and_words_are_not_figures(text: str) -> None:
    assert extract_figures(text) == []


def test_spans_in_a_longer_text_are_exact() -> None:
    text = "They reported 3.8 times the throughput, a 46-fold reduction [S4] on 12 GB200 GPUs."
    figures = extract_figures(text)
    assert [f.text for f in figures] == ["3.8 times", "46-fold", "12"]
    assert all(text[f.start:f.end] == f.text for f in figures)


def test_precision_and_half_up_rounding() -> None:
    assert one("62.5%").decimals == 1
    assert quantize(Decimal("0.625") * 100, 1) == Decimal("62.5")
    assert quantize(Decimal("2.5"), 0) == Decimal(3)  # half-up, not banker's rounding


def test_seed_body_figures(seed_body: str) -> None:
    texts = [f.text for f in extract_figures(seed_body)]
    assert texts == ["June 24, 2024", "October 8, 2026", "May 6, 2026", "12", "3.8 times",
                     "46-fold", "8.6-fold", "1.7%", "92.2%", "60", "doubles", "25%", "1.25",
                     "two", "62.5%", "37.5%"]


@pytest.fixture
def seed_body() -> str:
    from verify_fixtures import load
    return load()["body"]


@given(st.text(max_size=300))
def test_never_raises_and_spans_match(text: str) -> None:
    for f in extract_figures(text):
        assert text[f.start:f.end] == f.text
        assert 0 <= f.start < f.end <= len(text)


def test_numbers_longer_than_the_decimal_context_do_not_break_tracing() -> None:
    big = "9" * 40
    f = one(f"a count of {big} items")
    assert quantize(f.value, f.decimals) == f.value


def test_a_number_hyphened_to_the_noun_it_sizes_is_no_year() -> None:
    for text in ("the 2048-token budget", "a 1999-page export", "its 2000-entry table",
                 "a 1960-head pool"):
        (fig,) = extract_figures(text)
        assert fig.kind is not FigureKind.year, text
    for text in ("in 2024-era hardware", "a 2023-style release", "OSDI 2024 papers"):
        (fig,) = extract_figures(text)
        assert fig.kind is FigureKind.year, text
