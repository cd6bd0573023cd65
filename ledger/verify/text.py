"""Positions in the body: offsets to (line, column) and findings located on a span."""

from __future__ import annotations

from ..models import Article
from ..report import Finding, Severity

__all__ = ["body_span", "line_col"]


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column (in code points) of ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def body_span(
    article: Article, start: int, end: int, severity: Severity, rule: str, message: str
) -> Finding:
    """A finding on ``article.body[start:end]`` (a span that does not cross a line)."""
    line, column = line_col(article.body, start)
    return Finding(severity, rule, message, "/body", line, column, column + (end - start))
