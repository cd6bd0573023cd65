"""The words that name each family of metric, and what the checker knows of a traced figure's
metrics: their family, their statistic, whether they measure speed, and whether the figure is
surely the metric it traces to rather than a number that coincides with it.

Vocabularies: :data:`DEFAULT_VOCABULARY` by metric family, extended per metric by
``benchmark_scope.metric_specs`` (its label and vocabulary). The checks of ``mislabeled-figure``
(:mod:`.wording`, :mod:`.qualifiers`, :mod:`.baselines`) read a figure's label against these.
"""

from __future__ import annotations

import re

from ..models import Article
from ..quantities import Kind, Quantity, lemma, metric_quantity, unit_quantity
from .tracing import TracedFigure

__all__ = ["BROADER", "DEFAULT_VOCABULARY", "GENERIC_WORDS", "STATISTICS", "STAT_RE",
           "fits_other_kind", "fits_own", "known_family", "metric_families", "metric_family",
           "metric_statistics", "metric_words", "named_statistics", "names_another_kind",
           "speed_like", "surely_traced", "vocabularies"]


#: Words that name each family of metric; a metric's family comes from its name.
DEFAULT_VOCABULARY: dict[str, list[str]] = {
    "throughput": ["throughput", "requests per second", "tokens per second", "goodput",
                   "completions per hour", "QPS", "RPS", "capacity"],
    "ttft": ["time to first token", "time-to-first-token", "TTFT", "first token",
             "first-token latency", "first-token"],
    "latency": ["end-to-end latency", "E2E latency", "latency", "response time", "TPOT",
                "inter-token latency", "tail latency"],
    "hit_rate": ["hit rate", "hit ratio", "cache hit", "hits"],
    # not a bare "GPU": "between GPU and CPU memory" names a tier, not a count
    "gpu_count": ["GPU count", "GPU savings", "fewer GPUs", "GPUs saved", "accelerator savings",
                  "fewer accelerators"],
    "cost": ["cost", "cost savings", "savings", "price", "spend", "cheaper", "dollars"],
    "memory": ["memory saving", "memory savings", "memory footprint", "memory use",
               "memory usage"],
    "energy": ["power draw", "power use", "energy", "watts", "energy per token"],
}


_FAMILY_KEYS = [
    ("ttft", ("ttft", "first_token")),
    ("throughput", ("throughput", "goodput", "qps", "rps")),
    ("latency", ("latency", "e2e", "tpot", "itl")),
    ("hit_rate", ("hit",)),
    ("gpu_count", ("gpu",)),
    ("cost", ("cost", "price", "dollar", "usd")),
    ("energy", ("energy", "power", "watt")),
    ("memory", ("memory", "hbm", "footprint")),
]


#: Statistics a label may name; each set is one statistic.
STATISTICS: dict[str, frozenset[str]] = {
    "mean": frozenset({"mean", "average", "avg", "averages", "averaged", "averaging"}),
    "median": frozenset({"median", "p50"}),
    "peak": frozenset({"peak", "max", "maximum", "best-case"}),
    "p90": frozenset({"p90"}), "p95": frozenset({"p95"}), "p99": frozenset({"p99", "tail"}),
    "min": frozenset({"minimum", "min"}),
}


STAT_RE = re.compile(r"\b(?:" + "|".join(sorted({w for ws in STATISTICS.values() for w in ws},
                                                   key=len, reverse=True)) + r")\b",
                      re.IGNORECASE)


def metric_family(name: str) -> str:
    """The vocabulary family of a metric name (``median_ttft_speedup`` -> ``ttft``)."""
    lowered = name.lower()
    for family, keys in _FAMILY_KEYS:
        if any(k in lowered for k in keys):
            return family
    return lowered


def vocabularies(article: Article) -> dict[str, list[str]]:
    """Family -> words, with every metric spec's label and vocabulary added to its family."""
    vocab = {family: list(words) for family, words in DEFAULT_VOCABULARY.items()}
    scope = article.benchmark_scope
    for name, spec in ((scope.metric_specs or {}) if scope else {}).items():
        words = vocab.setdefault(metric_family(name), [])
        words += [*spec.vocabulary, spec.label]
    return vocab


#: Words that name a whole family's kind, with the narrower families they fit: time to first
#: token is a latency ("lower latency to the first token"), though not an end-to-end latency.
BROADER = {"latency": frozenset({"ttft"})}


def metric_families(traced: TracedFigure) -> set[str]:
    return {metric_family(m) for m in traced.metrics}


def known_family(article: Article, traced: TracedFigure) -> bool:
    """The checker knows what every metric the figure traces to measures: its name names a
    family (``p50_ttft_ms``), or its spec gives a label or vocabulary. A metric named only by its
    setting (``layer_load_us``, ``earlier_prefill_multiplier``) may be called a latency, a cost
    or a throughput with equal right, so no label can be proved wrong for it."""
    specs = (article.benchmark_scope.metric_specs or {}) if article.benchmark_scope else {}
    return bool(traced.metrics) and all(
        metric_family(m) in DEFAULT_VOCABULARY or m in specs for m in traced.metrics)


#: Comparatives any speed metric may take ("2.2 times faster" for a latency reduction, a
#: throughput or a speedup): they name no one metric of speed.
GENERIC_WORDS = frozenset({"faster", "slower", "quicker", "speedup", "speed-up", "better",
                           "worse", "gain", "gains", "improvement", "improvements"})


_SPEED_WORDS = frozenset({"speedup", "speed", "faster", "latency", "throughput", "time", "ttft",
                          "tpot", "itl", "goodput", "e2e", "slowdown", "slower"})


def speed_like(article: Article, t: TracedFigure) -> bool:
    """Every metric the figure traces to measures speed (time, latency, throughput): a
    generic comparative ("faster", "a gain") fits it whatever its own words."""
    return bool(t.metrics) and all(
        metric_family(m) in ("ttft", "latency", "throughput")
        or metric_words(article, m) & _SPEED_WORDS for m in t.metrics)


def _metric_kind(article: Article, name: str) -> Quantity | None:
    """The quantity a metric states: by its name or its spec's kind, else by the one unit its
    spec's vocabulary writes ("bandwidth", "TB/s": a rate; "latency", "seconds", "s": a
    duration). Units of two kinds say nothing."""
    specs = (article.benchmark_scope.metric_specs or {}) if article.benchmark_scope else {}
    spec = specs.get(name)
    known = metric_quantity(name, spec.kind if spec else None)
    if known is not None or spec is None:
        return known
    written = [q for q in map(unit_quantity, spec.vocabulary) if q is not None]
    kinds = {(q.kind, q.unit.dimension if q.unit else None) for q in written}
    return written[0] if len(kinds) == 1 else None


def fits_other_kind(article: Article, t: TracedFigure,
                     labels: list[tuple[str, set[str]]]) -> bool:
    """The figure's quantity (a size in KB) is the known quantity of a metric its label names
    ("pages of 64KB, 128KB": the page-size metric, in KB), while no metric it traces to has a
    known quantity: the trace, not the label, is the doubtful part."""
    q = t.quantity
    if q is None or q.unit is None or any(_metric_kind(article, m) for m in t.metrics):
        return False
    scope = article.benchmark_scope
    names = list(scope.reported_metrics) if scope is not None else []
    for _, families in labels:
        for name in names:
            known = _metric_kind(article, name)
            if (metric_family(name) in families and known is not None
                    and known.unit is not None and known.unit.dimension == q.unit.dimension):
                return True
    return False


def names_another_kind(article: Article, t: TracedFigure, families: set[str]) -> bool:
    """The word names only metrics of this article (no generic family such as latency) and
    each of them is known to be a ratio (a multiplier, a percent) while the figure is an amount
    ("loading" of a loading speed-up beside "34 s", a duration): the word cannot call the
    figure that metric, so it is no label of it ("before loading into GPU memory (34 s ...)").
    A ratio figure may scale any metric ("contexts four times longer"), so it keeps its words."""
    q = t.quantity
    if q is None or q.kind is Kind.number or not families or families & set(DEFAULT_VOCABULARY):
        return False
    scope = article.benchmark_scope
    names = [n for n in (scope.reported_metrics if scope is not None else {})
             if metric_family(n) in families]
    kinds = [_metric_kind(article, n) for n in names]
    if q.kind in _RATIOS:
        return False  # "contexts four times longer": a ratio may scale any metric's quantity
    return bool(names) and all(k is not None and k.kind in _RATIOS for k in kinds)


#: Kinds that state a ratio to something else, not an amount of it.
_RATIOS = frozenset({Kind.multiplier, Kind.percent, Kind.points})


def surely_traced(article: Article, t: TracedFigure) -> bool:
    """The figure is the metric it traces to, not a number that coincides with it: the figure
    is typed (a multiplier, a percent, a count, a size...) and no metric it traces to is
    known to be of another kind. A bare number ("r=10", "4-bit", "four-way") proves no label
    wrong."""
    q = t.quantity
    if q is None or q.kind is Kind.number or not t.metrics:
        return False
    for name in t.metrics:
        known = _metric_kind(article, name)
        if known is not None and known.kind is not q.kind:
            return False
    return True


_WORD_RE = re.compile(r"[a-z][a-z0-9-]*")


def metric_words(article: Article, metric: str) -> set[str]:
    """The words a metric is known by: its name, its spec's label, vocabulary and experiment
    (lemmas)."""
    spec = ((article.benchmark_scope.metric_specs or {}).get(metric)
            if article.benchmark_scope else None)
    text = " ".join([metric.replace("_", " "), *((spec.label, *spec.vocabulary,
                                                  spec.experiment or "") if spec else ())])
    return {lemma(w) for w in _WORD_RE.findall(text.lower())}


#: Words that say which aspect of a quantity a label takes, not which quantity: "memory use",
#: "memory footprint" and "memory saving" all name memory.
_ASPECT_WORDS = frozenset({"use", "usage", "consumption", "footprint", "saving", "reduction",
                           "cut", "requirement", "need", "demand", "overhead", "amount",
                           "total", "level"})


def fits_own(article: Article, term: str, t: TracedFigure) -> bool:
    """The word also names the figure's own metric: every word of it is in that metric's name,
    label or vocabulary ("Llama-2's 4,096-token window" for a metric labelled "Llama-2
    pre-training context window", though "window" is another metric's vocabulary word too),
    the words for an aspect of a quantity aside ("memory use" for a memory-reduction metric,
    whatever family its system's name suggests). A label that fits the traced evidence as well
    as another is no mislabel."""
    words = {lemma(w) for w in _WORD_RE.findall(term.lower())}
    quantity = words - _ASPECT_WORDS or words
    return bool(words) and any(quantity <= metric_words(article, m) for m in t.metrics)


#: Before "mean", what makes it the verb ("would mean", "does not mean", "to mean", "2.4x mean
#: on a fleet"), not the statistic ("the mean", "a mean of", "mean latency").
_MEAN_VERB_RE = re.compile(
    r"(?:\b(?:would|could|might|may|can|will|shall|should|must|does|do|did|not|to|"
    r"which|they|we|you|I)|n't|\d[x×%]?)\s+$", re.IGNORECASE)


def named_statistics(text: str) -> set[str]:
    return {name for m in STAT_RE.finditer(text) for name, words in STATISTICS.items()
            if m.group().lower() in words
            and not (m.group().lower() == "mean"
                     and _MEAN_VERB_RE.search(text, max(0, m.start() - 12), m.start()))}


def metric_statistics(article: Article, metric: str) -> set[str]:
    spec = ((article.benchmark_scope.metric_specs or {}).get(metric)
            if article.benchmark_scope else None)
    text = " ".join([metric.replace("_", " "), *((spec.label, *spec.vocabulary) if spec else ())])
    return named_statistics(text)
