"""The experiments of an article's benchmark scope and which figures of a sentence belong to
each: by metric spec (each spec's ``experiment``), else the scope's main run against its
``separate_scaling_experiment``. A figure belongs to an experiment when it states one of its
values closely and as the same kind of quantity.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from ..figures import Figure, FigureKind, extract_figures, quantize
from ..models import Article, Inference
from ..quantities import (
    Kind,
    Quantity,
    Verdict,
    compare,
    metric_quantity,
    noun_class,
    typed_figures,
)
from .attribution import REPORTING_VERBS
from .prose import Span, enclosing, find_terms, sentences
from .ranges import enumerations, range_spans
from .scope import per_article
from .tracing import TracedFigure, metric_magnitude

__all__ = ["Experiment", "Mark", "arithmetic_spans", "computed_from", "derived_inputs",
           "derived_sentences", "experiments_of", "sentence_owners", "term_marks"]


@dataclass
class Experiment:
    """One experiment: figures (values) and words (terms) that identify it."""

    name: str
    values: list[Decimal] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    #: the kind of each value when known (a metric's quantity), parallel to ``values``
    kinds: list[Quantity | None] = field(default_factory=list)

    def add(self, metric: str, value: Decimal, kind: Quantity | None) -> None:
        """A metric's value, and the value its name scales it to ("tokens_k": 30 is also
        30,000 tokens, written "30k"), as tracing reads it."""
        self.values.append(value)
        self.kinds.append(kind)
        if (shift := metric_magnitude(metric)) and (
                kind is None or kind.kind in (Kind.count, Kind.number)):
            self.values.append(value.scaleb(shift))
            self.kinds.append(kind)

    def owns(self, figure: Figure, quantity: Quantity | None = None) -> bool:
        """A figure belongs to the experiment when it states one of its values closely (within
        2%: "two" is not 2.2) and, when both kinds are known, as the same kind of quantity."""
        if figure.kind is FigureKind.date or (
                quantity is not None and quantity.kind is Kind.number and quantity.named):
            return False  # "at batch 4": a run's setting, not the 4x of an experiment
        for i, v in enumerate(self.values):
            kind = self.kinds[i] if i < len(self.kinds) else None
            for fv in figure.values:
                if quantize(v, figure.decimals) != fv or abs(v - fv) > abs(fv) / 50:
                    continue
                if quantity is None or kind is None or compare(
                        quantity, fv, v, kind, kind.kind is Kind.percent) is Verdict.match:
                    return True
        return False


def _typed_numbers(text: str | None) -> list[tuple[Decimal, Quantity | None]]:
    """The values of a text's figures with their quantities (None for a bare number, which
    any kind may state)."""
    return [(v, None if q.kind is Kind.number else q) for f, q in typed_figures(text or "")
            if f.kind is not FigureKind.date for v in f.values]


def _numbers(text: str | None) -> list[Decimal]:
    return [v for f in extract_figures(text or "") for v in f.values
            if f.kind is not FigureKind.date]


def experiments_of(article: Article) -> list[Experiment]:
    """The experiments of the benchmark scope: by metric spec, else main run vs scaling run."""
    scope = article.benchmark_scope
    if scope is None:
        return []
    groups: dict[str, Experiment] = {}
    for name, spec in (scope.metric_specs or {}).items():
        if spec.experiment and name in scope.reported_metrics:
            exp = groups.setdefault(spec.experiment, Experiment(spec.experiment))
            exp.add(name, Decimal(str(scope.reported_metrics[name])),
                    metric_quantity(name, spec.kind))
    if groups:
        return list(groups.values())
    if not scope.separate_scaling_experiment:
        return []
    # each value with its kind, so that "the 128-GPU scale" is no throughput of 128 TPS
    main = Experiment("main")
    for name, value in scope.reported_metrics.items():
        main.add(name, Decimal(str(value)), metric_quantity(name))
    for number, quantity in _typed_numbers(scope.hardware):
        main.values.append(number)
        main.kinds.append(quantity)
    scaling = Experiment("scaling")
    for number, quantity in _typed_numbers(scope.separate_scaling_experiment):
        if number not in main.values:
            scaling.values.append(number)
            scaling.kinds.append(quantity)
    return [main, scaling] if scaling.values else []


_DETERMINERS = frozenset({"the", "a", "an", "its", "their", "these", "those", "both", "two",
                          "his", "her", "our", "earlier", "later", "same", "other"})


def _verb_use(body: str, start: int, end: int, term: str) -> bool:
    """True when a term that is also a reporting verb is used as one ("moglesby reports up
    to"): "the reports" names documents, "NetApp reports" says something."""
    word = body[start:end].lower()
    if term.lower() not in REPORTING_VERBS or word == term.lower():
        return False
    before = body[max(0, start - 20):start].split()
    return not (before and before[-1].lower() in _DETERMINERS)


def _incidental_count(quantity: Quantity) -> bool:
    """A spelled-out number or count of something that is no known class of hardware or
    workload ("two headline claims", "three ideas") does not identify an experiment by value."""
    if not quantity.spelled:
        return False
    return quantity.kind is Kind.number or (
        quantity.kind is Kind.count and (quantity.noun is None or noun_class(quantity.noun) is None))


Mark = tuple[int, int, Experiment]


def sentence_owners(article: Article, sentence: Span, experiments: list[Experiment],
                     use_terms: bool) -> list[Mark]:
    marks = []
    typed = typed_figures(sentence.text)
    if not typed:  # (most sentences hold no figure: nothing to place)
        return sorted(term_marks(article, sentence, experiments), key=lambda m: m[0]) \
            if use_terms else []
    owner: dict[int, Experiment | None] = {}
    for fig, quantity in typed:
        owners = [e for e in experiments if e.owns(fig, quantity)]
        owner[fig.start] = owners[0] if len(owners) == 1 else None
    ranges = range_spans(sentence.text, [f for f, _ in typed])
    listed = enumerations(sentence.text, 0)
    for fig, quantity in typed:
        exp = owner[fig.start]
        if exp is None or _incidental_count(quantity):
            continue
        whole = ranges[fig.start]
        within = [f for f, _ in typed if whole[0] <= f.start < whole[1]]
        ends = [owner[f.start] for f in within]
        if len(ends) == 2 and None not in ends and ends[0] is not ends[1] and not (
                _range_stated(article, tuple(v for f in within for v in f.values))):
            # "between 1.16 and 1.19", each end another experiment's value: the range joins
            # the two (unless a fact gives that very range: "10%-20% gains")
            marks.append((sentence.start + fig.start, sentence.start + fig.end, exp))
            continue
        if any(e is not exp for e in ends):
            continue  # "14x to 24x": a range is an experiment's only when both ends are
        if any(owner[f.start] not in (None, exp) for f, q in typed
               if f.start in listed and listed[f.start] == listed.get(fig.start)
               and q.kind is quantity.kind):
            continue  # "pages of 64KB, 128KB and 2MB": a list of values of mixed owners
            # (of one kind: "1400W and 2.2 GHz" lists two quantities, each its own)
        marks.append((sentence.start + fig.start, sentence.start + fig.end, exp))
    if use_terms:
        marks += term_marks(article, sentence, experiments)
    return sorted(marks, key=lambda m: m[0])


def _range_stated(article: Article, values: tuple[Decimal, ...]) -> bool:
    """A fact writes a range with these ends."""
    return any(f.values == values for fact in article.facts
               for f in extract_figures(fact.claim))


def term_marks(article: Article, sentence: Span, experiments: list[Experiment]) -> list[Mark]:
    return [(start, end, exp) for exp in experiments
            for start, end, term in find_terms(sentence.text, exp.terms, sentence.start)
            if not _verb_use(article.body, start, end, term)]


_DESK = ("inference", "computation", "assumption")


@per_article
def derived_inputs(article: Article, traced: list[TracedFigure]) -> dict[int, frozenset[Decimal]]:
    """Sentence start -> the numbers of the desk's own computations that a figure of the
    sentence comes from (traced only to an inference or its computation): the inference's
    inputs, step results, and the figures of its claim and assumptions. Such a sentence
    combines those figures on purpose ("45 s cold and 15 times faster warm: about 3 s a warm
    turn"), while a figure it does not compute from may still be joined ("... four times as
    fast, and the same launch run put the 405B at 969 tokens/s")."""
    spans = sentences(article.body)
    out: dict[int, set[Decimal]] = {}
    for t in traced:
        if not t.traces or not all(tr.origin in _DESK for tr in t.traces):
            continue
        span = enclosing(spans, t.figure.start, t.figure.end)
        if span is None:
            continue
        values = out.setdefault(span.start, set())
        values.update(t.figure.values)
        for tr in t.traces:
            if (m := re.match(r"/inferences/(\d+)/", tr.pointer)) is not None:
                values.update(_inference_numbers(article.inferences[int(m.group(1))]))
    return {start: frozenset(values) for start, values in out.items()}


def _inference_numbers(inference: Inference) -> set[Decimal]:
    numbers = set(_numbers(inference.claim))
    for text in inference.assumptions or []:
        numbers.update(_numbers(text))
    if inference.computation is not None:
        numbers.update(Decimal(str(v)) for v in inference.computation.inputs.values())
        numbers.update(Decimal(str(step.result)) for step in inference.computation.steps)
    return numbers


def computed_from(values: frozenset[Decimal], figure: Figure) -> bool:
    """The figure states one of the computation's numbers at its printed precision."""
    return any(quantize(v, figure.decimals) == fv for v in values for fv in figure.values)


def derived_sentences(article: Article, traced: list[TracedFigure]) -> frozenset[int]:
    """Starts of the sentences that hold a figure of the desk's own arithmetic (traced only to
    an inference or its computation): such a sentence combines figures on purpose ("45 s cold
    and 15 times faster warm: about 3 s a warm turn")."""
    return frozenset(arithmetic_spans(sentences(article.body), traced))


def arithmetic_spans(spans: Sequence[Span], traced: list[TracedFigure]) -> set[int]:
    """Starts of the spans (sentences, paragraphs) that hold a figure traced only to the desk's
    own arithmetic: an inference, its computation or an assumption."""
    out = set()
    for t in traced:
        if t.traces and all(tr.origin in ("inference", "computation", "assumption")
                            for tr in t.traces):
            span = enclosing(spans, t.figure.start, t.figure.end)
            if span is not None:
                out.add(span.start)
    return out
