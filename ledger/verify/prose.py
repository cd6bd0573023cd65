"""Prose structure for the checks: paragraphs, sentences and clauses as spans of the body.

A paragraph is a run of text between blank lines (or single newlines). A sentence ends at
``.``, ``!`` or ``?`` followed by white space and a capital letter, a digit or a citation
marker (so ``3.8`` and ``e.g.`` inside a sentence do not end it). A clause is a part of a
sentence between ``;``, ``:``, dashes, or a comma followed by white space and no digit (so the
comma in ``June 24, 2024`` does not split).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

__all__ = ["Span", "clauses", "enclosing", "find_terms", "group_in", "paragraphs", "sentences"]


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str

    def contains(self, start: int, end: int) -> bool:
        return self.start <= start and end <= self.end


T = TypeVar("T")
_PARAGRAPH_RE = re.compile(r"[^\n]+")
#: A sentence starts with a capital, a digit, a bracket or quote, or a brand written in lower
#: case with a capital inside ("vLLM", "iPhone"): "... bounded. vLLM reports ...".
#: (not after a middle initial: "Jules S. Damji" is one name)
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])(?<!\s[A-Z]\.)\s+(?=[A-Z0-9\[\"“(]|[a-z]+[A-Z])")
_CLAUSE_SEP_RE = re.compile(r"\s*(?:[;:—–]|\s-\s|,(?=\s+\D))\s*")


def _split(text: str, offset: int, separator: re.Pattern[str]) -> list[Span]:
    spans, start = [], 0
    for m in separator.finditer(text):
        if m.start() > start:
            spans.append(Span(offset + start, offset + m.start(), text[start:m.start()]))
        start = m.end()
    if start < len(text):
        spans.append(Span(offset + start, offset + len(text), text[start:]))
    return spans


@lru_cache(maxsize=64)
def paragraphs(text: str) -> tuple[Span, ...]:
    """Paragraphs of ``text`` in order (cached: the checks ask for the same body many times)."""
    return tuple(Span(m.start(), m.end(), m.group()) for m in _PARAGRAPH_RE.finditer(text))


@lru_cache(maxsize=64)
def sentences(text: str) -> tuple[Span, ...]:
    out: list[Span] = []
    for para in paragraphs(text):
        out += _split(para.text, para.start, _SENTENCE_END_RE)
    return tuple(out)


@lru_cache(maxsize=64)
def clauses(text: str) -> tuple[Span, ...]:
    out: list[Span] = []
    for sentence in sentences(text):
        out += _split(sentence.text, sentence.start, _CLAUSE_SEP_RE)
    return tuple(out)


_STARTS: dict[int, tuple[Sequence[Span], list[int]]] = {}


def _starts(spans: Sequence[Span]) -> list[int]:
    """Start offsets of ``spans``, kept per span list (by identity: hashing a long tuple on
    every lookup would make each lookup linear)."""
    hit = _STARTS.get(id(spans))
    if hit is not None and hit[0] is spans:
        return hit[1]
    if len(_STARTS) > 256:
        _STARTS.clear()
    starts = [s.start for s in spans]
    _STARTS[id(spans)] = (spans, starts)
    return starts


def enclosing(spans: Sequence[Span], start: int, end: int) -> Span | None:
    """The span that contains ``[start, end)``, if any (``spans`` sorted and disjoint, as the
    functions above return them: a binary search, so a long body stays linear overall)."""
    starts = _starts(spans)
    i = bisect_right(starts, start) - 1
    if i >= 0 and spans[i].contains(start, end):
        return spans[i]
    return None


def following(spans: Sequence[Span], span: Span) -> Span | None:
    """The span after ``span`` in ``spans`` (sorted and disjoint): a binary search."""
    starts = _starts(spans)
    i = bisect_left(starts, span.end)
    return spans[i] if i < len(spans) else None


def group_in(spans: Sequence[Span], items: Sequence[T], where: Callable[[T], tuple[int, int]]
             ) -> dict[int, list[T]]:
    """Items grouped by the span (its start offset) that contains them: one pass with binary
    search, so asking for a figure's neighbours stays linear in the body."""
    groups: dict[int, list[T]] = {}
    for item in items:
        span = enclosing(spans, *where(item))
        if span is not None:
            groups.setdefault(span.start, []).append(item)
    return groups


@lru_cache(maxsize=2048)
def _term_pattern(term: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + re.escape(term) + r"(?:s|es|ed|ing|'s)?(?![\w])",
                      re.IGNORECASE)


def _plain_letters(text: str) -> bool:
    """Every letter of ``text`` is ASCII. Then a case-insensitive match of an ASCII term is
    also a substring of ``text.lower()``: no character outside ASCII but a letter ("ſ", "K",
    "İ") matches an ASCII one under ``re.IGNORECASE`` (checked over all of Unicode)."""
    return text.isascii() or not any(c.isalpha() for c in text if c > "\x7f")


def find_terms(text: str, terms: list[str], offset: int = 0) -> list[tuple[int, int, str]]:
    """Case-insensitive whole-word occurrences of ``terms`` (longest first, no overlaps).

    A term matches its plural and inflected forms too (``GPU`` finds ``GPUs``; ``disk offload``
    finds ``disk offloading``). Returns ``(start, end, term)`` with offsets shifted by ``offset``.
    """
    found: list[tuple[int, int, str]] = []
    taken = bytearray(len(text))
    lowered = text.lower() if _plain_letters(text) else None
    for term in sorted(set(terms), key=len, reverse=True):
        if lowered is not None and term.isascii() and term.lower() not in lowered:
            continue  # cannot match (see _plain_letters); saves compiling its pattern
        for m in _term_pattern(term).finditer(text):
            if any(taken[m.start():m.end()]):
                continue
            taken[m.start():m.end()] = b"\x01" * (m.end() - m.start())
            found.append((offset + m.start(), offset + m.end(), term))
    return sorted(found)
