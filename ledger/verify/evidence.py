"""The evidence index: every number and date an article states outside its body.

* numbers in fact claims (``fact``), benchmark-scope fields (``scope``), reported metrics
  (``metric``), inference claims and assumptions (``inference``, ``assumption``), the inputs and
  results of inference computations (``computation``), and ledger measurements (``measurement``:
  value and sample count, with their run id);
* dates of sources (published, updated, page date, retrieved), of the article (as-of,
  publication, observation), of the benchmark and of measurements, and dates written in the
  evidence text.

Each value carries a :class:`Trace` (where it was found) and, when known, its
:class:`~ledger.quantities.Quantity`. :mod:`ledger.verify.matching` traces body figures to it.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from decimal import Decimal

from ..figures import FigureKind, context_lengths, model_sizes, quantize
from ..models import AUTHOR_REPORTED_EVIDENCE, Article
from ..quantities import Kind, Quantity, lemma, metric_quantity, typed_figures, unit_quantity
from .points import Gaps
from .scope import per_article

__all__ = [
    "EvidenceDate",
    "EvidenceIndex",
    "EvidenceNumber",
    "Trace",
    "build_index",
    "evidence_text",
    "metric_magnitude",
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
    _day_gaps: dict[int, tuple[Trace, Trace]] | None = field(default=None, repr=False,
                                                             compare=False)

    def day_gaps(self) -> dict[int, tuple[Trace, Trace]]:
        """Every number of days between two of the evidence dates, with the two (built once)."""
        if self._day_gaps is None:
            dates = sorted({d.date: d for d in self.dates}.values(), key=lambda d: d.date)
            self._day_gaps = {}
            for i, a in enumerate(dates):
                for b in dates[i + 1:]:
                    self._day_gaps.setdefault((b.date - a.date).days, (
                        Trace("date", a.trace.pointer), Trace("date", b.trace.pointer)))
        return self._day_gaps

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
        for fig in model_sizes(text):  # "Llama 2 70B": seventy billion parameters
            for value in fig.values:
                self.add_number(value, trace, quantity=Quantity(Kind.count, noun="parameter"))
        for m in _PARALLEL_RE.finditer(text):  # "EP32": experts spread over 32 GPUs
            self.add_number(Decimal(m.group(1)), trace, quantity=Quantity(Kind.count, noun="gpu"))

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


#: A degree of parallelism, a name with digits that counts GPUs: "EP32", "TP8", "DP16".
_PARALLEL_RE = re.compile(r"\b(?:EP|TP|DP|PP|SP|CP)(\d{1,4})\b")


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
            trace = Trace("computation", f"{base}/computation/steps/{j}/result",
                          inference_id=inf.id)
            index.add_number(step.result, trace, percent=step.unit == "%",
                             quantity=unit_quantity(step.unit))
            if (step.unit or "").strip().lower() in _SHARE_UNITS and abs(step.result) <= 1:
                # a ratio below one is a share, which the body may give as a percent: a
                # step's 0.8893 is "about 88.9% of that"
                index.add_number(Decimal(str(step.result)) * 100, trace, percent=True)
            if (m := _SCALED_UNIT_RE.fullmatch(step.unit or "")) is not None:
                # a step "in million tokens" that gives 20 gives 20 million tokens
                rest = m.group("rest")
                noun = lemma(rest.split()[-1])
                # the step's name qualifies the count: "output_tokens_millions" counts output
                qualifiers = tuple(lemma(w) for w in step.name.lower().split("_")
                                   if w and lemma(w) != noun and w not in _SCALE_WORDS)
                index.add_number(Decimal(str(step.result)) * _SCALE[m.group("scale").lower()],
                                 trace, quantity=unit_quantity(rest) or Quantity(
                                     Kind.count, noun=noun, modifiers=qualifiers))


#: Units of a step that divides two like quantities.
_SHARE_UNITS = frozenset({"ratio", "fraction", "share", "proportion"})
#: A computation step's unit with a magnitude word: "million tokens", "billion parameters".
_SCALED_UNIT_RE = re.compile(r"\s*(?P<scale>thousand|million|billion|trillion)\s+"
                             r"(?P<rest>[A-Za-z][\w /-]*?)\s*", re.IGNORECASE)
_SCALE_WORDS = frozenset({"thousand", "thousands", "million", "millions", "m", "billion",
                          "billions", "b", "k", "total", "each", "per", "all"})
_SCALE = {"thousand": Decimal(10) ** 3, "million": Decimal(10) ** 6,
          "billion": Decimal(10) ** 9, "trillion": Decimal(10) ** 12}


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
def evidence_text(article: Article) -> str:
    """Everything the article states outside its body, as one JSON text: for checks that look a
    name or a token up literally (a version, a format's bit width)."""
    return json.dumps(article.model_dump(mode="json", exclude={"body"}), ensure_ascii=False)


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
