"""Two figures of one source sentence restated with their values swapped.

"302 GB/s for writes and 313 GB/s for reads" restated as "313 GB/s for writes and 302 GB/s for
reads": each value traces, so nothing else notices. A body sentence whose two figures trace to
the same fact, whose shared words keep the fact's order while the two values come in the
opposite order, has swapped them. Reading word order is a heuristic, so the finding
(``mislabeled-figure``) is a warning that says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from itertools import combinations

from ..figures import FigureKind
from ..models import Article
from ..quantities import typed_figures
from ..report import Finding, Severity
from .experiments import derived_sentences
from .prose import group_in, sentences
from .text import body_span
from .tracing import TracedFigure

__all__ = ["check_swaps"]

_FACT_RE = re.compile(r"^/facts/(?P<i>\d+)/claim$")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9-]+")
_STOP = frozenset({"the", "and", "for", "with", "about", "than", "that", "this", "from", "into",
                   "while", "where", "its", "their", "was", "were", "are", "per", "each", "at",
                   "on", "in", "of", "to", "by", "up", "or", "as", "is", "it", "a", "an"})


def _words(text: str) -> list[str]:
    words = [w.lower() for w in _WORD_RE.findall(text)]
    return [w for w in words if w not in _STOP and words.count(w) == 1]


def _position(text: str, t: TracedFigure) -> int | None:
    """Where the figure's value stands in ``text``; None unless it stands there exactly once."""
    found = [fig.start for fig, _ in typed_figures(text) if fig.values == t.figure.values]
    return found[0] if len(found) == 1 else None


def _comparable(a: TracedFigure, b: TracedFigure) -> bool:
    """Two written-out figures of one kind, unit and noun (or no noun): ones a swap can mix."""
    qa, qb = a.quantity, b.quantity
    if qa is None or qb is None or a.figure.spelled or b.figure.spelled:
        return False
    return (qa.kind is qb.kind and qa.unit == qb.unit and a.figure.values != b.figure.values
            and (qa.noun is None or qb.noun is None or qa.noun == qb.noun))


def _swapped(sentence: str, evidence: str, a: TracedFigure, b: TracedFigure) -> bool:
    pa, pb = _position(evidence, a), _position(evidence, b)
    if pa is None or pb is None or pa < pb:
        return False
    shared = [w for w in _words(sentence) if w in set(_words(evidence))]
    order = sorted(shared, key=lambda w: _words(evidence).index(w))
    return len(shared) >= 2 and shared == order


#: Two figures side by side as one pair: "60% and 70%", "16K, 64K", "30% or about 45%".
_PAIR_JOIN_RE = re.compile(r"\s*(?:,\s*|,?\s+(?:and|or)\s+)(?:about\s+|roughly\s+|around\s+|~)?")
_CONTRAST_RE = re.compile(r"[,;:]\s*(?:though|although|but|while|whereas|yet)\b",
                          re.IGNORECASE)
_NAME_RE = re.compile(r"(?<![\w-])[A-Za-z][\w-]*[A-Z0-9][\w-]*")
_CLAUSE_RE = re.compile(r"[,;:]")


@dataclass(frozen=True)
class _Pair:
    first: tuple[Decimal, ...]
    second: tuple[Decimal, ...]
    before: str  # the text before the pair: the fact up to it


def _pairs(text: str) -> list[_Pair]:
    typed = [f for f, _ in typed_figures(text) if f.kind is not FigureKind.date]
    return [_Pair(a.values, b.values, text[:a.start]) for a, b in zip(typed, typed[1:],
                                                                     strict=False)
            if _PAIR_JOIN_RE.fullmatch(text[a.end:b.start])]


def _names(text: str) -> list[str]:
    """Names (a word with a capital after its first letter, or a digit) that occur once."""
    found = [m.group() for m in _NAME_RE.finditer(text)]
    return [n for n in found if found.count(n) == 1]


def _same_order(body: list[str], fact: list[str]) -> bool:
    shared = [w for w in body if w in fact]
    return len(shared) >= 2 and shared == sorted(shared, key=fact.index)


def _in_fact_order(before: str, pair: _Pair) -> bool:
    """What the body names before the pair comes in the fact's order: the names both give
    ("GLM-4 and LLaMA-3 ... 64K and 16K"), else the words of the clause just before the
    pair ("average and P99 TTFT by 60% and 70%"). A body that reorders the names as well as
    the values has not swapped them."""
    names = [n for n in _names(before) if n != before.split()[0]] if before.split() else []
    fact_names = _names(pair.before)
    if len([n for n in names if n in fact_names]) >= 2:
        return _same_order(names, fact_names)
    return _same_order(_words(_CLAUSE_RE.split(before)[-1]),
                       _words(_CLAUSE_RE.split(pair.before)[-1]))


def _pair_swaps(article: Article, by_sentence: dict[int, list[TracedFigure]]) -> list[Finding]:
    """A pair of figures written side by side ("16K and 64K") that a fact gives side by side in
    the opposite order ("64K and 16K"), never in this one, while the names or words before it
    keep the fact's order: a "respectively" list with its values swapped."""
    facts = [pair for fact in article.facts for pair in _pairs(fact.claim)]
    if not facts:
        return []
    written = {(p.first, p.second) for p in facts}
    findings = []
    for sentence in sentences(article.body):
        inside = sorted(by_sentence.get(sentence.start, []), key=lambda t: t.figure.start)
        for a, b in zip(inside, inside[1:], strict=False):
            if not _comparable(a, b) or not _PAIR_JOIN_RE.fullmatch(
                    article.body[a.figure.end:b.figure.start]):
                continue
            values = (a.figure.values, b.figure.values)
            if values in written:
                continue
            before = article.body[sentence.start:a.figure.start]
            if any((p.second, p.first) == values and _in_fact_order(before, p) for p in facts):
                findings.append(body_span(
                    article, a.figure.start, b.figure.end, Severity.warning,
                    "mislabeled-figure",
                    f"{a.figure.text!r} and {b.figure.text!r} are a pair the facts give in the "
                    "opposite order, while the names before them keep the fact's order: they "
                    "may be swapped (the checker reads word order and cannot be sure)"))
    return findings


def check_swaps(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """``mislabeled-figure`` warnings for pairs of figures restated in swapped order."""
    findings = []
    spans = sentences(article.body)
    by_sentence = group_in(spans, [t for t in traced if t.traces
                                   and t.figure.kind is not FigureKind.date],
                           lambda t: (t.figure.start, t.figure.end))
    desk = derived_sentences(article, traced)
    for sentence in spans:
        inside = by_sentence.get(sentence.start, [])
        if len(inside) < 2 or sentence.start in desk:
            continue  # the desk's own arithmetic orders figures for its sum
        for a, b in combinations(sorted(inside, key=lambda t: t.figure.start), 2):
            if not _comparable(a, b) or _position(sentence.text, a) is None \
                    or _position(sentence.text, b) is None or _CONTRAST_RE.search(
                        article.body, a.figure.end, b.figure.start):
                continue  # "..., though B's 79 ms": a contrast, not one restated list
            facts = {m.group("i") for tr in a.traces if (m := _FACT_RE.match(tr.pointer))} & {
                m.group("i") for tr in b.traces if (m := _FACT_RE.match(tr.pointer))}
            text = sentence.text
            if any(_swapped(text, article.facts[int(i)].claim, a, b) for i in sorted(facts)):
                findings.append(body_span(
                    article, a.figure.start, b.figure.end, Severity.warning, "mislabeled-figure",
                    f"{a.figure.text!r} and {b.figure.text!r} come in the opposite order in the "
                    "fact they trace to, while the words around them keep the fact's order: "
                    "they may be swapped (the checker reads word order and cannot be sure)"))
                break
    reported = {(f.line, f.column) for f in findings}
    return findings + [f for f in _pair_swaps(article, by_sentence)
                       if (f.line, f.column) not in reported]
