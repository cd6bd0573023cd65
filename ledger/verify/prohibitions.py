"""Prohibitions in the body: the parts of a sentence that forbid a reading assert none of it.

"Do not call the 90% a latency reduction", "never describe the 5x as end-to-end", "Nor should
the 50x be presented as a throughput gain", "the 7.4x should not be read as a cost saving":
the desk states its own guardrail in the text. Such a part gives its figure no label and joins
no experiments; the checks that read labels and joins (:mod:`.wording`, :mod:`.conflations`)
skip the words inside it (:func:`prohibited_parts`).

A part runs from the clause boundary before the prohibition (the sentence start, ';', ':', a
dash, or a comma before "but", "and", "so", "yet", "while", "whereas") to the next such
boundary or the sentence end: "it is a cost figure" after "; " is the sentence's own claim
again. "Do not" and "never" forbid only as imperatives, at the start of their part ("the
authors do not report TTFT" forbids nothing).
"""

from __future__ import annotations

import re

from ..models import Article
from .prose import Span, sentences
from .scope import per_article

__all__ = ["article_prohibitions", "in_prohibition", "prohibited_parts"]

_VERBS = (r"(?:call|label|describe|present|report|read|treat|count|quote|cite|term|dub|take|"
          r"frame|interpret|portray|characteri[sz]e|advertise|market|sell|state|restate|"
          r"mistake|confuse|conflate|mix|merge|combine|add|sum|credit|attribute|equate|"
          r"pass\s+off)")
_PARTICIPLES = (r"(?:called|label(?:l)?ed|described|presented|reported|read|treated|counted|"
                r"quoted|cited|termed|dubbed|taken|framed|interpreted|portrayed|"
                r"characteri[sz]ed|advertised|marketed|sold|stated|restated|mistaken|confused|"
                r"conflated|mixed|merged|combined|added|summed|credited|attributed|equated|"
                r"passed\s+off)")
#: "Do not call X a Y", "never describe X as Y": an imperative, so only at the start of its
#: part, after a conjunction or an opening word and its comma ("Second, do not call it ...");
#: "the authors do not report TTFT" states what a source lacks, and forbids nothing.
_IMPERATIVE_RE = re.compile(
    rf"\b(?:do\s+not|don['’]t|never)\s+(?:{_VERBS})\b", re.IGNORECASE)
_OPENING_RE = re.compile(r"(?:\s*(?:and|or|but|so|nor|also|please|then|[A-Za-z]+,))*\s*",
                         re.IGNORECASE)
_PROHIBITION_RE = re.compile(
    rf"\bnot\s+to\s+(?:be\s+{_PARTICIPLES}|{_VERBS})\b"
    # "X should not be read as Y", "X must never be called Y", "X cannot be presented as Y"
    rf"|\b(?:should|must|may|can|could|need|ought\s+to)\s*(?:not|never|n['’]t)\s+(?:to\s+)?"
    rf"be\s+{_PARTICIPLES}\b"
    rf"|\b(?:shouldn['’]t|mustn['’]t|cannot|can['’]t|needn['’]t)\s+be\s+{_PARTICIPLES}\b"
    # "Nor should X be presented as Y"
    rf"|\bnor\s+(?:should|must|may|can|could|need)\b(?:[^;:.]|\.(?=\d))*?\bbe\s+"
    rf"{_PARTICIPLES}\b",
    re.IGNORECASE)
#: Where a part starts: the clause boundary before the prohibition.
_PART_START_RE = re.compile(r"[;:—–]\s*|,\s+(?=(?:but|and|so|yet|while|whereas)\s)",
                            re.IGNORECASE)
#: Where a part ends: the next ';', ':' or dash, or a comma before a clause of its own.
_PART_END_RE = re.compile(r"\s*[;:—–]|,\s+(?=(?:but|and|so|yet|while|whereas)\s)",
                          re.IGNORECASE)


def _part(sentence: Span, start: int, end: int) -> Span:
    """The part of ``sentence`` around its text ``[start, end)`` (offsets in the sentence)."""
    starts = [b.end() for b in _PART_START_RE.finditer(sentence.text, 0, start)]
    first = starts[-1] if starts else 0
    stop = _PART_END_RE.search(sentence.text, end)
    last = stop.start() if stop else len(sentence.text)
    return Span(sentence.start + first, sentence.start + last, sentence.text[first:last])


@per_article
def article_prohibitions(article: Article) -> list[Span]:
    """:func:`prohibited_parts` of the article's body, read once per article."""
    return prohibited_parts(article.body)


def prohibited_parts(text: str) -> list[Span]:
    """The parts of ``text`` (a body) that state a prohibition, in order."""
    out: list[Span] = []
    for sentence in sentences(text):
        found = [(m.start(), m.end()) for m in _PROHIBITION_RE.finditer(sentence.text)]
        for m in _IMPERATIVE_RE.finditer(sentence.text):
            part = _part(sentence, m.start(), m.end())
            if _OPENING_RE.fullmatch(text[part.start:sentence.start + m.start()]):
                found.append((m.start(), m.end()))
        for start, end in sorted(found):
            if out and out[-1].contains(sentence.start + start, sentence.start + end):
                continue
            out.append(_part(sentence, start, end))
    return out


def in_prohibition(parts: list[Span], start: int, end: int) -> bool:
    """``[start, end)`` lies inside one of ``parts``."""
    return any(p.contains(start, end) for p in parts)
