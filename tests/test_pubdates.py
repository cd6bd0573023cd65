"""A date the body gives for a document's publication, read against the sources it cites."""

from __future__ import annotations

import json

from verify_fixtures import load

from ledger.models import Article
from ledger.verify.pubdates import publication_dates


def _found(body: str, dated: str = "2025-05-09", fact: str | None = None
           ) -> list[tuple[str, str]]:
    """(pointer or span text, severity) of each finding, with S4 published on ``dated``."""
    doc = load()
    doc["body"] = body
    doc["sources"][3]["published_at"] = dated
    if fact is not None:
        doc["facts"].append({"id": f"F{len(doc['facts']) + 1}", "claim": fact,
                             "source_ids": ["S4"], "evidence_type": "primary_documentation"})
    article = Article.model_validate_json(json.dumps(doc))
    lines = article.body.split("\n")
    return [(lines[f.line - 1][f.column - 1:f.end_column - 1] if f.line else f.pointer,
             f.severity.value) for f in publication_dates(article)]


def test_a_publication_date_that_no_cited_source_has_is_a_warning() -> None:
    cases = [  # (sentence, the date as written) with S4 published on May 9, 2025
        ("The survey, posted to arXiv on 9 May {y} by four authors, compares caches. [S4]",
         "9 May {y}"),
        ("Its authors kept the code private, and their write-up of May 9, {y} gives one "
         "table. [S4]", "May 9, {y}"),
        ("A May {y} teardown by a hardware blog counts 3,000 stars. [S4]", "May {y}"),
        ("On May 9, {y}, two analysts wrote up the demonstration for a trade site. [S4]",
         "May 9, {y}"),
        ("A bug report that a user opened on May 9, {y} describes the crash. [S4]",
         "May 9, {y}"),
    ]
    for body, date in cases:
        assert _found(body.format(y=2025)) == [], body
        assert _found(body.format(y=2024)) == [(date.format(y=2024), "warning")], body


def test_a_date_of_something_else_is_not_a_publication_date() -> None:
    assert _found("The conference opened in Vienna on June 2, 2024. [S4]") == []
    assert _found("The cluster was rebuilt on May 9, 2024 after a fire. [S4]") == []
    # the sentence states the cited page's own date; its other date is another document's
    assert _found("The page, last updated on May 9, 2025, links an earlier post from March 1, "
                  "2024. [S4]") == []


def test_a_source_date_that_the_body_and_a_fact_contradict_is_pointed_at() -> None:
    body = "The benchmark note, published on 12 May 2025, lists one run. [S4]"
    assert _found(body, dated="2025-05-12") == []
    # the body and a fact agree on May 12; the source's own date is the odd one out
    assert _found(body, dated="2024-05-12", fact="The note was published on May 12, 2025.") == [
        ("/sources/3/published_at", "warning")]
    # without a fact, the body's date is the one in doubt
    assert _found(body, dated="2024-05-12") == [("12 May 2025", "warning")]
