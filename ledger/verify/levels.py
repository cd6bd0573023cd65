"""``overclaimed-level``: prose must not call a figure more verified than the ledger says.

Each figure has a verification level (:mod:`ledger.levels`): ``reported``, ``measured``,
``reproduced``, ``independently-reproduced``. A sentence that calls a figure "reproduced",
"replicated", "confirmed" or "verified" claims ``reproduced``; with "independently" before the
word it claims ``independently-reproduced``. When the claim is above the level of a figure in
the same sentence, the check warns. A negated claim ("not independently reproduced", "has yet
to be confirmed", "unverified") claims nothing.

Without a ledger (``ledger verify`` with no ``--db``) levels come from the article alone, so a
desk measurement is ``measured`` and any "reproduced" of it warns; with ``--db`` the
reproductions the ledger recorded raise the levels.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..levels import Level, ReproductionsFor, article_levels, figure_level
from ..models import Article
from ..report import Finding, Severity
from .prose import enclosing, sentences
from .text import body_span
from .tracing import trace_figures

__all__ = ["claimed_level", "level_check"]

_CLAIM = re.compile(r"\b(?P<indep>independently\s+)?(?:reproduced|replicated|confirmed|verified)\b",
                    re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:not|never|no|nor|without|yet\s+to\s+be|un)\b[\s\w-]{0,20}$",
                      re.IGNORECASE)


def claimed_level(sentence: str) -> Level | None:
    """The highest level a sentence claims for its figures, or None."""
    best: Level | None = None
    for m in _CLAIM.finditer(sentence):
        if _NEGATED.search(sentence[max(0, m.start() - 30):m.start()]):
            continue
        level = Level.independently_reproduced if m.group("indep") else Level.reproduced
        if best is None or level.rank > best.rank:
            best = level
    return best


def level_check(reproductions_for: ReproductionsFor | None = None
                ) -> Callable[[Article], list[Finding]]:
    """The ``overclaimed-level`` check, with the ledger's reproductions when given."""

    def check(article: Article) -> list[Finding]:
        levels = article_levels(article, reproductions_for)
        spans = sentences(article.body)
        findings: list[Finding] = []
        for traced in trace_figures(article):
            info = figure_level(traced, levels)
            span = enclosing(spans, traced.figure.start, traced.figure.end)
            if info is None or span is None:
                continue
            claimed = claimed_level(span.text)
            if claimed is None or claimed.rank <= info.level.rank:
                continue
            findings.append(body_span(
                article, traced.figure.start, traced.figure.end, Severity.warning,
                "overclaimed-level",
                f"{traced.figure.text!r} is called {claimed.value} but its verification level "
                f"is {info.level.value} ({info.detail})",
                hint="run `ledger reproduce` and record the result, or say what was done"))
        return findings

    return check
