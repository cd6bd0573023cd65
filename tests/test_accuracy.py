"""Accuracy targets of ``ledger verify`` on the evaluation corpus (issue 13), per corpus set.

Runs ``benchmarks/bench_accuracy.py`` in-process on each set under ``tests/corpus/``:

* no error on any clean article, and no new error from any benign edit (asserted);
* at most one warning per clean article on average, and recall of at least 0.9 (the right
  rule at the right span): not reached yet, so these are strict expected failures that say the
  measured figure; they turn into failures the day the target is met, to be made plain asserts.
"""

from __future__ import annotations

import sys
import tempfile
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_accuracy import Result, available_sets, evaluate  # noqa: E402

#: set-b is held out while the checker is tuned; it joins when the checker is final.
SETS = [s for s in available_sets() if s != "set-b"]
pytestmark = pytest.mark.slow


@cache
def result(name: str) -> Result:
    with tempfile.TemporaryDirectory() as tmp:
        return evaluate([name], Path(tmp))


def test_corpus_is_present() -> None:
    assert "set-a" in SETS


@pytest.mark.parametrize("name", SETS)
def test_no_error_on_clean_articles(name: str) -> None:
    errors = {tag: found for tag, found in result(name).clean_errors.items() if found}
    assert errors == {}


@pytest.mark.parametrize("name", SETS)
def test_benign_edits_raise_no_error(name: str) -> None:
    assert result(name).benign_errors == []


@pytest.mark.parametrize("name", SETS)
def test_every_rule_is_precise(name: str) -> None:
    """Of the rules that fired on planted errors, none fired more often on correct text."""
    rows = result(name).per_rule()
    assert all(row["precision"] >= 0.5 for row in rows.values() if row["planted"]), rows


@pytest.mark.xfail(strict=True, reason="recall on set A is 0.73 (114/157): prose-only "
                   "guardrails, attribution removed from one sentence of an attributed "
                   "paragraph and metric relabels are mostly missed")
@pytest.mark.parametrize("name", ["set-a"])
def test_recall_target(name: str) -> None:
    assert result(name).recall >= 0.9


@pytest.mark.xfail(strict=True, reason="5.5 warnings per clean article on set A: 3.6 are "
                   "unquoted-fact (grounding, issue 17) and 1.75 unchecked-guardrail, one per "
                   "guardrail written only in prose, which the issue requires")
@pytest.mark.parametrize("name", ["set-a"])
def test_warnings_target(name: str) -> None:
    data = result(name).to_dict()
    assert data["warnings_per_article"] <= 1.0
