"""What a figure rests on, in words: the steps of its evidence chain.

A chain is a list of :class:`Step` objects, from the evidence the figure matched to the thing
that evidence stands on: a fact, its source and the source's words, and how well it is verified;
or a measurement, its run, and each reproduction of that run. Every step lists its rows even when
the data is missing, with the value :data:`NOT_RECORDED`, so a reader sees which link is absent.

Data that other parts of the ledger may or may not hold (quotes on facts, snapshots of sources,
the spread of a run's metrics, reproductions, verification levels) is read when present and
reported as not recorded when absent.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..errors import ExtractError
from ..figures import Figure, extract_figures
from ..grounding import closest_passage, contains
from ..levels import Level, LevelInfo, Reproduction, ReproductionsFor, article_levels
from ..models import (
    AUTHOR_REPORTED_EVIDENCE,
    EXTENSION_PREFIX,
    Article,
    Fact,
    Inference,
    Measurement,
    Run,
    Source,
)
from ..verify.arithmetic import ArithmeticError_, evaluate
from ..verify.grounding import SnapshotLookup, SnapshotText, SourceSnapshots
from ..verify.tracing import Trace

__all__ = [
    "NOT_RECORDED",
    "ORIGIN_ORDER",
    "Evidence",
    "RunLookup",
    "Step",
    "chain",
    "describe",
    "recompute",
]

NOT_RECORDED = "not recorded"
#: The order in which a figure's traces are shown: the strongest evidence first.
ORIGIN_ORDER = ("measurement", "fact", "metric", "computation", "inference", "assumption",
                "scope", "date")
RunLookup = Callable[[str], "Run | None"]
_BASE_METRIC_FIELDS = {"name", "value", "unit", "aggregation", "sample_count", "description"}


@dataclass(frozen=True)
class Step:
    """One link of a chain: a heading, optional quoted text, labelled rows and a link."""

    kind: str
    title: str
    text: str | None = None
    rows: tuple[tuple[str, str], ...] = ()
    url: str | None = None


@dataclass
class Evidence:
    """Everything a chain may draw on besides the article: runs, and snapshots of sources (a
    :data:`~ledger.verify.grounding.SnapshotLookup`: saved pages with ``--sources``, or the
    ledger's snapshots)."""

    article: Article
    runs: RunLookup = field(default=lambda _run_id: None)
    snapshots: SnapshotLookup | None = None
    reproductions: ReproductionsFor | None = None
    _run_cache: dict[str, Run | None] = field(default_factory=dict)
    _levels: dict[str, LevelInfo] | None = None
    _snapshot_cache: dict[str, SourceSnapshots | str | None] = field(default_factory=dict)

    def run(self, run_id: str) -> Run | None:
        if run_id not in self._run_cache:
            self._run_cache[run_id] = self.runs(run_id)
        return self._run_cache[run_id]

    def level(self, key: str) -> LevelInfo | None:
        """The verification level of a measurement, fact or inference (``M2``, ``F4``),
        derived from the article and the reproductions the ledger recorded."""
        if self._levels is None:
            self._levels = article_levels(self.article, self.reproductions)
        return self._levels.get(key)

    def reproductions_of(self, run_id: str) -> list[Reproduction]:
        return list(self.reproductions(run_id)) if self.reproductions else []

    def fact(self, fact_id: str | None) -> Fact | None:
        return next((f for f in self.article.facts if f.id == fact_id), None)

    def source(self, source_id: str) -> Source | None:
        return next((s for s in self.article.sources if s.id == source_id), None)

    def inference(self, inference_id: str | None) -> Inference | None:
        return next((i for i in self.article.inferences if i.id == inference_id), None)

    def measurement(self, measurement_id: str | None) -> Measurement | None:
        return next((m for m in self.article.measurements or [] if m.id == measurement_id), None)

    def snapshot(self, source_id: str) -> SourceSnapshots | str | None:
        """The source's snapshots; a string saying why when they cannot be read; None when
        there are none."""
        if self.snapshots is None:
            return None
        if source_id not in self._snapshot_cache:
            source = self.source(source_id)
            try:
                found: SourceSnapshots | str | None = (
                    self.snapshots(self.article.id, source) if source else None)
            except ExtractError as exc:
                found = f"unreadable: {exc}"
            self._snapshot_cache[source_id] = found
        return self._snapshot_cache[source_id]


def _date(value: dt.date | dt.datetime | None) -> str:
    if value is None:
        return NOT_RECORDED
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M UTC")
    return value.isoformat()


def _number(value: float | int | Decimal) -> str:
    return format(value, ".4g") if isinstance(value, float) else str(value)


def _extra(model: Any, name: str) -> Any:
    """A field that may exist on a newer model (or as an ``x-`` extension), else None."""
    value = getattr(model, name, None)
    if value is None:
        value = (getattr(model, "__pydantic_extra__", None) or {}).get(f"x-{name}")
    return value


# --- words -----------------------------------------------------------------------------------


def _source_words(ev: Evidence, source_ids: Iterable[str]) -> str:
    parts = []
    for sid in source_ids:
        src = ev.source(sid)
        if src is None:
            parts.append(sid)
            continue
        when = src.published_at or src.page_date or src.updated_at
        parts.append(f"{sid} {src.publisher}, \u201c{src.title}\u201d, {_date(when)}")
    return "; ".join(parts)


_DATE_NAMES = {
    "published_at": "published", "updated_at": "updated", "page_date": "page date",
    "retrieved_at": "retrieved", "as_of_date": "the article's as-of date",
    "publication_date": "the publication date", "observation_date": "the observation date",
    "measured_at": "measured",
}


def _date_words(ev: Evidence, trace: Trace) -> str:
    name = trace.pointer.rsplit("/", 1)[-1]
    label = _DATE_NAMES.get(name, name)
    if trace.source_ids:
        return f"{_source_words(ev, trace.source_ids)} ({label})"
    if trace.measurement_id:
        return f"measurement {trace.measurement_id}, run {trace.run_id} ({label})"
    if trace.pointer.startswith("/benchmark_scope"):
        scope = ev.article.benchmark_scope
        return f"the benchmark's publication date ({scope.reported_by if scope else ''})"
    return label


def describe(ev: Evidence, trace: Trace) -> str:
    """One line saying what ``trace`` rests on: fact text, source title and date, run and metric."""
    if trace.origin == "fact":
        fact = ev.fact(trace.fact_id)
        claim = fact.claim if fact else ""
        return f"{trace.fact_id}: {claim} [{_source_words(ev, trace.source_ids)}]"
    if trace.origin == "measurement":
        m = ev.measurement(trace.measurement_id)
        what = "sample count" if trace.pointer.endswith("sample_count") else "value"
        metric = m.metric if m else trace.metric
        return f"{trace.measurement_id} {what} of {metric}, run {trace.run_id}"
    if trace.origin == "metric":
        scope = ev.article.benchmark_scope
        who = f" reported by {scope.reported_by}, {_date(scope.publication_date)}" if scope else ""
        return f"benchmark metric {trace.metric}{who}"
    if trace.origin in ("inference", "assumption", "computation"):
        inf = ev.inference(trace.inference_id)
        where = trace.pointer.split("/", 3)[-1].replace("/", " ")
        return f"{trace.inference_id} ({where}): {inf.claim if inf else ''}"
    if trace.origin == "date":
        return _date_words(ev, trace)
    if trace.origin == "scope":
        return f"benchmark scope, {trace.pointer.rsplit('/', 1)[-1]}"
    return trace.describe()


# --- chains ----------------------------------------------------------------------------------


def _where(snap: SnapshotText) -> str:
    day = snap.retrieved_at[:10]
    return snap.label + (f", {day}" if day and day not in snap.label else "")


def _look_up(snap: SnapshotText, quote: str) -> str:
    if contains(snap.normalized, quote):
        return f"found in {_where(snap)}"
    try:
        near = closest_passage(snap.normalized, quote)
    except ImportError:  # rapidfuzz comes with the sources extra
        return f"NOT found in {_where(snap)}"
    return (f"NOT found in {_where(snap)}; closest passage ({near.similarity:.0f}% similar): "
            f"{near.text}")


def _quote_rows(ev: Evidence, source_id: str, quote: str) -> tuple[tuple[str, str], ...]:
    snaps = ev.snapshot(source_id)
    if snaps is None:
        return (("in snapshot", NOT_RECORDED if ev.snapshots is None
                 else f"{NOT_RECORDED}: no snapshot of {source_id}"),)
    if isinstance(snaps, str):
        return (("in snapshot", snaps),)
    rows = [("in snapshot", _look_up(snaps.at_retrieval, quote))]
    if snaps.latest is not snaps.at_retrieval:
        rows.append(("in latest snapshot", _look_up(snaps.latest, quote)))
    return tuple(rows)


def _states(quote: str, values: frozenset[Decimal]) -> bool:
    """Whether ``quote`` states one of ``values`` (a percent also as a fraction)."""
    for fig in extract_figures(quote):
        for v in fig.values:
            if v in values or v / 100 in values or v * 100 in values:
                return True
    return False


def _quote_steps(ev: Evidence, fact: Fact, source_id: str,
                 values: frozenset[Decimal]) -> list[Step]:
    quotes = [q if isinstance(q, dict) else q.model_dump() if hasattr(q, "model_dump") else {}
              for q in _extra(fact, "quotes") or []]
    mine = [q for q in quotes if q.get("source_id") == source_id]
    # The quote that states the figure first: it is the one the editor is looking for.
    mine.sort(key=lambda q: not _states(q.get("text") or "", values))
    steps = []
    for data in mine:
        text = data.get("text") or ""
        steps.append(Step("quote", f"Quote from {source_id}", text, (
            ("states this figure", "yes" if _states(text, values) else "no"),
            ("locator", data.get("locator") or NOT_RECORDED),
            *_quote_rows(ev, source_id, text),
        )))
    if not steps:
        steps.append(Step("quote", f"Quote from {source_id}", None,
                          (("quote", NOT_RECORDED),)))
    return steps


def _snapshot_rows(ev: Evidence, source: Source) -> tuple[tuple[str, str], ...]:
    snaps = ev.snapshot(source.id)
    if snaps is None:
        return (("snapshot", NOT_RECORDED if ev.snapshots is None
                 else f"{NOT_RECORDED}: no snapshot of {source.id}"),)
    if isinstance(snaps, str):
        return (("snapshot", snaps),)
    rows = [("snapshot", _where(snaps.at_retrieval))]
    if snaps.latest is not snaps.at_retrieval:
        rows.append(("latest snapshot", _where(snaps.latest)))
    meta = snaps.latest.meta.to_dict()
    if meta:
        rows.append(("the page says", "; ".join(f"{k.replace('_', ' ')} {v}"
                                                for k, v in meta.items())))
    return tuple(rows)


def _source_step(ev: Evidence, source_id: str) -> Step:
    src = ev.source(source_id)
    if src is None:
        return Step("source", f"Source {source_id}", None, (("source", "missing from article"),))
    return Step("source", f"{src.id}: {src.title}", None, (
        ("publisher", src.publisher),
        ("published", _date(src.published_at)),
        ("updated", _date(src.updated_at)) if src.updated_at else ("page date", _date(
            src.page_date)),
        ("retrieved", _date(src.retrieved_at)),
        *_snapshot_rows(ev, src),
        ("primary", "yes" if src.primary else "no"),
    ), src.url)


def _level_words(info: LevelInfo | None, fallback: str) -> str:
    if info is None:
        return fallback
    return f"{info.level.value}" + (f": {info.detail}" if info.detail else "")


def _fact_level(ev: Evidence, fact: Fact) -> str:
    info = ev.level(fact.id)
    words = _level_words(info, "reported")
    if fact.evidence_type in AUTHOR_REPORTED_EVIDENCE and (info is None or info.level is
                                                            Level.reported):
        words += " (by its authors; not independently reproduced)"
    return words


def _fact_chain(ev: Evidence, trace: Trace, values: frozenset[Decimal]) -> list[Step]:
    fact = ev.fact(trace.fact_id)
    if fact is None:
        return [Step("fact", f"Fact {trace.fact_id}", None, (("fact", "missing"),))]
    steps = [Step("fact", f"Fact {fact.id}", fact.claim, (
        ("evidence type", fact.evidence_type.value.replace("_", " ")),))]
    for sid in fact.source_ids:
        steps += _quote_steps(ev, fact, sid, values)
        steps.append(_source_step(ev, sid))
    steps.append(Step("level", "Verification level", None, (("level", _fact_level(ev, fact)),)))
    return steps


def _spread_words(spread: dict[str, Any]) -> str:
    try:
        words = (f"median {_number(float(spread['median']))}, range "
                 f"{_number(float(spread['min']))} to {_number(float(spread['max']))}")
        if "ci_low" in spread and "ci_high" in spread:
            level = float(spread.get("confidence") or 0.95) * 100
            words += (f"; {level:.0f}% interval {_number(float(spread['ci_low']))} to "
                      f"{_number(float(spread['ci_high']))}")
    except (KeyError, TypeError, ValueError):
        return ", ".join(f"{k} {v}" for k, v in spread.items())
    return words + (f" ({spread['method']})" if spread.get("method") else "")


def _spread_rows(run: Run, metric: str) -> tuple[tuple[str, str], ...]:
    found = next((m for m in run.metrics if m.name == metric), None)
    if found is None:
        return (("spread", f"metric {metric} not in run"),)
    data = found.model_dump(mode="json")
    extra = {k.removeprefix(EXTENSION_PREFIX): v for k, v in data.items()
             if k not in _BASE_METRIC_FIELDS and v not in (None, [], {})}
    rows = [("run value", f"{_number(found.value)} {found.unit} ({found.aggregation}, "
                          f"{found.sample_count} samples)")]
    spread = extra.pop("spread", None)
    rows.append(("spread", _spread_words(spread) if isinstance(spread, dict)
                 else f"{NOT_RECORDED} (a single pooled value)"))
    for key, value in extra.items():
        if isinstance(value, list):
            value = ", ".join(_number(v) if isinstance(v, float) else str(v) for v in value)
        rows.append((key.replace("_", " "), _number(value) if isinstance(value, float)
                     else str(value)))
    return tuple(rows)


def _machine(run: Run) -> str:
    env = run.environment
    parts = [str(env.get(k)) for k in ("cpu", "machine", "os") if env.get(k)]
    if env.get("cpu_count"):
        parts.append(f"{env['cpu_count']} cores")
    if env.get("gpus"):
        parts.append(f"{len(env['gpus'])} GPU(s)")
    return ", ".join(parts) or NOT_RECORDED


def _config(run: Run) -> str:
    config = run.parameters.get("config", run.parameters)
    if isinstance(config, dict) and isinstance(config.get("arms"), list):
        arms = ", ".join(str(a.get("name")) for a in config["arms"] if isinstance(a, dict))
        return f"{len(config['arms'])} arms: {arms}; inputs " + (
            ", ".join(f"{k} {v[:19]}" for k, v in run.inputs.items()) or NOT_RECORDED)
    return ", ".join(sorted(run.parameters)) or NOT_RECORDED


def _run_step(run: Run, metric: str) -> Step:
    revision = run.git_commit[:12] if run.git_commit else NOT_RECORDED
    if run.git_dirty:
        revision += " (uncommitted changes)"
    return Step("run", f"Run {run.id}", run.description, (
        ("date", _date(run.started_at)),
        ("status", run.status.value),
        ("machine", _machine(run)),
        ("revision", revision),
        ("command", " ".join(run.command)),
        ("config", _config(run)),
        *_spread_rows(run, metric),
    ))


def _reproduction_steps(ev: Evidence, run: Run, metric: str) -> list[Step]:
    steps = []
    for i, rep in enumerate(ev.reproductions_of(run.id), start=1):
        held = ("held" if metric in rep.held else "did NOT hold" if metric in rep.failed
                else "not checked")
        steps.append(Step("reproduction", f"Reproduction {i}: run {rep.run_id}", None, (
            ("date", rep.date[:19].replace("T", " ")),
            ("machine", rep.machine + (" (another machine or person)" if rep.independent
                                       else " (the same machine)")),
            ("operator", rep.operator or NOT_RECORDED),
            ("revision", rep.revision[:12] if rep.revision else NOT_RECORDED),
            (f"{metric}", held),
            ("result", "every checked figure held" if rep.ok
             else f"did not hold: {', '.join(rep.failed)}"),
        )))
    if not steps:
        why = NOT_RECORDED if ev.reproductions is None else "none recorded in the ledger"
        steps.append(Step("reproduction", "Reproductions", None, (("reproductions", why),)))
    return steps


def _derived_rows(m: Measurement) -> tuple[tuple[str, str], ...]:
    rows = []
    interval = _extra(m, "interval")
    if interval:
        rows.append(("stated interval", " to ".join(_number(v) for v in interval)))
    derived = _extra(m, "derived_from")
    if derived is not None:
        expression = getattr(derived, "expression", None) or (
            derived.get("expression") if isinstance(derived, dict) else str(derived))
        rows.append(("derived from", str(expression)))
    return tuple(rows)


def _level(ev: Evidence, m: Measurement, run: Run | None) -> str:
    if run is None:
        return "measured (the run is not in the ledger or run files given)"
    return _level_words(ev.level(m.id), "measured")


def _measurement_chain(ev: Evidence, trace: Trace) -> list[Step]:
    m = ev.measurement(trace.measurement_id)
    if m is None:
        return [Step("measurement", f"Measurement {trace.measurement_id}", None,
                     (("measurement", "missing"),))]
    steps = [Step("measurement", f"Measurement {m.id}", m.description, (
        ("metric", m.metric),
        ("value", f"{_number(m.value)} {m.unit}"),
        ("aggregation", m.aggregation or NOT_RECORDED),
        ("samples", str(m.sample_count) if m.sample_count is not None else NOT_RECORDED),
        ("measured", _date(m.measured_at)),
        *_derived_rows(m),
    ))]
    run = ev.run(m.run_id)
    if run is None:
        steps.append(Step("run", f"Run {m.run_id}", None, (
            ("run", f"{NOT_RECORDED}: not in the ledger or run files given (--db, --runs)"),)))
    else:
        steps.append(_run_step(run, m.metric))
        steps += _reproduction_steps(ev, run, m.metric)
    steps.append(Step("level", "Verification level", None, (("level", _level(ev, m, run)),)))
    return steps


def recompute(inference: Inference) -> list[tuple[str, str, str, bool]]:
    """Each computation step as ``(name, expression, recomputed, agrees with stated)``."""
    comp = inference.computation
    if comp is None:
        return []
    names: dict[str, float] = dict(comp.inputs)
    out = []
    for step in comp.steps:
        try:
            value = evaluate(step.expression, names)
        except ArithmeticError_ as exc:
            out.append((step.name, step.expression, f"cannot evaluate: {exc}", False))
            continue
        names[step.name] = value
        agrees = abs(value - step.result) <= max(comp.tolerance, abs(step.result) * 1e-9)
        unit = f" {step.unit}" if step.unit else ""
        out.append((step.name, step.expression, f"{value:.6g}{unit} (stated {step.result:g})",
                    agrees))
    return out


def _inference_chain(ev: Evidence, trace: Trace) -> list[Step]:
    inf = ev.inference(trace.inference_id)
    if inf is None:
        return [Step("inference", f"Inference {trace.inference_id}", None, ())]
    rows: list[tuple[str, str]] = [("label", inf.label),
                                   ("rests on", ", ".join(inf.basis_fact_ids) or "no facts")]
    for name, expression, result, agrees in recompute(inf):
        rows.append((f"{name} = {expression}", f"{result} {'agrees' if agrees else 'DIFFERS'}"))
    if inf.computation is None:
        rows.append(("computation", NOT_RECORDED))
    if trace.origin == "assumption":
        index = int(trace.pointer.rsplit("/", 1)[-1])
        rows.append(("assumption", (inf.assumptions or [""])[index]))
    return [Step("inference", f"Inference {inf.id} ({trace.origin})", inf.claim, tuple(rows))]


def _metric_chain(ev: Evidence, trace: Trace) -> list[Step]:
    scope = ev.article.benchmark_scope
    if scope is None:
        return []
    value = scope.reported_metrics.get(trace.metric or "")
    steps = [Step("metric", f"Reported metric {trace.metric}", None, (
        ("value", _number(value) if value is not None else NOT_RECORDED),
        ("reported by", scope.reported_by),
        ("published", _date(scope.publication_date)),
        ("hardware", scope.hardware),
        ("model", scope.model),
    ))]
    level = ("independently reproduced" if scope.independent_reproduction
             else "reported by its authors; not independently reproduced")
    steps.append(Step("level", "Verification level", None, (("level", level),)))
    return steps


def _date_chain(ev: Evidence, trace: Trace) -> list[Step]:
    steps = [Step("date", "Date", _date_words(ev, trace), ())]
    for sid in trace.source_ids:
        steps.append(_source_step(ev, sid))
    return steps


def chain(ev: Evidence, trace: Trace, figure: Figure | None = None) -> list[Step]:
    """The evidence chain behind one trace of ``figure``."""
    if trace.origin == "fact":
        return _fact_chain(ev, trace, frozenset(figure.values) if figure else frozenset())
    if trace.origin == "measurement":
        return _measurement_chain(ev, trace)
    if trace.origin in ("inference", "assumption", "computation"):
        return _inference_chain(ev, trace)
    if trace.origin == "metric":
        return _metric_chain(ev, trace)
    if trace.origin == "date":
        return _date_chain(ev, trace)
    return [Step(trace.origin, describe(ev, trace), None, (("where", trace.pointer),))]
