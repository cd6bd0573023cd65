"""Arithmetic the body works in front of the reader.

The desk often shows a sum where it states its result: "about 47,520 tokens (13.20 × 3,600)",
"f = 0.875 / 0.98, or about 0.893", "0.2 × $4.50, or $0.90 per hour", "$0.25 minus $0.025,
or $0.225". Such a **worked sum** is an expression of plain numbers joined by ``×``, ``x``,
``*``, ``/``, ``÷``, ``+``, ``−``, ``^`` (a power: "2^10 = 1,024"), or "plus", "minus",
"divided by", "multiplied by" (not a hyphen, which writes a range), and its **result**: the
figure right before the brackets that hold the expression (a few words, such as its unit, may
stand between), or the figure right after ``=``, ", or", "is", "gives", "equals" or "comes
to" (with "about", "roughly" and the like). The sum is worked in its operands' unit when the
result is in a larger one ("144 x 800 Gb/s = 115.2 Tb/s").

* A worked sum that agrees with its result (at the result's printed precision; within 1% when
  the result is hedged with "about") and has one figure that traces to the article's evidence
  explains its other figures: a constant such as 3,600 seconds in an hour, or a step of the
  desk's algebra, is working shown, not an untraced claim.
* A worked sum that does not agree is an ``arithmetic`` error at its result: the reader can
  redo it and get another number.
* A **conversion**, a figure said again right after it in another unit of its dimension
  ("288 Gb, or 36 GB", "153.6 GB (143 GiB)"), is a sum too: one that does not convert is an
  ``arithmetic`` error, or a ``unit-mismatch`` when its number fits a sibling prefix instead
  ("3,024 W, about 3.0 MW": 3.0 kW). Decimal and binary prefixes mixed up ("1 TB (1,024 GB)")
  pass, and so does a compound duration ("285 s (4 minutes 45 seconds)").

Expressions with letters ("1 / (1 - f + f/50) = 8") are algebra, not sums of figures, and are
left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from ..figures import Figure, extract_figures, quantize
from ..models import Article
from ..quantities import UNITS, Unit, parse_unit
from ..report import Finding, Severity
from .arithmetic import ArithmeticError_, evaluate
from .text import body_span

__all__ = ["WorkedSum", "worked_sums", "wrong_sum_finding"]

_NUM = r"\$?\d[\d,]*(?:\.\d+)?%?"
#: (not a hyphen: "(30 - 40)" is a range)
_OP = (r"(?:\s*[×*/÷+−^]\s*|\s+x\s+|\s+(?:plus|minus|divided\s+by|multiplied\s+by)\s+)")
#: Two or more numbers joined by operators, not inside a name or a larger expression with
#: letters ("f/50", "v1.2", "H100").
_EXPR = rf"(?<![\w./$-])(?:{_NUM})(?:{_OP}(?:{_NUM}))+(?!\w|\.\d|\s*[×*/÷^(])"
#: "47,520 tokens (13.20 × 3,600)": the result, up to eight words, then the bracketed sum.
_BRACKETED_RE = re.compile(
    rf"(?<![\w.,$])(?P<result>{_NUM})(?:\s+[A-Za-z/'’-]+){{0,8}}\s*\(\s*(?P<expr>{_EXPR})\s*\)")
#: "0.875 / 0.98, or about 0.893": the sum, a word that states its result, the result.
_HEDGE = r"(?:about|roughly|around|nearly|approximately|almost|some|just\s+(?:over|under)|~)"
#: A result's number is read whole (never "2" of "2,048GB"); a unit may be written onto it.
_RESULT = (rf"(?P<result>(?>{_NUM}))(?:(?=(?:[KMGTP]i?B|[KMGT]b|[KMGT]bps|ms|s|x)\b)"
           rf"|(?!\w|\.\d|\s*[×*/÷^(]|\s*[+−]\s*\d))")
#: A sum equated to another sum on the way to its result: "0.6 × 400 + 0.4 × 2,050 = 240 +
#: 820 = 1,060 ms" (each expression the next one's working).
_CHAINED_RE = re.compile(rf"(?P<expr>{_EXPR})\s*=\s*(?=(?P<next>{_EXPR})\s*=)")
#: how near two sums equated in a chain must be (their terms are rounded)
_CHAIN_TOLERANCE = 0.01
_STATED_RE = re.compile(
    rf"(?P<expr>{_EXPR})\s*(?:=|,\s*or|\bis|\bgives|\bequals|\bcomes\s+to)\s*"
    rf"(?P<hedge>{_HEDGE}\s*)?{_RESULT}")
#: The result said again in a larger unit: "= 2,048GB, about 2TB", "153.6 GB (143 GiB)".
_RESTATED_RE = re.compile(
    rf"\s*(?:,\s*(?:or\s+)?|\(\s*|\s+or\s+)(?P<hedge>{_HEDGE}\s*)?(?P<n>(?>{_NUM}))")
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
    #: a unit conversion of the figure before it (see :func:`_conversion`): what it converts
    #: ("3,024 W") and, when the number fits a sibling unit instead, that unit ("kW")
    converts: str = ""
    fits: str = ""

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


#: Between two figures of a sum in words: the first one's unit or noun (up to two words),
#: then the operator ("1,000 ms divided by 268", "226.75 nodes times eight").
_WORDED_OP_RE = re.compile(
    r"\s*(?P<scale>thousand|million|billion)?(?:\s*[A-Za-z/%$-]+){0,2}?\s*,?\s*(?P<op>×|\*|/|÷|"
    r"\btimes\b|\bdivided\s+by\b|\bmultiplied\s+by\b|\bplus\b|\bminus\b|\+|−)\s*$",
    re.IGNORECASE)
#: Between the second figure and the result: its unit, then the word that states the result.
_WORDED_IS_RE = re.compile(
    rf"\s*(?:[A-Za-z/%$-]+\s*){{0,2}}?(?:\bis\b|\bare\b|=|\bgives?\b|\bequals\b|"
    rf"\bcomes?\s+to\b|\bmakes?\b|,\s*or\b)\s*(?P<hedge>{_HEDGE}\s*|exactly\s*)?$",
    re.IGNORECASE)
_DIVIDED_FIRST_RE = re.compile(r"\b[Dd]ivided\s+by\s*$")
_WORDED_OPS = {"×": "*", "*": "*", "/": "/", "÷": "/", "times": "*", "divided by": "/",
               "multiplied by": "*", "plus": "+", "minus": "-", "+": "+", "−": "-"}
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}


def _agrees_in_unit(body: str, end: int, computed: float, printed: str, hedged: bool) -> bool:
    """Whether ``computed`` comes to the result ``printed`` (ending at ``end``), or does once
    taken in the base of the unit written after it: "50,000,000 × 768 × 4 = 153.6 GB" counts
    bytes."""
    if _agrees(computed, printed, hedged):
        return True
    unit = parse_unit(body, end)
    return (unit is not None and unit[0].factor is not None and unit[0].factor > 1
            and _agrees(computed / float(unit[0].factor), printed, hedged))


def _restated(body: str, w: WorkedSum) -> WorkedSum | None:
    """The result of an agreeing sum said again in another unit of its dimension, as the
    same sum with that result ("8 × 256 = 2,048GB, about 2TB": 2.048 TB, 2 at its printed
    precision)."""
    return _conversion(body, w.result_start, w.result_end, w.expr_start, w.expr_end)


def _conversion(body: str, start: int, end: int, expr_start: int | None = None,
                expr_end: int | None = None) -> WorkedSum | None:
    """The figure ``body[start:end]`` with a unit, said again in another unit of its
    dimension right after it ("288 Gb, or 36 GB", "153.6 GB (143 GiB)", "3,024 W, about 3.0
    kW"): a sum whose result is the second figure. It agrees at the second figure's printed
    precision (1% when hedged), also read across the decimal and binary prefixes ("1 TB
    (1,024 GB)"); when it does not but the number fits a sibling unit ("about 3.0 MW" for
    3,024 W), ``fits`` names that unit."""
    first = parse_unit(body, end)
    if first is None or first[0].factor is None:
        return None
    m = _RESTATED_RE.match(body, first[1])
    second = parse_unit(body, m.end("n")) if m else None
    if m is None or second is None or second[0].factor is None or (
            second[0].dimension != first[0].dimension) or second[0].symbol == first[0].symbol:
        return None
    if (tail := _COMPOUND_RE.match(body, second[1])) is not None and (
            (third := parse_unit(body, tail.end())) is not None
            and third[0].dimension == second[0].dimension and second[0].dimension in ("s", "m")
            and (third[0].factor or 0) < (second[0].factor or 0)):
        return None  # "285 s (4 minutes 45 seconds)": a compound, read whole elsewhere
    try:
        value = float(_value(body[start:end]))
    except InvalidOperation:
        return None
    hedged = bool(m.group("hedge"))
    converted = value * float(first[0].factor) / float(second[0].factor)
    agrees = any(_agrees(value * float(a.factor) / float(b.factor), m.group("n"), hedged)
                 for a in _readings(first[0]) for b in _readings(second[0])
                 if a.factor is not None and b.factor is not None)
    fits = "" if agrees else next(
        (u.symbol for u in _other_prefixes(second[0]) if u.factor is not None and _agrees(
            value * float(first[0].factor) / float(u.factor), m.group("n"), True)), "")
    return WorkedSum(start if expr_start is None else expr_start,
                     end if expr_end is None else expr_end, m.start("n"), m.end("n"),
                     converted, agrees, converts=body[start:first[1]].strip(), fits=fits)


#: The next number of a compound quantity: "4 minutes 45 seconds", "1 h and 30 min".
_COMPOUND_RE = re.compile(r"\s*(?:,\s*|\s+and\s+)?\d[\d,]*(?:\.\d+)?")


def _other_prefixes(unit: Unit) -> list[Unit]:
    """The other units of ``unit``'s dimension and base, by size: kW and GW for MW, MB and TB
    for GB."""
    seen: dict[str, Unit] = {}
    for u in UNITS.values():
        if (u.dimension == unit.dimension and u.family == unit.family and u.factor
                and u.factor != unit.factor):
            seen.setdefault(u.symbol, u)
    return sorted(seen.values(), key=lambda u: u.factor or 0)


def _readings(unit: Unit) -> list[Unit]:
    """A size unit and its twin across the decimal and binary prefixes ("GB" and "GiB"),
    which writers mix up in conversions; any other unit alone."""
    sym = unit.symbol
    if unit.dimension not in ("bytes", "bytes/s") or len(sym) < 2 or unit.factor is None:
        return [unit]
    twin = sym[:1] + sym[2:] if sym[1] == "i" else sym[:1] + "i" + sym[1:]
    other = UNITS.get(twin)
    return [unit] if other is None or other.factor is None else [unit, other]


def _result_agrees(body: str, result: Figure, computed: float, hedge: str | None,
                   operand: Figure | None = None) -> bool:
    """Whether ``computed`` comes to the figure ``result`` ("exactly" is no hedge): a result in
    digits at its printed precision, with its suffix's scale ("1.8B") or its unit's ("175
    billion weights times 2 bytes is 350 GB": 350 billion bytes), or converted from the unit
    of the last ``operand`` ("144 x 800 Gb/s = 115.2 Tb/s"); one in words ("is eight") at
    whole precision."""
    hedged = hedge is not None and bool(hedge) and not hedge.strip().lower().startswith("exactly")
    value = float(result.values[0])
    number = re.search(r"\d[\d,]*(?:\.\d+)?%?", body[result.start:result.end])
    if number is None:
        return abs(computed - value) <= (_HEDGED_TOLERANCE * abs(value) if hedged else 0.5)
    printed = number.group()
    scales = [computed / value * float(_value(printed))] if value else []
    unit = parse_unit(body, result.end)
    if unit is not None and unit[0].factor is not None and unit[0].factor > 1:
        scales.append(computed / float(unit[0].factor))  # the operands in the unit's base
        given = parse_unit(body, operand.end) if operand is not None else None
        if (given is not None and given[0].factor is not None
                and given[0].dimension == unit[0].dimension):
            scales.append(computed * float(given[0].factor) / float(unit[0].factor))
    return _agrees(computed, printed, hedged) or any(
        _agrees(c, printed, hedged) for c in scales)


#: A figure the reader took with the operator after it ("175 billion times 3", "0.001097 ×
#: 3,600"): the figure's number, then the operator.
_TIMES_INSIDE_RE = re.compile(r"\s+times$|\s?[×x]$")


def _link(body: str, a: Figure, b: Figure) -> tuple[str, float] | None:
    """The operator joining two figures of a sum in words, and the scale that multiplies the
    first ("175 billion weights times 2", "3, divided by 8", "175 billion times 3")."""
    if _TIMES_INSIDE_RE.search(body[a.start:a.end]) and not body[a.end:b.start].strip():
        return "*", 1.0
    op = _WORDED_OP_RE.fullmatch(body, a.end, b.start)
    if op is None:
        return None
    return (_WORDED_OPS[re.sub(r"\s+", " ", op.group("op").lower())],
            _SCALES.get((op.group("scale") or "").lower(), 1.0))


def _worded_sums(body: str) -> list[WorkedSum]:
    """Sums of figures written in words or symbols with their result, read left to right as
    the sentence reads them: "1,000 ms divided by 268 is about 3.7 ms", "226.75 nodes times
    eight is 1,814 GPUs", "Five hundred thousand divided by eight is 62,500", "175 billion
    times 3, divided by 8, or 65.6 GB", "Divided by 16, 46.4 TB/s is 2.9 TB/s". The figures
    come from the figure reader, so a number in words takes part; a percent result is
    compared as a percent."""
    figures = [f for f in extract_figures(body) if f.value is not None and len(f.values) == 1]
    out = []
    for i, a in enumerate(figures[:-2]):
        if i and _link(body, figures[i - 1], a) is not None:
            continue  # inside a longer chain, read from its first figure
        b = figures[i + 1]
        if (_DIVIDED_FIRST_RE.search(body, max(0, a.start - 14), a.start)
                and re.fullmatch(r"\s*,\s*", body[a.end:b.start]) and a.values[0] != 0):
            # "Divided by 16, 46.4 TB/s is 2.9 TB/s per chip": the divisor first
            computed: float | None = float(b.values[0]) / float(a.values[0])
            last = i + 1
        else:  # a chain, with the usual precedence ("0.5 plus 149 times 0.03 is 4.97")
            terms, last = [repr(float(a.values[0]))], i
            while last + 1 < len(figures) and (
                    link := _link(body, figures[last], figures[last + 1])) is not None:
                symbol, scale = link
                if scale != 1.0:
                    terms[-1] = f"({terms[-1]} * {scale!r})"
                terms += [symbol, repr(float(figures[last + 1].values[0]))]
                last += 1
            if last == i:
                continue
            computed = _evaluate(" ".join(terms))
        if computed is None or last + 1 >= len(figures):
            continue
        c = figures[last + 1]
        is_ = _WORDED_IS_RE.fullmatch(body, figures[last].end, c.start)
        if is_ is None:
            continue
        out.append(WorkedSum(a.start, figures[last].end, c.start, c.end, computed,
                             _result_agrees(body, c, computed, is_.group("hedge"),
                                            figures[last])))
    return out


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
    for m in _CHAINED_RE.finditer(body):
        computed, then = _evaluate(m.group("expr")), _evaluate(m.group("next"))
        if computed is not None and then is not None:
            out.append(WorkedSum(m.start("expr"), m.end("expr"), m.start("next"),
                                 m.end("next"), computed,
                                 abs(computed - then) <= _CHAIN_TOLERANCE * abs(then)))
    for m in _STATED_RE.finditer(body):
        if any(w.expr_start <= m.start("expr") < w.expr_end for w in out):
            continue
        computed = _evaluate(m.group("expr"))
        if computed is not None:
            hedged = bool(m.group("hedge"))
            out.append(WorkedSum(m.start("expr"), m.end("expr"), m.start("result"),
                                 m.end("result"), computed,
                                 _agrees_in_unit(body, m.end("result"), computed,
                                                 m.group("result"), hedged)))
    for w in _worded_sums(body):
        # a longer chain in words takes the place of the symbols' part of it ("175 billion
        # times 3, divided by 8, or 65.6 GB" over "3, divided by 8, or 65.6")
        inner = [o for o in out if o.result_start == w.result_start
                 and w.expr_start < o.expr_start and o.expr_end <= w.expr_end]
        out = [o for o in out if o not in inner]
        if not any(o.expr_start <= w.expr_start < o.expr_end or
                   o.result_start == w.result_start for o in out):
            out.append(w)
    out += [r for w in out if w.agrees and (r := _restated(body, w)) is not None]
    results = {w.result_start for w in out} | {w.expr_start for w in out}
    for f in extract_figures(body):
        if f.start not in results and len(f.values) == 1 and (
                c := _conversion(body, f.start, f.end)) is not None and (
                c.result_start not in results) and (c.agrees or c.fits or _near(c, body)):
            out.append(c)  # "288 Gb, or 36 GB": a conversion, right or wrong
    return sorted(out, key=lambda w: w.expr_start)


def _near(w: WorkedSum, body: str) -> bool:
    """A wrong conversion within a factor of two of the right one: a slip, not two values
    that merely stand side by side ("a 4 TB, or 8 TiB, pool")."""
    try:
        stated = float(_value(body[w.result_start:w.result_end]))
    except InvalidOperation:
        return False
    return w.computed > 0 and 0.5 < stated / w.computed < 2


def wrong_sum_finding(article: Article, w: WorkedSum) -> Finding:
    """``arithmetic`` at the result of a worked sum that does not come to it; ``unit-mismatch``
    where its number fits a sibling of the unit it is written in."""
    body = article.body
    expr, result = body[w.expr_start:w.expr_end], body[w.result_start:w.result_end]
    computed = format(Decimal(repr(w.computed)).normalize(), "f")
    if w.converts:
        unit = parse_unit(body, w.result_end)
        written = body[w.result_start:unit[1]].strip() if unit else result
        symbol = f" {unit[0].symbol}" if unit else ""
        if w.fits:
            return body_span(
                article, w.result_start, w.result_end, Severity.error, "unit-mismatch",
                f"{written!r} restates {w.converts}, which is {computed}{symbol}; the number "
                f"fits {w.fits}: the unit is wrong")
        return body_span(
            article, w.result_start, w.result_end, Severity.error, "arithmetic",
            f"{written!r} restates {w.converts}, which is {computed}{symbol}; recompute it")
    return body_span(
        article, w.result_start, w.result_end, Severity.error, "arithmetic",
        f"the body works {expr} and states {result}, but {expr} comes to "
        f"{format(Decimal(repr(w.computed)).normalize(), 'f')}; recompute it")
