"""Arithmetic: inference computations and equations are recomputed, claim percentages checked.

* ``Inference.computation``: each step's ``expression`` is evaluated with :func:`evaluate` (an
  ``ast`` walker that allows numbers, names of inputs and earlier steps, ``+ - * / **``, unary
  minus and parentheses -- never ``eval``) and compared with its stated ``result`` within the
  computation's ``tolerance`` (absolute) or the result's printed precision.
* Equations written in assumptions ("Ratio is 1.25 / 2.0 = 0.625; reduction is 1 - 0.625 =
  0.375"): both sides of every ``=`` are evaluated; the left side, rounded half-up to the
  printed precision of a literal right side, must equal it.
* Claim percentages: in an inference that has arithmetic, every percent in the claim must be a
  value the arithmetic states or computes -- as a fraction (37.5% = 0.375) or as a change of a
  multiplier (rises 25% = 1.25).

Each mismatch is an error with rule id ``arithmetic``.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from itertools import pairwise

from ..figures import Figure, FigureKind, extract_figures, quantize
from ..models import Article, Computation, Inference
from ..quantities import Kind, Quantity, typed_figures
from ..report import Finding, Severity
from .evidence import build_index

__all__ = ["ArithmeticError_", "check_arithmetic", "equations", "evaluate", "money_scale"]


class ArithmeticError_(ValueError):
    """An expression that is not safe arithmetic, names an unknown value, or divides by zero."""


_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow,
}
_MAX_EXPONENT = 64


def _eval(node: ast.AST, names: Mapping[str, float]) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body, names)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(
            node.value, bool):
        return float(node.value)
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise ArithmeticError_(f"unknown name {node.id!r}")
        return float(names[node.id])
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _eval(node.operand, names)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left, names), _eval(node.right, names)
        if isinstance(node.op, ast.Pow) and abs(right) > _MAX_EXPONENT:
            raise ArithmeticError_("exponent too large")
        try:
            return _BINARY[type(node.op)](left, right)
        except ZeroDivisionError:
            raise ArithmeticError_("division by zero") from None
    raise ArithmeticError_(f"not allowed in arithmetic: {type(node).__name__}")


def evaluate(expression: str, names: Mapping[str, float] | None = None) -> float:
    """Value of a safe arithmetic expression (``×``/``÷``/``^`` are read as ``* / **``).

    Raises :class:`ArithmeticError_` (a ``ValueError``) for anything else.
    """
    text = expression.replace("×", "*").replace("÷", "/").replace("^", "**").replace(",", "")
    text = re.sub(r"(?<=[\d)])\s+x\s+(?=[\d(])", " * ", text)  # "16 x 1.46", not "roce_4x200"
    if len(text) > 500:
        raise ArithmeticError_("expression too long")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise ArithmeticError_(f"not an arithmetic expression: {expression!r}") from None
    value = _eval(tree, names or {})
    if not math.isfinite(value):
        raise ArithmeticError_("result is not finite")
    return value


def _decimals(text: str) -> int | None:
    """Printed precision when ``text`` is a bare number, else None."""
    m = re.fullmatch(r"\s*-?\d+(?:\.(\d+))?\s*", text)
    return None if m is None else len(m.group(1) or "")


def _agrees(computed: float, stated: str | float, tolerance: float = 1e-9) -> bool:
    """Equal within ``tolerance``, or equal at the printed precision of a stated literal."""
    value = float(stated)
    if abs(computed - value) <= tolerance + 1e-12 * abs(value):
        return True
    if not isinstance(stated, str) or _decimals(stated) is None:
        return False
    decimals = _decimals(stated) or 0
    return quantize(Decimal(repr(computed)), decimals) == Decimal(stated.strip())


_UNIT_WORD = r"(?:%|[A-Za-z\u00b5\u03bc][A-Za-z]*(?:/[A-Za-z]+)?)"
_ARITH_RE = re.compile(  # a digit inside a name ("Q1", "H100") starts no number
    r"[-+]?\(*\s*(?<![\w.])\d[\d.,]*(?:(?:\s*[-+*/×÷^]|\s+x)\s*\(*\s*[\d.,]+\s*\)*)*\)*")


def _side(text: str, last: bool) -> str | None:
    """The arithmetic expression at the end (``last``) or start of one side of an ``=``."""
    matches = list(_ARITH_RE.finditer(text))
    if not matches:
        return None
    m = matches[-1] if last else matches[0]
    outside = text[m.end():] if last else text[:m.start()]
    if outside.strip(" ,;.") and any(c.isdigit() for c in outside):
        return None
    if last and not _BEFORE_EQUALS_RE.fullmatch(outside):
        return None  # "a leap year (January to July = 213 days)": words name the 213
    return m.group().strip().rstrip(".,")


#: What may stand between the left side's expression and "=": its unit ("3 x 64 GB =",
#: "(3317 / 4) tokens/s ="), closing brackets, spaces; words are a label, not arithmetic.
_BEFORE_EQUALS_RE = re.compile(rf"[\s)\]]*(?:{_UNIT_WORD}[\s)\]]*)?")


#: A number followed by a unit-like word: a known unit, or any word of letters with an optional
#: "/unit" ("PFLOPs/s", "tokens/s"), so units the table does not list are read too.
_UNIT = r"[A-Za-z\u00b5\u03bc][A-Za-z]*(?:/[A-Za-z]+)?"
#: "1 TiB = 1024 GiB", "(1 GiB = 1024**3 bytes)", "(1 GB = 1e9 bytes)", "1 PFLOPs/s = 1000
#: TFLOPs/s": a unit definition, not an equation to check. Both sides carry a unit word and the two differ.
_UNIT_DEFINITION_RE = re.compile(
    rf"\(?\s*[\d.,]+\s*(?P<a>{_UNIT})\s*=\s*[\d.,*^ ]+(?:[eE][-+]?\d+)?\s*(?P<b>{_UNIT})"
    rf"(?![\w/])\s*\)?")


def _drop_unit_definitions(text: str) -> str:
    return _UNIT_DEFINITION_RE.sub(
        lambda m: " " if m["a"] != m["b"] else m[0], text)


def equations(text: str) -> list[tuple[str, str]]:
    """``(left, right)`` pairs of each equation in ``text`` (``a = b = c`` gives two).

    Unit definitions ("1 TiB = 1024 GiB") are not equations: both sides are the same quantity
    in different units, so they are left out.
    """
    out = []
    text = _drop_unit_definitions(text)
    for part in re.split(r";|\.\s", text):
        sides = part.split("=")
        for left, right in pairwise(sides):
            lhs, rhs = _side(left, last=True), _side(right, last=False)
            if lhs and rhs:
                out.append((lhs, rhs))
    return out


def _computation(comp: Computation, base: str) -> tuple[list[Finding], list[float]]:
    names: dict[str, float] = dict(comp.inputs)
    findings, values = [], list(comp.inputs.values())
    for j, step in enumerate(comp.steps):
        where = f"{base}/computation/steps/{j}"
        try:
            value = evaluate(step.expression, names)
        except ArithmeticError_ as exc:
            findings.append(Finding(Severity.error, "arithmetic",
                                    f"step {step.name!r}: {exc}", f"{where}/expression"))
            continue
        names[step.name] = value
        values += [value, step.result, *_factors(step.expression)]
        values += _operands(step.expression)
        if not _agrees(value, step.result, comp.tolerance):
            findings.append(Finding(
                Severity.error, "arithmetic",
                f"step {step.name!r}: {step.expression} = {value:g}, not the stated "
                f"{step.result:g}", f"{where}/result"))
    return findings, values


def _tree(expression: str) -> ast.Expression | None:
    """The expression's syntax tree, with its multiplication signs read as Python's; None when
    it does not parse."""
    text = expression.replace("×", "*").replace("÷", "/").replace("^", "**").replace(",", "")
    try:
        return ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return None


def _factors(expression: str) -> list[float]:
    """The fractional constants an expression writes out ("compute_tflops * 1.05": 1.05):
    values the arithmetic states, so a claim's "5%" applied as a factor of 1.05 is explained.
    Whole numbers (100, 1024, 8) are left out: they convert units, they state no figure."""
    tree = _tree(expression)
    if tree is None:
        return []
    return [float(n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, (int, float)) and not isinstance(n.value, bool)
            and float(n.value) != int(n.value)]


#: Whole numbers an expression multiplies or divides by to convert units or scales.
_CONVERSIONS = frozenset({8, 24, 60, 1000, 1024, 3600, 86400})


def _operands(expression: str) -> list[float]:
    """The whole numbers an expression writes as operands: added or subtracted ("100 - 60":
    60, "50 - 40": 50) or multiplied and divided when they convert nothing ("10000 / 5000"),
    inputs the arithmetic states, so a claim's "60%" is one of them. 100 (a percent's whole),
    numbers that convert units (8 bits, 60 seconds, 1,024) and powers of ten are left out."""
    tree = _tree(expression)
    if tree is None:
        return []
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.BinOp):
            continue
        additive = isinstance(node.op, (ast.Add, ast.Sub))
        for n in (node.left, node.right):
            if not (isinstance(n, ast.Constant) and isinstance(n.value, (int, float))
                    and not isinstance(n.value, bool) and float(n.value) == int(n.value)):
                continue
            v = int(n.value)
            if v == 100 or (v > 1 and str(v).rstrip("0") == "1"):
                continue
            if additive or v not in _CONVERSIONS:
                out.append(float(v))
    return out


def _assumption_equations(inf: Inference, base: str) -> tuple[list[Finding], list[float]]:
    findings, values = [], []
    for j, text in enumerate(inf.assumptions or []):
        for lhs, rhs in equations(text):
            try:
                left, right = evaluate(lhs), evaluate(rhs)
            except ArithmeticError_ as exc:
                findings.append(Finding(Severity.error, "arithmetic", f"{lhs} = {rhs}: {exc}",
                                        f"{base}/assumptions/{j}"))
                continue
            values += [left, right]
            if not _agrees(left, rhs if _decimals(rhs) is not None else right):
                findings.append(Finding(
                    Severity.error, "arithmetic",
                    f"{lhs} is {left:g}, not {rhs} as the assumption states",
                    f"{base}/assumptions/{j}"))
        values += [float(v) for f in extract_figures(text) for v in f.values
                   if f.kind is not FigureKind.date]
    return findings, values


def _percent_explained(percent: Decimal, decimals: int, values: list[float],
                       tolerance: float = 0.0) -> bool:
    """The percent is a result (or a ratio's change, ``(r - 1) * 100``) at the claim's
    precision, or lies within the computation's declared absolute tolerance of one: a ratio of
    1.257 with tolerance 0.05 is "consistent with the post's 25%"."""
    p = float(percent)
    for v in values:
        for candidate in (v * 100, (v - 1) * 100, (1 - v) * 100, v):
            if quantize(Decimal(repr(candidate)), decimals) == percent:
                return True
        if tolerance > 1e-9 and any(abs(c - p) <= scale * tolerance for c, scale in (
                (v * 100, 100), ((v - 1) * 100, 100), ((1 - v) * 100, 100))):
            return True
    return False


def _own_ratios(inf: Inference) -> list[float]:
    """Ratios of two of the claim's own figures of one quantity that the computation does not
    use ("the 75% that an 8-bit against a 16-bit format implies": 8/16): a percent the claim
    works out in words beside the computation's result. A figure the computation takes as an
    input or gives as a result is not one of them."""
    used = {float(v) for v in (inf.computation.inputs.values() if inf.computation else ())}
    used |= {float(s.result) for s in (inf.computation.steps if inf.computation else ())}
    own = [(float(v), q) for f, q in typed_figures(inf.claim)
           if q.kind not in (Kind.percent, Kind.points, Kind.date, Kind.year)
           for v in f.values if float(v) not in used and v != 0]
    return [a / b for i, (a, q) in enumerate(own) for j, (b, r) in enumerate(own)
            if i != j and _one_quantity(q, r)]


def _one_quantity(q: Quantity, r: Quantity) -> bool:
    """Two figures of one quantity: the same kind, unit and counted noun, or a count and a
    bare number that elides its noun ("of 64 experts the router wakes 8")."""
    counts = {Kind.count, Kind.number}
    if q.kind in counts and r.kind in counts and Kind.number in (q.kind, r.kind):
        return True
    return q.kind is r.kind and q.unit == r.unit and q.noun == r.noun


def _claim_percents(inf: Inference, values: list[float], base: str) -> list[Finding]:
    findings = []
    tolerance = inf.computation.tolerance if inf.computation is not None else 0.0
    values = [*values, *_own_ratios(inf)]
    for fig in extract_figures(inf.claim):
        if fig.kind is FigureKind.percent and fig.value is not None and not _percent_explained(
                fig.value, fig.decimals, values, tolerance):
            findings.append(Finding(
                Severity.error, "arithmetic",
                f"the claim states {fig.text!r}, which none of its arithmetic gives",
                f"{base}/claim"))
    return findings


#: Kinds of figure a claim states as its own result; dates, years and percents are read
#: elsewhere (percents by :func:`_claim_percents`).
_RESULT_KINDS = frozenset({Kind.count, Kind.number, Kind.multiplier, Kind.size, Kind.rate,
                           Kind.duration, Kind.money})


#: A model's size in parameters ("one 8B configuration"): a name, not a result.
_MODEL_SIZE_RE = re.compile(r"\d+(?:\.\d+)?B")


def _stated_results(claim: str) -> list[tuple[Figure, Quantity]]:
    """The figure each clause of a claim ends on (clauses split at ";"), which is where a
    claim states its result ("a 550-token prompt weighs as much as 5.5 output tokens"), when
    it is written in digits, is no name ("Llama 3.1 8B") nor part of a compound ("a 3-bit
    format"), and is of a kind a computation gives (percents are read by
    :func:`_claim_percents`)."""
    out = []
    for clause in claim.split(";"):
        figures = [(f, q) for f, q in typed_figures(clause) if q.kind is not Kind.date
                   and q.kind is not Kind.year and not _MODEL_SIZE_RE.fullmatch(f.text)]
        if not figures:
            continue
        fig, q = figures[-1]
        if (q.kind not in _RESULT_KINDS or fig.value is None or len(fig.values) != 1
                or q.spelled or q.named or not any(c.isdigit() for c in fig.text)
                or clause[fig.end:fig.end + 1] == "-"):
            continue
        out.append((fig, q))
    return out


def _suffix_scale(fig: Figure) -> Decimal:
    """What a magnitude word or suffix multiplies the printed number by: 10**6 for "80.3M" and
    "1.2 million", 1 for a plain number."""
    m = re.search(r"\d[\d,]*(?:\.\d+)?", fig.text)
    if m is None or fig.value is None:
        return Decimal(1)
    printed = Decimal(m.group().replace(",", ""))
    return fig.value / printed if printed and fig.value != printed else Decimal(1)


#: A money figure keeps its printed number ("$12.4 million" is 12.4); its magnitude word.
_MONEY_MAGNITUDE_RE = re.compile(r"\d\s?(?P<m>k|K|M|B|bn|thousand|million|billion|trillion)\b")
_MONEY_MAGNITUDES = {"k": 3, "K": 3, "thousand": 3, "M": 6, "million": 6, "B": 9, "bn": 9,
                     "billion": 9, "trillion": 12}


def money_scale(fig: Figure) -> Decimal:
    """What a step's value in dollars is multiplied by to compare with a money figure printed
    with a magnitude: 10**-6 for "$12.4 million" (a step's 12,386,304 USD); 1 otherwise."""
    m = _MONEY_MAGNITUDE_RE.search(fig.text) if fig.kind is FigureKind.money else None
    return Decimal(1).scaleb(-_MONEY_MAGNITUDES[m.group("m")]) if m else Decimal(1)


def _claim_figures(article: Article, inf: Inference, values: list[float],
                   base: str) -> list[Finding]:
    """A figure of the claim that no value of its arithmetic gives (at the claim's precision)
    and no other evidence of the article states as the same kind of quantity: a result
    restated wrongly ("about as much as 55 output tokens" where the step gives 5.5)."""
    index = build_index(article)
    own = f"{base}/claim"
    findings = []
    for fig, q in _stated_results(inf.claim):
        stated = fig.value
        # a count of whole things may round a fraction up or down ("at least 5 GPUs become 3"
        # for 2.19 GPUs' worth)
        whole = q.kind in (Kind.count, Kind.number) and fig.decimals == 0
        # "80.3M" where the step works in millions (80.28): the suffix's scale applies
        scales = {Decimal(1), _suffix_scale(fig), money_scale(fig)}
        if any(quantize(Decimal(repr(v)) * scale, fig.decimals) == stated
               or (whole and stated in (math.floor(v), math.ceil(v)))
               for v in values if math.isfinite(v) for scale in scales):
            continue
        if any(ev.value == stated and ev.trace.pointer != own and (
                ev.quantity is None or ev.quantity.kind in (q.kind, Kind.number)
                or q.kind is Kind.number) for ev in index.numbers):
            continue
        findings.append(Finding(
            Severity.error, "arithmetic",
            f"the claim states {fig.text!r}, which neither its arithmetic nor the article's "
            "evidence gives", own))
    return findings


def check_arithmetic(article: Article) -> list[Finding]:
    """Recompute every inference's computation and equations; check its claim's percents."""
    findings: list[Finding] = []
    for i, inf in enumerate(article.inferences):
        base = f"/inferences/{i}"
        values: list[float] = []
        if inf.computation is not None:
            found, computed = _computation(inf.computation, base)
            findings += found
            values += computed
        found, computed = _assumption_equations(inf, base)
        findings += found
        values += computed
        if inf.computation is not None or any(equations(a) for a in inf.assumptions or []):
            findings += _claim_percents(inf, values, base)
        if inf.computation is not None:
            findings += _claim_figures(article, inf, values, base)
    return findings
