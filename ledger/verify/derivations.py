"""Prose guardrails that forbid a form of a figure: a value derived from two figures, or a
figure in points written as a percent.

* **derivation**: "do not divide A by B", "never subtract A from B", "do not add A and B",
  "do not multiply A by B" (A and B each hold one figure): a body figure equal to the result
  (for a division, either way round; within 5% and at the figure's own precision), in a
  sentence that also states A or B, breaks it. The operands in the sentence are what make the
  number the forbidden result rather than a coincidence.
* **percent**: "X is in percentage points and must not be written as a percent", "do not write
  X as a percentage": X written with "%" or "percent" breaks it.

Reading prose is uncertain, so a violation is a warning (rule ``guardrail``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, DivisionByZero, InvalidOperation

from ..figures import FigureKind, extract_figures, quantize
from ..models import Article
from ..report import Finding, Severity
from .prose import sentences
from .text import body_span

__all__ = ["FormRule", "check_form", "form_rule"]

_DERIVE_RE = re.compile(
    r"\b(?:do\s+not|don't|never|not)\s+(?P<op>divide|subtract|add|multiply|sum)\s+"
    r"(?P<a>(?:[^;:.]|\.(?=\d))*?\d(?:[^;:.]|\.(?=\d))*?)\s+(?:by|from|to|and|with)\s+"
    r"(?P<b>[^;:.,]*?\d(?:[\d,]|\.(?=\d))*\w*)",
    re.IGNORECASE)
_PERCENT_RE = re.compile(
    r"\b(?:must\s+not|should\s+not|may\s+not|never|do\s+not|don't|not)\s+(?:be\s+)?"
    r"(?:written|write|given|give|stated|state|reported|report|expressed|express|presented|"
    r"present|quoted|quote)\s+(?:(?:it|them)\s+)?(?:as|in)\s+(?:an?\s+)?"
    r"(?:percent(?:age)?|per\s+cent|%)(?!\s*points)", re.IGNORECASE)
#: how near the derived value must be: "1.5 times" for 5.81 / 3.85 = 1.509
_TOLERANCE = Decimal("0.05")


@dataclass
class FormRule:
    """A form the guardrail forbids: ``derived`` values (with their ``operands``), or the
    ``values`` that must not be written as a percent."""

    kind: str  # "derived" | "percent"
    values: list[Decimal]
    operands: list[Decimal]


def _one(text: str) -> Decimal | None:
    values = [v for f in extract_figures(text) if f.kind is not FigureKind.date for v in f.values]
    return values[0] if len(values) == 1 else None


def _derived(op: str, a: Decimal, b: Decimal) -> list[Decimal]:
    try:
        if op == "divide":
            return [a / b, b / a]
        if op == "subtract":
            return [abs(b - a)]
        if op == "multiply":
            return [a * b]
        return [a + b]
    except (DivisionByZero, InvalidOperation):
        return []


def form_rule(text: str) -> FormRule | None:
    """The form a guardrail's prose forbids, or None."""
    if m := _DERIVE_RE.search(text):
        a, b = _one(m.group("a")), _one(m.group("b"))
        if a is not None and b is not None:
            derived = _derived(m.group("op").lower(), a, b)
            return FormRule("derived", derived, [a, b]) if derived else None
    if m := _PERCENT_RE.search(text):
        values = [v for f in extract_figures(text[:m.start()])
                  if f.kind is not FigureKind.date for v in f.values]
        return FormRule("percent", values, []) if values else None
    return None


def _matches(value: Decimal, fig_value: Decimal, decimals: int) -> bool:
    return quantize(value, decimals) == fig_value and abs(value - fig_value) <= abs(
        value) * _TOLERANCE


def check_form(rule: FormRule, article: Article, index: int) -> list[Finding]:
    """Warnings where the body writes a figure in the form the rule forbids."""
    text = article.corrections[index].text
    findings = []
    for sentence in sentences(article.body):
        figures = [f for f in extract_figures(sentence.text) if f.kind is not FigureKind.date]
        stated = {v for f in figures for v in f.values}
        for fig in figures:
            if rule.kind == "percent":
                broken = fig.kind is FigureKind.percent and any(
                    v in rule.values for v in fig.values)
                what = "writes it as a percent"
            else:
                broken = (not any(v in rule.operands for v in fig.values)
                          and any(o in stated for o in rule.operands)
                          and any(_matches(d, v, fig.decimals)
                                  for d in rule.values for v in fig.values))
                what = "states the result of the arithmetic it forbids"
            if broken:
                findings.append(body_span(
                    article, sentence.start + fig.start, sentence.start + fig.end,
                    Severity.warning, "guardrail",
                    f"guardrail {index + 1} ({text[:60]!r}...), read from its prose: "
                    f"{fig.text!r} {what}; the checker read the guardrail's wording and "
                    "cannot be sure"))
    return findings
