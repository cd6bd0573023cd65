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
reports ``untraced-figure`` for each figure that traces to nothing. The index is built in
:mod:`ledger.verify.evidence`, figures are matched to it in :mod:`ledger.verify.matching`; this
module turns what did not match into findings and re-exports the names of both.
"""

from __future__ import annotations

import datetime as dt
import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import replace
from decimal import Decimal

from ..figures import FigureKind, quantize
from ..models import Article
from ..quantities import (
    UNITS,
    Kind,
    Quantity,
    Unit,
    Verdict,
    defines_unit,
    sibling_units,
    unit_end,
)
from ..report import Finding, Severity
from .evidence import (
    EvidenceDate,
    EvidenceIndex,
    EvidenceNumber,
    Trace,
    build_index,
    evidence_text,
    metric_magnitude,
)
from .intervals import relative_intervals
from .matching import (
    _DESK_ORIGINS,
    _SMALL_SPELLED,
    Miss,
    TracedFigure,
    _moved_onto_hardware,
    nearest_evidence,
    share_short_of_whole,
    trace_figure,
    trace_figures,
    tried,
)
from .misworked import Misworked, misworked_step
from .points import Gap
from .prose import Span, enclosing, group_in, sentences
from .restated import Restatement, restatements
from .text import body_span, line_col
from .worked import WorkedSum, worked_sums, wrong_sum_finding

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


#: Classes of hardware a deployment counts at different levels (GPUs in nodes in racks).
_HARDWARE_LEVELS = frozenset({"gpu", "node", "rack"})


def _hardware_swapped(q: Quantity, evidence_class: str | None) -> bool:
    """The figure counts one level of hardware and the evidence gives its number as a count of
    another ("eight nodes" where the sources count eight GPUs): the count moved onto another
    level, not a coincidence, even where the evidence counts no nodes at all."""
    return (q.noun_class in _HARDWARE_LEVELS and evidence_class in _HARDWARE_LEVELS
            and q.noun_class != evidence_class)


def _finding_for(article: Article, t: TracedFigure, index: EvidenceIndex) -> Finding:
    f, q = t.figure, t.quantity
    by_verdict = {m.verdict: m for m in reversed(t.misses)}
    trace = tried(t)

    def at(severity: Severity, rule: str, message: str, hint: str | None = None) -> Finding:
        if severity is Severity.error and rule != "untraced-figure" and _prose_word(t):
            severity = Severity.warning  # "ten calls", "half the bandwidth": prose may only
            message += _SPELLED_DOUBT    # share the evidence's number
        return body_span(article, f.start, f.end, severity, rule, message, hint=hint,
                         trace=trace)

    if (miss := by_verdict.get(Verdict.unit)) is not None:
        assert q is not None and miss.quantity is not None
        bare = _bare_under_unit(article, index, t)
        return at(Severity.warning if bare else Severity.error, "unit-mismatch",
                  f"{f.text!r} is written in {_unit_words(q)} but the evidence states "
                  f"{format(miss.value.normalize(), 'f')} {_unit_words(miss.quantity)} "
                  f"({miss.trace.describe()}); the number agrees, the unit does not" + (
                      f" (but {bare} gives the number bare in a claim that names "
                      f"{_unit_words(q)}, as a table's column does: the checker cannot be "
                      "sure)" if bare else ""))
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
    if noun_miss is not None and q is not None and (
            _class_counted(q, index) or _hardware_swapped(q, miss_class)) and (
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
            if miss.trace.origin in ("inference", "assumption") and miss.quantity.noun_class is None:
                # the desk's own claim, in shorthand: "about 15 waits on I/O" may be the 15
                # accelerators' worth the body spells out
                return at(Severity.warning, "mislabeled-figure",
                          f"{f.text!r} is a {q.describe()} here, but the desk's own claim "
                          f"({miss.trace.describe()}) reads as a {miss.quantity.describe()}; "
                          "a claim's shorthand may name the same thing, so the checker "
                          "cannot be sure")
            if q.spelled and all(v <= 2 for v in f.values):
                # "the fewer switches between two nodes": "one" and "two" in words are prose
                # as often as counts, so a count of other things with it is a doubt ("six
                # nodes" for six GPUs stays a count moved onto other hardware)
                return at(Severity.warning, "mislabeled-figure",
                          f"{f.text!r} is a {q.describe()} here, but the evidence with that "
                          f"number ({miss.trace.describe()}) is a {miss.quantity.describe()}; "
                          "\"one\" or \"two\" in words may be prose, so the checker cannot be "
                          "sure")
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
    severity = Severity.error
    if (miss := by_verdict.get(Verdict.kind) or by_verdict.get(Verdict.noun)) is not None:
        kind = (f"a {miss.quantity.describe()}" if miss.quantity
                else "a value of unknown kind whose name does not say what it counts")
        message += (f"; {miss.trace.describe()} has the same number as {kind}, "
                    "which is not the same quantity")
        if (q is not None and q.kind is Kind.count and q.noun == "time"
                and miss.quantity is not None and miss.quantity.kind is Kind.multiplier):
            severity = Severity.warning  # "2 to 4 times" is a count of runs or a multiple
            message += (" (but 'times' also writes a multiple: the checker cannot be sure "
                        "which this is)")
    small = (q is not None and q.spelled and q.kind in (Kind.count, Kind.number, Kind.duration)
             and all(v <= _SMALL_SPELLED for v in f.values))
    if small:
        message += " (a spelled-out small number: it may be prose rather than a claim)"
        severity = Severity.note if _ordinary(q) or _ANAPHORIC_RE.search(
            article.body, max(0, f.start - 12), f.start) else Severity.warning
    elif severity is Severity.error and _prose_word(t):
        message += _SPELLED_DOUBT
        severity = Severity.warning
    return at(severity, "untraced-figure", message,
              hint=nearest_evidence(t, index) if f.kind is not FigureKind.date else None)


def _diagnosis(article: Article, t: TracedFigure, index: EvidenceIndex) -> Finding | None:
    """What went wrong with a figure that traces to nothing, where the evidence settles it: a
    multiplier written as a change of a hundred times its value ("480% faster" for 4.8 times, a
    ``percentage-points`` error), or a date no evidence gives, said with the evidence's nearest
    date (a ``date-order`` error). Reported beside the ``untraced-figure``."""
    f, q = t.figure, t.quantity
    if f.kind is FigureKind.date and f.date is not None:
        near = _slipped_date(f.date, index)
        return None if near is None else body_span(
            article, f.start, f.end, Severity.error, "date-order",
            f"date {f.text!r} is none of the dates of this article's sources, facts, scope or "
            f"measurements; {near}", trace=tried(t))
    if (swapped := _swapped_ratio_unit(t)) is not None:
        # "about 4% faster" where the source says 4x, "10x compression" for 10%: the number
        # kept, the unit of the ratio changed
        assert q is not None and swapped.quantity is not None
        return body_span(
            article, f.start, f.end, Severity.error, "unit-mismatch",
            f"{f.text!r} is written as a {q.kind.value} but the evidence states that number as "
            f"a {swapped.quantity.kind.value}, {format(swapped.value.normalize(), 'f')}"
            f"{_RATIO_SYMBOL[swapped.quantity.kind]} ({swapped.trace.describe()}); the number "
            "agrees, the unit does not", trace=tried(t))
    if (moved := _moved_count(t)) is not None:
        what = (f"a {moved.quantity.describe()}" if moved.quantity is not None else
                f"'{moved.trace.pointer.rsplit('/', 1)[-1]}'")
        return body_span(
            article, f.start, f.end, Severity.error, "mislabeled-figure",
            f"{f.text!r} is a {q.describe() if q else 'count'} here, but the evidence states "
            f"that number as {what} ({moved.trace.describe()}), not as this", trace=tried(t))
    miss = next((m for m in t.misses if m.verdict is Verdict.hundredfold), None)
    if miss is None or q is None:
        return None
    times = miss.value.normalize()
    change = ((miss.value - 1) * 100 if q.direction == "increase"
              else (1 - 1 / miss.value) * 100 if miss.value > 1 else None)
    return body_span(
        article, f.start, f.end, Severity.error, "percentage-points",
        f"{f.text!r} writes the evidence's {format(times, 'f')}x ({miss.trace.describe()}) as "
        f"a change of {f.text}, but a change counts from the old value, not from zero" + (
            f": {format(times, 'f')}x is {_pct(quantize(change, 1).normalize())} "
            f"{'more' if q.direction == 'increase' else 'less'}" if change is not None else ""),
        trace=tried(t))


#: How a finding writes a ratio's unit after its number.
_RATIO_SYMBOL = {Kind.multiplier: "x", Kind.percent: "%", Kind.points: " percentage points"}


def _swapped_ratio_unit(t: TracedFigure) -> Miss | None:
    """The evidence that states an untraced ratio's very number as another kind of ratio: a
    percent where the source has a multiplier ("4% faster" for 4x) or a multiplier where it has
    a percent or points ("10x compression" for 10%, "16.4-fold" for 16.4 points). One value,
    the exact number."""
    q = t.quantity
    if q is None or q.kind not in _RATIO_SYMBOL or len(t.figure.values) != 1:
        return None
    other = ((Kind.multiplier,) if q.kind is not Kind.multiplier
             else (Kind.percent, Kind.points))
    value = t.figure.values[0]
    return next((m for m in t.misses if m.verdict is Verdict.kind and m.value == value
                 and m.quantity is not None and m.quantity.kind in other), None)


def _moved_count(t: TracedFigure) -> Miss | None:
    """The evidence that states an untraced count's very number as another thing: a count of
    another noun, a named input of the desk's computation, a size or a rate ("16 SSDs" where
    the evidence's 16 is ``cores``; "a 24-GPU node" beside 24 GB): the number was moved onto
    this noun. Only a count written in digits, with its noun, and only the exact number."""
    q = t.quantity
    if q is None or q.kind is not Kind.count or q.noun is None or q.spelled or len(
            t.figure.values) != 1 or q.noun_class == "repetition":
        return None  # ("2 to 4 times" may be a multiple: see the untraced finding's doubt)
    value = t.figure.values[0]
    return next((m for m in t.misses if m.value == value and m.verdict in (
        Verdict.kind, Verdict.noun) and (m.quantity is not None or (
            m.trace.origin == "computation" and "/inputs/" in m.trace.pointer))), None)


def _slipped_date(day: dt.date, index: EvidenceIndex) -> str | None:
    """The evidence's date that ``day`` differs from in one part only (a year, a month or a
    day slipped), the same day of another year first; None when no date is that close: then
    the date is simply untraced (a date the article never sourced), not a wrong date."""
    close = [d for d in index.dates if (d.date.year == day.year) + (d.date.month == day.month)
             + (d.date.day == day.day) >= 2]
    if not close:
        return None
    same_day = [d for d in close if (d.date.month, d.date.day) == (day.month, day.day)]
    near = min(same_day or close, key=lambda d: (abs((d.date - day).days), d.date))
    how = "the same day of another year" if same_day else "the nearest"
    return f"{how} is {near.date.isoformat()} ({near.trace.describe()})"


#: What a finding on a spelled-out figure adds: the checker is not sure it is a claim.
_SPELLED_DOUBT = (" (a figure in words, such as 'ten' or 'half', may be prose that only "
                  "shares the number, so the checker cannot be sure)")
#: Classes of things a deployment is built from: a count of them in words states a set-up
#: ("eight GPUs", "six SSDs per server"), not everyday prose.
_DEPLOYMENT = frozenset({"gpu", "node", "rack", "instance", "ssd", "nic", "core"})


def _prose_word(t: TracedFigure, counts: bool = True) -> bool:
    """A figure in words that everyday prose uses without stating a result: a small count or
    duration ("ten calls", "every ten minutes") that does not count hardware ("eight GPUs",
    "two nodes" state a deployment), or a fraction ("half the laptop's bandwidth", "a third").
    Not a multiplier or percent in words ("threefold", "nine percent"): those state a result.
    With ``counts`` False only a fraction is (a count restating a sum's result is a result)."""
    f, q = t.figure, t.quantity
    if not f.spelled or q is None:
        return False
    if q.kind is Kind.multiplier:
        return all(v < 1 for v in f.values)
    if not counts or q.kind not in (Kind.count, Kind.number, Kind.duration) or any(
            v > _SMALL_SPELLED for v in f.values):
        return False
    return q.noun_class not in _DEPLOYMENT


def _item(trace: Trace) -> str:
    """The piece of evidence a trace is in: a fact, an inference (with its computation and
    assumptions), a metric, a scope field."""
    return trace.fact_id or trace.metric or "/".join(trace.pointer.split("/")[:3])


def _neighbours(t: TracedFigure, spans: Sequence[Span],
                by_sentence: dict[int, list[TracedFigure]]) -> list[TracedFigure]:
    """The other figures of the figure's sentence (``by_sentence``: figures by the start of
    their sentence)."""
    span = enclosing(spans, t.figure.start, t.figure.end)
    return [] if span is None else [o for o in by_sentence.get(span.start, []) if o is not t]


def _unit_of_its_sentence(t: TracedFigure, index: EvidenceIndex, spans: Sequence[Span],
                          by_sentence: dict[int, list[TracedFigure]]) -> Miss | None:
    """The evidence that states the figure's number in another unit when it is the evidence
    every other figure of the sentence comes from, and none of what the figure matched is
    ("On a 100 GB/s cluster the gains are up to 2.2x" where the fact with the 2.2x says
    100 Gb/s): the unit changed, and the match is a coincidence, when the figure's digits in
    its unit are no other evidence's words, only a conversion (800 Gbps elsewhere) or the
    desk's arithmetic."""
    q = t.quantity
    units = [m for m in t.misses if m.verdict is Verdict.unit]
    if q is None or q.unit is None or not units:
        return None
    others = [o for o in _neighbours(t, spans, by_sentence) if o.traced
              and o.figure.kind not in (FigureKind.date, FigureKind.year)]
    if not others:
        return None
    anchor = set.intersection(*({_item(tr) for tr in o.traces} for o in others))
    if anchor & {_item(tr) for tr in t.traces}:
        return None
    value = t.figure.values[0] if len(t.figure.values) == 1 else None
    traces = set(t.traces)
    if any(ev.trace in traces and ev.value == value and ev.trace.origin != "computation"
           and ev.quantity is not None and ev.quantity.unit is not None
           and ev.quantity.unit.factor == q.unit.factor for ev in index.numbers):
        return None  # another piece of evidence states these very digits in this unit
    return next((m for m in units if _item(m.trace) in anchor and m.value == value
                 and m.trace.origin not in ("computation", "assumption")), None)


def _named_input_of_its_sentence(t: TracedFigure, index: EvidenceIndex, spans: Sequence[Span],
                                 by_sentence: dict[int, list[TracedFigure]]) -> bool:
    """The figure is an input of the computation its sentence works, by the input's name
    ("bytes_fp16": 2 for "two bytes each"), though a source states its number in another
    unit (AQLM's "2 bits"): the sentence's other figures trace to that inference."""
    q = t.quantity
    if q is None or q.unit is None or len(t.figure.values) != 1:
        return False
    inferences = {tr.inference_id for o in _neighbours(t, spans, by_sentence)
                  for tr in o.traces if tr.inference_id}
    value = t.figure.values[0]
    return any(ev.trace.inference_id in inferences and ev.value == value
               and ev.trace.pointer.rsplit("/", 2)[-2] == "inputs"
               and _name_states_unit(ev.trace.pointer.rsplit("/", 1)[-1], q.unit)
               for ev in index.numbers)


def _name_states_unit(name: str, unit: Unit) -> bool:
    """A word of an input's name is the unit ("bytes_fp16", "gpu_hours")."""
    return any((u := UNITS.get(part)) is not None and u.factor == unit.factor
               and u.dimension == unit.dimension for part in name.split("_"))


def _sentence_unit_finding(article: Article, t: TracedFigure, miss: Miss) -> Finding:
    assert t.quantity is not None and miss.quantity is not None
    return body_span(
        article, t.figure.start, t.figure.end, Severity.error, "unit-mismatch",
        f"{t.figure.text!r} is written in {_unit_words(t.quantity)}, but "
        f"{miss.trace.describe()}, where the sentence's other figures come from, states "
        f"{format(miss.value.normalize(), 'f')} {_unit_words(miss.quantity)}; elsewhere it "
        f"traces only as a conversion or the desk's arithmetic ("
        f"{', '.join(sorted({tr.describe() for tr in t.traces}))})", trace=tried(t))


def _bare_under_unit(article: Article, index: EvidenceIndex, t: TracedFigure) -> str:
    """The fact that states the figure's number with no unit of its own in a claim that names
    the figure's unit ("HBM GiB 95/32/192", a table's header and its row), or ""."""
    q = t.quantity
    if q is None or q.unit is None or len(t.figure.values) != 1:
        return ""
    claims = {fact.id: fact.claim for fact in article.facts}
    symbol = re.compile(rf"(?<![\w/]){re.escape(q.unit.symbol)}(?![\w/])")
    for ev in index.numbers:
        if (ev.value == t.figure.values[0] and ev.trace.fact_id in claims
                and (ev.quantity is None or ev.quantity.kind is Kind.number)
                and symbol.search(claims[ev.trace.fact_id])):
            return ev.trace.describe()
    return ""


def _unit_words(q: Quantity) -> str:
    """``GiB``, ``tokens``, ``EUR``: how a finding names a quantity's unit."""
    if q.kind is Kind.money and q.noun:
        return q.noun + (f" ({q.unit.symbol})" if q.unit is not None else "")
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


#: A definite article right before a spelled-out count refers back to things already named
#: ("keep the two cards apart", "both the three runs"): prose, not a count to trace.
_ANAPHORIC_RE = re.compile(r"\b(?:the|these|those|both)\s+$", re.IGNORECASE)


def _ordinary(q: Quantity | None) -> bool:
    """A spelled-out small number that counts nothing a benchmark measures ("three ideas", "the
    two ends", "two sets of figures", a bare "three"): prose, so a note, not a warning. Counts
    of hardware, people or requests and durations stay warnings."""
    if q is None or q.kind is Kind.duration:
        return False
    return q.kind is Kind.number or q.noun_class is None


def _its_result(body: str, t: TracedFigure, r: Restatement) -> bool:
    """The figure traces to a result of the very inference it restates ("within about 15% of"
    the 84.9% share that inference computes): that inference's figure, said another way."""
    return t.quantity is not None and share_short_of_whole(
        body, t.figure, t.quantity) is not None and any(
        tr.inference_id == r.inference.id and tr.pointer.endswith("/result") for tr in t.traces)


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
    sourced = frozenset(t.figure.start for t in traced
                        if any(tr.origin not in _DESK_ORIGINS for tr in t.traces))
    restated = {r.figure.start: r for r in restatements(article, sourced)}
    sums = worked_sums(article.body)
    working = _working(article.body, sums, traced)
    percents = [o for o in traced if o.traced and o.quantity is not None
                and o.quantity.kind is Kind.percent and len(o.figure.values) == 1]
    percent_starts = [o.figure.start for o in percents]
    findings = []
    widths: set[Decimal] | None = None
    by_sentence = group_in(sentences(article.body), traced,
                           lambda o: (o.figure.start, o.figure.end))
    spans = sentences(article.body)
    for t in traced:
        if t.traced:
            if (r := restated.get(t.figure.start)) is not None and not _its_result(article.body, t, r):
                findings.append(_restated_finding(article, r, t))
            elif (miss := _unit_of_its_sentence(t, index, spans, by_sentence)) is not None:
                findings.append(_sentence_unit_finding(article, t, miss))
            continue
        if t.figure.start in intervals:
            continue  # "Three months later" agrees with the dates around it
        if _definition(article.body, t):
            continue  # "divided by eight bits per byte": a unit's definition
        if _counts_its_list(article.body, t):
            continue  # "Seven partners (Boyd, ..., Vertiv)": the sentence lists the seven
        if _BIT_WIDTH_RE.match(article.body, t.figure.end) and set(t.figure.values) <= (
                widths := _bit_widths(article) if widths is None else widths):
            continue  # "16-bit floats" where the evidence writes f16: a format's name
        if t.figure.start in working and not any(m.verdict is Verdict.unit for m in t.misses):
            continue  # "47,520 tokens (13.20 × 3,600)": a sum the body works and gets right,
            # unless the evidence gives its number in another unit ("9.3 s" for 9.3 ms)
        if _named_input_of_its_sentence(t, index, spans, by_sentence):
            continue  # "two bytes each in FP16: 70 × 2 = 140 GB", the input "bytes_fp16": 2
        finding = _finding_for(article, t, index)
        if finding.rule in _READINGS and _denied_reading(article.body, t, traced):
            continue  # "4.3 percentage points, not a 4.3% difference": the wrong reading denied
        if finding.rule == "untraced-figure" and _denied_misreading(
                article.body, t, _neighbours(t, spans, by_sentence)):
            continue  # "1.38x ... a 27.5% reduction rather than a 38% one": the misreading
        finding = _unless_written_alike(article, t, finding)
        findings.append(finding)
        if finding.rule == "untraced-figure" and (why := _diagnosis(article, t, index)):
            findings.append(_unless_written_alike(article, t, why))
        elif finding.rule == "untraced-figure" and (gap := _body_gap(
                article.body, t, percents, percent_starts)):
            findings.append(body_span(
                article, t.figure.start, t.figure.end, Severity.error, "percentage-points",
                f"{t.figure.text!r} traces to nothing as a percent, but it is the gap between "
                f"{gap[1].figure.text} and {gap[0].figure.text} in this paragraph: a difference "
                f"of {format(t.figure.values[0], 'f')} percentage points, not a change of "
                f"{t.figure.text}", trace=tried(t)))
        if (r := restated.get(t.figure.start)) is not None:
            findings.append(_restated_finding(article, r, t))
        elif finding.rule == "untraced-figure" and finding.severity is Severity.error:
            if _sentence_start(article, t) in desk and _stated_as_result(article, t):
                findings.append(body_span(
                    article, t.figure.start, t.figure.end, Severity.error, "arithmetic",
                    f"{t.figure.text!r} is stated beside the desk's own arithmetic, but neither "
                    "a computation nor any evidence gives it; recompute it", trace=tried(t)))
            elif (step := _misworked(article, t, by_sentence)) is not None:
                findings.append(body_span(
                    article, t.figure.start, t.figure.end, Severity.error, "arithmetic",
                    f"{t.figure.text!r} stands where {step.describe()}; recompute it",
                    trace=tried(t)))
    flagged = {(f.line, f.column) for f in findings if f.rule == "arithmetic"}
    findings += [wrong_sum_finding(article, w) for w in sums
                 if not w.agrees and line_col(article.body, w.result_start) not in flagged]
    return findings


def _unless_written_alike(article: Article, t: TracedFigure, finding: Finding) -> Finding:
    """``finding``, a warning instead of an error when some evidence writes the figure's very
    number right before the same word ("2,000 synthetic failures" and a fact's "2000 synthetic
    failures"; "175 GB" and "GPT-3 175GB"): the two read alike, so a difference the checker
    found between them is more likely its own misreading than the editor's mistake."""
    if (finding.severity is not Severity.error or len(t.figure.values) != 1
            or t.figure.kind is FigureKind.date):
        return finding
    alike = _written_alike(article, t)
    if alike is None:
        return finding
    return replace(finding, severity=Severity.warning, message=finding.message + (
        f" (but {alike} writes the same number before the same word: the checker may have "
        "misread one of them, so it cannot be sure)"))


_NEXT_WORD_RE = re.compile(r"\s?([A-Za-z][\w/-]*)")
_THOUSANDS_RE = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
#: Words too common after a number to tie two places together.
_LINK_WORDS = frozenset({"and", "or", "of", "the", "to", "in", "on", "at", "for", "with", "is",
                         "are", "was", "were", "a", "an", "by", "from", "than", "as", "per",
                         "times", "x"})


def _written_alike(article: Article, t: TracedFigure) -> str | None:
    """The evidence (a fact, an inference, the scope) that writes ``t``'s number, its digits
    alike apart from thousands separators, right before the word that follows it in the body;
    None when none does."""
    body, f = article.body, t.figure
    digits = re.search(r"\d[\d,]*(?:\.\d+)?", f.text)
    word = _NEXT_WORD_RE.match(body, f.end)
    if digits is None or word is None or word.group(1).lower() in _LINK_WORDS:
        return None
    number = _THOUSANDS_RE.sub("", digits.group())
    # case counts: "18.8 Gb" and "18.8 GB" are two units
    pattern = re.compile(rf"(?<![\d.,]){re.escape(number)}\s?{re.escape(word.group(1))}\b")
    for fact in article.facts:
        if pattern.search(_THOUSANDS_RE.sub("", fact.claim)):
            return f"fact {fact.id}"
    for inf in article.inferences:
        if pattern.search(_THOUSANDS_RE.sub("", inf.claim)):
            return f"inference {inf.id}"
    return None


def _body_gap(body: str, t: TracedFigure, percents: list[TracedFigure], starts: list[int]
              ) -> tuple[TracedFigure, TracedFigure] | None:
    """Two traced percents of the figure's paragraph, among the twelve either side, whose
    difference an untraced percent with decimals states ("68.6% ... 76.5% of the ideal, an
    improvement of 7.9%"): the gap in points, written as a percent. Decimals only: a whole
    number is too often a coincidence. ``percents``: the body's traced single percents, in
    order, and ``starts`` where each starts (a bounded look back keeps a long paragraph
    linear)."""
    q = t.quantity
    if (q is None or q.kind is not Kind.percent or len(t.figure.values) != 1
            or t.figure.decimals < 1):
        return None
    start = body.rfind("\n\n", 0, t.figure.start) + 1
    end = body.find("\n\n", t.figure.end)
    end = len(body) if end < 0 else end
    i = bisect_left(starts, t.figure.start)
    near = [o for o in percents[max(0, i - _GAP_LOOK_BACK):i + _GAP_LOOK_BACK]
            if start <= o.figure.start < end]
    value = t.figure.values[0]
    by_value = {o.figure.values[0]: o for o in near}
    return next(((a, by_value[b]) for a in near for b in by_value
                 if b > a.figure.values[0] and quantize(b - a.figure.values[0],
                                                        t.figure.decimals) == value), None)


#: How many traced percents either side of an untraced one :func:`_body_gap` pairs.
_GAP_LOOK_BACK = 12


#: A figure that is a bit width: "16-bit floats", "a 4 bit cache".
_BIT_WIDTH_RE = re.compile(r"[\s-]bits?\b")
#: The names of number formats in the evidence: fp16, bf16, f16, int8, q4_0, nf4, mxfp4.
_FORMAT_RE = re.compile(r"(?<![A-Za-z0-9])(?:[uU]?[iI][nN][tT]|[fF][pP]|[bB][fF]|f|[qQ]|"
                        r"[nN][fF]|mxfp|MXFP|[tT][fF])(?P<n>\d{1,2})(?![0-9])|"
                        r"(?<![\w.])(?P<b>\d{1,2})[\s-]bits?\b")


#: The list a count introduces, in brackets or after a colon: "Seven ecosystem partners
#: (Boyd, CoolerMaster, ..., and Vertiv)", "three tiers: GPU, host and disk".
_LIST_AFTER_RE = re.compile(r"[^(:.;\[]{0,60}?(?:\(|:\s)(?P<items>[^()\[\].;:]{3,400}?)(?:\)|[.;]|$)")
_ITEM_SEP_RE = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")


def _counts_its_list(body: str, t: TracedFigure) -> bool:
    """A count whose own sentence lists the things it counts, as many as it says."""
    q = t.quantity
    if q is None or q.kind is not Kind.count or len(t.figure.values) != 1 or not (
            2 <= t.figure.values[0] <= 30):
        return False
    m = _LIST_AFTER_RE.match(body, t.figure.end)
    if m is None:
        return False
    items = [i for i in _ITEM_SEP_RE.split(m.group("items")) if i.strip()]
    return len(items) == t.figure.values[0] and all(len(i.split()) <= 4 for i in items)


def _definition(body: str, t: TracedFigure) -> bool:
    q = t.quantity
    return (q is not None and q.unit is not None and len(t.figure.values) == 1
            and defines_unit(body, t.figure.values[0], q.unit, unit_end(body, t.figure.end)))


def _bit_widths(article: Article) -> set[Decimal]:
    """The bit widths the article's evidence names, in formats ("f16", "BF16", "q4_0") or in
    words ("8-bit"): a body's "16-bit floats" is then the format's name, not an untraced
    figure."""
    return {Decimal(m.group("n") or m.group("b"))
            for m in _FORMAT_RE.finditer(evidence_text(article))}


def _misworked(article: Article, t: TracedFigure, by_sentence: dict[int, list[TracedFigure]]
               ) -> Misworked | None:
    """The computation step whose result the untraced figure restates with another value, from
    the step's operands in its sentence (see :mod:`.misworked`); ``by_sentence``: the traced
    figures by the start of their sentence."""
    if not article.inferences or len(t.figure.values) != 1:
        return None
    span = enclosing(sentences(article.body), t.figure.start, t.figure.end)
    if span is None:
        return None
    others = [(list(o.figure.values), o.figure.decimals) for o in by_sentence.get(span.start, [])
              if o is not t]
    return misworked_step(article, t.figure.values[0], t.quantity, others,
                          as_result=_stated_as_result(article, t),
                          desk_count=bool(_DESK_COUNT_RE.search(span.text)))


#: A sentence that says it gives the desk's own count: "By the desk's count, ...".
_DESK_COUNT_RE = re.compile(r"\b(?:by|on|in)\s+(?:the\s+desk's|PCT's|our)\s+"
                            r"(?:own\s+)?(?:count|reckoning|arithmetic|calculation)\b", re.I)


def _working(body: str, sums: list[WorkedSum], traced: list[TracedFigure]) -> set[int]:
    """Starts of the figures of worked sums that come to their stated result and hold a figure
    whose number the evidence states (as any kind: "0.2 ×" in the sum is the evidence's
    0.2 GB per second): the sum explains its other figures (see :mod:`.worked`)."""
    out: set[int] = set()
    spans = sentences(body)
    for w in sums:
        held = [t for t in traced if w.holds(t.figure.start)]
        if w.agrees and any(t.traced or t.misses for t in held):
            out.update(t.figure.start for t in held)
            # the result said again in the same sentence ("is 1,814 GPUs, and 1,814 GPUs at
            # $2 an hour ..."): the same worked figure
            result = next((t for t in held if t.figure.start == w.result_start), None)
            span = enclosing(spans, w.expr_start, w.result_end)
            if result is not None and span is not None:
                kind = result.quantity.kind if result.quantity else None
                out.update(t.figure.start for t in traced
                           if span.start <= t.figure.start < span.end
                           and t.figure.values == result.figure.values
                           and (t.quantity.kind if t.quantity else None) is kind)
    return out


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
    spelled = _prose_word(t, counts=False)  # "a little over half" may only approximate it
    return body_span(
        article, r.figure.start, r.figure.end, Severity.warning if spelled else Severity.error,
        "arithmetic",
        f"{r.figure.text!r} restates the result {r.claim_figure.text!r} of inference "
        f"{r.inference.id} (\"{r.inference.claim.strip()[:90]}\") with another value that none "
        "of its arithmetic gives; recompute it" + (_SPELLED_DOUBT if spelled else ""),
        trace=tried(t))

#: What puts a figure as the result of a sum: "... is 57.3", "leaves 71%", "400 Gb/s, or 50 GB/s".
_RESULT_BEFORE_RE = re.compile(
    r"(?:\bis|\bare|=|\bleaves|\bgives|\bequals|,\s*or|\bcomes?\s+to|\bworks\s+out\s+to|"
    r"\bmakes?|\btotals?|\badds?\s+up\s+to)"
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


def _denied_misreading(body: str, t: TracedFigure, others: list[TracedFigure]) -> bool:
    """The percent is denied ("rather than a 38% one") in a sentence with a traced multiplier
    (one of ``others``, the sentence's other figures) it misreads (1.38x as 38% less or as
    138%): the sentence warns against the misreading."""
    q = t.quantity
    if q is None or q.kind is not Kind.percent or len(t.figure.values) != 1:
        return False
    if not _DENIED_BEFORE_RE.search(body[max(0, t.figure.start - 24):t.figure.start]):
        return False
    value = t.figure.values[0]
    return any(o.traced and o.quantity is not None and o.quantity.kind is Kind.multiplier
               and value in {quantize((m - 1) * 100, t.figure.decimals),
                             quantize(m * 100, t.figure.decimals)}
               for o in others for m in o.figure.values)
