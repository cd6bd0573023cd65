"""Accuracy targets of ``ledger verify`` on the evaluation corpus (issue 13), per corpus set.

Runs ``benchmarks/bench_accuracy.py`` in-process on each set under ``tests/corpus/``:

* no error on any clean article, and no new error from any benign edit (asserted);
* recall of at least 0.9: the right rule at the right span (asserted);
* at most one warning per clean article on average (asserted).

A target a set does not meet yet is a strict expected failure that quotes the measured figure
(``UNMET``); it turns into a failure the day the target is met, to be made a plain assert.
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

#: Development sets. A and B were tuned on from the start; C was held out until its first run
#: (01:20 UTC on 2026-12-01); D was written blind by a separate editor, frozen at 02:29 UTC,
#: measured on the checker of commit c0dbd54 and on main at 02:40 (the figures below), and only
#: then added here as development material; E the same way (frozen 02:37, added 03:40); F
#: (frozen 03:35) was the round's final held-out measurement at 04:23, then added at 04:35.
#: G and H were written blind the next morning (frozen 06:07 and 06:17 UTC), measured on the
#: day's starting checker (ab092bb) and once on main at 06:42, then added at 06:50.
#: I and J (frozen 06:52 and 06:56) were the round's final held-out run, once, on main at 07:53
#: (4620a9b), then added at 08:00.
#: K and L were written blind at the start of the next session (frozen 09:21 and 09:22 UTC),
#: measured once on that session's starting checker (0ad246b), then added at 09:30.
#: M and N (frozen 09:21) and P (frozen 10:03, three articles) were that session's final
#: held-out sets: measured on 0ad246b and once, blind, on main at 11:20 (87211cd), then added.
#: Q and R (frozen 23:35 and 23:26 UTC, three articles each) were the next session's final
#: held-out sets: measured on its starting checker d62d861 and once, blind, on main at 23:56
#: (4fd1e3d), then added.
#: S and T (frozen 02:55 and 02:54 UTC on 2026-12-02, three articles each) were measured on
#: that session's starting checker 668d9d3 and once, blind, on 1f9c452, then used to develop.
#: U and V (frozen 03:57 and 03:56 UTC, three articles each) were that session's final held-out
#: sets: measured on 668d9d3 and once, blind, on c599536, then added.
#: W and X (frozen 06:20 UTC on 2026-12-02, three articles each) were the sixth session's
#: held-out sets: measured on its starting checker 0c05be1 and once, blind, on dba27b0, then
#: added.
#: Y and Z (frozen 18:37 and 18:36 UTC on 2026-12-02) were measured on the seventh session's
#: starting checker 151f814 and then used to develop; AA and AB (frozen 18:45 and 18:49 UTC)
#: were its held-out sets: measured on 151f814 and once, blind, on dad15f6, then added.
#: AC and AD (frozen 09:57 and 09:47 UTC on 2026-12-03) were measured on the eighth
#: session's starting checker d0e833f and then used to develop; AE and AF (frozen 10:02 and
#: 09:44 UTC) were its held-out sets: measured on d0e833f and once, blind, on d07ad2d, then
#: added.
#: AG, AH and AI (frozen 14:00, 13:59 and 13:58 UTC on 2026-12-03) were measured on the ninth
#: session's starting checker ce52905; AG and AH were then used to develop, AI stayed held out
#: until it was measured once, blind, on b9cd390, then added.
#: AJ, AK and AL (frozen 18:42, 18:42 and 18:41 UTC on 2026-12-03) were measured on the tenth
#: session's starting checker dabb08f; AK and AL were then used to develop, AJ stayed held out
#: until it was measured once, blind, at the session's end, then added.
#: AM, AN and AO (frozen 01:26, 01:26 and 01:27 UTC on 2026-12-04) were measured on the
#: eleventh session's starting checker eb4a03f; AM and AN were then used to develop, AO stayed
#: held out until it was measured once, blind, at the session's end, then added.
#: AP, AQ and AR (frozen 18:07, 18:07 and 18:08 UTC on 2026-12-04) were measured on the
#: twelfth session's starting checker 06f7f12; AP and AQ were then used to develop, AR stayed
#: held out until it was measured once, blind, at the session's end (the same figures as on
#: 06f7f12), then added.
#: tests/corpus/README.md keeps each set's history.
SETS = [s for s in ("set-a", "set-b", "set-c", "set-d", "set-e", "set-f", "set-g", "set-h",
                                "set-i", "set-j", "set-k", "set-l", "set-m", "set-n",
                                "set-p", "set-q", "set-r", "set-s", "set-t", "set-u",
                                "set-v", "set-w", "set-x", "set-y", "set-z", "set-aa", "set-ab",
                                "set-ac", "set-ad", "set-ae", "set-af", "set-ag", "set-ah",
                                "set-ai", "set-aj", "set-ak", "set-al", "set-am", "set-an",
                                "set-ao", "set-ap", "set-aq", "set-ar")
        if s in available_sets()]
pytestmark = pytest.mark.slow

#: (set, target) -> the measured figure, for targets not met yet.
UNMET: dict[tuple[str, str], str] = {
    ("set-ag", "recall"): "set AG: recall 0.71 on ce52905, 0.85 after the ninth session",
    ("set-ag", "warnings"): "set AG: 2.00 warnings per clean article on ce52905, 1.67 after",
    ("set-ah", "benign"): "set AH: a benign edit's '1.81' points traces to nothing (ce52905 "
                          "and after)",
    ("set-ah", "recall"): "set AH: recall 0.67 on ce52905, 0.76 after the ninth session",
    ("set-ah", "warnings"): "set AH: 1.33 warnings per clean article on ce52905 and after",
    ("set-ai", "benign"): "set AI, held out: one benign edit raised an error on ce52905 and "
                          "on b9cd390",
    ("set-ai", "precision"): "set AI: unattributed-figure 0.40 after the ninth session",
    ("set-ai", "recall"): "set AI, held out: recall 0.71 on ce52905, 0.74 blind on b9cd390",
    ("set-ai", "warnings"): "set AI, held out: 2.33 warnings per clean article on ce52905, 3.00 "
                            "blind on b9cd390, 2.67 after",
    ("set-aj", "recall"): "set AJ, held out: recall 0.81 on dabb08f and blind on 75ec206, "
                          "0.80 after",
    ("set-aj", "warnings"): "set AJ, held out: 2.00 warnings per clean article on dabb08f and "
                            "blind on 75ec206 (1.33 false errors there), 2.33 after",
    ("set-ak", "recall"): "set AK: recall 0.72 (and 4.00 false errors per clean article) on "
                          "dabb08f, 0.78 (and none) after the tenth session",
    ("set-al", "recall"): "set AL: recall 0.63 on dabb08f, 0.81 after the tenth session",
    ("set-al", "warnings"): "set AL: 3.00 warnings per clean article on dabb08f, 1.67 after",
    ("set-am", "precision"): "set AM: unattributed-figure finds 1 of its 3 and warns 3 times "
                             "on clean articles after the eleventh session",
    ("set-am", "recall"): "set AM: recall 0.72 (and 4.33 false errors per clean article) on "
                          "eb4a03f, 0.76 (and none) after the eleventh session",
    ("set-am", "warnings"): "set AM: 2.33 warnings per clean article on eb4a03f, 1.67 after",
    ("set-an", "benign"): "set AN: 'There are 3 ways to pay' for 'three ways' (eb4a03f and "
                          "after)",
    ("set-an", "recall"): "set AN: recall 0.75 (and 1.00 false errors per clean article) on "
                          "eb4a03f, 0.78 (and none) after the eleventh session",
    ("set-an", "warnings"): "set AN: 1.67 warnings per clean article on eb4a03f and after",
    ("set-ao", "precision"): "set AO: mislabeled-figure finds none of its 2 (eb4a03f and after)",
    ("set-ao", "recall"): "set AO, held out: recall 0.58 on eb4a03f and blind on 974da3e (1.67 "
                          "false errors per clean article both times), 0.67 (and none) after",
    ("set-ao", "warnings"): "set AO, held out: 1.33 warnings per clean article on eb4a03f, "
                            "blind on 974da3e and after",
    ("set-ap", "precision"): "set AP: unattributed-figure finds none of its 3 (06f7f12 and "
                             "after)",
    ("set-ap", "recall"): "set AP: recall 0.72 (and 0.67 false errors per clean article) on "
                          "06f7f12, 0.81 (and none) after the twelfth session",
    ("set-ap", "warnings"): "set AP: 2.33 warnings per clean article on 06f7f12, 1.67 after "
                            "(four of them sources on mirror sites, as the editor noted)",
    ("set-aq", "recall"): "set AQ: recall 0.76 (and 1.67 false errors per clean article) on "
                          "06f7f12, 0.83 (and none) after the twelfth session",
    ("set-ar", "clean"): "set AR, held out: 2.67 false errors per clean article on 06f7f12 and "
                         "blind at the twelfth session's end, 2.33 after (a year before "
                         "'results', a version read as a count, a dated-status guardrail)",
    ("set-ar", "precision"): "set AR: mislabeled-figure finds none of its 6, unattributed-figure "
                             "none of its 4 (06f7f12 and after)",
    ("set-ar", "recall"): "set AR, held out: recall 0.77 on 06f7f12 and blind at the twelfth "
                          "session's end",
    ("set-ar", "warnings"): "set AR, held out: 2.33 warnings per clean article on 06f7f12 and "
                            "blind",
    ("set-y", "recall"): "set Y: recall 0.71 on 151f814 (with Z), 0.71 on dad15f6",
    ("set-z", "recall"): "set Z: recall 0.73 on dad15f6",
    ("set-z", "warnings"): "set Z on dad15f6: 3.67 warnings per clean article",
    ("set-aa", "precision"): "set AA on dad15f6: mislabeled-figure 0.40, unattributed 0.00",
    ("set-aa", "recall"): "set AA, held out: recall 0.69 on dad15f6",
    ("set-ab", "recall"): "set AB, held out: recall 0.76 on dad15f6",
    ("set-ac", "recall"): "set AC: recall 0.72 on d0e833f, 0.75 after the eighth session",
    ("set-ac", "warnings"): "set AC: 2.00 warnings per clean article on d0e833f",
    ("set-ae", "clean"): "set AE, held out: 1.33 false errors per clean article on d0e833f "
                         "and blind on d07ad2d (one of them a date the article never sourced)",
    ("set-ae", "precision"): "set AE: mislabeled-figure finds none of its 4 and warns once on a "
                             "clean article (d07ad2d)",
    ("set-ae", "recall"): "set AE, held out: recall 0.75 on d0e833f, 0.77 blind on d07ad2d",
    ("set-af", "clean"): "set AF, held out: 1.33 false errors per clean article on d0e833f, "
                         "1.00 blind on d07ad2d (two of them a size the article never sourced)",
    ("set-af", "recall"): "set AF, held out: recall 0.64 on d0e833f, 0.65 blind on d07ad2d",
    ("set-ad", "recall"): "set AD: recall 0.72 on d0e833f, 0.79 after the eighth session",
    ("set-ad", "warnings"): "set AD: 2.00 warnings per clean article on d0e833f (half of "
                            "them unquoted facts)",
    ("set-ab", "warnings"): "set AB on dad15f6: 1.33 warnings per clean article",
    ("set-q", "precision"): "set Q on 4fd1e3d: unattributed-figure 0.05, guardrail 0.43 "
                            "(unattributed 0.20 once a list took its lead-in's credit)",
    ("set-q", "recall"): "set Q, held out: recall 0.59 on d62d861 and on 4fd1e3d",
    ("set-q", "warnings"): "set Q, held out: 2.00 warnings per clean article on d62d861, 1.67 "
                           "on 4fd1e3d",
    ("set-r", "precision"): "set R on 4fd1e3d: unattributed-figure 0.22, guardrail 0.40",
    ("set-r", "recall"): "set R, held out: recall 0.69 on d62d861, 0.71 on 4fd1e3d",
    ("set-r", "warnings"): "set R, held out: 2.33 warnings per clean article on d62d861 and "
                           "on 4fd1e3d",
    ("set-s", "precision"): "set S on 1f9c452 and after: mislabeled-figure finds none of its 6",
    ("set-s", "recall"): "set S, held out: recall 0.62 on 668d9d3, 0.65 on 1f9c452",
    ("set-t", "precision"): "set T: mislabeled-figure finds none of its 6; conflated-experiments "
                            "and unattributed-figure fire only on correct text",
    ("set-t", "recall"): "set T, held out: recall 0.62 on 668d9d3, 0.64 on 1f9c452",
    ("set-t", "warnings"): "set T: 2.67 warnings per clean article on 668d9d3 and on 1f9c452, "
                           "4.00 once its false errors became warnings",
    ("set-u", "precision"): "set U: conflated-experiments 0.33, untraced-figure 0.44, "
                            "mislabeled-figure finds none of its 4",
    ("set-u", "recall"): "set U, held out: recall 0.56 on 668d9d3, 0.58 on c599536",
    ("set-u", "warnings"): "set U, held out: 2.33 warnings per clean article on 668d9d3, 3.00 "
                           "on c599536",
    ("set-v", "recall"): "set V, held out: recall 0.59 on 668d9d3 and on c599536",
    ("set-v", "warnings"): "set V, held out: 1.33 warnings per clean article on 668d9d3, 2.00 "
                           "on c599536",
    ("set-w", "recall"): "set W, held out: recall 0.70 on 0c05be1, 0.76 on dba27b0",
    ("set-x", "precision"): "set X: unattributed-figure finds none of its 3 (0c05be1, dba27b0)",
    ("set-x", "recall"): "set X, held out: recall 0.65 on 0c05be1, 0.72 on dba27b0",
    ("set-g", "recall"): "set G, held out: recall 0.67 on ab092bb, 0.71 on main at 06:42 "
                         "(date-order 0.00, mislabeled 0.38, guardrail 0.50)",
    ("set-h", "recall"): "set H, held out: recall 0.61 on ab092bb, 0.64 on main at 06:42 "
                         "(date-order 0.17, misattributed 0.33, guardrail 0.42)",
    ("set-i", "recall"): "set I, held out: recall 0.57 on ab092bb, 0.61 on 4620a9b (date-order "
                         "0/8, unattributed 1/5, mislabeled 3/12)",
    ("set-j", "recall"): "set J, held out: recall 0.56 on ab092bb, 0.60 on 4620a9b "
                         "(unsupported-conclusion 0/6, mislabeled 1/6)",
    ("set-k", "recall"): "set K, held out: recall 0.81 on 0ad246b (unattributed 2/6, "
                         "mislabeled 3/6, arithmetic 11/15)",
    ("set-n", "recall"): "set N, held out: recall 0.68 on 0ad246b and on 87211cd",
    ("set-p", "precision"): "set P on 87211cd: conflated-experiments and mislabeled-figure find "
                            "none of their 2 and 3",
    ("set-p", "recall"): "set P, held out: recall 0.74 on 0ad246b, 0.72 on 87211cd",
    ("set-l", "recall"): "set L, held out: recall 0.80 on 0ad246b (mislabeled 2/6, "
                         "misattributed 3/6, guardrail 9/13)",
}


def _case(name: str, target: str) -> object:
    reason = UNMET.get((name, target))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(name, marks=marks, id=name)


def _cases(target: str) -> list[object]:
    return [_case(name, target) for name in SETS]


@cache
def result(name: str) -> Result:
    with tempfile.TemporaryDirectory() as tmp:
        return evaluate([name], Path(tmp))


def test_corpus_is_present() -> None:
    assert "set-a" in SETS and "set-b" in SETS


@pytest.mark.parametrize("name", _cases("clean"))
def test_no_error_on_clean_articles(name: str) -> None:
    errors = {tag: found for tag, found in result(name).clean_errors.items() if found}
    assert errors == {}


@pytest.mark.parametrize("name", _cases("benign"))
def test_benign_edits_raise_no_error(name: str) -> None:
    assert result(name).benign_errors == []


@pytest.mark.parametrize("name", _cases("precision"))
def test_every_rule_is_precise(name: str) -> None:
    """Of the rules that fired on planted errors, none fired more often on correct text."""
    rows = result(name).per_rule()
    assert all(row["precision"] >= 0.5 for row in rows.values() if row["planted"]), rows


@pytest.mark.parametrize("name", _cases("recall"))
def test_recall_target(name: str) -> None:
    """At least 0.9 of the planted errors raise the right rule at the right span."""
    data = result(name)
    assert data.recall >= 0.9, data.misses


@pytest.mark.parametrize("name", _cases("warnings"))
def test_warnings_target(name: str) -> None:
    data = result(name).to_dict()
    assert data["warnings_per_article"] <= 1.0
