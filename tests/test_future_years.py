"""A bare year after the article's publication: a date-order error unless evidence gives it.

A year such as "the 2027 summit" or "shipped in 2028" cannot be a past event in an article
published in 2026; a forecast year is fine when the article's evidence states it (a roadmap
fact), as any other figure is.
"""

from __future__ import annotations

from pathlib import Path

from verify_fixtures import DOCUMENTATION, add_fact, adding, rules_at, verify_with


def test_a_year_after_publication_that_no_evidence_has_is_a_date_error(tmp_path: Path) -> None:
    for sentence, year in [
        ("The team first showed the design at the 2029 Open Compute summit.", "2029"),
        ("A second release followed in 2031, with the same API.", "2031"),
        ("Its vendor's 2030 keynote restated the claim.", "2030"),
    ]:
        doc, result = verify_with(tmp_path, adding(sentence))
        assert rules_at(result, doc, year).get("date-order") == "error", sentence


def test_a_year_the_evidence_gives_is_a_forecast_not_an_error(tmp_path: Path) -> None:
    sentence = "The vendor's roadmap puts the next generation in 2029."
    doc, result = verify_with(
        tmp_path,
        lambda d: add_fact(d, "The roadmap schedules the next generation for 2029.",
                           DOCUMENTATION),
        adding(sentence))
    assert "date-order" not in rules_at(result, doc, "2029"), sentence


def test_a_year_up_to_publication_is_no_date_error(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, adding("The design was first shown in 2026."))
    assert "date-order" not in rules_at(result, doc, "2026")
