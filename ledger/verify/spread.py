"""``overprecise-figure`` and ``derived-figure``: figures at the precision their spread supports.

Both need the runs (``ledger verify --db``). For a body figure that traces to the value of a
measurement, the interval is the cited run metric's 95% confidence interval (``spread``), or,
for a measurement that declares ``derived_from``, the interval its inputs give it.

**overprecise-figure.** Let the figure print ``x`` with ``d`` decimals (a percent compared in
percent: the interval is multiplied by 100 when the metric is a fraction), and let ``lo`` and
``hi`` be the interval's ends rounded half-up to ``d`` decimals. Then

* a single value passes when ``lo == x == hi``: the whole interval prints as ``x``;
* a hedged single value (``about``, ``around``, ``roughly``, ``approximately``, ``nearly``,
  ``some``, ``~`` just before it) passes when ``lo <= x <= hi``;
* a range ``a-b`` passes when ``a <= lo`` and ``hi <= b``: it covers the interval.

A range traces to a measurement through the ``interval`` it states (``[low, high]``), which
must contain the run's interval at the precision it is written in (``run-mismatch``
otherwise): a wider, more cautious range is allowed, a narrower one is not.

Otherwise the figure claims more precision than the runs support: print a range, or a rounded,
hedged figure. A metric without a recorded spread (a run from before rounds were kept) is not
checked: its spread is unknown.

**derived-figure.** A measurement with ``derived_from`` must use only measurement ids of the
article, and its expression, recomputed on their values, must give its stated value at the
stated precision (an error otherwise). Its interval is the smallest and largest value the
expression takes over the ends of its inputs' intervals, exact for the monotone expressions
(ratios, differences, reductions) it is meant for. A derived measurement whose inputs have no
spread gets a warning: it cannot carry a spread.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Callable
from decimal import Decimal

from ..figures import Figure, FigureKind, quantize
from ..models import Article, Measurement
from ..report import Finding, Severity
from .arithmetic import ArithmeticError_, evaluate
from .runs import RunLookup
from .text import body_span
from .tracing import TracedFigure, trace_figures

__all__ = ["Interval", "figure_fits", "interval_of", "measurement_traces", "spread_check"]

Interval = tuple[float, float]

_HEDGE = re.compile(r"(?:\babout|\baround|\broughly|\bapproximately|\bnearly|\balmost|\bsome|~|"
                    r"\bclose to|\bon the order of)\s*\$?$", re.IGNORECASE)
_IDS = re.compile(r"\bM[1-9][0-9]*\b")


def _names(expression: str) -> set[str]:
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def _metric_interval(m: Measurement, lookup: RunLookup) -> Interval | None:
    run = lookup(m.run_id)
    if run is None:
        return None
    metric = next((x for x in run.metrics if x.name == m.metric
                   and (m.aggregation is None or x.aggregation == m.aggregation)), None)
    if metric is None or metric.spread is None:
        return None
    return metric.spread.ci_low, metric.spread.ci_high


def interval_of(m: Measurement, by_id: dict[str, Measurement], lookup: RunLookup,
                depth: int = 0) -> Interval | None:
    """The measurement's 95% interval: its run metric's, or its inputs' for a derived one."""
    if m.derived_from is None or depth > 8:
        return _metric_interval(m, lookup)
    names = sorted(_names(m.derived_from.expression))
    ends = []
    for name in names:
        source = by_id.get(name)
        found = interval_of(source, by_id, lookup, depth + 1) if source is not None else None
        if found is None:
            return None
        ends.append(found)
    values = []
    for corner in itertools.product(*ends):
        try:
            values.append(evaluate(m.derived_from.expression, dict(zip(names, corner))))
        except (ArithmeticError_, ZeroDivisionError):
            return None
    return min(values), max(values)


def _scale(figure: Figure, unit: str) -> Decimal:
    percent_unit = unit.strip().lower() in ("%", "percent", "pct")
    is_percent = figure.kind is FigureKind.percent or (figure.unit or "").strip() == "%"
    return Decimal(100) if is_percent and not percent_unit else Decimal(1)


def figure_fits(figure: Figure, interval: Interval, unit: str, hedged: bool) -> bool:
    """The README's exact test (see the module docstring)."""
    scale = _scale(figure, unit)
    lo = quantize(Decimal(repr(interval[0])) * scale, figure.decimals)
    hi = quantize(Decimal(repr(interval[1])) * scale, figure.decimals)
    if figure.value is None:
        return True
    if figure.upper is not None:
        return figure.value <= lo and hi <= figure.upper
    if hedged:
        return lo <= figure.value <= hi
    return lo == figure.value == hi


def _range_text(figure: Figure, interval: Interval, unit: str) -> str:
    scale = _scale(figure, unit)
    lo = quantize(Decimal(repr(interval[0])) * scale, figure.decimals)
    hi = quantize(Decimal(repr(interval[1])) * scale, figure.decimals)
    return f"{lo} to {hi}"


def _derived_findings(article: Article, by_id: dict[str, Measurement],
                      lookup: RunLookup) -> list[Finding]:
    findings = []
    for i, m in enumerate(article.measurements or []):
        if m.derived_from is None:
            continue
        where = f"/measurements/{i}/derived_from/expression"
        names = _names(m.derived_from.expression)
        unknown = sorted(n for n in names if n not in by_id or n == m.id)
        if not names or unknown or set(_IDS.findall(m.derived_from.expression)) != names:
            findings.append(Finding(Severity.error, "derived-figure",
                                    f"measurement {m.id}: derived_from must be an expression over "
                                    f"other measurement ids of this article (unknown: "
                                    f"{', '.join(unknown) or 'none'})", where))
            continue
        try:
            value = evaluate(m.derived_from.expression,
                             {n: float(by_id[n].value) for n in names})
        except (ArithmeticError_, ZeroDivisionError) as exc:
            findings.append(Finding(Severity.error, "derived-figure",
                                    f"measurement {m.id}: cannot compute "
                                    f"{m.derived_from.expression!r}: {exc}", where))
            continue
        places = max(0, -int(Decimal(repr(m.value)).as_tuple().exponent))
        if quantize(Decimal(repr(value)), places) != quantize(Decimal(repr(m.value)), places):
            findings.append(Finding(Severity.error, "derived-figure",
                                    f"measurement {m.id} states {m.value} but "
                                    f"{m.derived_from.expression} gives {value:.4g}", where))
        elif interval_of(m, by_id, lookup) is None and m.interval is None:
            findings.append(Finding(Severity.warning, "derived-figure",
                                    f"measurement {m.id}: its inputs ({', '.join(sorted(names))}) "
                                    "have no recorded spread, so it carries none", where))
    return findings


def _stated_interval_findings(article: Article, by_id: dict[str, Measurement],
                              lookup: RunLookup) -> list[Finding]:
    """A measurement's stated ``interval`` must contain its run's (or its inputs') interval at
    the precision it is stated in: the desk may print a wider range, never a narrower one."""
    findings = []
    for i, m in enumerate(article.measurements or []):
        if m.interval is None:
            continue
        measured = interval_of(m, by_id, lookup)
        where = f"/measurements/{i}/interval"
        if measured is None:
            findings.append(Finding(Severity.error, "run-mismatch",
                                    f"measurement {m.id} states an interval, but run {m.run_id} "
                                    f"records no spread for {m.metric}", where))
            continue
        (low, high), (lo, hi) = (Decimal(repr(x)) for x in m.interval), measured
        places = [max(0, -int(x.as_tuple().exponent)) for x in (low, high)]
        if not (low <= quantize(Decimal(repr(lo)), places[0])
                and quantize(Decimal(repr(hi)), places[1]) <= high):
            findings.append(Finding(
                Severity.error, "run-mismatch",
                f"measurement {m.id} states the interval {list(m.interval)}, which does not "
                f"contain run {m.run_id}'s 95% interval {lo:.4g} to {hi:.4g}", where))
    return findings


def measurement_traces(traced: TracedFigure) -> list[str]:
    """The measurements a figure prints: their ``value`` (a figure in digits), or an end of
    their ``interval`` (a range). A number word, or a single value that happens to equal an
    interval's end, is not a print of the measurement."""
    if traced.figure.spelled:
        return []
    ends = ("/interval/0", "/interval/1") if traced.figure.upper is not None else ()
    return sorted({t.measurement_id for t in traced.traces if t.measurement_id
                   and t.pointer.endswith(("/value", *ends))})


def spread_check(lookup: RunLookup | None) -> Callable[[Article], list[Finding]]:
    """The two rules over the runs ``lookup`` finds; without a ledger, no findings."""

    def check(article: Article) -> list[Finding]:
        if lookup is None or not article.measurements:
            return []
        by_id = {m.id: m for m in article.measurements}
        findings = (_derived_findings(article, by_id, lookup)
                    + _stated_interval_findings(article, by_id, lookup))
        for traced in trace_figures(article):
            figure = traced.figure
            ids = measurement_traces(traced)
            for mid in sorted(ids):
                m = by_id[mid]
                interval = interval_of(m, by_id, lookup)
                if interval is None:
                    continue
                hedged = bool(_HEDGE.search(article.body[max(0, figure.start - 20):figure.start]))
                if figure_fits(figure, interval, m.unit, hedged):
                    continue
                findings.append(body_span(
                    article, figure.start, figure.end, Severity.error, "overprecise-figure",
                    f"{figure.text!r} ({mid}, {m.metric}) is printed finer than its 95% interval "
                    f"{_range_text(figure, interval, m.unit)} at that precision",
                    hint="print the range, or a rounded figure with 'about'"))
        return findings

    return check
