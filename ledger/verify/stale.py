"""Prose guardrails that keep a dated status from being read as today's.

Editors write them as "do not present its hit rate as the performance of the current
release", "Do not present the 15% inference figure from the April 2025 versions as the current
headline", "'More than eight months in production' is as of the paper's August 2024
publication; do not restate it as HPN's current deployment age". :func:`stale_rule` reads what
the guardrail dates: the figures it names (not its dates, which say when the status held) and
the words of its subject and of what it must not be presented as ("hit rate", "release").

The body breaks the guardrail where one clause says the status holds now ("now", "still",
"today", "current", "remains", "to this day") and names what the guardrail dates: one of its
figures, or, when it names none, two of its words. A clause that denies or dates the status
("not a current quote", "at the time of writing", "as of 2024") does not. Reading prose is
uncertain, so a violation is a warning (rule ``guardrail``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..figures import FigureKind, extract_figures
from ..models import Article
from ..report import Finding
from .prose import clauses
from .text import prose_guardrail_warning

__all__ = ["Stale", "check_stale", "stale_rule"]

_RULE_RE = re.compile(
    r"\b(?:do\s+not|don't|never|not)\s+(?:"
    r"(?:present|report|restate|repeat|describe|treat|cite|quote|call|read|frame|label|"
    r"pass\s+off)\s+"
    r"(?P<x>[^;.]+?)\s+as\s+(?P<y>(?:[\w'-]+\s+){0,4}?"
    r"(?:current|present-day|today's|up-to-date)\b[^;.]*)"
    # "Do not state that Triton lacks AMD GPU support today"
    r"|(?:state|say|claim|write|imply|suggest)\s+that\s+(?P<x2>[^;.]+?)\s+"
    r"(?:today|now|currently|still)\b)", re.IGNORECASE)
#: Words that say a status holds now.
_NOW_RE = re.compile(r"\b(?:now|still|today|current|currently|remains?|to\s+this\s+day|"
                     r"at\s+present|presently|these\s+days|as\s+it\s+stands)\b", re.IGNORECASE)
#: Words that deny the status holds now ("not a figure for the current release", "no
#: longer"), or date it ("at the time of writing", "as of 2024"), in the same clause; a
#: negation of the status itself ("AMD GPUs are still not supported") is no denial.
_DATED_RE = re.compile(r"\b(?:(?:not|never)\s+(?:[\w'-]+\s+){0,4}?(?:current|now|today|"
                       r"still|currently)|no\s+longer|at\s+the\s+time|as\s+of|then|until|"
                       r"whether|if|may|might|could|superseded|historical|older|earlier|stale|"
                       r"dated)\b|\?", re.IGNORECASE)
_STOP = frozenset({
    "the", "a", "an", "its", "it", "their", "them", "they", "this", "that", "these", "those",
    "of", "for", "from", "in", "on", "at", "to", "by", "with", "and", "or", "as", "is", "are",
    "was", "were", "be", "been", "current", "currently", "figure", "figures", "number",
    "numbers", "result", "results", "value", "values", "claim", "claims", "describing",
    "version", "versions", "status", "today", "now", "still", "present", "any", "one", "own",
    "paper", "paper's", "post", "page", "source", "article", "headline",
})


@dataclass(frozen=True)
class Stale:
    """What a guardrail dates: its figures' values and its subject's words."""

    values: tuple[tuple, ...]
    words: tuple[str, ...]


def stale_rule(text: str) -> Stale | None:
    m = _RULE_RE.search(text)
    if m is None:
        return None
    values = tuple(dict.fromkeys(
        f.values for f in extract_figures(text)
        if f.kind is not FigureKind.date and not (f.kind is FigureKind.number
                                                   and f.values and 1900 <= f.values[0] <= 2100)))
    words = tuple(dict.fromkeys(
        w.lower() for w in re.findall(r"[A-Za-z][\w-]*(?:'s)?",
                                      f"{m.group('x') or m.group('x2')} {m.group('y') or ''}")
        if w.lower() not in _STOP and len(w) > 2 and not w.lower().endswith("'s")))
    if not values and len(words) < 2:
        return None
    return Stale(values, words)


def _word_re(word: str) -> re.Pattern[str]:
    stem = word[:-1] if word.endswith("s") and len(word) > 4 else word
    return re.compile(rf"(?<![\w-]){re.escape(stem)}\w*", re.IGNORECASE)


def check_stale(rule: Stale, article: Article, index: int) -> list[Finding]:
    """Warnings where a clause says what the guardrail dates holds now."""
    findings = []
    for clause in clauses(article.body):
        now = _NOW_RE.search(clause.text)
        if now is None or _DATED_RE.search(clause.text):
            continue
        hits = [(f.start, f.end) for f in extract_figures(clause.text) if f.values in rule.values]
        if not hits:
            found = [m for w in rule.words if (m := _word_re(w).search(clause.text))]
            if len(found) < 2:
                continue
            hits = [(m.start(), m.end()) for m in found]
        start = clause.start + min(now.start(), *(h[0] for h in hits))
        end = clause.start + max(now.end(), *(h[1] for h in hits))
        findings.append(prose_guardrail_warning(
            article, index, start, end,
            f"this clause presents what the guardrail dates as holding now ({now.group()!r})"))
    return findings
