"""A count of authors traces to the byline of a cited source.

"ServerlessLLM, by Yao Fu, Luo Mai and four co-authors" states a number no fact gives: the
evidence is the source's ``authors`` list. A count of authors (``author``, ``co-author``,
``contributor``) traces to a source whose list has that many names, or that many besides the
ones the sentence names itself (seven authors, three named: "four co-authors"). A count that
agrees with no byline stays untraced, so a wrong headcount is still found.
"""

from __future__ import annotations

import re

from ..figures import Figure
from ..models import Article
from ..quantities import Kind, Quantity
from .prose import enclosing, sentences

__all__ = ["byline_counts"]


def _named(text: str, authors: list[str]) -> int:
    """How many of the byline's people the sentence names (by surname)."""
    return sum(1 for a in authors
               if a.split() and re.search(rf"\b{re.escape(a.split()[-1])}\b", text))


def byline_counts(article: Article, body: str, figure: Figure,
                  q: Quantity | None) -> list[tuple[int, str]]:
    """``(source index, source id)`` of each cited byline whose headcount the figure states;
    empty when the figure is no count of authors."""
    if q is None or q.kind is not Kind.count or q.noun_class != "author" or len(q.values) != 1:
        return []
    span = enclosing(sentences(body), figure.start, figure.end)
    text = span.text if span is not None else body
    value = q.values[0]
    out = []
    for i, src in enumerate(article.sources):
        authors = list(src.authors or [])
        if not authors:
            continue
        named = _named(text, authors)
        if value in (len(authors), len(authors) - named) and value > 0:
            out.append((i, src.id))
    return out
