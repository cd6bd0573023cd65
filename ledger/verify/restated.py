"""Arithmetic restated in prose: a body sentence that restates an inference's claim must keep its
result.

The desk works a figure out in an inference ("The daily peak of 60K requests is twice the
daily average of 30K", with the computation ``60000 / 30000 = 2``) and then says it again in
the body ("the daily peak is twice the average"). When an edit changes the body's figure
("three times the average"), the figure may still trace by coincidence to some other evidence
(a 3.3x result rounds to "three times"), or to nothing; either way the body no longer says what
the desk's arithmetic gives. :func:`ledger.verify.tracing.check_tracing` reports
``arithmetic`` at the figure (and ``untraced-figure`` too when it traces to nothing).

A sentence *restates* a claim when they share enough anchors: content words (``daily``,
``peak``, ``average``: two points each) and other figures of the same value (``128k`` and
``40k`` around "3.4 times": three points each); :data:`MIN_ANCHORS` in all, with at least one
anchor on each side of the figure. The figure is then aligned with a *result* of the claim (a
figure a computation step gives, not an operand) of the same kind, unit and counted noun that
no other figure of the sentence restates and that stands where the body's stands: content
words shared within three words on the same side, or the same figures on both sides; of
several, the one sharing most. It is a changed result when its value is none of the values the
inference states as that kind or computes, at the figure's printed precision, and none that
another of the article's inferences gives (two inferences of one shape, about two machines,
share their words; each figure is the one's that gives it). A body figure that traces to a
source (a fact's 22.2x, a table row's bare 731 beside "731 tokens/s") is the source's figure,
unless it stands exactly where the claim's result stands (words shared on both sides).

Each check is linear in the body: the sentences are scanned once, and each is compared with the
article's inferences (a handful).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from ..figures import Figure, FigureKind, quantize
from ..models import Article, Inference
from ..quantities import Kind, Quantity, lemma, metric_quantity, typed_figures, unit_end
from .arithmetic import money_scale
from .prose import Span, sentences

__all__ = ["MIN_ANCHORS", "Restatement", "restatements", "value_key"]

#: Anchor points a sentence needs to count as a restatement of a claim.
MIN_ANCHORS = 5
_KINDS = frozenset({Kind.multiplier, Kind.percent, Kind.points, Kind.size, Kind.rate,
                    Kind.duration, Kind.money, Kind.count})
#: Kinds a computation gives as results; an operand of the same number is no such result.
_RATIOS = frozenset({Kind.multiplier, Kind.percent, Kind.points})
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


def value_key(q: Quantity | None) -> object:
    """What a value is filed under: its kind, a count with its noun class, a number as None."""
    if q is None or q.kind is Kind.number:
        return None
    if q.kind is Kind.count:
        return (Kind.count, q.noun_class or q.noun)
    return q.kind


def _inference_values(inf: Inference) -> dict[object, list[Decimal]]:
    """The values an inference states or computes, by kind: its claim's and assumptions'
    figures under their kinds (plain numbers under None), its computation's results under None
    and its inputs under "operand": an operand may be restated as a size or a count ("two 100
    Gbps NICs"), never as a multiple ("208 GB is 13 times the GPU's 16 GB": 16 is no
    multiple)."""
    values: dict[object, list[Decimal]] = {}
    for text in [inf.claim, *(inf.assumptions or [])]:
        for f, q in typed_figures(text):
            if f.kind is not FigureKind.date:
                values.setdefault(value_key(q), []).extend(f.values)
            if q.kind is Kind.percent:  # a share ("55.6% of the baseline") or a change
                values.setdefault((_WAY, q.direction), []).extend(f.values)
    if inf.computation is not None:
        values.setdefault(None, []).extend(
            Decimal(repr(float(s.result))) for s in inf.computation.steps)
        for name, v in inf.computation.inputs.items():  # "nic_gbps": a rate, "nodes": a count
            operand = metric_quantity(name)
            key = value_key(operand) if operand is not None else "operand"
            values.setdefault(key, []).append(Decimal(repr(float(v))))
    return values


#: Key of a claim's percents by what they are: a share (direction None) or a change.
_WAY = "percent-way"


def _other_way(values: dict[object, list[Decimal]], figure: Figure, quantity: Quantity) -> bool:
    """A percent that the claim states as the other of a share and a change, while it states
    another value as this one: "a cut of 55.6%" restating "55.6% of the baseline, a 44.4%
    reduction" gives the share as the cut. Only a figure written as a change: one with no
    direction of its own ("the uplift ... is 37.5%") may be either."""
    if quantity.kind is not Kind.percent or quantity.direction is None:
        return False
    way = values.get((_WAY, quantity.direction), [])
    other = [v for d in (None, "increase", "decrease") if d != quantity.direction
             for v in values.get((_WAY, d), [])]

    def among(pool: list[Decimal]) -> bool:
        return all(any(quantize(v, figure.decimals) == value for v in pool)
                   for value in figure.values)

    return bool(way) and not among(way) and among(other)


def _states(values: dict[object, list[Decimal]], figure: Figure, quantity: Quantity) -> bool:
    """The inference states or computes the figure's value as its kind, at the figure's printed
    precision (a percent also as a fraction: 45% = 0.45); not a percent it states only as the
    other of a share and a change (:func:`_other_way`)."""
    if _other_way(values, figure, quantity):
        return False
    scales = (Decimal(1), Decimal(100)) if quantity.kind in (Kind.percent, Kind.points) else (
        Decimal(1),)
    candidates = [*values.get(value_key(quantity), []), *values.get(None, [])]
    if quantity.kind not in _RATIOS:  # "two 100 Gbps NICs": an operand restated
        candidates += values.get("operand", [])
    return all(any(quantize(v * s, figure.decimals) == value for v in candidates
                   for s in scales) for value in figure.values)


def _anchors(sentence: list[tuple[Figure, Quantity]], text: str, fig: Figure,
             claim: list[tuple[Figure, Quantity, bool]], claim_words: set[str], span: Span
             ) -> tuple[int, bool]:
    """Anchor points shared by the sentence and the claim, and whether they lie on both sides of
    the figure."""
    before = _words(text[span.start:fig.start])
    after = _words(text[fig.end:span.end])
    score, sides = 0, [False, False]
    for side, words in enumerate((before, after)):
        shared = words & claim_words
        if shared:
            score += 2 * len(shared)
            sides[side] = True
    for g, _ in sentence:
        if g is not fig and any(_same_value(g, c) for c, _, _ in claim):
            score += 3
            sides[0 if g.end <= fig.start else 1] = True
    return score, all(sides)


def _aligned(fig: Figure, quantity: Quantity, sentence: list[tuple[Figure, Quantity]],
             claim: list[tuple[Figure, Quantity, bool]], body: str, span: Span, claim_text: str
             ) -> tuple[Figure, bool] | None:
    """The claim's result (not an operand) of the figure's kind (a count: of the same thing)
    that no other figure of the sentence restates and that stands where the figure stands: content words shared
    within three words on the same side ("is [twice] the daily *average*" / "is [three times]
    the *average*"), or the same figures on both sides ("128k is [3.2 times] the 40k"). Of
    several, the one that shares most; none when two share as much. True beside it when words
    besides the unit are shared on both sides: the figure stands exactly where the claim's
    result stands."""
    others = [g for g, _ in sentence if g is not fig]
    k = next(k for k, (g, _) in enumerate(sentence) if g is fig)
    body_near = _near(body, fig, span.start, span.end)
    body_past = _near(body, fig, span.start, span.end, past_unit=True)
    scored: list[tuple[int, int, bool]] = []
    for n, (c, r, result) in enumerate(claim):
        if not result or not _same_quantity(quantity, r) or any(
                _same_value(g, c) for g in others) or _measures_other(body, fig, claim_text, c):
            continue
        lo, hi = _bounds(claim_text, c)
        shared = [len(a & b) for a, b in zip(body_near, _near(claim_text, c, lo, hi),
                                              strict=True)]
        # where the result stands exactly: words shared on both sides besides the unit, which
        # both figures have by being the same quantity ("measured 1,800 tokens per second on
        # the 8B" does not stand where "is 4 tokens per second below" does)
        exact = all(len(a & b) for a, b in zip(
            body_past, _near(claim_text, c, lo, hi, past_unit=True), strict=True))
        before = k > 0 and n > 0 and _same_value(sentence[k - 1][0], claim[n - 1][0])
        after = k + 1 < len(sentence) and n + 1 < len(claim) and _same_value(
            sentence[k + 1][0], claim[n + 1][0])
        # a change of the same way is a word shared: "a cut of 60%" stands where "a 60%
        # reduction" does
        way = quantity.kind is Kind.percent and quantity.direction is not None and (
            quantity.direction == r.direction)
        if any(shared) or (before and after) or way:
            scored.append((sum(shared) + 2 * before + 2 * after + way, n, exact))
    scored.sort(reverse=True)
    if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return claim[scored[0][1]][0], scored[0][2]


def _same_quantity(a: Quantity, b: Quantity) -> bool:
    """The same kind in the same unit (a restatement keeps its unit; "about 500 GB" beside a
    claim's "160 GiB" is another figure), a count of the same thing."""
    if a.kind is not b.kind:
        return False
    if (a.unit is None) != (b.unit is None) or (
            a.unit is not None and b.unit is not None and a.unit.symbol != b.unit.symbol):
        return False
    if a.kind is Kind.count:
        return a.noun == b.noun or (a.noun_class is not None and a.noun_class == b.noun_class)
    return True


#: What a size, a count or a rate measures, named after it: "140 GB [for its weights] in FP16",
#: "120 GB [of KV cache] on Llama".
_MEASURED_RE = re.compile(
    r"\s*(?:[A-Za-z]+(?:/[A-Za-z]+)?\s+)?(?:of|for)\s+(?P<rest>[^,;:.()\[\]]{1,60})")
_PHRASE_END = frozenset({"on", "in", "at", "with", "per", "to", "from", "by", "and", "or", "for",
                         "of", "across", "over", "under", "before", "after", "is", "are", "was",
                         "were", "which", "that", "while", "than", "against"})


def _measured(text: str, fig: Figure) -> set[str]:
    """The content words of what the figure measures, named right after it and its unit ("of a
    30 ms decode step": decode, step); empty when none is named."""
    m = _MEASURED_RE.match(text, fig.end)
    if m is None:
        return set()
    words: set[str] = set()
    for word in m.group("rest").split():
        if word.lower() in _PHRASE_END:
            break
        if _WORD_RE.fullmatch(word) and word.lower() not in _STOP and len(word) > 2:
            words.add(lemma(word.lower()))
    return words


def _measures_other(body: str, fig: Figure, claim_text: str, claim_fig: Figure) -> bool:
    """Both figures name what they measure, and the two share no word: "140 GB for its
    weights" restates nothing of "120 GB of KV cache", however close the words around them."""
    mine, theirs = _measured(body, fig), _measured(claim_text, claim_fig)
    return bool(mine and theirs) and not mine & theirs


_CLAIM_CLAUSE_RE = re.compile(r"[;:]")


def _bounds(text: str, fig: Figure) -> tuple[int, int]:
    """The part of a claim between semicolons that holds ``fig``."""
    lo = max((m.end() for m in _CLAIM_CLAUSE_RE.finditer(text, 0, fig.start)), default=0)
    m = _CLAIM_CLAUSE_RE.search(text, fig.end)
    return lo, m.start() if m else len(text)


def _near(text: str, fig: Figure, lo: int, hi: int, past_unit: bool = False
          ) -> tuple[set[str], set[str]]:
    """Up to three content words on each side of ``fig`` within ``text[lo:hi]``; with
    ``past_unit`` the words after start past the figure's unit ("4 tokens per second below"
    and "1,800 output tokens per second on" then share no word)."""
    before = [w for w in _WORD_RE.findall(text[lo:fig.start])
              if w.lower() not in _STOP and len(w) > 2][-3:]
    after_from = min(unit_end(text, fig.end), hi) if past_unit else fig.end
    after = [w for w in _WORD_RE.findall(text[after_from:hi])
             if w.lower() not in _STOP and len(w) > 2][:3]
    return {lemma(w) for w in before}, {lemma(w) for w in after}


def restatements(article: Article, sourced: frozenset[int] = frozenset()
                 ) -> list[Restatement]:
    """Every body figure that restates an inference's result with another value. ``sourced``:
    the body offsets of figures that trace to what the sources give (facts, metrics,
    measurements; a table row written as a bare number too); such a figure is the sources'
    figure, not the desk's result. A figure whose value one of the article's inferences states
    or computes as its kind is that inference's figure, whatever other claim shares its
    words ("4 cards give 512 GB" beside a claim that 8 GPUs give 1,128 GB)."""
    claims = [(inf, _results(inf, typed_figures(inf.claim)), _words(inf.claim),
               _inference_values(inf))
              for inf in article.inferences
              if inf.computation is not None and inf.computation.steps]
    if not claims:
        return []
    body = article.body
    figures = typed_figures(body)
    given = [(f, q) for inf in article.inferences for text in [inf.claim, *(inf.assumptions or [])]
             for f, q in typed_figures(text) if f.kind is not FigureKind.date]
    out: list[Restatement] = []
    i = 0
    for span in sentences(body):
        while i < len(figures) and figures[i][0].start < span.start:
            i += 1
        j = i
        while j < len(figures) and figures[j][0].end <= span.end:
            j += 1
        sentence = figures[i:j]
        for fig, quantity in sentence:
            if quantity.kind not in _KINDS or _given(fig, quantity, given) or (
                    _precise(fig) and any(_states(values, fig, quantity)
                                          for *_, values in claims)):
                continue  # one of the inferences gives it precisely: that inference's figure
            for inf, claim, words, values in claims:
                if _states(values, fig, quantity):
                    continue
                score, both_sides = _anchors(sentence, body, fig, claim, words, span)
                if score < MIN_ANCHORS or not both_sides:
                    continue
                aligned = _aligned(fig, quantity, sentence, claim, body, span, inf.claim)
                # a value the sources state is their figure, unless it stands exactly where the
                # claim's result stands ("means two GPUs per node" for "is four GPUs per node")
                if aligned is not None and (aligned[1] or fig.start not in sourced) and not (
                        fig.start in sourced and (_far_apart(fig, aligned[0]) or _other_machine(
                            body[span.start:span.end], inf.claim) or _per_unit(
                            fig, aligned[0], inf.claim))):
                    out.append(Restatement(fig, inf, aligned[0]))
                    break
    return out


def _precise(fig: Figure) -> bool:
    """Three or more significant digits ("31.19"): a value another inference computes at that
    precision is its figure, not a coincidence ("sixfold", "2.7 GB" may be)."""
    digits = re.sub(r"\D", "", fig.text.split("e")[0]).lstrip("0")
    return not fig.spelled and len(digits) >= 3


#: A product's model name, with a digit ("p5.48xlarge", "ND96isr_H100_v5", "MI300X").
_MODEL_TOKEN_RE = re.compile(r"(?<![\w.-])[A-Za-z][\w.-]*\d[\w.-]*(?<![.-])")


def _other_machine(sentence: str, claim: str) -> bool:
    """The sentence and the claim each name a product the other does not ("AWS's
    p5.48xlarge at $55.04 an hour" beside a claim on ND96isr_H100_v5 at $98.32): a sourced
    figure there is the other product's, not the claim's result changed."""
    def names(text: str) -> set[str]:  # "A100s" is "A100"
        return {re.sub(r"(?<=\d)s$", "", n.lower()) for n in _MODEL_TOKEN_RE.findall(text)}
    mine, theirs = names(sentence), names(claim)
    return bool(mine - theirs) and bool(theirs - mine) and not mine & theirs


def _per_unit(fig: Figure, result: Figure, claim: str) -> bool:
    """The claim's result is the figure times a count the claim states ("$8,972 for a month"
    of one GPU beside an eight-GPU machine's $71,773.60): the figure is per unit, the result
    the total, not the result changed."""
    a, b = fig.values[0] if fig.values else None, result.values[0] if result.values else None
    if not a or not b:
        return False
    ratio = abs(b / a)
    counts = {v for f, q in typed_figures(claim) if q.kind is Kind.count for v in f.values
              if v >= 2}
    return any(abs(ratio - n) <= n / 200 for n in counts)


def _far_apart(fig: Figure, result: Figure) -> bool:
    """The two values differ more than tenfold: a sourced figure so far from the claim's
    result ("at 32,768 tokens" beside "30.2 million tokens") is another quantity, not the
    result changed."""
    a, b = fig.values[0] if fig.values else None, result.values[0] if result.values else None
    if not a or not b:
        return False
    ratio = abs(a / b)
    return ratio > 10 or ratio < Decimal("0.1")


def _given(fig: Figure, quantity: Quantity, given: Sequence[tuple[Figure, Quantity]]) -> bool:
    """An inference's claim or assumption states the figure: the same quantity (kind, unit,
    counted noun; for a percent, a share or a change alike), printed at least as precisely,
    equal at the figure's precision."""
    return any(_same_quantity(quantity, q) and g.decimals >= fig.decimals
               and (quantity.direction is None) == (q.direction is None)
               and len(g.values) == len(fig.values)
               and all(quantize(w, fig.decimals) == v
                       for v, w in zip(fig.values, g.values, strict=True))
               for g, q in given)


def _results(inf: Inference, claim: Sequence[tuple[Figure, Quantity]]
             ) -> list[tuple[Figure, Quantity, bool]]:
    """The claim's figures, each marked whether it is a result of the computation (a step's
    result at the figure's precision; a percent also as a fraction or its complement) rather
    than an operand."""
    assert inf.computation is not None
    results = [Decimal(repr(float(s.result))) for s in inf.computation.steps]
    out = []
    for f, q in claim:
        scales = (Decimal(1), Decimal(100)) if q.kind in (Kind.percent, Kind.points) else (
            Decimal(1), money_scale(f)) if q.kind is Kind.money else (Decimal(1),)
        candidates = [r * k for r in results for k in scales]
        if q.kind is Kind.percent:
            candidates += [(1 - r) * 100 for r in results if 0 < r < 1]
        out.append((f, q, bool(f.values) and all(
            any(quantize(c, f.decimals) == v for c in candidates) for v in f.values)))
    return out
