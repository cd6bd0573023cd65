"""Mechanisms behind false errors on corpus set B, each with a sentence written here."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from ledger.figures import extract_figures
from ledger.quantities import Kind, typed_figures
from ledger.verify.arithmetic import _percent_explained
from ledger.verify.labels import _refers_back_to
from ledger.verify.tracing import EvidenceIndex, Trace, _date_matches


def test_a_rate_whose_unit_follows_a_modifier_is_a_rate() -> None:
    found = {f.text: q for f, q in typed_figures("a floor of 300 decode tokens/s per user")}
    assert found["300"].kind is Kind.rate and found["300"].unit is not None
    assert found["300"].unit.symbol == "tokens/s"
    counted = {f.text: q for f, q in typed_figures("the 300 decode tokens were dropped")}
    assert counted["300"].kind is Kind.count


def test_a_month_in_a_fact_is_evidence_for_the_same_month_only() -> None:
    index = EvidenceIndex()
    index.add_text("The vendor says the audit closed in March 2024.", Trace("fact", "/facts/0"))
    (month,) = index.dates
    assert month.precision == "month"
    body_month = extract_figures("closed in March 2024")[0]
    body_day = extract_figures("closed on March 3, 2024")[0]
    assert _date_matches(body_month, month.date, month.precision)
    assert not _date_matches(body_day, month.date, month.precision)
    assert _date_matches(body_month, dt.date(2024, 3, 3), "day")


def test_a_percent_within_the_declared_tolerance_of_a_ratio_is_explained() -> None:
    # 1.118 is an 11.8% gain; a claim citing the vendor's rounded-down "11%" agrees within 0.05
    assert _percent_explained(Decimal("11"), 0, [1.118], tolerance=0.05)
    assert not _percent_explained(Decimal("11"), 0, [1.118])
    assert not _percent_explained(Decimal("30"), 0, [1.118], tolerance=0.05)


def test_a_restated_figure_used_as_a_reference_is_not_a_new_claim() -> None:
    def first(text: str) -> bool:
        fig = extract_figures(text)[0]
        return _refers_back_to(text, fig)

    assert first("Read that way, the 9x is a cold-start ratio.")
    assert first("The replay ran at 64% reuse.")
    assert first("Prompts used a 32,000-token window.")
    assert not first("The new cache cuts queueing by 9x.")
