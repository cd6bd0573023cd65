"""Intervals stated between the body's own dates: "Three months later the v0.3.0 post, dated
May 21, 2025, ..." after a sentence dated February 18, 2025.

A duration in days, weeks, months or years followed by ``later``/``after``/``earlier``/
``before``, in a sentence that also states a full date, is read against the nearest full date
stated before that sentence: the direction must agree (``later``: the new date is after the
earlier one) and the length within half of itself. An interval that names what it counts from
("four months after that first version") is read against the date of the earlier sentence that
shares the most words with that reference ("A first version appeared on ..."); when no sentence
stands out, an earlier date that fits is its reference, and when none fits it is not decided
here (tracing reports the duration). :func:`relative_intervals` gives each such
duration's span and whether it agrees; ``date-order`` reports a contradiction, and a duration
that agrees is traced (no ``untraced-figure``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..figures import FigureKind, extract_figures
from ..models import Article
from ..quantities import Kind, lemma, typed_figures
from .prose import sentences
from .scope import per_article

__all__ = ["Interval", "relative_intervals"]

_DAYS = {"day": 1.0, "week": 7.0, "month": 30.44, "year": 365.25}
_AFTER_RE = re.compile(r"[\s-]+(?P<unit>day|week|month|year)s?\s+(?P<w>later|after|afterwards|"
                       r"earlier|before|prior)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Interval:
    start: int
    end: int
    agrees: bool
    message: str


def _full_dates(text: str, offset: int) -> list[tuple[int, object]]:
    return [(offset + f.start, f.date) for f in extract_figures(text)
            if f.kind is FigureKind.date and f.date_precision == "day" and f.date is not None]


_DATE_NEXT_RE = re.compile(r"\s+(?:on\s+)?")
_OWN_REFERENCE_RE = re.compile(r"\s+(?:to\s+)?(?:that|the|this|its|their|his|her|our|[A-Z])")


def _names_its_reference(text: str, end: int) -> bool:
    """"... after that first version", "... before the paper": the interval names what it is
    counted from, which need not be the date stated just before."""
    return _OWN_REFERENCE_RE.match(text, end) is not None


def _fits(new: object, before: object, later: bool, stated: float) -> bool:
    gap = (new - before).days  # type: ignore[operator]
    return (gap > 0) == later and abs(abs(gap) - stated) <= stated / 2


@per_article
def relative_intervals(article: Article) -> list[Interval]:
    """Each "N months later/earlier" of the body read against the dates around it."""
    out: list[Interval] = []
    seen: list[tuple[int, object]] = []
    said: list[tuple[object, set[str]]] = []  # each earlier date with its sentence's words
    for sentence in sentences(article.body):
        dates = _full_dates(sentence.text, sentence.start)
        for fig, q in typed_figures(sentence.text):
            m = _AFTER_RE.match(sentence.text, fig.end)
            if q.kind is not Kind.duration or m is None or not dates or not seen:
                continue
            days = _DAYS[m.group("unit").lower()]
            later = m.group("w").lower() in ("later", "after", "afterwards")
            stated = float(fig.values[0]) * days
            new = dates[0][1]
            before = seen[-1][1]
            named = [d for at, d in dates if _DATE_NEXT_RE.fullmatch(
                sentence.text, m.end(), at - sentence.start)]
            if named:  # "two weeks after April 12, 2024": that date is the reference
                others = [d for _, d in dates if d is not named[0]]
                if not others:
                    continue
                before, new = named[0], others[0]
            elif m.group("w").lower() in ("after", "before", "prior") and (
                    _names_its_reference(sentence.text, m.end())):
                # "four months after that first version": the date of the earlier sentence
                # that names that version; failing that, an earlier date that fits, or it is
                # left to tracing
                named_in = _referent(sentence.text, m.end(), said)
                fits = [d for _, d in seen if _fits(new, d, later, stated)]
                if named_in is None and not fits:
                    continue
                before = named_in if named_in is not None else fits[-1]
            gap = (new - before).days  # type: ignore[operator]
            agrees = _fits(new, before, later, stated)
            phrase = sentence.text[fig.start:m.end()]
            out.append(Interval(
                sentence.start + fig.start, sentence.start + m.end(), agrees,
                f"{phrase!r} puts {new} {'after' if later else 'before'} {before}, but it is "
                f"{abs(gap)} days {'after' if gap > 0 else 'before'} it"))
        seen += dates
        words = _words(sentence.text)
        said += [(d, words) for _, d in dates]
    return out


_REFERENCE_RE = re.compile(r"[^,;.:()]{1,60}")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z-]{2,}")
_STOP = frozenset({"that", "the", "this", "its", "their", "his", "her", "our", "and", "with",
                   "was", "were", "has", "had", "then", "which", "from", "into", "for"})


def _words(text: str) -> set[str]:
    return {lemma(w) for w in _WORD_RE.findall(text) if w.lower() not in _STOP}


def _referent(text: str, end: int, said: list[tuple[object, set[str]]]) -> object | None:
    """The date of the earlier sentence that shares the most words with the reference named
    after the interval ("that first version" -> "A first version appeared on ..."), if one
    shares more than any other."""
    m = _REFERENCE_RE.match(text, end)
    words = _words(m.group()) if m else set()
    if not words:
        return None
    scored = sorted(((len(words & w), i) for i, (_, w) in enumerate(said)), reverse=True)
    if not scored or scored[0][0] == 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return said[scored[0][1]][0]
