"""Arithmetic the body works in front of the reader.

The desk often shows a sum where it states its result: "about 47,520 tokens (13.20 × 3,600)",
"f = 0.875 / 0.98, or about 0.893", "0.2 × $4.50, or $0.90 per hour", "$0.25 minus $0.025,
or $0.225". Such a **worked sum** is an expression of plain numbers joined by ``×``, ``x``,
``*``, ``/``, ``÷``, ``+``, ``−`` (or "plus", "minus", "divided by", "multiplied by"; not a
hyphen, which writes a range) and
its **result**: the figure right before the brackets that hold the expression (a few words,
such as its unit, may stand between), or the figure right after ``=``, ", or", "is", "gives",
"equals" or "comes to" (with "about", "roughly" and the like).

* A worked sum that agrees with its result (at the result's printed precision; within 1% when
  the result is hedged with "about") and has one figure that traces to the article's evidence
  explains its other figures: a constant such as 3,600 seconds in an hour, or a step of the
  desk's algebra, is working shown, not an untraced claim.
* A worked sum that does not agree is an ``arithmetic`` error at its result: the reader can
  redo it and get another number.

Expressions with letters ("1 / (1 - f + f/50) = 8") are algebra, not sums of figures, and are
left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from ..figures import quantize
from ..models import Article
from ..report import Finding, Severity
from .arithmetic import ArithmeticError_, evaluate
from .text import body_span

__all__ = ["WorkedSum", "worked_sums"]

_NUM = r"\$?\d[\d,]*(?:\.\d+)?%?"
#: (not a hyphen: "(30 - 40)" is a range)
_OP = (r"(?:\s*[×*/÷+−]\s*|\s+x\s+|\s+(?:plus|minus|divided\s+by|multiplied\s+by)\s+)")
#: Two or more numbers joined by operators, not inside a name or a larger expression with
#: letters ("f/50", "v1.2", "H100").
_EXPR = rf"(?<![\w./$-])(?:{_NUM})(?:{_OP}(?:{_NUM}))+(?!\w|\.\d|\s*[×*/÷^(])"
#: "47,520 tokens (13.20 × 3,600)": the result, up to five words, then the bracketed sum.
_BRACKETED_RE = re.compile(
    rf"(?<![\w.,$])(?P<result>{_NUM})(?:\s+[A-Za-z/]+){{0,5}}\s*\(\s*(?P<expr>{_EXPR})\s*\)")
#: "0.875 / 0.98, or about 0.893": the sum, a word that states its result, the result.
_HEDGE = r"(?:about|roughly|around|nearly|approximately|almost|some|just\s+(?:over|under)|~)"
_STATED_RE = re.compile(
    rf"(?P<expr>{_EXPR})\s*(?:=|,\s*or|\bis|\bgives|\bequals|\bcomes\s+to)\s*"
    rf"(?P<hedge>{_HEDGE}\s*)?(?P<result>{_NUM})(?!\w|\.\d|\s*[×*/÷^(])")
_HEDGED_BEFORE_RE = re.compile(rf"{_HEDGE}\s*$", re.IGNORECASE)
#: how near a hedged result ("about 0.893") must be
_HEDGED_TOLERANCE = 0.01


@dataclass(frozen=True)
class WorkedSum:
    """A sum the body works: the span of its expression, the span of its result, what the
    expression comes to and whether that agrees with the result."""

    expr_start: int
    expr_end: int
    result_start: int
    result_end: int
    computed: float
    agrees: bool

    def holds(self, start: int) -> bool:
        """Whether a figure starting at ``start`` is one of the sum's figures."""
        return (self.expr_start <= start < self.expr_end
                or self.result_start <= start < self.result_end)


def _value(text: str) -> Decimal:
    return Decimal(text.replace("$", "").replace(",", "").rstrip("%"))


def _evaluate(expr: str) -> float | None:
    text = re.sub(r"\s+minus\s+", " - ", expr)
    text = re.sub(r"\s+plus\s+", " + ", text)
    text = re.sub(r"\s+divided\s+by\s+", " / ", text)
    text = re.sub(r"\s+multiplied\s+by\s+", " * ", text)
    text = text.replace("−", "-").replace("$", "").replace("%", "*0.01")
    try:
        return evaluate(text)
    except (ArithmeticError_, ValueError, OverflowError):
        return None


def _agrees(computed: float, result: str, hedged: bool) -> bool:
    try:
        stated = _value(result) * (Decimal("0.01") if result.endswith("%") else 1)
        exact = Decimal(repr(computed))
    except InvalidOperation:
        return True  # nothing to compare: leave it alone
    decimals = len(result.split(".")[1].rstrip("%")) if "." in result else 0
    decimals += 2 if result.endswith("%") else 0
    if quantize(exact, decimals) == stated:
        return True
    return hedged and stated != 0 and abs(exact - stated) <= abs(stated) * Decimal(
        str(_HEDGED_TOLERANCE))


def worked_sums(body: str) -> list[WorkedSum]:
    """Every worked sum in ``body`` with a stated result, in order."""
    out: list[WorkedSum] = []
    for m in _BRACKETED_RE.finditer(body):
        computed = _evaluate(m.group("expr"))
        if computed is not None:
            hedged = bool(_HEDGED_BEFORE_RE.search(body[max(0, m.start() - 20):m.start()]))
            out.append(WorkedSum(m.start("expr"), m.end("expr"), m.start("result"),
                                 m.end("result"), computed,
                                 _agrees(computed, m.group("result"), hedged)))
    for m in _STATED_RE.finditer(body):
        if any(w.expr_start <= m.start("expr") < w.expr_end for w in out):
            continue
        computed = _evaluate(m.group("expr"))
        if computed is not None:
            out.append(WorkedSum(m.start("expr"), m.end("expr"), m.start("result"),
                                 m.end("result"), computed,
                                 _agrees(computed, m.group("result"), bool(m.group("hedge")))))
    return sorted(out, key=lambda w: w.expr_start)


def wrong_sum_finding(article: Article, w: WorkedSum) -> Finding:
    """``arithmetic`` at the result of a worked sum that does not come to it."""
    body = article.body
    expr, result = body[w.expr_start:w.expr_end], body[w.result_start:w.result_end]
    return body_span(
        article, w.result_start, w.result_end, Severity.error, "arithmetic",
        f"the body works {expr} and states {result}, but {expr} comes to "
        f"{format(Decimal(repr(w.computed)).normalize(), 'f')}; recompute it")
