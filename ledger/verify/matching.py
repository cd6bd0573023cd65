"""Matching: a body figure traces when evidence states its value as the same quantity.

A figure traces when one of its values equals an evidence value (:mod:`ledger.verify.evidence`)
rounded half-up to the figure's printed precision *and* the two are the same kind of quantity
(:mod:`ledger.quantities`): a count of GPUs never traces to a count of engineers or to a 2x
result, a size never to a rate, ``GB/s`` converts to ``GiB/s``. Evidence with the number but
not the kind or unit is kept as a :class:`Miss`, for the findings of :mod:`ledger.verify.tracing`.
A percent and a fraction are the same value (``62.5%`` = 0.625); a percent change and a
multiplier state the same ratio (``380% faster`` = 4.8 times). A date with a year must equal an
evidence date; ``May 6`` (no year) matches any evidence date on that month and day; ``June
2024`` any date in that month; a bare year any evidence year. A figure that traces to nothing
may still trace read another way: a glued "B" as bytes ("256B", else 256 billion), a share
short of a whole ("within 15% of"), an age or a number of days against the evidence's dates
("24 days apart").
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from functools import cached_property

from ..figures import Figure, FigureKind, quantize
from ..models import Article
from ..quantities import (
    NOUN_CLASSES,
    UNITS,
    Kind,
    Quantity,
    Unit,
    Verdict,
    compare,
    declared_readings,
    metric_quantity,
    typed_figures,
)
from .bylines import byline_counts
from .evidence import EvidenceIndex, EvidenceNumber, Trace, build_index
from .prose import enclosing, group_in, sentences
from .ratios import disagrees, stated_ratios

__all__ = [
    "Miss",
    "TracedFigure",
    "date_gap_traces",
    "nearest_evidence",
    "trace_figure",
    "trace_figures",
    "tried",
]


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
    if q.unit is None and ev.quantity is not None and ev.quantity.kind is q.kind and (
            q.kind in (Kind.points, Kind.percent, Kind.multiplier)):
        return ev.value == value  # "differ by 30 percentage points" in the desk's own claim
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


def _named_input(q: Quantity, ev: EvidenceNumber, value: Decimal) -> bool:
    """A figure traces to a computation input of unknown kind only when the input's name does
    not say it is another kind of quantity: ``users: 3`` is three users, never "tripled" or
    "threefold"; ``max_speedup: 1.38`` is no "1.38%"; ``speedup_low: 2.7`` or ``factor: 3``
    may be a multiplier. Sizes, rates and durations are left to the units they are written
    in, counts to their nouns (:func:`_named_count`)."""
    if q.kind not in (Kind.multiplier, Kind.percent) or ev.quantity is not None or (
            ev.trace.origin != "computation" or "/inputs/" not in ev.trace.pointer):
        return True
    named = metric_quantity(ev.trace.pointer.rsplit("/", 1)[-1])
    if named is not None and q.kind is Kind.percent and named.kind is Kind.multiplier:
        return ev.value != value  # "380% faster" states a speedup of 4.8; "1.38%" is no 1.38x
    return named is None or named.kind in (q.kind, Kind.number)


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


def _read_as(readings: Mapping[str, Unit], q: Quantity, ev: Quantity | None) -> bool:
    """The evidence's unit is one the article says it reads as the figure's ("Gb"; we read it
    as gigabytes): the figure in GB states the evidence's 18.8 Gb."""
    if ev is None or ev.unit is None or q.unit is None:
        return False
    meant = readings.get(ev.unit.symbol)
    return meant is not None and meant.factor == q.unit.factor


def _case_twin_in_facts(q: Quantity, misses: list[Miss]) -> bool:
    """A source's fact states the figure's number in the unit that differs from the figure's
    only in case (GB/s for Gb/s)."""
    if q.unit is None:
        return False
    return any(m.verdict is Verdict.unit and m.trace.origin == "fact" and m.quantity is not None
               and m.quantity.unit is not None and m.quantity.unit.symbol != q.unit.symbol
               and m.quantity.unit.symbol.lower() == q.unit.symbol.lower() for m in misses)


def trace_figure(figure: Figure, index: EvidenceIndex, quantity: Quantity | None = None,
                 readings: Mapping[str, Unit] | None = None) -> TracedFigure:
    """``figure`` with every piece of evidence in ``index`` that states its value as the same
    kind of quantity, and the evidence that had its number but not its kind (``misses``);
    ``readings``: the units the article says it reads the evidence's units as
    (:func:`~ledger.quantities.declared_readings`)."""
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
    # a range in points whose every end the evidence states as a percent ("13-17 percentage
    # points" for a 13-17% speed-up) is that range misread, not two gaps between percents
    stated_range = len(figure.values) > 1 and q.kind is Kind.points and all(
        any(compare(q, v, ev.value, ev.quantity, ev.percent) is Verdict.points
            for ev in index.numbers) for v in figure.values)
    for value in figure.values:
        strong: list[Trace] = []
        weak: list[Trace] = []
        start_level = _rise_from_its_own_level(q, value, index)
        for ev, rounded in zip(index.numbers, index.rounded(q.decimals), strict=True):
            verdict = compare(q, value, ev.value, ev.quantity, ev.percent, quantized=rounded)
            if verdict is Verdict.unit and readings and _read_as(readings, q, ev.quantity):
                verdict = Verdict.match
            if verdict is Verdict.other_noun and _prose_count(q):
                verdict = Verdict.match  # "the same three changes": prose, not a moved count
            if verdict is Verdict.match and not (
                    _named_count(q, ev) and _named_input(q, ev, value)):
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
        decisive = any(m.verdict in (Verdict.points, Verdict.hundredfold) or (
            ((m.verdict is Verdict.unit and q.unit is not None) or (
                m.verdict is Verdict.noun and q.noun_class is not None
                and m.quantity is not None and m.quantity.noun_class is not None
                # four developers in the sources say nothing of "four cards"
                and not (m.quantity.noun_class in _PEOPLE and q.noun_class not in _PEOPLE))
             or (m.verdict is Verdict.modifier and moved)
             or (m.verdict is Verdict.noun and _moved_onto_hardware(q, m)))
            and m.trace.origin not in ("inference", "computation", "assumption"))
            or (_same_number_other_unit(m, value) and (
                q.unit is not None or (q.kind is Kind.money and q.noun is not None)))
            or (m.verdict is Verdict.converted and m.trace.origin not in _DESK_ORIGINS)
            for m in misses)
        if strong and _case_twin_in_facts(q, misses) and all(
                tr.origin == "metric" for tr in strong):
            # a metric's unit is read from its lower-case name ("bandwidth_gbps"), which
            # cannot tell Gb/s from GB/s; a source that writes the number in the other does
            strong = []
        here = strong + ([] if decisive and not strong else weak)
        if figure.kind is FigureKind.year or q.kind is Kind.year:
            here += [d.trace for d in index.dates if d.date.year == value]
        if not here and q.kind is Kind.points and not stated_range and (
                gap := index.percent_gaps().find(value, q.decimals)) is not None:
            # a gap of two percents; not each end of a range the evidence states as percents
            # ("13-17 percentage points" for a 13-17% speed-up: that range, not two gaps)
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
    readings = declared_readings(body)
    out = []
    for f, q in typed:
        t = trace_figure(f, index, q, readings)
        if not t.traced and (whole := share_short_of_whole(body, f, q)) is not None:
            # "within about 15% of FlashAttention-3": the share it reached, 85% (84.9)
            short = trace_figure(whole[0], index, whole[1], readings)
            if short.traced:
                t = TracedFigure(f, short.traces, q, t.misses)
        if not t.traced and (size := _billions_as_bytes(f)) is not None:
            # "64B, 128B, 192B or 256B": a glued B is billions ("70B") or bytes; the
            # evidence settles which
            as_bytes = trace_figure(size[0], index, size[1], readings)
            if as_bytes.traced:
                t = TracedFigure(f, as_bytes.traces, size[1], t.misses)
        if not t.traced and (bylines := byline_counts(article, body, f, q)):
            t = TracedFigure(f, tuple(Trace("byline", f"/sources/{i}/authors", source_ids=(sid,))
                                      for i, sid in bylines), t.quantity, t.misses)
        if (r := ratios.get(f.start)) is not None and disagrees(r[0], f):
            # "about three times apart" for 28.3 and 12.1: a 3x elsewhere is a coincidence
            t = TracedFigure(f, (), t.quantity, t.misses, (r[0], r[1].text, r[2].text))
        if not t.traced and (ages := _age_traces(article, index, body, f, q)
                             or date_gap_traces(index, f, q)):
            t = TracedFigure(f, ages, t.quantity, t.misses)
        out.append(t)
    return _complements(body, out)


_GLUED_B_RE = re.compile(r"\d[\d,]*(?:\.\d+)?B")


def _billions_as_bytes(f: Figure) -> tuple[Figure, Quantity] | None:
    """A number with a glued "B" ("256B", read as 256 billion) read as a size in bytes."""
    if len(f.values) != 1 or not _GLUED_B_RE.fullmatch(f.text):
        return None
    value = Decimal(f.text[:-1].replace(",", ""))
    decimals = len(f.text[:-1].partition(".")[2])
    figure = replace(f, value=value, decimals=decimals)
    return figure, Quantity(Kind.size, (value,), figure.decimals, UNITS["B"])


#: A duration that says how old something is at the article's date: "more than five years
#: old", "three years ago".
_AGE_AFTER_RE = re.compile(r"\s+years?\s+(?:old|ago|earlier|on)\b", re.IGNORECASE)


def _age_traces(article: Article, index: EvidenceIndex, body: str, f: Figure,
                q: Quantity | None) -> tuple[Trace, ...]:
    """The evidence dates about as many years before the article's date as an age in years
    states ("its public launch is more than five years old" in November 2026: July 28, 2021),
    within 30% of the age, as :mod:`.intervals` reads durations between the body's dates."""
    if q is None or q.kind is not Kind.duration or len(f.values) != 1 or not 1 <= f.values[0]:
        return ()
    if _AGE_AFTER_RE.match(body, f.end) is None:
        return ()
    years = float(f.values[0])
    return _unique(Trace("date", d.trace.pointer) for d in index.dates  # a date, no claim
                   if d.date < article.as_of_date and abs(
        (article.as_of_date - d.date).days / 365.25 - years) <= 0.3 * years)


def date_gap_traces(index: EvidenceIndex, f: Figure, q: Quantity | None) -> tuple[Trace, ...]:
    """The two evidence dates exactly as many days apart as a duration in days or weeks states
    ("taken 24 days apart": May 18 and June 11): the gap between them, worked out."""
    if (q is None or q.kind is not Kind.duration or q.unit is None or q.unit.factor is None
            or q.unit.dimension != "s" or len(f.values) != 1):
        return ()
    days = f.values[0] * q.unit.factor / 86400
    if days < 1 or days != days.to_integral_value():
        return ()
    return index.day_gaps().get(int(days), ())


def _complements(body: str, out: list[TracedFigure]) -> list[TracedFigure]:
    """A percent that traces to nothing but is the rest of a traced percent of its sentence
    ("an availability of 99.999% leaves 0.001% of a year"): the sentence works it out, so it
    traces where that percent does."""
    spans = sentences(body)
    # the traced single percents of each sentence, read once (not every figure per percent)
    traced = group_in(spans, [o for o in out if o.traced and o.quantity is not None
                              and o.quantity.kind is Kind.percent and len(o.figure.values) == 1],
                      lambda o: (o.figure.start, o.figure.end))
    for k, t in enumerate(out):
        q = t.quantity
        if t.traced or q is None or q.kind is not Kind.percent or len(t.figure.values) != 1 or (
                any(m.verdict is Verdict.points for m in t.misses)):
            continue  # evidence that states the number as points: a gap, not a rest
        span = enclosing(spans, t.figure.start, t.figure.end)
        if span is None:
            continue
        value = t.figure.values[0]
        rest = next((o for o in traced.get(span.start, [])
                     if quantize(100 - o.figure.values[0], t.figure.decimals) == value), None)
        if rest is not None:
            out[k] = TracedFigure(t.figure, rest.traces, q, t.misses)
    return out


#: A percent that says how far a share falls short of the whole: "within about 15% of",
#: "15% short of".
_WITHIN_RE = re.compile(r"\bwithin\s+(?:about\s+|roughly\s+|some\s+|around\s+|nearly\s+|"
                        r"just\s+)?$", re.IGNORECASE)
_OF_RE = re.compile(r"\s+of\b")
_SHORT_OF_RE = re.compile(r"\s+(?:short|shy)\s+of\b", re.IGNORECASE)


def share_short_of_whole(body: str, f: Figure, q: Quantity) -> tuple[Figure, Quantity] | None:
    """The share a "within X% of" (or "X% short of") figure leaves of the whole, as a figure
    of its own precision (15% -> 85%), or None for any other figure."""
    if q.kind is not Kind.percent or len(f.values) != 1 or not 0 < f.values[0] < 100:
        return None
    if not ((_WITHIN_RE.search(body, max(0, f.start - 24), f.start) and _OF_RE.match(body, f.end))
            or _SHORT_OF_RE.match(body, f.end)):
        return None
    share = 100 - f.values[0]
    return replace(f, value=share, upper=None), replace(q, values=(share,), direction=None)


def _prose_count(q: Quantity) -> bool:
    """A spelled-out small count ("three ideas"): prose more often than a claim, so another
    unknown noun with its number is no sign of a moved count."""
    return q.spelled and all(v <= _SMALL_SPELLED for v in q.values)

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


_DESK_ORIGINS = frozenset({"inference", "computation", "assumption"})
_PEOPLE = frozenset({"person", "author"})
