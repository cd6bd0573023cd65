"""Relative dates in prose ("four days later", "the next day", "an earlier post from ...")
read against the right pair of the body's own dates, with an error only when both are sure."""

from __future__ import annotations

import json

from verify_fixtures import load

from ledger.models import Article
from ledger.report import Severity
from ledger.verify.dates import check_dates
from ledger.verify.intervals import relative_intervals


def _article(body: str) -> Article:
    doc = load()
    doc["body"] = body
    return Article.model_validate_json(json.dumps(doc))


def _order(body: str) -> list[tuple[str, str]]:
    """(severity, text of the finding's span) of each date-order finding on the body."""
    article = _article(body)
    lines = article.body.split("\n")
    return [(f.severity.value, lines[f.line - 1][f.column - 1:f.end_column - 1])
            for f in check_dates(article) if f.rule == "date-order" and f.line is not None]


def test_an_interval_after_a_date_in_apposition_counts_from_the_date_before_that() -> None:
    # the phrase qualifies the date it follows; the date before that one is its reference
    assert _order("The alpha shipped on March 3, 2023. Version 2 was tagged on April 2, 2024 "
                  "and version 3 on April 16, 2024, two weeks later.") == []
    assert _order("A fork appeared on May 1, 2022. The first patch landed on January 10, 2023; "
                  "the review closed on January 13, 2023, three days later, and the merge "
                  "followed.") == []
    assert _order("Logs start on August 2, 2021. The outage began on October 4, 2021 and "
                  "ended on October 6, 2021 (two days later).") == []


def test_an_appositive_interval_that_contradicts_its_pair_is_an_error_on_date_and_phrase() -> None:
    found = _order("The alpha shipped on March 3, 2023. Version 2 was tagged on April 2, 2024 "
                   "and version 3 on March 20, 2024, two weeks later.")
    assert found == [("error", "April 2, 2024 and version 3 on March 20, 2024, two weeks later")]
    found = _order("The outage began on October 4, 2021 and ended on September 30, 2021, "
                   "six days later.")
    assert found == [("error", "October 4, 2021 and ended on September 30, 2021, six days later")]


def test_an_interval_opening_a_sentence_counts_from_the_last_date_before_it() -> None:
    assert _order("The survey closed on June 1, 2023. Nine weeks later the report, dated "
                  "August 4, 2023, went out.") == []
    assert _order("The survey closed on June 1, 2023. Nine weeks earlier the report, dated "
                  "August 4, 2023, went out.") == [("error", "Nine weeks earlier")]


def test_an_interval_whose_pair_is_unclear_is_no_error() -> None:
    # three dates, none beside the phrase: the checker cannot tell which two it joins
    body = ("The board met on January 5, 2022. Budgets were set on March 1, 2022, staffing on "
            "June 9, 2022 and, some ten weeks later, the plan for hiring on the day PCT "
            "visited, July 30, 2022.")
    assert [s for s, _ in _order(body)] in ([], ["warning"])


def test_the_next_day_and_the_same_day_are_intervals() -> None:
    ok = ("The patch was posted on May 7, 2024, and the fix was merged the next day, May 8, "
          "2024.")
    assert _order(ok) == []
    assert _order(ok.replace("May 8, 2024", "May 6, 2024")) == [
        ("error", "May 7, 2024, and the fix was merged the next day, May 6, 2024")]
    assert _order("The preprint went up on June 3, 2025; the code was released the same day, "
                  "June 3, 2025.") == []
    assert _order("The preprint went up on June 3, 2025; the code was released the same day, "
                  "June 13, 2025.") == [("error", "June 3, 2025; the code was released the same day, June 13, 2025")]
    assert _order("The blog post is dated November 2, 2023, a day after the talk on November 1, "
                  "2023.") == []


def test_an_earlier_thing_dated_after_its_sentences_date_is_out_of_order() -> None:
    assert _order("The wiki, last edited on April 9, 2024, cites an earlier benchmark from "
                  "January 15, 2024.") == []
    assert _order("The wiki, last edited on April 9, 2024, cites an earlier benchmark from "
                  "January 15, 2025.") == [("error", "January 15, 2025")]
    assert _order("The 2.0 release of March 2024 replaced a previous build dated May 2, "
                  "2024.") == [("error", "May 2, 2024")]
    assert _order("Its first draft, dated July 1, 2022, links a later revision from "
                  "February 2, 2022.") == [("error", "February 2, 2022")]
    # an earlier thing whose date is before the sentence's: in order
    assert _order("Its first draft, dated July 1, 2022, links a later revision from "
                  "August 2, 2022.") == []


def test_an_agreeing_appositive_interval_is_traced() -> None:
    article = _article("The alpha shipped on March 3, 2023. Version 2 was tagged on April 2, "
                       "2024 and version 3 on April 16, 2024, two weeks later.")
    assert [i.agrees for i in relative_intervals(article)] == [True]
    assert all(f.severity is not Severity.error for f in check_dates(article))


def test_a_date_without_its_year_takes_the_year_of_the_dates_before_it() -> None:
    body = ("The beta shipped on March 2, 2025. Six weeks {w}, on April 14, the team tagged "
            "the release.")
    assert _order(body.format(w="later")) == []
    assert [s for s, _ in _order(body.format(w="earlier"))] == ["error"]
    assert _order("The talk was on May 3, 2023; the slides went up less than a week later, on "
                  "May 8.") == []
    assert _order("The talk was on May 13, 2023; the slides went up less than a week later, on "
                  "May 8.") == [("error", "May 13, 2023; the slides went up less than a week "
                                          "later, on May 8")]


def test_a_hedge_between_a_date_and_its_interval_keeps_them_together() -> None:
    ok = ("The draft appeared on June 2, 2023. It was accepted at NeurIPS 2023, which opened "
          "on December 10, 2023, a little over six months {w}.")
    assert _order(ok.format(w="later")) == []
    # the year in "NeurIPS 2023" names an event, not the date the interval counts from
    assert [s for s, _ in _order(ok.format(w="earlier"))] in (["warning"], ["error"])


def test_a_bare_that_points_back_to_the_date_before() -> None:
    body = ("The log shows the first build on May 1, 2024, a fix two weeks later (May 15) and "
            "the 1.0 tag on May 26, eleven days {w} that.")
    assert _order(body.format(w="after")) == []
    assert [s for s, _ in _order(body.format(w="before"))] == ["error"]


def test_a_page_cannot_be_modified_before_it_was_published() -> None:
    assert _order("The forum lists the paper as published on March 9, 2025 (last modified "
                  "2 April 2025).") == []
    assert _order("The forum lists the paper as published on March 9, 2025 (last modified "
                  "2 April 2024).") == [("error", "2 April 2024")]
    assert _order("The guide was first posted on 4 May 2022 and last updated on 1 February "
                  "2022.") == [("error", "1 February 2022")]


def _cited_order(body: str, dated: str) -> list[tuple[str, str]]:
    """Like :func:`_order`, with source S4 (the seed's report) published on ``dated``."""
    doc = load()
    doc["body"] = body
    doc["sources"][3]["published_at"] = dated
    article = Article.model_validate_json(json.dumps(doc))
    lines = article.body.split("\n")
    return [(f.severity.value, lines[f.line - 1][f.column - 1:f.end_column - 1])
            for f in check_dates(article) if f.rule == "date-order" and f.line is not None]


def test_a_sentence_without_a_date_is_dated_by_the_source_it_cites() -> None:
    # the phrase's sentence states no date; what it describes is the cited source's appearance
    body = ("The scheduler paper went online in March 2025. Twelve days {w} a maintainer "
            "described it in a talk. [S4]")
    assert _cited_order(body.format(w="after that"), "2025-03-14") == []
    assert _cited_order(body.format(w="later"), "2025-03-30") == []
    assert _cited_order(body.format(w="earlier"), "2025-03-30") == [
        ("warning", "Twelve days earlier")]
    steps = ("The cluster went live on 2 February 2025. The day before the launch, the vendor "
             "posted its tuning guide. [S4]")
    assert _cited_order(steps, "2025-02-01") == []
    assert _cited_order(steps, "2025-02-09") == [("warning", "The day before")]


def test_a_sentence_without_a_date_is_dated_by_the_next_sentence_of_its_paragraph() -> None:
    body = ("The driver shipped on May 5, 2025.\n\nFour months {w} a rival answered. In a note "
            "dated September 8, 2025, its team listed the results.")
    assert _order(body.format(w="later")) == []
    assert _order(body.format(w="earlier")) == [("warning", "Four months earlier")]
    # a sentence in the next paragraph describes something else
    assert _order("The driver shipped on May 5, 2025. Four months earlier a rival answered.\n"
                  "A note dated September 8, 2025 lists the results.") == []


def test_a_citation_that_opens_a_sentence_belongs_to_the_sentence_before() -> None:
    # "[S4]" closes the sentence dated March 2; the year-later release has no date of its own
    assert _cited_order("The v1 paper was posted on March 2, 2025. [S4] A year later the "
                        "authors released v2.", "2025-03-02") == []


def test_an_interval_before_this_article_counts_from_its_publication_date() -> None:
    # the seed article is dated 2026-11-04
    assert _order("The chip was unveiled on March 3, 2025, a little over a year and a half "
                  "before this article.") == []
    assert _order("The chip was unveiled on March 3, 2025, about twenty months before this "
                  "article.") == []
    assert _order("The chip was unveiled on March 3, 2025, a full five years before this "
                  "article.") == [("error", "March 3, 2025, a full five years before")]
    assert _order("Its first driver shipped on June 2, 2026, ten weeks before publication.") == [
        ("error", "June 2, 2026, ten weeks before")]


def test_an_interval_counted_from_a_document_the_article_cites_uses_its_date() -> None:
    # "after the paper": the one cited source that is a paper (S1, an arXiv preprint of
    # June 24, 2024); the vLLM post is dated May 6, 2026, about 22 months later
    fits = ("The vLLM write-up, posted twenty-two months after the arXiv paper on May 6, 2026, "
            "describes a deployment. [S4]")
    assert _order(fits) == []
    wrong = fits.replace("twenty-two months", "five months")
    assert _order(wrong) == [("error", "five months after")]
    # counted from a sentence of its own: the cited post is the target, a warning at most
    assert _order("Five months after the preprint, the project's blog described a deployment. "
                  "[S4]") == [("warning", "Five months after")]
    assert _order("Two years after the preprint, the project's blog described a deployment. "
                  "[S4]") == []


def test_an_interval_counted_from_a_document_that_names_no_one_source_is_left_alone() -> None:
    # three of the seed's sources are vLLM documentation pages: "the guide" is none of them
    # for sure, and nothing else in the body fits: no finding
    assert _order("The vLLM post, published five months after the guide on May 6, 2026, "
                  "describes a deployment. [S4]") == []


def test_an_interval_holds_within_thirty_percent_of_itself() -> None:
    # June 24, 2024 to May 6, 2026 is 681 days, 1.86 years: "two years" (1.4-2.6 years)
    # holds, "three years" (2.1-3.9) does not, as it did when half of itself was allowed
    assert _order("The paper appeared on June 24, 2024 and the benchmark on May 6, 2026, two "
                  "years later.") == []
    assert _order("The paper appeared on June 24, 2024 and the benchmark on May 6, 2026, three "
                  "years later.") == [("error", "June 24, 2024 and the benchmark on May 6, 2026, "
                                                "three years later")]


def test_a_reference_named_with_its_determiner_is_the_reference() -> None:
    # "two weeks before its December 10 item": that date, not an earlier one of the sentence
    assert _order("The index lists one post under December 3, 2024 and another under "
                  "January 4, 2025, two weeks before its December 10, 2024 item.") == [
        ("error", "January 4, 2025, two weeks before")]
    assert _order("The index lists one post under December 3, 2024 and another under "
                  "November 26, 2024, two weeks before its December 10, 2024 item.") == []
