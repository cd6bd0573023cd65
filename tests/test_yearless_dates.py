"""A date the evidence writes without a year ("the talk was on March 7 (2026)", "by October 19")
traces a body date written the same way; another day stays untraced. Sentences written here."""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_fixtures import DOCUMENTATION, add_fact, adding, rules_at, verify_with


@pytest.mark.parametrize(("claim", "sentence", "date"), [
    ("The summit listed the talk on March 7 (2026) in its programme.",
     "By March 7 the project had a conference talk.", "March 7"),
    ("The maintainers froze the branch by October 19, per the tracker.",
     "The branch froze on October 19, ahead of the release.", "October 19"),
    ("A meetup on Aug. 2 (that year) demonstrated the router.",
     "On August 2 a meetup showed the router.", "August 2"),
])
def test_a_yearless_evidence_date_traces_the_same_day(tmp_path: Path, claim: str,
                                                      sentence: str, date: str) -> None:
    doc, result = verify_with(tmp_path, lambda d: add_fact(d, claim, DOCUMENTATION),
                              adding(sentence))
    assert "untraced-figure" not in rules_at(result, doc, date), result.findings


@pytest.mark.parametrize(("claim", "sentence", "date"), [
    ("The summit listed the talk on March 7 (2026) in its programme.",
     "By March 9 the project had a conference talk.", "March 9"),
    ("The maintainers froze the branch by October 19, per the tracker.",
     "The branch froze on November 19, ahead of the release.", "November 19"),
])
def test_another_day_stays_untraced(tmp_path: Path, claim: str, sentence: str,
                                    date: str) -> None:
    doc, result = verify_with(tmp_path, lambda d: add_fact(d, claim, DOCUMENTATION),
                              adding(sentence))
    assert rules_at(result, doc, date).get("untraced-figure") == "error", result.findings
