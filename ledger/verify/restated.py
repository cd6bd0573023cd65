"""Arithmetic restated in prose: a body clause that restates an inference's claim must keep its
result.

The desk works a figure out in an inference ("The daily peak of 60K requests is twice the
daily average of 30K", with the computation ``60000 / 30000 = 2``) and then says it again in
the body ("the daily peak is twice the average"). When an edit changes the body's figure
("three times the average"), the figure may still trace by coincidence to some other evidence
(a 3.3x result rounds to "three times"), or to nothing; either way the body no longer says what
the desk's arithmetic gives. :func:`ledger.verify.tracing.check_tracing` reports
``arithmetic`` at the figure (and ``untraced-figure`` too when it traces to nothing).

A clause *restates* a claim when they share enough anchors: content words (``daily``,
``peak``, ``average``: two points each beyond the first) and other figures of the same value
(``128k`` and ``40k`` around "3.4 times": three points each); :data:`MIN_ANCHORS` in all, with
at least one anchor on each side of the figure. The figure is then aligned with the claim's one
figure of the same kind that no other figure of the clause restates, when that figure stands
where the body's stands (a content word within three words on the same side, or the same
figures on both sides). It is a changed result
when its value is none of the inference's values (its claim's figures, its computation's inputs
and results, the figures of its assumptions) at the figure's printed precision.

Each check is linear in the body: the clauses are scanned once, and each is compared with the
article's inferences (a handful).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from ..figures import Figure, FigureKind, extract_figures, quantize
from ..models import Article, Inference
from ..quantities import Kind, Quantity, lemma, typed_figures
from .prose import Span, clauses

__all__ = ["MIN_ANCHORS", "Restatement", "restatements"]

#: Anchor points a clause needs to count as a restatement of a claim.
MIN_ANCHORS = 5
_KINDS = frozenset({Kind.multiplier, Kind.percent, Kind.points, Kind.size, Kind.rate,
                    Kind.duration, Kind.money})
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'-]+")
_STOP = frozenset({
    "the", "and", "for", "with", "that", "this", "than", "from", "into", "over", "under",
    "about", "roughly", "nearly", "around", "some", "just", "its", "their", "his", "her", "our",
    "are", "was", "were", "is", "be", "been", "has", "have", "had", "not", "but", "also", "only",
    "times", "time", "twice", "half", "fold", "percent", "per", "cent", "which", "what", "when",
    "so", "still", "then", "thus", "there", "these", "those", "they", "them", "it", "of", "to",
    "in", "on", "at", "by", "as", "or", "an", "a", "pct", "desk", "reading", "arithmetic",
})


@dataclass(frozen=True)
class Restatement:
    """A body figure that restates ``claim_figure`` of ``inference`` with another value."""

    figure: Figure
    inference: Inference
    claim_figure: Figure


def _words(text: str) -> set[str]:
    return {lemma(w) for w in _WORD_RE.findall(text) if w.lower() not in _STOP and len(w) > 2}


def _same_value(a: Figure, b: Figure) -> bool:
    return bool(a.values and b.values) and any(
        quantize(v, min(a.decimals, b.decimals)) == quantize(w, min(a.decimals, b.decimals))
        for v in a.values for w in b.values)


def _inference_values(inf: Inference) -> list[Decimal]:
    values: list[Decimal] = []
    for text in [inf.claim, *(inf.assumptions or [])]:  # as written and as read ("1 h 12 min")
        values += [v for f in extract_figures(text) if f.kind is not FigureKind.date
                   for v in f.values]
        values += [v for f, _ in typed_figures(text) if f.kind is not FigureKind.date
                   for v in f.values]
    if inf.computation is not None:
        numbers = [*inf.computation.inputs.values(), *(s.result for s in inf.computation.steps)]
        values += [Decimal(repr(float(n))) for n in numbers]
    return values


def _states(values: list[Decimal], figure: Figure, quantity: Quantity) -> bool:
    """One of the inference's values is the figure's value at its printed precision (a percent
    also as a fraction: 45% = 0.45)."""
    scales = (Decimal(1), Decimal(100)) if quantity.kind in (Kind.percent, Kind.points) else (
        Decimal(1),)
    return all(any(quantize(v * s, figure.decimals) == value for v in values for s in scales)
               for value in figure.values)


def _anchors(clause: list[tuple[Figure, Quantity]], text: str, fig: Figure,
             claim: list[tuple[Figure, Quantity]], claim_words: set[str], span: Span
             ) -> tuple[int, bool]:
    """Anchor points shared by the clause and the claim, and whether they lie on both sides of
    the figure."""
    before = _words(text[span.start:fig.start])
    after = _words(text[fig.end:span.end])
    score, sides = 0, [False, False]
    for side, words in enumerate((before, after)):
        shared = words & claim_words
        if shared:
            score += 2 * len(shared)
            sides[side] = True
    for g, _ in clause:
        if g is not fig and any(_same_value(g, c) for c, _ in claim):
            score += 3
            sides[0 if g.end <= fig.start else 1] = True
    return score, all(sides)


def _aligned(fig: Figure, quantity: Quantity, clause: list[tuple[Figure, Quantity]],
             claim: list[tuple[Figure, Quantity]], body: str, span: Span, claim_text: str
             ) -> Figure | None:
    """The claim's one figure of the figure's kind that no other figure of the clause restates,
    when it stands where the figure stands: a content word shared within three words on the
    same side ("is [twice] the daily *average*" / "is [three times] the *average*"), or the
    same figures on both sides ("128k is [3.2 times] the 40k")."""
    others = [g for g, _ in clause if g is not fig]
    free = [(c, n) for n, (c, r) in enumerate(claim) if r.kind is quantity.kind
            and not any(_same_value(g, c) for g in others)]
    if len(free) != 1:
        return None
    target, n = free[0]
    lo, hi = _bounds(claim_text, target)
    body_near = _near(body, fig, span.start, span.end)
    claim_near = _near(claim_text, target, lo, hi)
    if any(a & b for a, b in zip(body_near, claim_near, strict=True)):
        return target
    k = next(k for k, (g, _) in enumerate(clause) if g is fig)
    before = k > 0 and n > 0 and _same_value(clause[k - 1][0], claim[n - 1][0])
    after = k + 1 < len(clause) and n + 1 < len(claim) and _same_value(
        clause[k + 1][0], claim[n + 1][0])
    return target if before and after else None


_CLAIM_CLAUSE_RE = re.compile(r"[;:]")


def _bounds(text: str, fig: Figure) -> tuple[int, int]:
    """The part of a claim between semicolons that holds ``fig``."""
    lo = max((m.end() for m in _CLAIM_CLAUSE_RE.finditer(text, 0, fig.start)), default=0)
    m = _CLAIM_CLAUSE_RE.search(text, fig.end)
    return lo, m.start() if m else len(text)


def _near(text: str, fig: Figure, lo: int, hi: int) -> tuple[set[str], set[str]]:
    """Up to three content words on each side of ``fig`` within ``text[lo:hi]``."""
    before = [w for w in _WORD_RE.findall(text[lo:fig.start])
              if w.lower() not in _STOP and len(w) > 2][-3:]
    after = [w for w in _WORD_RE.findall(text[fig.end:hi])
             if w.lower() not in _STOP and len(w) > 2][:3]
    return {lemma(w) for w in before}, {lemma(w) for w in after}


def restatements(article: Article) -> list[Restatement]:
    """Every body figure that restates an inference's result with another value."""
    claims = [(inf, typed_figures(inf.claim), _words(inf.claim), _inference_values(inf))
              for inf in article.inferences
              if inf.computation is not None and inf.computation.steps]
    if not claims:
        return []
    body = article.body
    figures = typed_figures(body)
    out: list[Restatement] = []
    i = 0
    for span in clauses(body):
        while i < len(figures) and figures[i][0].start < span.start:
            i += 1
        j = i
        while j < len(figures) and figures[j][0].end <= span.end:
            j += 1
        clause = figures[i:j]
        for fig, quantity in clause:
            if quantity.kind not in _KINDS:
                continue
            for inf, claim, words, values in claims:
                if _states(values, fig, quantity):
                    continue
                score, both_sides = _anchors(clause, body, fig, claim, words, span)
                if score < MIN_ANCHORS or not both_sides:
                    continue
                target = _aligned(fig, quantity, clause, claim, body, span, inf.claim)
                if target is not None:
                    out.append(Restatement(fig, inf, target))
                    break
    return out
