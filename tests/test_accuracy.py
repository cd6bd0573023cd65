"""Accuracy targets of ``ledger verify`` on the evaluation corpus (issue 13), per corpus set.

Runs ``benchmarks/bench_accuracy.py`` in-process on each set under ``tests/corpus/``:

* no error on any clean article, and no new error from any benign edit (asserted);
* recall of at least 0.9: the right rule at the right span (asserted);
* at most one warning per clean article on average: not reached yet, so a strict expected
  failure that says the measured figure; it turns into a failure the day the target is met, to
  be made a plain assert.
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

#: set-b was held out while the checker was tuned on set-a; its targets are not met yet (below).
SETS = [s for s in available_sets() if s != "set-b"]
HELD_OUT = [s for s in available_sets() if s == "set-b"]
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


@pytest.mark.parametrize("name", SETS)
def test_recall_target(name: str) -> None:
    """At least 0.9 of the planted errors raise the right rule at the right span."""
    data = result(name)
    assert data.recall >= 0.9, data.misses


@pytest.mark.xfail(strict=True, reason="1.75 warnings per clean article on set A: 1.0 "
                   "unquoted-fact (grounding, issue 17), 0.5 unchecked-guardrail (one per "
                   "guardrail the checker cannot read, which the issue requires) and 0.25 "
                   "spelled-out small counts that trace to nothing")
@pytest.mark.parametrize("name", ["set-a"])
def test_warnings_target(name: str) -> None:
    data = result(name).to_dict()
    assert data["warnings_per_article"] <= 1.0


@pytest.mark.xfail(strict=True, reason="held-out set B: 3.25 errors per clean article, of which "
                   "1.0 is word-count (the articles count [S#] markers as words, a corpus "
                   "mistake) and the rest attribution, experiment and coincidence misreadings")
@pytest.mark.parametrize("name", HELD_OUT)
def test_held_out_no_error_on_clean_articles(name: str) -> None:
    assert not any(result(name).clean_errors.values())


@pytest.mark.xfail(strict=True, reason="held-out set B: recall 0.60 (78/130); prose guardrails, "
                   "conclusions without a 'shows that' and experiment joins are mostly missed")
@pytest.mark.parametrize("name", HELD_OUT)
def test_held_out_recall_target(name: str) -> None:
    assert result(name).recall >= 0.9
