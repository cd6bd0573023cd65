"""Quotes against source text: normalisation, look-up, the closest passage, figure matching.

A quote is looked up in a snapshot's readable text after both pass through :func:`normalize`,
which folds what a copy changes without changing the words: whitespace and line breaks, Unicode
quote marks and dashes, HTML tags and entities, and Markdown markup (emphasis, code marks, list
markers, headings, link targets). When a quote is not found, :func:`closest_passage` gives the
most similar passage of the text and its similarity (rapidfuzz's partial ratio, 0-100).

:func:`ungrounded_figures` compares the figures of a claim with those of its quotes by kind and
value (the typed quantities of :mod:`ledger.quantities`): ``3.8x``, ``3.8×`` and ``3.8 times``
are one multiplier; ``60 GPUs`` and ``60 GB`` differ, and so do ``1 GB/s`` and ``1 Gb/s``.
"""

from __future__ import annotations

import datetime as dt
import html
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .figures import Figure, FigureKind
from .quantities import Kind, Quantity, Verdict, compare, typed_figures

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


def _grounded(figure: Figure, claimed: Quantity, quoted: Sequence[tuple[Figure, Quantity]],
              dates: Sequence[dt.date]) -> bool:
    if figure.kind is FigureKind.date:
        return _date_matches(figure, [*dates, *(f.date for f, _ in quoted if f.date)])
    if any(_stated(claimed, q) for _, q in quoted):
        return True
    if claimed.kind is Kind.year and figure.value is not None:
        return any(d.year == int(figure.value) for d in dates)
    return False


def ungrounded_figures(claim: str, quotes: Sequence[str],
                       dates: Sequence[dt.date] = ()) -> list[Figure]:
    """The figures of ``claim`` that none of ``quotes`` states, compared as typed quantities
    (:mod:`ledger.quantities`: kind, unit, noun); a date may also match one of ``dates``, the
    source's own publication dates."""
    quoted = [pair for q in quotes for pair in typed_figures(_lower_multiplier(normalize(q)))]
    return [f for f, q in typed_figures(claim) if not _grounded(f, q, quoted, dates)]


#: A capital X right after a number, as papers write multipliers ("2.2-3.3X", "5X"); a name such
#: as "H100X2" has a letter or digit after the X and is left alone.
_CAPITAL_X = re.compile(r"(?<=\d)X(?![A-Za-z0-9])")


def _lower_multiplier(text: str) -> str:
    """Sources write "3.3X" where the desk writes "3.3x": the same multiplier."""
    return _CAPITAL_X.sub("x", text)
