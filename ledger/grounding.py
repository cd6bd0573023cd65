"""Quotes against source text: normalisation, look-up, the closest passage, figure matching.

A quote is looked up in a snapshot's readable text after both pass through :func:`normalize`,
which folds what a copy changes without changing the words: whitespace and line breaks, Unicode
quote marks and dashes, HTML tags and entities, and Markdown markup (emphasis, code marks, list
markers, headings, link targets). When a quote is not found, :func:`closest_passage` gives the
most similar passage of the text and its similarity (rapidfuzz's partial ratio, 0-100).

:func:`ground_figures` compares the figures of a claim with those of its quotes by kind and
value (the typed quantities of :mod:`ledger.quantities`): ``3.8x``, ``3.8×`` and ``3.8 times``
are one multiplier; ``60 GPUs`` and ``60 GB`` differ, and so do ``1 GB/s`` and ``1 Gb/s``. A
figure no quote states is *contradicted* when a quote gives a figure of the same kind that the
claim does not use (the quote covers that result with another value), and merely *unquoted*
otherwise (a partial quote).
"""

from __future__ import annotations

import datetime as dt
import html
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .figures import Figure, FigureKind
from .quantities import Kind, Quantity, Verdict, compare, typed_figures

__all__ = [
    "Passage",
    "Ungrounded",
    "closest_passage",
    "contains",
    "ground_figures",
    "kind_key",
    "normalize",
    "ungrounded_figures",
]

_TRANSLATE = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u00ab": '"', "\u00bb": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
    "\u2212": "-", "\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u00ad": None, "\u200b": None,
    "\u2026": "...", "*": None, "`": None, "_": None,
})
_TAG = re.compile(r"<[A-Za-z/!][^<>]{0,500}>")
_MD_IMAGE_OR_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_LINE_MARKUP = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|>[ \t]?|[-+][ \t]+|\d{1,3}[.)][ \t]+)+",
                          re.MULTILINE)
_SPACE = re.compile(r"\s+")


@lru_cache(maxsize=4096)
def normalize(text: str) -> str:
    """``text`` with whitespace, quote marks, dashes and markup folded (see the module doc)."""
    text = unicodedata.normalize("NFKC", text)
    text = _TAG.sub(" ", text)
    text = html.unescape(text)
    text = _MD_IMAGE_OR_LINK.sub(r"\1", text)
    text = _LINE_MARKUP.sub("", text)
    text = text.translate(_TRANSLATE)
    return _SPACE.sub(" ", text).strip()


def contains(haystack_normalized: str, quote: str) -> bool:
    """Whether ``quote`` (raw) occurs in an already normalised text."""
    return normalize(quote) in haystack_normalized


@dataclass(frozen=True)
class Passage:
    text: str
    similarity: float  # 0-100


def closest_passage(haystack_normalized: str, quote: str, *, width: int = 240) -> Passage:
    """The passage of the text most similar to ``quote`` and how similar it is (0-100)."""
    from rapidfuzz import fuzz

    needle = normalize(quote)
    if not needle or not haystack_normalized:
        return Passage("", 0.0)
    found = fuzz.partial_ratio_alignment(needle, haystack_normalized)
    if found is None:
        return Passage("", 0.0)
    start, end = found.dest_start, found.dest_end
    while start > 0 and haystack_normalized[start - 1] != " ":  # whole words
        start -= 1
    while end < len(haystack_normalized) and haystack_normalized[end] not in " ":
        end += 1
    passage = haystack_normalized[start:end]
    if len(passage) > width:
        passage = passage[:width - 3] + "..."
    return Passage(passage, round(found.score, 1))


# --- figures --------------------------------------------------------------------------------


def _date_matches(claimed: Figure, dates: Iterable[dt.date]) -> bool:
    if claimed.date is None:
        return False
    for day in dates:
        if claimed.date_precision == "month_day":
            same = (day.month, day.day) == (claimed.date.month, claimed.date.day)
        elif claimed.date_precision == "month":
            same = (day.year, day.month) == (claimed.date.year, claimed.date.month)
        else:
            same = day == claimed.date
        if same:
            return True
    return False


def _stated(claimed: Quantity, quoted: Quantity) -> bool:
    """Whether ``quoted`` states every value of ``claimed`` as the same kind of quantity."""
    return bool(quoted.values) and all(
        any(compare(claimed, value, ev, quoted, False) is Verdict.match for ev in quoted.values)
        for value in claimed.values)


def _used(said: Figure, quoted: Quantity, claimed: Sequence[tuple[Figure, Quantity]]) -> bool:
    """Whether the claim uses the quote's figure: its date, or every one of its values (each
    end of a range "2.2-3.3x"), is stated by some figure of the claim."""
    if said.kind is FigureKind.date:
        return said.date is not None and any(
            f.kind is FigureKind.date and _date_matches(f, [said.date]) for f, _ in claimed)
    key = kind_key(quoted)
    # a claim's bare number does not use a quote's typed figure ("three" is no 2.8x), while a
    # quote's bare number may be the claim's typed one ("POSIX (14.8)": 14.8 GiB/s)
    users = [q for f, q in claimed if f.kind is not FigureKind.date and (
        kind_key(q) == key or q.kind is not Kind.number)]
    # ... unless it writes the very value ("342B (56.3%)" in the claim, "342B tokens" quoted)
    bare = {v for f, q in claimed if f.kind is not FigureKind.date and q.kind is Kind.number
            for v in q.values}
    return all(ev in bare or any(compare(q, value, ev, quoted, False) is Verdict.match
                                 for q in users for value in q.values)
               for ev in quoted.values)


def _grounded(figure: Figure, claimed: Quantity, quoted: Sequence[tuple[Figure, Quantity]],
              dates: Sequence[dt.date]) -> bool:
    if figure.kind is FigureKind.date:
        return _date_matches(figure, [*dates, *(f.date for f, _ in quoted if f.date)]) or (
            figure.date is not None and any(  # a quote's "August 5" for "August 5 (2025)"
                f.date_precision == "month_day" and f.date is not None
                and (f.date.month, f.date.day) == (figure.date.month, figure.date.day)
                for f, _ in quoted))
    if any(_stated(claimed, q) for _, q in quoted):
        return True
    if claimed.kind is Kind.year and figure.value is not None:
        return any(d.year == int(figure.value) for d in dates)
    return False


def kind_key(q: Quantity) -> tuple[str, ...]:
    """What a figure measures, for pairing a claim's figure with a quote's: percent and
    percentage points are one kind (a mistyped "5 points" for "5%"), a count is counted by its
    noun class (or noun), a size, rate or duration by its dimension (GB and GiB, Gb/s and GB/s
    are one kind)."""
    if q.kind in (Kind.percent, Kind.points):
        return ("percent",)
    if q.kind is Kind.count:
        return ("count", q.noun_class or q.noun or "")
    if q.unit is not None:
        return (q.kind.value, q.unit.dimension)
    return (q.kind.value,)


@dataclass(frozen=True)
class Ungrounded:
    """A figure of a claim that none of its quotes states. ``contradicted_by`` is a figure of
    the same kind that a quote states and that no figure of the claim uses: the figure the
    claim most likely mistyped (``48x`` where the quote says ``46x``). None: the quotes state
    no unused figure of its kind, so the figure is merely unquoted (a partial quote)."""

    figure: Figure
    quantity: Quantity
    contradicted_by: tuple[Figure, Quantity] | None = None


def _distance(a: Quantity, b: Quantity) -> float:
    """How far apart two figures' first values are (log ratio; 0 when equal)."""
    x, y = (abs(float(v.values[0])) if v.values else 0.0 for v in (a, b))  # dates: 0
    if x == 0 or y == 0:
        return abs(x - y)
    return abs(math.log(x / y))


def _pair(claim_side: list[tuple[Figure, Quantity]], quote_side: list[tuple[Figure, Quantity]]
          ) -> dict[int, tuple[Figure, Quantity]]:
    """One quote figure to each claim figure nearest in value, one to one (greedy by
    distance); keyed by the claim figure's index in ``claim_side``."""
    pairs = sorted(((_distance(c[1], q[1]), i, j) for i, c in enumerate(claim_side)
                    for j, q in enumerate(quote_side)))
    taken_c: set[int] = set()
    taken_q: set[int] = set()
    out: dict[int, tuple[Figure, Quantity]] = {}
    for _, i, j in pairs:
        if i in taken_c or j in taken_q:
            continue
        taken_c.add(i)
        taken_q.add(j)
        out[i] = quote_side[j]
    return out


def ground_figures(claim: str, quotes: Sequence[str],
                   dates: Sequence[dt.date] = ()) -> list[Ungrounded]:
    """The figures of ``claim`` that none of ``quotes`` states, each with the quote's figure it
    most likely mistypes, if any (see :class:`Ungrounded`).

    A claim figure is *contradicted* when a quote states a figure of the same kind
    (:func:`kind_key`) that no figure of the claim uses: the quote covers that result and says
    something else. Unused quote figures are paired with ungrounded claim figures of their kind
    one to one, nearest value first, so a quote with one unused figure marks one claim figure,
    not every figure of that kind the quote leaves out.
    """
    quoted = [pair for q in quotes
              for pair in typed_figures(_with_totals(_lower_multiplier(normalize(q))))]
    claimed = typed_figures(claim)
    missing = [(f, q) for f, q in claimed if not _grounded(f, q, quoted, dates)]
    if not missing:
        return []
    unused = [(g, r) for g, r in quoted if not _used(g, r, claimed)]
    out: dict[int, Ungrounded] = {}
    for key in dict.fromkeys(kind_key(q) for _, q in missing):
        if key == (Kind.number.value,):
            continue  # two bare numbers ("8.73", the "2" of "2×32 cores") share no known kind
        mine = [(i, m) for i, m in enumerate(missing) if kind_key(m[1]) == key]
        theirs = [u for u in unused if kind_key(u[1]) == key]
        for k, partner in _pair([m for _, m in mine], theirs).items():
            i, (f, q) = mine[k]
            out[i] = Ungrounded(f, q, partner)
    return [out.get(i) or Ungrounded(f, q) for i, (f, q) in enumerate(missing)]


def ungrounded_figures(claim: str, quotes: Sequence[str],
                       dates: Sequence[dt.date] = ()) -> list[Figure]:
    """The figures of ``claim`` that none of ``quotes`` states, compared as typed quantities
    (:mod:`ledger.quantities`: kind, unit, noun); a date may also match one of ``dates``, the
    source's own publication dates. :func:`ground_figures` also says which are contradicted."""
    return [u.figure for u in ground_figures(claim, quotes, dates)]


#: "Changho Hwang and 14 other authors": one named and fourteen more, 15 authors in all.
_AND_OTHERS_RE = re.compile(r"\band\s+(\d{1,4})\s+others?\s+([a-z]+s)\b")


def _with_totals(text: str) -> str:
    """The quote with the total a count of others implies written after it ("and 14 other
    authors (15 authors)"), so a claim's "15 authors" is grounded in it."""
    return _AND_OTHERS_RE.sub(lambda m: f"{m.group(0)} ({int(m.group(1)) + 1} {m.group(2)})",
                              text)


#: A capital X right after a number, as papers write multipliers ("2.2-3.3X", "5X"); a name such
#: as "H100X2" has a letter or digit after the X and is left alone.
_CAPITAL_X = re.compile(r"(?<=\d)X(?![A-Za-z0-9])")


def _lower_multiplier(text: str) -> str:
    """Sources write "3.3X" where the desk writes "3.3x": the same multiplier."""
    return _CAPITAL_X.sub("x", text)
