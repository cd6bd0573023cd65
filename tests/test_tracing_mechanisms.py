"""Tracing, typed quantities, dates, percentage points and arithmetic restated in prose:
mechanisms behind the false errors and misses found on corpus set C, each with sentences
written here."""

from __future__ import annotations

from ledger.figures import extract_figures
from ledger.verify.tracing import EvidenceIndex, Trace, trace_figure


def _index(*claims: str) -> EvidenceIndex:
    index = EvidenceIndex()
    for i, claim in enumerate(claims):
        index.add_text(claim, Trace("fact", f"/facts/{i}/claim", fact_id=f"F{i + 1}"))
    return index


def test_a_changelog_month_is_a_month_date() -> None:
    (fig,) = extract_figures("the loader landed upstream (2022/07)")
    assert fig.date is not None and (fig.date.year, fig.date.month) == (2022, 7)
    assert fig.date_precision == "month"
    (iso,) = extract_figures("shipped in 2021-11, then")
    assert iso.date_precision == "month" and iso.date is not None and iso.date.month == 11
    assert [f.kind.value for f in extract_figures("the 2019/20 season")] == ["year", "number"]


def test_a_body_month_traces_to_a_changelog_month_in_a_fact() -> None:
    index = _index("The changelog lists the Rust loader (2022/07) and the S3 backend (2023/02).")
    (body,) = extract_figures("The S3 backend arrived in February 2023.")
    assert trace_figure(body, index).traced
    (other,) = extract_figures("The S3 backend arrived in March 2023.")
    assert not trace_figure(other, index).traced


def test_a_year_after_a_name_is_a_year_not_a_count() -> None:
    kinds = {f.text: f.kind.value for f in extract_figures(
        "NSDI 2023 papers cite it; the 2021 releases did not; the desk read 2048 papers")}
    assert kinds == {"2023": "year", "2021": "year", "2048": "count"}
    index = _index("The program lists the design as an NSDI 2023 paper.")
    (body,) = extract_figures("The program lists it among NSDI 2023 papers.")
    assert trace_figure(body, index).traced
