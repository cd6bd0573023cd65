"""A count of authors traces to a cited source's byline (``sources[].authors``): the whole
list, or the people it has besides those the sentence names. Sentences written here; the
seed's S4 report has five authors (Yifan Qiao, Trong Dao Le, Ao Shen, Zhewen Li, Bowen Wang)."""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_fixtures import adding, rules_at, verify_with


@pytest.mark.parametrize(("sentence", "count"), [
    ("The report came from Yifan Qiao, Ao Shen and 3 co-authors.", "3 co-authors"),
    ("Its byline lists 5 authors.", "5 authors"),
    ("Bowen Wang wrote it with 4 colleagues.", "4 colleagues"),
    ("Zhewen Li and Ao Shen signed it with three coauthors.", "three coauthors"),
])
def test_a_headcount_that_matches_the_byline_traces(tmp_path: Path, sentence: str,
                                                    count: str) -> None:
    doc, result = verify_with(tmp_path, adding(sentence))
    assert "untraced-figure" not in rules_at(result, doc, count), result.findings


@pytest.mark.parametrize(("sentence", "count"), [
    ("The report came from Yifan Qiao, Ao Shen and 6 co-authors.", "6 co-authors"),
    ("Its byline lists 8 authors.", "8 authors"),
    ("Bowen Wang wrote it with 2 colleagues.", "2 colleagues"),
])
def test_a_headcount_no_byline_gives_stays_untraced(tmp_path: Path, sentence: str,
                                                    count: str) -> None:
    doc, result = verify_with(tmp_path, adding(sentence))
    assert rules_at(result, doc, count).get("untraced-figure") == "error", result.findings
