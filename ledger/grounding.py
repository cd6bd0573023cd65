"""Quotes against source text: normalisation, look-up, the closest passage, figure matching.

A quote is looked up in a snapshot's readable text after both pass through :func:`normalize`,
which folds what a copy changes without changing the words: whitespace and line breaks, Unicode
quote marks and dashes, HTML tags and entities, and Markdown markup (emphasis, code marks, list
markers, headings, link targets). When a quote is not found, :func:`closest_passage` gives the
most similar passage of the text and its similarity (rapidfuzz's partial ratio, 0-100).

:func:`ungrounded_figures` compares the figures of a claim with those of its quotes by kind and
value: ``3.8x``, ``3.8×`` and ``3.8 times`` are one multiplier; ``60 GPUs`` and ``60 GB`` differ.
"""

from __future__ import annotations

import datetime as dt
import html
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .figures import Figure, FigureKind, extract_figures, quantize

__all__ = ["Passage", "closest_passage", "contains", "normalize", "ungrounded_figures"]

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
    passage = haystack_normalized[start:end]
    if len(passage) > width:
        passage = passage[:width - 3] + "..."
    return Passage(passage, round(found.score, 1))


# --- figures --------------------------------------------------------------------------------

_SAME_CLASS = {
    FigureKind.number: "n", FigureKind.noun_count: "n", FigureKind.quantity: "n",
    FigureKind.year: "n", FigureKind.range: "n", FigureKind.percent: "%",
    FigureKind.points: "pp", FigureKind.multiplier: "x", FigureKind.money: "$",
}


def _unit(figure: Figure) -> str | None:
    if not figure.unit:
        return None
    unit = figure.unit.lower()
    return unit[:-1] if len(unit) > 2 and unit.endswith("s") else unit


def _value_matches(claimed: Figure, quoted: Figure) -> bool:
    for value in claimed.values:
        if not any(q == value or quantize(q, claimed.decimals) == value for q in quoted.values):
            return False
    return True


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


def _grounded(claimed: Figure, quoted: Sequence[Figure], dates: Sequence[dt.date]) -> bool:
    if claimed.kind is FigureKind.date:
        return _date_matches(claimed, [*dates, *(q.date for q in quoted if q.date)])
    cls = _SAME_CLASS.get(claimed.kind)
    for q in quoted:
        if _SAME_CLASS.get(q.kind) != cls or not q.values or not _value_matches(claimed, q):
            continue
        unit, other = _unit(claimed), _unit(q)
        if unit is None or other is None or unit.startswith(other) or other.startswith(unit):
            return True
    if claimed.kind is FigureKind.year and claimed.value is not None:
        return any(d.year == int(claimed.value) for d in dates)
    return False


def ungrounded_figures(claim: str, quotes: Sequence[str],
                       dates: Sequence[dt.date] = ()) -> list[Figure]:
    """The figures of ``claim`` that none of ``quotes`` states (a date may also match one of
    ``dates``, the source's own publication dates)."""
    quoted = [f for q in quotes for f in extract_figures(normalize(q))]
    return [f for f in extract_figures(claim) if not _grounded(f, quoted, dates)]

