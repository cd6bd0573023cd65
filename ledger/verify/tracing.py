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
figure's printed precision *and* the two are the same kind of quantity
(:mod:`ledger.quantities`): a count of GPUs never traces to a count of engineers or to a 2x
result, a size never to a rate, ``GB/s`` converts to ``GiB/s`` but a number that agrees only
under another unit is a ``unit-mismatch``, and a percent against percentage points is a
``percentage-points`` finding. A percent and a fraction are the same value (``62.5%`` = 0.625);
a percent change and a multiplier state the same ratio (``380% faster`` = 4.8 times).
A date with a year must equal an evidence date; ``May 6`` (no year) matches any evidence date on
that month and day; ``June 2024`` any date in that month; a bare year any evidence year.

:func:`trace_figures` is the public API (the database stores its output); :func:`check_tracing`
reports ``untraced-figure`` for each figure that traces to nothing.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property

from ..figures import Figure, FigureKind, context_lengths, quantize
from ..models import AUTHOR_REPORTED_EVIDENCE, Article
from ..quantities import (
    NOUN_CLASSES,
    Kind,
    Quantity,
    Verdict,
    compare,
    metric_quantity,
    sibling_units,
    typed_figures,
    unit_quantity,
)
from ..report import Finding, Severity
from .bylines import byline_counts
from .intervals import relative_intervals
from .points import Gap, Gaps
from .prose import enclosing, sentences
from .ratios import disagrees, stated_ratios
from .restated import Restatement, restatements, value_key
from .scope import per_article
from .text import body_span

__all__ = [
    "EvidenceDate",
    "EvidenceIndex",
    "EvidenceNumber",
    "Miss",
    "Trace",
    "TracedFigure",
    "build_index",
    "check_tracing",
    "metric_magnitude",
    "nearest_evidence",
    "trace_figure",
    "trace_figures",
    "tried",
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
class Miss:
    """Evidence with the figure's number that was *not* accepted, and why (a :class:`Verdict`)."""

    trace: Trace
    verdict: Verdict
    value: Decimal
    quantity: Quantity | None

    def to_dict(self) -> dict[str, object]:
        return {"evidence": self.trace.describe(), "pointer": self.trace.pointer,
                "value": format(self.value, "f"), "verdict": self.verdict.value,
                **({"evidence_" + k: v for k, v in self.quantity.to_dict().items()}
                   if self.quantity else {"evidence_kind": "unknown"})}


@dataclass(frozen=True)
class TracedFigure:
    """A figure of the body and every piece of evidence it traced to (empty: untraced);
    ``quantity`` is what the figure is, ``misses`` the evidence that had its number but not
    its kind or unit."""

    figure: Figure
    traces: tuple[Trace, ...]
    quantity: Quantity | None = None
    misses: tuple[Miss, ...] = ()
    #: a multiplier stated as the ratio of two figures before it, and that ratio
    #: (:mod:`ledger.verify.ratios`); set only when the two disagree
    stated_ratio: tuple[Decimal, str, str] | None = None

    @property
    def traced(self) -> bool:
        return bool(self.traces)

    @cached_property
    def metrics(self) -> frozenset[str]:
        """The metrics the figure traces to (read by most label checks, so built once)."""
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
    quantity: Quantity | None = None  # None: a value of unknown kind (a bare metric)


@dataclass(frozen=True)
class EvidenceDate:
    date: dt.date
    trace: Trace
    precision: str = "day"  # "month": the evidence names only the month ("in January 2025")


@dataclass
class EvidenceIndex:
    numbers: list[EvidenceNumber] = field(default_factory=list)
    dates: list[EvidenceDate] = field(default_factory=list)
    #: dates the evidence writes without a year ("on September 13 (2025)", "by May 6"): kept
    #: apart, since their year is unknown; a body date without a year traces to them
    month_days: list[EvidenceDate] = field(default_factory=list)
    _gaps: Gaps[Trace] | None = field(default=None, repr=False, compare=False)
    _rounded: dict[int, list[Decimal]] = field(default_factory=dict, repr=False, compare=False)

    def rounded(self, decimals: int) -> list[Decimal]:
        """Every number's value rounded to ``decimals`` places, parallel to :attr:`numbers`:
        each figure is compared with every number, and rounding is the cost of comparing."""
        values = self._rounded.get(decimals)
        if values is None or len(values) != len(self.numbers):
            values = self._rounded[decimals] = [quantize(ev.value, decimals)
                                                for ev in self.numbers]
        return values

    def percent_gaps(self) -> Gaps[Trace]:
        """Differences of two percents stated in one piece of evidence (built once)."""
        if self._gaps is None:
            self._gaps = Gaps((ev.value, ev.trace) for ev in self.numbers
                              if ev.quantity is not None and ev.quantity.kind is Kind.percent)
        return self._gaps

    def add_text(self, text: str, trace: Trace) -> None:
        for fig, quantity in typed_figures(text):
            if fig.kind is FigureKind.date and fig.date is not None:
                if fig.date_precision in ("day", "month"):
                    self.dates.append(EvidenceDate(fig.date, trace, fig.date_precision))
                elif fig.date_precision == "month_day":
                    self.month_days.append(EvidenceDate(fig.date, trace, "month_day"))
                continue
            for value in fig.values:
                self.add_number(value, trace, percent=quantity.kind in (
                    Kind.percent, Kind.points), quantity=quantity)
        for fig in context_lengths(text):  # "a 1M context": a million tokens
            for value in fig.values:
                self.add_number(value, trace, quantity=Quantity(Kind.count, noun="token"))

    def add_number(self, value: float | Decimal, trace: Trace, *, percent: bool = False,
                   quantity: Quantity | None = None) -> None:
        number = value if isinstance(value, Decimal) else Decimal(str(value))
        if quantity is None and percent:
            quantity = Quantity(Kind.percent)
        self.numbers.append(EvidenceNumber(number, trace, percent, quantity))

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
    specs = scope.metric_specs or {}
    for name, value in scope.reported_metrics.items():
        quantity = metric_quantity(name, specs[name].kind if name in specs else None)
        trace = Trace("metric", f"/benchmark_scope/reported_metrics/{name}", metric=name,
                      author_reported=authors)
        index.add_number(value, trace, percent=_is_percent_metric(name), quantity=quantity)
        if (shift := metric_magnitude(name)) and (  # "context_tokens_m": 1
                quantity is None or quantity.kind in (Kind.count, Kind.number)):
            index.add_number(Decimal(str(value)).scaleb(shift), trace, quantity=quantity)
    index.add_date(scope.publication_date, Trace("date", "/benchmark_scope/publication_date"))


#: A metric name that ends in a magnitude states its value in thousands or millions:
#: ``window_tokens_k: 16`` is 16,000 tokens, ``context_tokens_m: 1`` one million.
_MAGNITUDE_NAMES = {"k": 3, "thousand": 3, "thousands": 3, "m": 6, "million": 6,
                    "millions": 6, "bn": 9, "billion": 9, "billions": 9}


def metric_magnitude(name: str) -> int:
    """The power of ten a metric's name scales its value by: its last part ("prompts_m"), or a
    magnitude other than "m" anywhere ("max_k_tokens": thousands of tokens)."""
    parts = name.lower().split("_")
    if len(parts) < 2:
        return 0
    if parts[-1] in _MAGNITUDE_NAMES:
        return _MAGNITUDE_NAMES[parts[-1]]
    return next((_MAGNITUDE_NAMES[p] for p in parts[:-1] if p != "m" and p in _MAGNITUDE_NAMES), 0)


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
                percent=step.unit == "%", quantity=unit_quantity(step.unit))


def _add_measurements(index: EvidenceIndex, article: Article) -> None:
    for i, m in enumerate(article.measurements or []):
        trace = Trace("measurement", f"/measurements/{i}/value", metric=m.metric,
                      measurement_id=m.id, run_id=m.run_id)
        index.add_number(m.value, trace, percent=m.unit.strip() in ("%", "percent"),
                         quantity=unit_quantity(m.unit))
        for end, bound in enumerate(m.interval or []):  # a printed range: "37-47%"
            index.add_number(bound, Trace("measurement", f"/measurements/{i}/interval/{end}",
                                          metric=m.metric, measurement_id=m.id, run_id=m.run_id),
                             percent=m.unit.strip() in ("%", "percent"),
                             quantity=unit_quantity(m.unit))
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


@per_article
def build_index(article: Article) -> EvidenceIndex:
    """Every number and date the article states outside its body."""
    index = EvidenceIndex()
    _add_facts(index, article)
    _add_scope(index, article)
    _add_inferences(index, article)
    _add_measurements(index, article)
    _add_dates(index, article)
    return index




def _date_matches(figure: Figure, date: dt.date, precision: str = "day") -> bool:
    """A body date matches evidence as precise as itself or more: "January 2025" traces to a
    fact's "in January 2025" or to "January 9, 2025"; "January 9, 2025" never to a month."""
    assert figure.date is not None
    if precision == "month" and figure.date_precision not in ("month", "year"):
        return False
    if figure.date_precision == "month_day":
        return (date.month, date.day) == (figure.date.month, figure.date.day)
    if figure.date_precision == "month":
        return (date.year, date.month) == (figure.date.year, figure.date.month)
    return date == figure.date


def _unique(traces: Iterable[Trace]) -> tuple[Trace, ...]:
    return tuple(dict.fromkeys(traces))


def _exact(q: Quantity, value: Decimal, ev: EvidenceNumber) -> bool:
    """The evidence states the figure's value exactly, once converted to the figure's unit
    (the desk's "3,200 Gb/s, or 400 GB/s"), not merely after rounding (37.5 GiB/s as "40
    GB/s")."""
    if q.unit is None or ev.quantity is None or ev.quantity.unit is None:
        return False
    if q.unit.factor is None or ev.quantity.unit.factor is None:
        return False
    converted = ev.value * ev.quantity.unit.factor / q.unit.factor
    return abs(converted - value) <= abs(value) / 1000


def _named_count(q: Quantity, ev: EvidenceNumber) -> bool:
    """A count of things traces to a value of unknown kind (a metric, a computation input) only
    when that value's name mentions the thing ("storage_nodes": 180 nodes)."""
    if q.kind is not Kind.count or q.noun is None or ev.quantity is not None:
        return True
    name = (ev.trace.metric or ev.trace.pointer.rsplit("/", 1)[-1]).lower()
    if ev.trace.origin not in ("metric", "computation"):
        return True
    members = NOUN_CLASSES.get(q.noun_class or "", frozenset()) | {q.noun}
    return any(m in name for m in members)


def _rise_from_its_own_level(q: Quantity, value: Decimal, index: EvidenceIndex) -> bool:
    """A percent *change* ("rose by 40%", "40% higher") whose value is both the level a
    quantity started from and the gap in points to where it ended, in one piece of evidence
    ("from 40% to 80%"): the change is 100%, or 40 points; the level is a coincidence."""
    if q.kind is not Kind.percent or q.direction is None:
        return False
    gap = index.percent_gaps().find(value, q.decimals)
    return gap is not None and quantize(gap.low, q.decimals) == value


def _is_level(ev: EvidenceNumber) -> bool:
    """Evidence that states a percent level, not a change: no direction, or no known kind."""
    return ev.quantity is None or (ev.quantity.kind is Kind.percent
                                   and ev.quantity.direction is None)


def _named_input(q: Quantity, ev: EvidenceNumber) -> bool:
    """A multiplier traces to a computation input of unknown kind only when the input's name
    does not say it is another kind of quantity: ``users: 3`` is three users, never
    "tripled" or "threefold"; ``speedup_low: 2.7`` or ``factor: 3`` may be a multiplier."""
    if q.kind is not Kind.multiplier or ev.quantity is not None or (
            ev.trace.origin != "computation" or "/inputs/" not in ev.trace.pointer):
        return True
    named = metric_quantity(ev.trace.pointer.rsplit("/", 1)[-1])
    return named is None or named.kind in (Kind.multiplier, Kind.number)


def _names_another_count(q: Quantity, index: EvidenceIndex) -> bool:
    if q.kind is not Kind.count or not q.modifiers:
        return False
    return any(ev.quantity is not None and ev.quantity.kind is Kind.count
               and ev.quantity.noun == q.noun and set(q.modifiers) & set(ev.quantity.modifiers)
               for ev in index.numbers)


def _same_number_other_unit(miss: Miss, value: Decimal) -> bool:
    """The desk's own text states the figure's very number under another unit ("524,288
    bytes" in an inference claim, the body's "524,288 bits"): the unit changed, whatever an
    untyped computation result with that number says. Only the exact number: the desk's
    arithmetic rounding to the figure is not a statement of it."""
    return (miss.verdict is Verdict.unit and miss.trace.origin in ("inference", "assumption")
            and miss.value == value)


#: ``Verdict.value`` bound once (see :data:`ledger.quantities._DIFFERENT`).
_DIFFERENT = Verdict.value


def trace_figure(figure: Figure, index: EvidenceIndex, quantity: Quantity | None = None
                 ) -> TracedFigure:
    """``figure`` with every piece of evidence in ``index`` that states its value as the same
    kind of quantity, and the evidence that had its number but not its kind (``misses``)."""
    if figure.kind is FigureKind.date:
        same_day = [d.trace for d in index.month_days if figure.date is not None
                    and figure.date_precision == "month_day"
                    and (d.date.month, d.date.day) == (figure.date.month, figure.date.day)]
        return TracedFigure(figure, _unique([
            *(d.trace for d in index.dates if _date_matches(figure, d.date, d.precision)),
            *same_day]), quantity)
    q = quantity or Quantity(Kind.number, figure.values, figure.decimals)
    found: list[Trace] = []
    misses: list[Miss] = []
    for value in figure.values:
        strong: list[Trace] = []
        weak: list[Trace] = []
        start_level = _rise_from_its_own_level(q, value, index)
        for ev, rounded in zip(index.numbers, index.rounded(q.decimals), strict=True):
            verdict = compare(q, value, ev.value, ev.quantity, ev.percent, quantized=rounded)
            if verdict is Verdict.other_noun and _prose_count(q):
                verdict = Verdict.match  # "the same three changes": prose, not a moved count
            if verdict is Verdict.match and not (_named_count(q, ev) and _named_input(q, ev)):
                verdict = Verdict.kind  # 3 configurations is not a computation's bare 3
            if verdict is Verdict.match and start_level and _is_level(ev):
                verdict = Verdict.kind  # "rose by 40%" is not the level of 40% it rose from
            if verdict is Verdict.match:
                typed = ev.quantity is not None and ev.quantity.kind is not Kind.number
                derived = ev.trace.origin in ("inference", "computation", "assumption")
                exact = derived and typed and _exact(q, value, ev)
                (strong if typed and (not derived or exact) else weak).append(ev.trace)
            elif verdict is not _DIFFERENT:
                misses.append(Miss(ev.trace, verdict, ev.value, ev.quantity))
        # a source stating the number in another unit (or as points) outranks an untyped value
        # or the desk's own arithmetic that happens to round to it; so does a source counting
        # the number as other things of the noun, when the figure's words name a count the
        # sources give separately ("1020 sink tokens": 1020 recent tokens, 4 sink tokens)
        moved = _names_another_count(q, index)
        # a unit written out outranks bare numbers; a count of tokens does not: the evidence
        # often gives tokens as a bare number ("budgets 512/2048", "32k, 64k and 128k") and
        # sizes in bytes beside them ("128KB pages")
        decisive = any(m.verdict is Verdict.points or (
            ((m.verdict is Verdict.unit and q.unit is not None) or (
                m.verdict is Verdict.noun and q.noun_class is not None
                and m.quantity is not None and m.quantity.noun_class is not None)
             or (m.verdict is Verdict.modifier and moved)
             or (m.verdict is Verdict.noun and _moved_onto_hardware(q, m)))
            and m.trace.origin not in ("inference", "computation", "assumption"))
            or (_same_number_other_unit(m, value) and q.unit is not None)
            or (m.verdict is Verdict.converted and m.trace.origin not in _DESK_ORIGINS)
            for m in misses)
        here = strong + ([] if decisive and not strong else weak)
        if figure.kind is FigureKind.year or q.kind is Kind.year:
            here += [d.trace for d in index.dates if d.date.year == value]
        if not here and q.kind is Kind.points and (
                gap := index.percent_gaps().find(value, q.decimals)) is not None:
            here = [gap.where]  # "12 points apart": the gap between two stated percents
        if not here and not moved:
            # "three serving instances" for "three round-robin instances": the qualifier
            # differs, but the evidence counts no other "serving instances"; a count moved to
            # another noun ("500 storage nodes" for 500 client nodes) names a thing the
            # evidence counts separately (180 storage nodes)
            here = [m.trace for m in misses if m.verdict is Verdict.modifier]
        if not here:  # every end of a range must trace
            return TracedFigure(figure, (), q, tuple(misses))
        found += here
    return TracedFigure(figure, _unique(found), q, tuple(misses))


def trace_figures(article: Article, text: str | None = None) -> list[TracedFigure]:
    """Every figure of ``text`` (default: the article's body) with what it traced to.

    Never raises for a valid :class:`~ledger.models.Article`.
    """
    index = build_index(article)
    body = article.body if text is None else text
    typed = typed_figures(body)
    ratios = stated_ratios(body, typed)
    out = []
    for f, q in typed:
        t = trace_figure(f, index, q)
        if not t.traced and (bylines := byline_counts(article, body, f, q)):
            t = TracedFigure(f, tuple(Trace("byline", f"/sources/{i}/authors", source_ids=(sid,))
                                      for i, sid in bylines), t.quantity, t.misses)
        if (r := ratios.get(f.start)) is not None and disagrees(r[0], f):
            # "about three times apart" for 28.3 and 12.1: a 3x elsewhere is a coincidence
            t = TracedFigure(f, (), t.quantity, t.misses, (r[0], r[1].text, r[2].text))
        out.append(t)
    return out


def _prose_count(q: Quantity) -> bool:
    """A spelled-out small count ("three ideas"): prose more often than a claim, so another
    unknown noun with its number is no sign of a moved count."""
    return q.spelled and all(v <= _SMALL_SPELLED for v in q.values)


def _untraced(traced: Iterable[TracedFigure]) -> Iterator[TracedFigure]:
    return (t for t in traced if not t.traced)


#: Spelled-out small counts ("the same three changes") are often prose, not claims: when they
#: trace to nothing they are warnings, not errors.
_SMALL_SPELLED = Decimal(10)


def nearest_evidence(t: TracedFigure, index: EvidenceIndex) -> str | None:
    """``nearest evidence: 46 (F4)``: the evidence value of a compatible kind nearest to the
    figure's first value, for an editor looking for the figure it should have been."""
    if not t.figure.values or t.quantity is None:
        return None
    value = t.figure.values[0]
    best: tuple[Decimal, EvidenceNumber] | None = None
    for ev in index.numbers:
        if ev.quantity is not None and ev.quantity.kind is not t.quantity.kind and Kind.number not in (ev.quantity.kind, t.quantity.kind):
            continue
        scale = max(abs(value), abs(ev.value), Decimal(1))
        distance = abs(ev.value - value) / scale
        if best is None or distance < best[0]:
            best = (distance, ev)
    if best is None:
        return None
    ev = best[1]
    unit = f" {ev.quantity.unit.symbol}" if ev.quantity and ev.quantity.unit else ""
    return f"nearest evidence: {format(ev.value.normalize(), 'f')}{unit} ({ev.trace.describe()})"


def tried(t: TracedFigure) -> list[dict[str, object]]:
    """The trace a finding shows: the figure (its kind and unit), the evidence it traced to,
    and the evidence with its number that was rejected, and why."""
    head: dict[str, object] = {"figure": t.figure.text}
    if t.quantity is not None:
        head |= {"figure_" + k: v for k, v in t.quantity.to_dict().items()}
    matched: list[dict[str, object]] = [
        {"evidence": tr.describe(), "pointer": tr.pointer, "verdict": "match"}
        for tr in t.traces[:8]]
    return [head, *matched, *(m.to_dict() for m in t.misses[:8])]


_HARDWARE = frozenset({"gpu", "node"})
#: Nouns a count of GPUs or nodes may stand for: "8-way tensor parallelism" is 8 GPUs.
_PARALLEL_NOUNS = frozenset({"degree", "way", "parallelism", "tp", "pp", "ep", "dp", "rank",
                             "shard", "concurrency", "size", "gpu", "node"})


def _moved_onto_hardware(q: Quantity | None, m: Miss) -> bool:
    """A count of GPUs or nodes whose number a reported metric gives as a count of some other
    named thing ("7 T4 GPUs" where the metric counts 7 HELM sub-scenarios, "64 GPUs" for a
    batch of 64): a count moved onto hardware, not a coincidence a bare number elsewhere
    rescues. Not when the other thing may be the hardware itself (a parallel degree, a
    replica or instance count)."""
    return (q is not None and q.noun_class in _HARDWARE and m.trace.origin == "metric"
            and m.quantity is not None and m.quantity.kind is Kind.count
            and m.quantity.noun is not None and m.quantity.noun not in _PARALLEL_NOUNS
            and m.quantity.noun_class not in (_HARDWARE | {"instance"}))


def _class_counted(q: Quantity, index: EvidenceIndex) -> bool:
    """The evidence counts things of the figure's noun class, or the very noun ("8 pods" for
    "150 pods"), with some other value."""
    if q.noun_class is None and q.noun is None:
        return False
    return any(
        ev.quantity is not None and ev.quantity.kind is Kind.count
        and ((q.noun_class is not None and ev.quantity.noun_class == q.noun_class)
             or (q.noun not in (None, "time") and ev.quantity.noun == q.noun))
        for ev in index.numbers)  # "ran five times" repeats, it does not count a thing


def _finding_for(article: Article, t: TracedFigure, index: EvidenceIndex) -> Finding:
    f, q = t.figure, t.quantity
    by_verdict = {m.verdict: m for m in reversed(t.misses)}
    trace = tried(t)

    def at(severity: Severity, rule: str, message: str, hint: str | None = None) -> Finding:
        return body_span(article, f.start, f.end, severity, rule, message, hint=hint,
                         trace=trace)

    if (miss := by_verdict.get(Verdict.unit)) is not None:
        assert q is not None and miss.quantity is not None
        return at(Severity.error, "unit-mismatch",
                  f"{f.text!r} is written in {_unit_words(q)} but the evidence states "
                  f"{format(miss.value.normalize(), 'f')} {_unit_words(miss.quantity)} "
                  f"({miss.trace.describe()}); the number agrees, the unit does not")
    if (miss := by_verdict.get(Verdict.converted)) is not None:
        return _converted_finding(t, miss, at)
    if (miss := by_verdict.get(Verdict.points)) is not None:
        assert q is not None and miss.quantity is not None
        said, meant = (("percentage points", "percent") if q.kind is Kind.points
                       else ("percent", "percentage points"))
        if miss.quantity.kind is Kind.multiplier:
            return at(Severity.error, "percentage-points",
                      f"{f.text!r} is stated in percentage points but it is the evidence's "
                      f"{format(miss.value.normalize(), 'f')}x ({miss.trace.describe()}) as a "
                      "change in percent: a change of a quantity that is not itself a "
                      "percentage is a percent, not points")
        return at(Severity.error, "percentage-points",
                  f"{f.text!r} is stated in {said} but the evidence "
                  f"({miss.trace.describe()}) gives {format(miss.value, 'f')} {meant}")
    if q is not None and q.kind is Kind.percent and len(f.values) == 1 and (
            gap := index.percent_gaps().find(f.values[0], f.decimals)) is not None:
        relative = (f"; {_pct(gap.high)} is {_pct(_relative(gap))} more than {_pct(gap.low)}"
                    if gap.low > 0 else "")
        return at(Severity.error, "percentage-points",
                  f"{f.text!r} traces to nothing as a percent, but it is the gap between "
                  f"{_pct(gap.high)} and {_pct(gap.low)} ({gap.where.describe()}): a "
                  f"difference of {_pct(gap.difference, ' percentage points')}, not a "
                  f"change of {f.text}{relative}")
    noun_miss = by_verdict.get(Verdict.noun)
    moved_miss = next((m for m in t.misses if m.verdict is Verdict.noun
                       and _moved_onto_hardware(q, m)), None)
    if moved_miss is not None:
        by_verdict[Verdict.modifier] = moved_miss  # "64 GPUs" for a batch of 64
    people = {"person", "author"}
    miss_class = noun_miss.quantity.noun_class if noun_miss and noun_miss.quantity else None
    if noun_miss is not None and q is not None and _class_counted(q, index) and (
            q.noun_class not in people) and not (miss_class in people and q.spelled):
        # people are never the hardware count they coincide with; a spelled-out small count
        # ("five runs") that shares only a count of people is a coincidence, while "150 pods"
        # where the sources count 8 pods and 150 customers is a count moved onto another noun
        # with ("12 engineers" against 12 GPUs); "150 pods" where the sources count 8 pods and
        # 150 customers is a count moved onto another noun
        by_verdict[Verdict.modifier] = noun_miss  # the number moved onto another counted noun
    for verdict in (Verdict.modifier,):
        if (miss := by_verdict.get(verdict)) is not None:
            assert q is not None and miss.quantity is not None
            return at(Severity.error, "mislabeled-figure",
                      f"{f.text!r} is a {q.describe()} here, but the evidence with that number "
                      f"({miss.trace.describe()}) is a {miss.quantity.describe()}")
    if (miss := by_verdict.get(Verdict.other_noun)) is not None:
        assert q is not None and miss.quantity is not None
        return at(Severity.warning, "mislabeled-figure",
                  f"{f.text!r} is a {q.describe()} here, but the evidence with that number "
                  f"({miss.trace.describe()}) is a {miss.quantity.describe()}; the checker "
                  "does not know both nouns, so it cannot be sure they name different things")
    what = "date" if f.kind is FigureKind.date else f"{(q.describe() if q else f.kind.value)}"
    message = (f"{what} {f.text!r} traces to no fact, source date, metric, inference or "
               "measurement in this article")
    if t.stated_ratio is not None:
        ratio, a, b = t.stated_ratio
        message += (f"; it is stated as the ratio of {a!r} and {b!r}, which is "
                    f"{format(quantize(ratio, 2).normalize(), 'f')}")
    if (miss := by_verdict.get(Verdict.kind) or by_verdict.get(Verdict.noun)) is not None:
        kind = (f"a {miss.quantity.describe()}" if miss.quantity
                else "a value of unknown kind whose name does not say what it counts")
        message += (f"; {miss.trace.describe()} has the same number as {kind}, "
                    "which is not the same quantity")
    small = (q is not None and q.spelled and q.kind in (Kind.count, Kind.number, Kind.duration)
             and all(v <= _SMALL_SPELLED for v in f.values))
    severity = Severity.error
    if small:
        message += " (a spelled-out small number: it may be prose rather than a claim)"
        severity = Severity.note if _ordinary(q) else Severity.warning
    return at(severity, "untraced-figure", message,
              hint=nearest_evidence(t, index) if f.kind is not FigureKind.date else None)


def _unit_words(q: Quantity) -> str:
    """``GiB``, ``tokens``: how a finding names a quantity's unit."""
    if q.unit is not None:
        return q.unit.symbol
    return f"{q.noun}s" if q.kind is Kind.count and q.noun else q.describe()


def _converted_finding(t: TracedFigure, miss: Miss, at: Callable[..., Finding]) -> Finding:
    """The figure is the evidence converted to a sibling unit (GB to GiB, GB/s to Gb/s) but
    written under the evidence's own unit: the conversion was done and the unit not changed
    with it. An error: :func:`~ledger.quantities.compare` gives this verdict only for a figure
    of at least three significant digits that traces to nothing else, where a coincidence is
    unlikely."""
    q, ev = t.quantity, miss.quantity
    assert q is not None and q.unit is not None and ev is not None and ev.unit is not None
    value = t.figure.values[0]
    sibling = next((s for s in sibling_units(q.unit) if s.factor is not None and ev.unit.factor
                    and quantize(miss.value * ev.unit.factor / s.factor, q.decimals) == value),
                   None)
    return at(Severity.error, "unit-mismatch",
              f"{t.figure.text!r} is the evidence's {format(miss.value.normalize(), 'f')} "
              f"{ev.unit.symbol} ({miss.trace.describe()}) converted to "
              f"{sibling.symbol if sibling else 'another unit'}, but written in {q.unit.symbol}")


def _pct(value: Decimal, unit: str = "%") -> str:
    return f"{format(value.normalize(), 'f')}{unit}"


def _relative(gap: Gap[Trace]) -> Decimal:
    return ((gap.high - gap.low) / gap.low * 100).quantize(Decimal("0.1"))


def _ordinary(q: Quantity | None) -> bool:
    """A spelled-out small number that counts nothing a benchmark measures ("three ideas", "the
    two ends", "two sets of figures", a bare "three"): prose, so a note, not a warning. Counts
    of hardware, people or requests and durations stay warnings."""
    if q is None or q.kind is Kind.duration:
        return False
    return q.kind is Kind.number or q.noun_class is None


def check_tracing(article: Article, traced: list[TracedFigure] | None = None) -> list[Finding]:
    """``untraced-figure`` for each body figure that matches no evidence of its kind;
    ``unit-mismatch``, ``percentage-points`` and ``mislabeled-figure`` when evidence has its
    number under another unit, as percent vs points, or counting another thing; ``arithmetic``
    beside it when the figure is a result of the desk's own arithmetic that no computation
    gives (:mod:`ledger.verify.restated`, or a figure stated as a sum's result in a sentence of
    the desk's arithmetic), also when it traces by coincidence to other evidence."""
    index = build_index(article)
    traced = traced if traced is not None else trace_figures(article)
    desk = _desk_arithmetic_sentences(article, traced)
    intervals = {i.start for i in relative_intervals(article) if i.agrees}
    stated = frozenset((value_key(ev.quantity), ev.value) for ev in index.numbers
                       if ev.trace.origin not in _DESK_ORIGINS)
    restated = {r.figure.start: r for r in restatements(article, stated)}
    findings = []
    for t in traced:
        if t.traced:
            if (r := restated.get(t.figure.start)) is not None:
                findings.append(_restated_finding(article, r, t))
            continue
        if t.figure.start in intervals:
            continue  # "Three months later" agrees with the dates around it
        finding = _finding_for(article, t, index)
        if finding.rule in _READINGS and _denied_reading(article.body, t, traced):
            continue  # "4.3 percentage points, not a 4.3% difference": the wrong reading denied
        findings.append(finding)
        if (r := restated.get(t.figure.start)) is not None:
            findings.append(_restated_finding(article, r, t))
        elif (finding.rule == "untraced-figure" and finding.severity is Severity.error
              and _sentence_start(article, t) in desk and _stated_as_result(article, t)):
            findings.append(body_span(
                article, t.figure.start, t.figure.end, Severity.error, "arithmetic",
                f"{t.figure.text!r} is stated beside the desk's own arithmetic, but neither a "
                "computation nor any evidence gives it; recompute it", trace=tried(t)))
    return findings


#: Findings about how a figure is read (its unit, percent or points), which a sentence can
#: settle by stating the right reading and denying the wrong one.
_READINGS = frozenset({"percentage-points", "unit-mismatch"})
_DENIED_BEFORE_RE = re.compile(r"\b(?:not|never|rather\s+than|instead\s+of)\s+"
                               r"(?:(?:a|an|the|some|about|roughly)\s+)?$", re.IGNORECASE)


def _denied_reading(body: str, t: TracedFigure, traced: list[TracedFigure]) -> bool:
    """The figure is denied ("not a 4.3% difference", "rather than 16 GB") in a sentence that
    states the same number in a reading that traces ("about 4.3 percentage points, not a 4.3%
    difference"): the sentence corrects a misreading, it does not make it."""
    if not _DENIED_BEFORE_RE.search(body[max(0, t.figure.start - 24):t.figure.start]):
        return False
    span = enclosing(sentences(body), t.figure.start, t.figure.end)
    if span is None:
        return False
    return any(o is not t and o.traced and o.figure.values == t.figure.values
               and span.start <= o.figure.start and o.figure.end <= span.end for o in traced)


def _restated_finding(article: Article, r: Restatement, t: TracedFigure) -> Finding:
    return body_span(
        article, r.figure.start, r.figure.end, Severity.error, "arithmetic",
        f"{r.figure.text!r} restates the result {r.claim_figure.text!r} of inference "
        f"{r.inference.id} (\"{r.inference.claim.strip()[:90]}\") with another value that none "
        "of its arithmetic gives; recompute it", trace=tried(t))


_DESK_ORIGINS = frozenset({"inference", "computation", "assumption"})
#: What puts a figure as the result of a sum: "... is 57.3", "leaves 71%", "400 Gb/s, or 50 GB/s".
_RESULT_BEFORE_RE = re.compile(
    r"(?:\bis|\bare|=|\bleaves|\bgives|\bequals|,\s*or|\bcomes\s+to|\bworks\s+out\s+to)"
    r"\s+(?:about\s+|roughly\s+|around\s+|nearly\s+|some\s+|just\s+(?:over|under)\s+)?$")
_ARITHMETIC_SAID_RE = re.compile(r"\b(?:arithmetic|calculation|by\s+our\s+count)\b", re.I)


def _stated_as_result(article: Article, t: TracedFigure) -> bool:
    """The figure is stated as the result of a sum: right after "is", "leaves", ", or", or in
    a sentence that says it is the desk's arithmetic ("by PCT's arithmetic, ... 0.21 s")."""
    body = article.body
    if _RESULT_BEFORE_RE.search(body[max(0, t.figure.start - 30):t.figure.start]):
        return True
    span = enclosing(sentences(body), t.figure.start, t.figure.end)
    return span is not None and bool(_ARITHMETIC_SAID_RE.search(span.text))


def _sentence_start(article: Article, t: TracedFigure) -> int | None:
    span = enclosing(sentences(article.body), t.figure.start, t.figure.end)
    return span.start if span is not None else None


def _desk_arithmetic_sentences(article: Article, traced: list[TracedFigure]) -> set[int]:
    """Sentences where the desk works a figure out itself: one of their figures traces only to
    an inference, its computation or its assumptions ("31.083 divided by 0.542 is 57.3"). An
    untraced figure there is a result the desk got wrong, an ``arithmetic`` finding."""
    out: set[int] = set()
    for t in traced:
        if t.traces and all(tr.origin in _DESK_ORIGINS for tr in t.traces):
            start = _sentence_start(article, t)
            if start is not None:
                out.add(start)
    return out
