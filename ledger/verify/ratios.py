"""A multiplier stated as the ratio of the two figures just before it.

"The test took 12.1 seconds on one engine and 28.3 on the other, about 2.3 times apart", "33.2
tokens/s alone and 71.5 tokens/s with it, or 2.15x": the multiplier is the desk's reading of
the two figures, so the two decide it. When their ratio does not round to it ("about three
times apart" for 28.3 / 12.1 = 2.34), a 3x found elsewhere in the evidence is a coincidence, not
its source.

Only this shape counts, because only it says which two figures are meant:

* the two figures are of one quantity: the same kind and unit, or the first with a unit and
  the second bare ("12.1 seconds ... and 28.3"); percents are left out ("an 87% cut leaves 13%,
  about 7.7 times faster" compares 100% with 13%, not the two);
* the multiplier follows them in the same sentence, and no other figure comes between;
* it is marked as their ratio: "apart" after it, or ", or" / ", about" / ", roughly" before it;
  a multiplier of a third thing ("roughly 2.5 times the A100's 80 GB") and a list of
  multipliers ("roughly 2.4 and 4.6 times") are not.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from ..figures import Figure, quantize
from ..quantities import Kind, Quantity

__all__ = ["disagrees", "stated_ratios"]

_APART_RE = re.compile(r"\s+apart\b", re.IGNORECASE)
_OR_BEFORE_RE = re.compile(r"(?:,|—|–|:)\s*(?:or|about|roughly|nearly|some|around)\s+"
                           r"(?:about\s+|roughly\s+|nearly\s+|some\s+|around\s+)?$",
                           re.IGNORECASE)
_OF_SOMETHING_RE = re.compile(r"\s*(?:the|a|an|what|that|its|their|and|to)\b", re.IGNORECASE)
_SENTENCE_END_RE = re.compile(r"[.!?;]\s")
_OPERAND_KINDS = frozenset({Kind.duration, Kind.rate, Kind.size, Kind.count, Kind.money})


def _one_quantity(a: Quantity, b: Quantity) -> bool:
    """Two figures of one quantity: same kind and unit, or the second bare after the first."""
    if a.kind not in _OPERAND_KINDS or len(a.values) != 1 or len(b.values) != 1:
        return False
    if b.kind is Kind.number:
        return True
    same_unit = (a.unit is None and b.unit is None) or (
        a.unit is not None and b.unit is not None and a.unit.symbol == b.unit.symbol)
    return a.kind is b.kind and same_unit and a.noun == b.noun


def _marked(text: str, fig: Figure) -> bool:
    if _APART_RE.match(text, fig.end):  # (matched in place: no copy of the text after it)
        return True
    return bool(_OR_BEFORE_RE.search(text[max(0, fig.start - 24):fig.start])) and not (
        _OF_SOMETHING_RE.match(text, fig.end))


def stated_ratios(text: str, typed: list[tuple[Figure, Quantity]]
                  ) -> dict[int, tuple[Decimal, Figure, Figure]]:
    """Start of each multiplier of ``text`` stated as the ratio of the two figures before it,
    with that ratio (larger over smaller) and the two figures."""
    out: dict[int, tuple[Decimal, Figure, Figure]] = {}
    for i in range(2, len(typed)):
        fig, q = typed[i]
        if q.kind is not Kind.multiplier or len(fig.values) != 1:
            continue
        if _OR_BEFORE_RE.search(text[max(0, fig.start - 24):fig.start]) and (
                pair := _respective(text, typed, i)) is not None:
            for (m, _), (a, qa), (b, qb) in pair:
                _add(out, m, a, qa, b, qb)
            continue
        if not _marked(text, fig):
            continue
        (a, qa), (b, qb) = typed[i - 2], typed[i - 1]
        if not _one_quantity(qa, qb) or _SENTENCE_END_RE.search(text, a.end, fig.start):
            continue
        _add(out, fig, a, qa, b, qb)
    return out


Typed = tuple[Figure, Quantity]


def _add(out: dict[int, tuple[Decimal, Figure, Figure]], fig: Figure, a: Figure, qa: Quantity,
         b: Figure, qb: Quantity) -> None:
    low, high = sorted((qa.values[0], qb.values[0]))
    if low <= 0:
        return
    try:
        out[fig.start] = (high / low, a, b)
    except InvalidOperation:
        return


_AND_RE = re.compile(r"\s+and\s+")


def _respective(text: str, typed: list[Typed], i: int
                ) -> list[tuple[Typed, Typed, Typed]] | None:
    """Two multipliers joined by "and" after two pairs of figures, each the ratio of its own
    pair: "86.5 tokens/s of prefill and 14.8 tokens/s of decode, against 35.4 and 7.3 for the
    baseline, roughly 2.4 times and twofold" (86.5 / 35.4 and 14.8 / 7.3)."""
    if i < 4 or i + 1 >= len(typed):
        return None
    (f, q), (g, r) = typed[i], typed[i + 1]
    if r.kind is not Kind.multiplier or len(g.values) != 1 or not _AND_RE.fullmatch(
            text, f.end, g.start) or _SENTENCE_END_RE.search(text, typed[i - 4][0].end, g.start):
        return None
    a1, a2, b1, b2 = typed[i - 4:i]
    if not (_one_quantity(a1[1], b1[1]) and _one_quantity(a2[1], b2[1])):
        return None
    return [((f, q), a1, b1), ((g, r), a2, b2)]


def disagrees(ratio: Decimal, fig: Figure) -> bool:
    """The stated multiplier is not the ratio at its printed precision; a whole number's
    trailing zeros are not precision ("about 300 times" for 299.5)."""
    value = fig.values[0]
    places = fig.decimals
    if places == 0 and value != 0:
        exponent = value.normalize().as_tuple().exponent
        if isinstance(exponent, int):  # a figure is finite, never NaN or Infinity
            places = min(0, -exponent)
    return quantize(ratio, places) != value
