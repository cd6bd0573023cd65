"""Consistency between an article's metadata and its content.

* ``word-count``: ``editorial_word_count`` must equal :func:`word_count` of the body. The rule:
  split the body on white space; drop every token that consists only of citation markers
  (``[S4]``, ``[S5][S3]``); count the rest. Punctuation stays attached to its word, so
  ``end-to-end`` is one word and ``62.5%`` is one word. A count of every white-space token,
  markers included, is the other common way to count: a note that gives the desk's figure.
* ``independence-contradiction``: a fact whose evidence type claims independent verification
  (``independently_reproduced_benchmark``, or ``ledger_measurement`` without any measurement
  ids to back it) while the benchmark scope says ``independent_reproduction: false``.
"""

from __future__ import annotations

import re

from ..models import INDEPENDENT_EVIDENCE, Article
from ..report import Finding, Severity

__all__ = ["WORD_COUNT_RULE", "check_consistency", "word_count"]

WORD_COUNT_RULE = "white-space tokens of the body, not counting tokens made only of [S#] markers"
_MARKERS_ONLY = re.compile(r"(?:\[S[0-9]+\])+")


def word_count(body: str) -> int:
    """Words in ``body`` under :data:`WORD_COUNT_RULE`."""
    return sum(1 for token in body.split() if not _MARKERS_ONLY.fullmatch(token))


def _word_count(article: Article) -> list[Finding]:
    counted = word_count(article.body)
    if counted == article.editorial_word_count:
        return []
    if article.editorial_word_count == len(article.body.split()):
        # the other way to count, with the markers as words: a convention, not a wrong count
        return [Finding(
            Severity.note, "word-count",
            f"editorial_word_count {article.editorial_word_count} counts the [S#] markers as "
            f"words; the desk's rule ({WORD_COUNT_RULE}) gives {counted}",
            "/editorial_word_count")]
    return [Finding(
        Severity.error, "word-count",
        f"editorial_word_count is {article.editorial_word_count} but the body has {counted} "
        f"words ({WORD_COUNT_RULE})", "/editorial_word_count")]


def _independence(article: Article) -> list[Finding]:
    scope = article.benchmark_scope
    if scope is None or scope.independent_reproduction:
        return []
    findings = []
    for i, fact in enumerate(article.facts):
        if fact.evidence_type in INDEPENDENT_EVIDENCE and not fact.measurement_ids:
            findings.append(Finding(
                Severity.error, "independence-contradiction",
                f"fact {fact.id} claims {fact.evidence_type.value} but the benchmark scope says "
                "independent_reproduction: false", f"/facts/{i}/evidence_type"))
    return findings


def check_consistency(article: Article) -> list[Finding]:
    """Word count and independent-verification consistency."""
    return _word_count(article) + _independence(article)
