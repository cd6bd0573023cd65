"""The body's figure checks in one pass: trace once, then tracing, labels and guardrails."""

from __future__ import annotations

from ..models import Article
from ..report import Finding
from .conclusions import check_conclusions
from .guardrails import check_guardrails
from .labels import check_labels
from .owners import check_owners
from .publishers import check_publishers
from .swaps import check_swaps
from .tracing import check_tracing, trace_figures

__all__ = ["check_body"]


def check_body(article: Article) -> list[Finding]:
    """``untraced-figure``, ``unit-mismatch``, ``percentage-points``, ``mislabeled-figure``,
    ``unattributed-figure``, ``desk-claims-authors-figure``, ``misattributed-source``,
    ``conflated-experiments``, ``guardrail``, ``unchecked-guardrail`` and
    ``unsupported-conclusion`` findings."""
    traced = trace_figures(article)
    return _once(check_tracing(article, traced) + check_labels(article, traced)
                  + check_owners(article) + check_publishers(article)
                  + check_guardrails(article, traced)
                  + check_conclusions(article) + check_swaps(article, traced))


def _once(findings: list[Finding]) -> list[Finding]:
    """One ``conflated-experiments`` finding per place: the scope's experiments and a
    guardrail's may name the same join; the first (the scope's) is kept."""
    taken: set[tuple[int | None, int | None, int | None]] = set()
    out = []
    for f in findings:
        if f.rule == "conflated-experiments" and f.pointer == "/body":
            where = (f.line, f.column, f.end_column)
            if where in taken:
                continue
            taken.add(where)
        out.append(f)
    return out
