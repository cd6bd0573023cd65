"""Prose structure for the checks: paragraphs, sentences and clauses as spans of the body.

A paragraph is a run of text between blank lines (or single newlines). A sentence ends at
``.``, ``!`` or ``?`` followed by white space and a capital letter, a digit or a citation
marker (so ``3.8`` and ``e.g.`` inside a sentence do not end it). A clause is a part of a
sentence between ``;``, ``:``, dashes, or a comma followed by white space and no digit (so the
comma in ``June 24, 2024`` does not split).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Span", "clauses", "enclosing", "find_terms", "paragraphs", "sentences"]


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str

    def contains(self, start: int, end: int) -> bool:
        return self.start <= start and end <= self.end


_PARAGRAPH_RE = re.compile(r"[^\n]+")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\[\"“(])")
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


def paragraphs(text: str) -> list[Span]:
    return [Span(m.start(), m.end(), m.group()) for m in _PARAGRAPH_RE.finditer(text)]


def sentences(text: str) -> list[Span]:
    out: list[Span] = []
    for para in paragraphs(text):
        out += _split(para.text, para.start, _SENTENCE_END_RE)
    return out


def clauses(text: str) -> list[Span]:
    out: list[Span] = []
    for sentence in sentences(text):
        out += _split(sentence.text, sentence.start, _CLAUSE_SEP_RE)
    return out


def enclosing(spans: list[Span], start: int, end: int) -> Span | None:
    """The span that contains ``[start, end)``, if any."""
    for span in spans:
        if span.contains(start, end):
            return span
    return None


@lru_cache(maxsize=2048)
def _term_pattern(term: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + re.escape(term) + r"(?:s|es|ed|ing|'s)?(?![\w])",
                      re.IGNORECASE)


def find_terms(text: str, terms: list[str], offset: int = 0) -> list[tuple[int, int, str]]:
    """Case-insensitive whole-word occurrences of ``terms`` (longest first, no overlaps).

    A term matches its plural and inflected forms too (``GPU`` finds ``GPUs``; ``disk offload``
    finds ``disk offloading``). Returns ``(start, end, term)`` with offsets shifted by ``offset``.
    """
    found: list[tuple[int, int, str]] = []
    taken = bytearray(len(text))
    for term in sorted(set(terms), key=len, reverse=True):
        for m in _term_pattern(term).finditer(text):
            if any(taken[m.start():m.end()]):
                continue
            taken[m.start():m.end()] = b"\x01" * (m.end() - m.start())
            found.append((offset + m.start(), offset + m.end(), term))
    return sorted(found)
