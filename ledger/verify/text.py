"""Positions in the body: offsets to (line, column) and findings located on a span."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..models import Article
from ..report import Finding, Severity
from .prose import enclosing, sentences

__all__ = ["body_span", "line_col", "sentence_at", "with_label"]


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column (in code points) of ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def sentence_at(body: str, start: int, end: int) -> str | None:
    """The text of the body sentence that holds ``[start, end)``, if one does."""
    span = enclosing(sentences(body), start, end)
    return span.text if span is not None else None


def body_span(
    article: Article, start: int, end: int, severity: Severity, rule: str, message: str,
    *, hint: str | None = None, trace: Sequence[dict[str, Any]] | None = None,
) -> Finding:
    """A finding on ``article.body[start:end]`` (a span that does not cross a line), with the
    sentence it sits in and, when given, a hint and the trace the checker tried."""
    line, column = line_col(article.body, start)
    return Finding(severity, rule, message, "/body", line, column, column + (end - start),
                   sentence=sentence_at(article.body, start, end), hint=hint,
                   trace=tuple(trace) if trace is not None else None)


def prose_guardrail_warning(article: Article, index: int, start: int, end: int, says: str
                            ) -> Finding:
    """The ``guardrail`` warning of a prose-only guardrail (number ``index``) that the body
    breaks at ``[start, end)``; ``says`` is what the body does there ("this clause ...")."""
    text = article.corrections[index].text
    return body_span(article, start, end, Severity.warning, "guardrail",
                     f"guardrail {index + 1} ({text[:60]!r}...), read from its prose: {says}; "
                     "the checker read the guardrail's wording and cannot be sure")


def with_label(body: str, start: int, end: int, label: tuple[int, int, str] | None
               ) -> tuple[int, int]:
    """The span of a figure widened to the words a clause calls it by ("a time to first token
    of 3.25 s"), so that a finding shows both the figure and the label it contradicts; the
    figure alone when the label is on another line."""
    if label is None:
        return start, end
    lo, hi = min(start, label[0]), max(end, label[1])
    return (lo, hi) if "\n" not in body[lo:hi] else (start, end)
