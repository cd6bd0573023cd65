"""``mislabeled-figure`` by what a figure is counted per: "60-120 kW per CDU" for the sources'
"60-120 kW per server rack".

A figure normalised per thing ("kW per rack", "tokens/s per GPU", "$2 per hour of H100") is
only the source's figure when it is per the same thing. For each traced figure of the body that
is followed by "per NOUN" (not a unit of time, which belongs to the unit: "tokens per second"),
the facts it traces to are read for the same number: when every one of them writes that number
with a "per" of its own, and no such noun shares a word with the body's, the figure is counted
per another thing. Nouns are compared by their lemmas, so "per server rack" and "per rack"
agree, and so do a few names of one thing ("per chip", "per ASIC"); the finding is a warning,
since two nouns may name one thing all the same. A figure in words is left alone.
"""

from __future__ import annotations

import re

from ..figures import FigureKind
from ..models import Article
from ..quantities import lemma, typed_figures
from ..report import Finding, Severity
from .text import body_span
from .tracing import TracedFigure, tried

__all__ = ["check_normalisers"]

#: "per NOUN" right after a figure and its unit: "60-120 kW per server rack", "3 GB/s per GPU";
#: "each" and "a" are the same ("$2 an hour" is time, read by the unit).
_PER_RE = re.compile(r"\s*(?:[^\s\d,;.()]+\s+)?per\s+(?:the\s+|each\s+|a\s+|an\s+|one\s+)?"
                     r"(?P<noun>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?)")
#: Units of time and the like after "per": part of the unit, not a thing counted.
_TIME = frozenset({"second", "sec", "s", "minute", "min", "hour", "hr", "h", "day", "week",
                   "month", "year", "annum", "cent", "percent"})
#: Nouns that name one thing ("per chip" is "per ASIC"); a card, which may carry two chips, is
#: not one of them.
_SAME_THING = {"asic": "chip", "die": "chip", "cabinet": "rack", "host": "server",
               "node": "server", "machine": "server"}
#: Words after the noun that end it: "per rack has become", "per GPU and".
_STOP = frozenset({"has", "have", "had", "is", "are", "was", "were", "and", "or", "in", "on",
                   "at", "to", "for", "with", "of", "by", "from", "as", "that", "which",
                   "while", "but", "so", "than", "the", "a", "an"})


def _per_noun(text: str, end: int) -> tuple[frozenset[str], int] | None:
    """The lemmas of the noun a figure ending at ``end`` is counted per, and where the noun
    ends; None without one."""
    m = _PER_RE.match(text, end)
    if m is None:
        return None
    words = m.group("noun").split()
    if len(words) > 1 and words[1].lower() in _STOP:
        words = words[:1]
    lemmas = frozenset(_SAME_THING.get(w, w) for w in (lemma(w.lower()) for w in words))
    if not lemmas or lemmas & _TIME:
        return None
    return lemmas, m.start("noun") + len(" ".join(words))


def _fact_pers(article: Article, t: TracedFigure) -> list[frozenset[str] | None]:
    """For each fact the figure traces to, the noun its number is counted per there (None:
    the fact writes the number without one)."""
    out: list[frozenset[str] | None] = []
    values = tuple(t.figure.values)
    for trace in t.traces:
        if trace.origin != "fact" or trace.fact_id is None:
            continue
        fact = next((f for f in article.facts if f.id == trace.fact_id), None)
        if fact is None:
            continue
        for fig, _ in typed_figures(fact.claim):
            if tuple(fig.values) == values:  # a range is its two ends, not one of them
                per = _per_noun(fact.claim, fig.end)
                out.append(per[0] if per else None)
    return out


def check_normalisers(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """``mislabeled-figure`` warnings for figures counted per another thing than their facts'
    (see the module doc)."""
    findings = []
    for t in traced:
        if (not t.traces or t.figure.kind is FigureKind.date or t.quantity is None
                or t.figure.spelled):  # "three runs per configuration": prose's number
            continue
        found = _per_noun(article.body, t.figure.end)
        if found is None:
            continue
        body_per, end = found
        pers = _fact_pers(article, t)
        if not pers or any(p is None or p & body_per for p in pers):
            continue
        theirs = sorted({w for p in pers if p for w in p})
        findings.append(body_span(
            article, t.figure.start, end, Severity.warning, "mislabeled-figure",
            f"{article.body[t.figure.start:end]!r} counts the figure per another thing than "
            f"its facts: they count {t.figure.text!r} per {', '.join(theirs)}; a figure "
            "normalised per another thing is another figure (the checker compares the nouns' "
            "words and cannot be sure they name different things)", trace=tried(t)))
    return findings
