"""Tracing: every figure in the body must match a value in the article's own evidence.

The evidence index holds every number and date the article states outside its body:

* numbers in fact claims (``fact``), benchmark-scope fields (``scope``), reported metrics
  (``metric``), inference claims and assumptions (``inference``, ``assumption``), the inputs and
  results of inference computations (``computation``), and ledger measurements (``measurement``:
  value and sample count, with their run id);
* dates of sources (published, updated, page date, retrieved), of the article (as-of,
  publication, observation), of the benchmark and of measurements, and dates written in the
  evidence text.

A figure traces when one of its values equals an evidence value rounded half-up to the
figure's printed precision. A percent and a fraction are the same value (``62.5%`` = 0.625).
A date with a year must equal an evidence date; ``May 6`` (no year) matches any evidence date on
that month and day; ``June 2024`` any date in that month; a bare year any evidence year.

:func:`trace_figures` is the public API (the database stores its output); :func:`check_tracing`
reports ``untraced-figure`` for each figure that traces to nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal

from ..figures import Figure, FigureKind, extract_figures, quantize
from ..models import AUTHOR_REPORTED_EVIDENCE, Article
from ..report import Finding, Severity
from .text import body_span

__all__ = [
    "EvidenceDate",
    "EvidenceIndex",
    "EvidenceNumber",
    "Trace",
    "TracedFigure",
    "build_index",
    "check_tracing",
    "trace_figure",
    "trace_figures",
]


@dataclass(frozen=True)
class Trace:
    """Where a figure's value was found. ``origin`` names the kind of evidence."""

    origin: str
    pointer: str
    fact_id: str | None = None
    inference_id: str | None = None
    source_ids: tuple[str, ...] = ()
    metric: str | None = None
    measurement_id: str | None = None
    run_id: str | None = None
    author_reported: bool = False

    def describe(self) -> str:
        name = (self.metric or self.measurement_id or self.fact_id
                or (self.inference_id if self.origin == "inference" else self.pointer))
        extra = f" run {self.run_id}" if self.run_id else ""
        sources = f" [{', '.join(self.source_ids)}]" if self.source_ids else ""
        return f"{self.origin}:{name}{extra}{sources}"

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"origin": self.origin, "pointer": self.pointer}
        for key in ("fact_id", "inference_id", "metric", "measurement_id", "run_id"):
            if getattr(self, key):
                data[key] = getattr(self, key)
        if self.source_ids:
            data["source_ids"] = list(self.source_ids)
        data["author_reported"] = self.author_reported
        return data


@dataclass(frozen=True)
class TracedFigure:
    """A figure of the body and every piece of evidence it traced to (empty: untraced)."""

    figure: Figure
    traces: tuple[Trace, ...]

    @property
    def traced(self) -> bool:
        return bool(self.traces)

    @property
    def metrics(self) -> frozenset[str]:
        return frozenset(t.metric for t in self.traces if t.metric)

    @property
    def author_reported(self) -> bool:
        """True when every non-date trace is author-reported evidence."""
        return bool(self.traces) and all(t.author_reported for t in self.traces)

    def to_dict(self) -> dict[str, object]:
        return self.figure.to_dict() | {"traces": [t.to_dict() for t in self.traces]}


@dataclass(frozen=True)
class EvidenceNumber:
    value: Decimal
    trace: Trace
    percent: bool = False


@dataclass(frozen=True)
class EvidenceDate:
    date: dt.date
    trace: Trace


@dataclass
class EvidenceIndex:
    numbers: list[EvidenceNumber] = field(default_factory=list)
    dates: list[EvidenceDate] = field(default_factory=list)

    def add_text(self, text: str, trace: Trace) -> None:
        for fig in extract_figures(text):
            if fig.kind is FigureKind.date and fig.date is not None:
                if fig.date_precision == "day":
                    self.dates.append(EvidenceDate(fig.date, trace))
                continue
            for value in fig.values:
                self.add_number(value, trace, percent=fig.kind in (
                    FigureKind.percent, FigureKind.points) or fig.unit == "%")

    def add_number(self, value: float | Decimal, trace: Trace, *, percent: bool = False
                   ) -> None:
        number = value if isinstance(value, Decimal) else Decimal(str(value))
        self.numbers.append(EvidenceNumber(number, trace, percent))

    def add_date(self, date: dt.date | None, trace: Trace) -> None:
        if date is not None:
            self.dates.append(EvidenceDate(date, trace))


def _is_percent_metric(name: str) -> bool:
    return name.endswith(("_pct", "_percent", "_percentage")) or "pct" in name.split("_")


def _add_facts(index: EvidenceIndex, article: Article) -> None:
    for i, fact in enumerate(article.facts):
        index.add_text(fact.claim, Trace(
            "fact", f"/facts/{i}/claim", fact_id=fact.id, source_ids=tuple(fact.source_ids),
            author_reported=fact.evidence_type in AUTHOR_REPORTED_EVIDENCE))


def _add_scope(index: EvidenceIndex, article: Article) -> None:
    scope = article.benchmark_scope
    if scope is None:
        return
    authors = not scope.independent_reproduction
    for name in ("hardware", "topology", "workload", "separate_scaling_experiment", "model"):
        text = getattr(scope, name)
        if text:
            index.add_text(text, Trace("scope", f"/benchmark_scope/{name}",
                                       author_reported=authors))
    for name, value in scope.reported_metrics.items():
        index.add_number(value, Trace("metric", f"/benchmark_scope/reported_metrics/{name}",
                                      metric=name, author_reported=authors),
                         percent=_is_percent_metric(name))
    index.add_date(scope.publication_date, Trace("date", "/benchmark_scope/publication_date"))


def _add_inferences(index: EvidenceIndex, article: Article) -> None:
    for i, inf in enumerate(article.inferences):
        base = f"/inferences/{i}"
        index.add_text(inf.claim, Trace("inference", f"{base}/claim", inference_id=inf.id))
        for j, text in enumerate(inf.assumptions or []):
            index.add_text(text, Trace("assumption", f"{base}/assumptions/{j}",
                                       inference_id=inf.id))
        if inf.computation is None:
            continue
        for name, value in inf.computation.inputs.items():
            index.add_number(value, Trace("computation", f"{base}/computation/inputs/{name}",
                                          inference_id=inf.id))
        for j, step in enumerate(inf.computation.steps):
            index.add_number(step.result, Trace(
                "computation", f"{base}/computation/steps/{j}/result", inference_id=inf.id),
                percent=step.unit == "%")


def _add_measurements(index: EvidenceIndex, article: Article) -> None:
    for i, m in enumerate(article.measurements or []):
        trace = Trace("measurement", f"/measurements/{i}/value", metric=m.metric,
                      measurement_id=m.id, run_id=m.run_id)
        index.add_number(m.value, trace, percent=m.unit.strip() in ("%", "percent"))
        if m.sample_count is not None:  # "over 16 sessions": the count, not the metric
            index.add_number(m.sample_count, Trace(
                "measurement", f"/measurements/{i}/sample_count", measurement_id=m.id,
                run_id=m.run_id))
        index.add_date(m.measured_at, Trace("date", f"/measurements/{i}/measured_at",
                                            measurement_id=m.id, run_id=m.run_id))


def _add_dates(index: EvidenceIndex, article: Article) -> None:
    for i, src in enumerate(article.sources):
        for name in ("published_at", "updated_at", "page_date", "retrieved_at"):
            index.add_date(getattr(src, name), Trace("date", f"/sources/{i}/{name}",
                                                     source_ids=(src.id,)))
    for name in ("as_of_date", "publication_date", "observation_date"):
        index.add_date(getattr(article, name), Trace("date", f"/{name}"))


def build_index(article: Article) -> EvidenceIndex:
    """Every number and date the article states outside its body."""
    index = EvidenceIndex()
    _add_facts(index, article)
    _add_scope(index, article)
    _add_inferences(index, article)
    _add_measurements(index, article)
    _add_dates(index, article)
    return index


def _number_matches(figure: Figure, value: Decimal, ev: EvidenceNumber) -> bool:
    is_percent = figure.kind in (FigureKind.percent, FigureKind.points) or figure.unit == "%"
    if is_percent and not ev.percent:
        candidates = [ev.value, ev.value * 100]  # a fraction stated as a percent
    elif not is_percent and ev.percent:
        candidates = [ev.value / 100]  # a percent is never a plain count or multiplier
    else:
        candidates = [ev.value]
    return any(quantize(c, figure.decimals) == value for c in candidates)


def _date_matches(figure: Figure, date: dt.date) -> bool:
    assert figure.date is not None
    if figure.date_precision == "month_day":
        return (date.month, date.day) == (figure.date.month, figure.date.day)
    if figure.date_precision == "month":
        return (date.year, date.month) == (figure.date.year, figure.date.month)
    return date == figure.date


def _unique(traces: Iterable[Trace]) -> tuple[Trace, ...]:
    return tuple(dict.fromkeys(traces))


def trace_figure(figure: Figure, index: EvidenceIndex) -> TracedFigure:
    """``figure`` with every piece of evidence in ``index`` that states its value."""
    if figure.kind is FigureKind.date:
        return TracedFigure(figure, _unique(
            d.trace for d in index.dates if _date_matches(figure, d.date)))
    found: list[Trace] = []
    for value in figure.values:
        here = [ev.trace for ev in index.numbers if _number_matches(figure, value, ev)]
        if figure.kind is FigureKind.year:
            here += [d.trace for d in index.dates if d.date.year == value]
        if not here:  # every end of a range must trace
            return TracedFigure(figure, ())
        found += here
    return TracedFigure(figure, _unique(found))


def trace_figures(article: Article, text: str | None = None) -> list[TracedFigure]:
    """Every figure of ``text`` (default: the article's body) with what it traced to.

    Never raises for a valid :class:`~ledger.models.Article`.
    """
    index = build_index(article)
    return [trace_figure(f, index) for f in extract_figures(article.body if text is None else text)]


def _untraced(traced: Iterable[TracedFigure]) -> Iterator[TracedFigure]:
    return (t for t in traced if not t.traced)


def check_tracing(article: Article, traced: list[TracedFigure] | None = None) -> list[Finding]:
    """``untraced-figure`` for each body figure that matches no evidence."""
    findings = []
    for t in _untraced(traced if traced is not None else trace_figures(article)):
        f = t.figure
        what = "date" if f.kind is FigureKind.date else f"{f.kind.value} figure"
        findings.append(body_span(
            article, f.start, f.end, Severity.error, "untraced-figure",
            f"{what} {f.text!r} traces to no fact, source date, metric, inference or "
            "measurement in this article"))
    return findings
