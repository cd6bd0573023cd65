"""The fact-check view of one article: its findings, and every body figure with its status and
evidence chains. :func:`build_view` is the one entry point; the HTML, Markdown and text
renderings all read the :class:`ArticleView` it returns.

A figure's status is the worst finding on its span (``error``, ``warning``), else the strongest
evidence it traced to: ``reproduced`` (a measurement whose run was rerun or reproduced),
``measured`` (a measurement of a desk run) or ``traced`` (a fact, a source date, a reported
metric or an inference).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from pydantic import ValidationError

from ..errors import DocumentError
from ..figures import Figure, FigureKind
from ..levels import Level, ReproductionsFor
from ..models import Article, Correction, GuardrailRule, Run
from ..report import FileResult, Finding, Severity
from ..schema import read_json
from ..verify import verify_file
from ..verify.grounding import SnapshotLookup, grounding_check
from ..verify.guardrails import guardrail_rules
from ..verify.prose import Span, enclosing, paragraphs, sentences
from ..verify.runs import measurement_check
from ..verify.tracing import EvidenceIndex, Trace, TracedFigure, build_index, trace_figures
from .evidence import ORIGIN_ORDER, Evidence, RunLookup, Step, chain, describe

__all__ = [
    "CLOSE",
    "MAX_CHAINS",
    "STATUSES",
    "ArticleView",
    "FigureView",
    "FindingView",
    "GuardrailView",
    "build_view",
    "load_run_files",
    "nearest_evidence",
]

#: Figure statuses, weakest first, with the icon and label shown beside the colour.
STATUSES: dict[str, tuple[str, str]] = {
    "error": ("\u2716", "error"),
    "warning": ("\u26a0", "warning"),
    "traced": ("\u2713", "traced"),
    "measured": ("\u25c6", "measured"),
    "reproduced": ("\u2605", "reproduced"),
}
#: At most this many evidence chains per figure; the rest are counted.
MAX_CHAINS = 4


@dataclass
class FindingView:
    index: int
    finding: Finding
    start: int | None = None
    end: int | None = None
    sentence: str | None = None
    hint: str | None = None
    evidence_id: str | None = None  # the fact, source, measurement or inference it is about

    @property
    def where(self) -> str:
        f = self.finding
        if self.start is not None:
            return f"body line {f.line}, column {f.column}"
        if self.evidence_id:
            return f"{self.evidence_id} ({f.pointer})"
        return f.pointer or "the whole file"


@dataclass
class FigureView:
    index: int
    figure: Figure
    status: str
    traces: list[Trace]
    chains: list[tuple[str, list[Step]]]
    more: int
    findings: list[int]
    sentence: str
    author_reported: bool = False
    related: list[int] = field(default_factory=list)  # findings on the evidence it rests on

    @property
    def icon(self) -> str:
        return STATUSES[self.status][0]

    @property
    def label(self) -> str:
        return STATUSES[self.status][1]


@dataclass
class GuardrailView:
    index: int
    correction: Correction
    rule: GuardrailRule | None
    structured: bool
    findings: list[int]

    @property
    def state(self) -> str:
        if self.rule is None:
            return "unchecked"
        return "violated" if self.findings else "enforced"


@dataclass
class ArticleView:
    path: str
    article: Article | None
    result: FileResult
    figures: list[FigureView] = field(default_factory=list)
    findings: list[FindingView] = field(default_factory=list)
    paragraphs: list[Span] = field(default_factory=list)
    guardrails: list[GuardrailView] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    evidence: Evidence | None = None
    plot_dirs: list[Path] = field(default_factory=list)  # where runs' plot files are

    @property
    def ready(self) -> bool:
        """Ready to publish: readable, and no error finding."""
        return not self.result.unreadable and self.result.count(Severity.error) == 0

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(STATUSES, 0)
        for fig in self.figures:
            out[fig.status] += 1
        return out

    def weakest(self, n: int = 3) -> list[FigureView]:
        order = list(STATUSES)

        def weight(fig: FigureView) -> tuple[int, int, int]:
            return (order.index(fig.status), not fig.author_reported, len(fig.traces))

        return sorted(self.figures, key=weight)[:n]


def load_run_files(paths: Iterable[str | Path]) -> dict[str, Run]:
    """Runs from run files (``ledger runs export``), by id; directories give their ``*.json``."""
    runs: dict[str, Run] = {}
    for raw in paths:
        path = Path(raw)
        for file in sorted(path.glob("*.json")) if path.is_dir() else [path]:
            try:
                run = Run.model_validate_json(json.dumps(read_json(file)))
            except ValidationError as exc:
                first = exc.errors()[0]
                where = "/".join(str(p) for p in first["loc"])
                raise DocumentError(str(file), f"not a run: {where}: {first['msg']}") from None
            runs[run.id] = run
    return runs


def _offset(body: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = body.index("\n", start) + 1
    return start + column - 1


def _display(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text


def nearest_evidence(figure: Figure, index: EvidenceIndex, ev: Evidence) -> str | None:
    """The evidence value nearest to an untraced figure, in words: ``46 (F4)``."""
    if figure.kind is FigureKind.date:
        if figure.date is None or not index.dates:
            return None
        near = min(index.dates, key=lambda d: abs((d.date - figure.date).days))  # type: ignore[operator]
        return f"{near.date.isoformat()} ({describe(ev, near.trace)})"
    if figure.value is None or not index.numbers:
        return None
    target = figure.value
    percent = figure.kind in (FigureKind.percent, FigureKind.points) or figure.unit == "%"
    best: tuple[Decimal, Decimal, Trace] | None = None
    for num in index.numbers:
        value = num.value * 100 if percent and not num.percent and abs(num.value) <= 1 else (
            num.value)
        distance = abs(value - target) / max(abs(target), Decimal("1e-9"))
        if best is None or distance < best[0]:
            best = (distance, value, num.trace)
    assert best is not None
    trace = best[2]
    name = (trace.fact_id or trace.measurement_id or trace.metric or trace.inference_id
            or trace.pointer)
    return f"{_display(best[1])} ({name})"


def _status(ranked: list[Trace], severities: set[Severity], ev: Evidence) -> str:
    """The worst finding on the figure, else what its best (first-ranked) trace is."""
    if Severity.error in severities or not ranked:
        return "error"
    if Severity.warning in severities:
        return "warning"
    best = ranked[0]
    if best.origin != "measurement":
        return "traced"
    info = ev.level(best.measurement_id or "")
    if info is not None and info.level in (Level.reproduced, Level.independently_reproduced):
        return "reproduced"
    return "measured"


def _finding_views(article: Article | None, result: FileResult, index: EvidenceIndex | None,
                   ev: Evidence | None, traced: Sequence[TracedFigure]) -> list[FindingView]:
    body = article.body if article else ""
    spans = sentences(body)
    views = []
    for i, f in enumerate(result.findings):
        view = FindingView(i, f, sentence=getattr(f, "sentence", None),
                           hint=getattr(f, "hint", None))
        if article is not None and f.pointer == "/body" and f.line and f.column:
            view.start = _offset(body, f.line, f.column)
            view.end = view.start + max(1, (f.end_column or f.column + 1) - f.column)
            sentence = enclosing(spans, view.start, view.end)
            view.sentence = view.sentence or (sentence.text if sentence else None)
            if view.hint is None and f.rule == "untraced-figure" and index and ev:
                fig = next((t.figure for t in traced if t.figure.start == view.start), None)
                near = nearest_evidence(fig, index, ev) if fig else None
                view.hint = f"nearest evidence: {near}" if near else None
        elif article is not None:
            view.evidence_id = _evidence_id(article, f.pointer)
        views.append(view)
    return views


_COLLECTIONS = {"facts": "facts", "sources": "sources", "measurements": "measurements",
                "inferences": "inferences"}


def _evidence_id(article: Article, pointer: str) -> str | None:
    """``F4`` for ``/facts/3/quotes/0``: the piece of evidence a finding is about."""
    parts = pointer.split("/")
    if len(parts) < 3 or parts[1] not in _COLLECTIONS or not parts[2].isdigit():
        return None
    items = getattr(article, _COLLECTIONS[parts[1]]) or []
    index = int(parts[2])
    return str(items[index].id) if index < len(items) else None


def _rests_on(trace: Trace, evidence_id: str) -> bool:
    return evidence_id in (trace.fact_id, trace.measurement_id, trace.inference_id,
                           *trace.source_ids)


def _overlaps(a_start: int, a_end: int, b_start: int | None, b_end: int | None) -> bool:
    return b_start is not None and b_end is not None and a_start < b_end and b_start < a_end


#: Evidence within this relative distance of a figure states it (78% for 0.7776); further off,
#: it only rounds to it (three for 2.7), which is a weaker reason to rest the figure on it.
CLOSE = Decimal("0.01")


def _close_traces(figure: Figure, index: EvidenceIndex) -> set[Trace]:
    """Traces whose evidence is within :data:`CLOSE` of the figure's value, not only equal to
    it after rounding."""
    if figure.kind is FigureKind.date:
        return {d.trace for d in index.dates if d.date == figure.date}
    percent = figure.kind in (FigureKind.percent, FigureKind.points) or figure.unit == "%"
    out = set()
    for num in index.numbers:
        stated = [num.value, num.value * 100] if percent and not num.percent else [num.value]
        for value in figure.values:
            if any(abs(v - value) <= CLOSE * max(abs(value), Decimal(1)) for v in stated):
                out.add(num.trace)
    return out


def _ranked(t: TracedFigure, index: EvidenceIndex) -> list[Trace]:
    """A figure's traces: evidence that states it first, then by the strength of the evidence
    (a measurement before a fact before an inference)."""
    close = _close_traces(t.figure, index)
    return sorted(t.traces, key=lambda tr: (tr not in close, ORIGIN_ORDER.index(tr.origin)
                                            if tr.origin in ORIGIN_ORDER else len(ORIGIN_ORDER)))


def _figure_views(article: Article, traced: list[TracedFigure], findings: list[FindingView],
                  ev: Evidence, index: EvidenceIndex) -> list[FigureView]:
    spans = sentences(article.body)
    views = []
    for i, t in enumerate(traced):
        f = t.figure
        mine = [v for v in findings if _overlaps(f.start, f.end, v.start, v.end)]
        order = _ranked(t, index)
        chains = [(describe(ev, tr), chain(ev, tr, f)) for tr in order[:MAX_CHAINS]]
        sentence = enclosing(spans, f.start, f.end)
        related = [v.index for v in findings if v.evidence_id
                   and any(_rests_on(tr, v.evidence_id) for tr in order[:MAX_CHAINS])]
        views.append(FigureView(
            i, f, _status(order, {v.finding.severity for v in mine}, ev), order, chains,
            max(0, len(order) - MAX_CHAINS), [v.index for v in mine],
            sentence.text if sentence else "", t.author_reported, related))
    return views


def _guardrail_views(article: Article, findings: list[FindingView]) -> list[GuardrailView]:
    views = []
    for index, correction, rule in guardrail_rules(article):
        prefix = f"guardrail {index + 1} ("
        # a join of the experiments a guardrail keeps apart is a conflated-experiments
        # finding that names its guardrail: it breaks that guardrail too
        mine = [v.index for v in findings
                if v.finding.rule in ("guardrail", "conflated-experiments")
                and v.finding.message.startswith(prefix)]
        views.append(GuardrailView(index, correction, rule, correction.rule is not None, mine))
    return views


def build_view(path: str | Path, runs: RunLookup | None = None,
               snapshots: SnapshotLookup | None = None,
               result: FileResult | None = None, *, figures: bool = True,
               reproductions: ReproductionsFor | None = None) -> ArticleView:
    """Verify ``path`` (measurements checked against ``runs``, quotes against ``snapshots``,
    when given) and build its view; ``result`` is the file's verification when the caller
    already has it. ``figures=False`` builds only the findings (with their sentences and
    hints), for plain text output.

    An unreadable or invalid article gives a view with its findings and no figures.
    """
    if result is None:
        checks = [measurement_check(runs)]
        if snapshots is not None:
            checks.append(grounding_check(snapshots))
        result = verify_file(path, checks)
    article = None
    if result.article_id is not None:
        from ..schema import load_article

        article = load_article(path)[0]
    view = ArticleView(str(path), article, result)
    if article is None:
        view.findings = _finding_views(None, result, None, None, [])
        return view
    ev = Evidence(article, runs or (lambda _run_id: None), snapshots, reproductions)
    traced = trace_figures(article)
    index = build_index(article)
    view.evidence = ev
    view.findings = _finding_views(article, result, index, ev, traced)
    if not figures:
        return view
    view.figures = _figure_views(article, traced, view.findings, ev, index)
    view.paragraphs = list(paragraphs(article.body))
    view.guardrails = _guardrail_views(article, view.findings)
    run_ids = dict.fromkeys(m.run_id for m in article.measurements or [])
    view.runs = [r for r in (ev.run(rid) for rid in run_ids) if r is not None]
    return view
