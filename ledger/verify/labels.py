"""What a traced figure is called, who it is attributed to, and which experiment it belongs to.

* ``mislabeled-figure``: a figure that traces to a reported metric (or a measurement's metric)
  is described, in its clause, by the vocabulary of a different metric. A word describes the
  figure it is nearest to ("3.8 times the throughput and a 46-fold reduction in median time to
  first token": 3.8 is throughput, 46 is TTFT); a figure no word is nearest to takes the word
  nearest to it ("throughput rose from 1.7% to 92.2%": both are called throughput); a word
  right after the figure ("2.5x lower latency") labels it alone; both ends of a range share
  its words; a word that also names the traced metric (its name, label or vocabulary) fits.
  Vocabularies: :data:`DEFAULT_VOCABULARY` by metric family, extended per metric by
  ``benchmark_scope.metric_specs``. A baseline written after a figure ("29x over FlexGen")
  that is another metric's label baseline, not the figure's own, is a mislabel too.
* ``unattributed-figure``: a figure whose every trace is author-reported evidence (a fact of an
  author-reported evidence type, or the benchmark scope when it was not independently
  reproduced) sits in a paragraph with no attribution, read by the grammar of
  :mod:`ledger.verify.attribution` (a reporting verb in any tense with its agent, possessives,
  "according to", the article's publishers, authors and ``reported_by``). A secondary report of
  an author's figure counts as author-reported evidence too: its teller must be named; so does
  documentation repeating an author-reported result (a multiplier, rate or percentage), while a
  count or size that documentation states is a design parameter. In a
  paragraph that credits its figures, a sentence that states an author's figure in the desk's
  own voice as what the product does, in the present tense ("the gateway lifts hit rates from
  about 25%"), and credits no one is a warning; not when the clause is what someone reports
  ("the post says the gateway lifts ..."). In the desk's analysis paragraph, a figure credited
  earlier in the article is the desk's input, not a new claim.
* ``desk-claims-authors-figure``: an author-reported figure in a sentence that presents it as
  the desk's own measurement ("PCT measured", "we tested").
* ``conflated-experiments``: one sentence joins figures of two different experiments (the
  scope's main run and its ``separate_scaling_experiment``, or the ``experiment`` of each metric
  spec) without words that keep them apart ("a separate scaling experiment", "a different
  deployment", "whereas", "unlike", "cannot be compared", "do not agree", ...). Two figures
  are no join when one fact states them as one result (the source's own combination: "with
  20% of tokens kept, up to 29x"), and a range is an experiment's only when both its ends are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from ..figures import Figure, FigureKind, extract_figures, quantize
from ..models import Article, EvidenceType
from ..quantities import (
    Kind,
    Quantity,
    Verdict,
    compare,
    lemma,
    metric_quantity,
    noun_class,
    parse_unit,
    typed_figures,
)
from ..report import Finding, Severity
from .attribution import REPORTING_VERBS, attributes, desk_claims, desk_names, reported_clause
from .persons import is_person_name
from .prose import Span, clauses, enclosing, find_terms, group_in, paragraphs, sentences
from .text import body_span
from .tracing import TracedFigure, tried

__all__ = [
    "DEFAULT_VOCABULARY",
    "SEPARATION_RE",
    "Experiment",
    "agent_names",
    "check_labels",
    "conflations",
    "experiments_of",
    "metric_family",
    "vocabularies",
]

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
    "mean": frozenset({"mean", "average", "avg"}),
    "median": frozenset({"median", "p50"}),
    "peak": frozenset({"peak", "max", "maximum", "best-case"}),
    "p90": frozenset({"p90"}), "p95": frozenset({"p95"}), "p99": frozenset({"p99", "tail"}),
    "min": frozenset({"minimum", "min"}),
}
_STAT_RE = re.compile(r"\b(?:" + "|".join(sorted({w for ws in STATISTICS.values() for w in ws},
                                                   key=len, reverse=True)) + r")\b",
                      re.IGNORECASE)
SEPARATION_RE = re.compile(
    r"\b(?:separate|distinct|different|another|other)\s+(?:[\w-]+\s+)?"
    r"(?:experiment|run|test|benchmark|study|measurement|deployment|evaluation|paper|thing)"
    r"s?\b"
    r"|\b(?:whereas|by contrast|in contrast|unlike|not the same|separately|alternatives?|"
    r"disagree|differ|differs)\b"
    # a sentence that says two results do not go together keeps them apart: "the two ratios
    # do not agree", "cannot be compared", "are not additive"
    r"|\b(?:not|cannot|can't|never)\s+(?:be\s+)?(?:agree|compar|rank|combin|add|merg|join|"
    r"sum|stack|multipl)\w*"
    # an explicit comparison keeps two results apart: "the paper's 6.4x sits 28% above the
    # blog's 5x"
    r"|\b(?:sits?\s+\S+\s+(?:above|below)|a\s+gap)\b",
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
_BROADER = {"latency": frozenset({"ttft"})}


def _families(traced: TracedFigure) -> set[str]:
    return {metric_family(m) for m in traced.metrics}


def _known_family(article: Article, traced: TracedFigure) -> bool:
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


def _speed_like(article: Article, t: TracedFigure) -> bool:
    """Every metric the figure traces to measures speed (time, latency, throughput): a
    generic comparative ("faster", "a gain") fits it whatever its own words."""
    return bool(t.metrics) and all(
        metric_family(m) in ("ttft", "latency", "throughput")
        or _metric_words(article, m) & _SPEED_WORDS for m in t.metrics)


def _metric_kind(article: Article, name: str) -> Quantity | None:
    specs = (article.benchmark_scope.metric_specs or {}) if article.benchmark_scope else {}
    return metric_quantity(name, specs[name].kind if name in specs else None)


def _fits_other_kind(article: Article, t: TracedFigure,
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


def _surely_traced(article: Article, t: TracedFigure) -> bool:
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


Hit = tuple[int, int, str]


def _gap(a_start: int, a_end: int, b_start: int, b_end: int) -> int:
    return max(a_start - b_end, b_start - a_end, 0)


def _labels_of(figure: Figure, hits: list[Hit], figures: list[Figure],
               whole: tuple[int, int], body: str) -> list[Hit]:
    """The words that describe ``figure``: those nearer to it than to any other figure of the
    clause; when none are, those of the other end of its range (``whole``: "time to first token
    cut by 2.2 to 3.3 times": 3.3 too is time to first token); else the word nearest to it
    (ties: the word after the figure). A word after an "and" that follows a figure belongs to
    the figures after it ("3.5 times smaller and a total delay 3.2 times lower": delay is 3.2's),
    when there are any."""
    def candidates(hit: Hit) -> list[Figure]:
        later = [f for f in figures if f.start >= hit[1]]
        if not later:
            return figures
        return [f for f in figures if f.start >= hit[1]
                or not _AND_RE.search(body, f.end, hit[0])] or figures

    def nearest_figure(hit: Hit) -> Figure:
        return min(candidates(hit),
                   key=lambda f: (_gap(hit[0], hit[1], f.start, f.end), f.start))
    own = [h for h in hits if nearest_figure(h) is figure]
    if own:
        return own
    ranged = [h for h in hits if whole[0] <= nearest_figure(h).start < whole[1]]
    if ranged:
        return ranged
    reachable = [h for h in hits if any(whole[0] <= f.start < whole[1] for f in candidates(h))]
    if not reachable:
        return []
    return [min(reachable, key=lambda h: (_gap(h[0], h[1], whole[0], whole[1]),
                                          0 if h[0] >= whole[1] else 1))]


_AND_RE = re.compile(r"\band\b")


#: What joins the two ends of one range: "2.2 to 3.3 times", "14x-24x", "from 30 through 40".
_RANGE_JOIN_RE = re.compile(r"\s*(?:to|through|-|–|—)\s*")


def _range_spans(body: str, figures: list[Figure]) -> dict[int, tuple[int, int]]:
    """Each figure's span for labelling, by its start: a figure that is one end of a range
    written as two figures ("2.2 to 3.3 times", "2.2x to 3.3x") takes the span of the whole
    range, so both ends are described by the same words."""
    spans = {f.start: (f.start, f.end) for f in figures}
    ordered = sorted(figures, key=lambda f: f.start)
    for a, b in zip(ordered, ordered[1:], strict=False):
        unit = parse_unit(body, a.end)
        gap_start = unit[1] if unit is not None else a.end
        if body[gap_start:gap_start + 1] in ("x", "×") and b.text.endswith(("x", "×")):
            gap_start += 1  # "2.2x to 3.3x"
        if gap_start <= b.start and _RANGE_JOIN_RE.fullmatch(body[gap_start:b.start]):
            joined = (spans[a.start][0], b.end)
            for f in ordered:
                if joined[0] <= f.start < joined[1]:
                    spans[f.start] = joined
    return spans


#: Words between a figure and the noun it measures: "2.5x the throughput", "40% lower latency".
_HEAD_GAP_RE = re.compile(
    r"(?:\s*[×x])?\s+(?:(?:the|a|an|more|less|lower|higher|faster|slower|better|greater|"
    r"fewer|smaller|larger|shorter|longer)\s+){0,2}", re.IGNORECASE)


def _head_label(body: str, figure: tuple[int, int], hits: list[Hit]) -> Hit | None:
    """The word the figure measures when it follows the figure right away ("2.5x lower
    latency", "3x the throughput at equal cost"): that word alone labels it, whatever other
    words of the clause say (the "cost" of a condition that follows is not the figure's)."""
    gap = _HEAD_GAP_RE.match(body, figure[1])
    if gap is None:
        return None
    return next((h for h in hits if h[0] == gap.end()), None)


_WORD_RE = re.compile(r"[a-z][a-z0-9-]*")


def _metric_words(article: Article, metric: str) -> set[str]:
    """The words a metric is known by: its name, its spec's label, vocabulary and experiment
    (lemmas)."""
    spec = ((article.benchmark_scope.metric_specs or {}).get(metric)
            if article.benchmark_scope else None)
    text = " ".join([metric.replace("_", " "), *((spec.label, *spec.vocabulary,
                                                  spec.experiment or "") if spec else ())])
    return {lemma(w) for w in _WORD_RE.findall(text.lower())}


def _fits_own(article: Article, term: str, t: TracedFigure) -> bool:
    """The word also names the figure's own metric: every word of it is in that metric's name,
    label or vocabulary ("Llama-2's 4,096-token window" for a metric labelled "Llama-2
    pre-training context window", though "window" is another metric's vocabulary word too).
    A label that fits the traced evidence as well as another is no mislabel."""
    words = {lemma(w) for w in _WORD_RE.findall(term.lower())}
    return bool(words) and any(words <= _metric_words(article, m) for m in t.metrics)


def _statistic(text: str) -> set[str]:
    return {name for m in _STAT_RE.finditer(text) for name, words in STATISTICS.items()
            if m.group().lower() in words}


def _metric_statistics(article: Article, metric: str) -> set[str]:
    spec = ((article.benchmark_scope.metric_specs or {}).get(metric)
            if article.benchmark_scope else None)
    text = " ".join([metric.replace("_", " "), *((spec.label, *spec.vocabulary) if spec else ())])
    return _statistic(text)


_AT_STAT_RE = re.compile(r"(?:\s+[\w-]+){0,2}?\s+at\s+(?:the\s+)?" + _STAT_RE.pattern,
                         re.IGNORECASE)
_AT_STAT_ANYWHERE_RE = re.compile(r"\bat\s+(?:the\s+)?" + _STAT_RE.pattern, re.IGNORECASE)


def _wrong_statistic(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """``mislabeled-figure`` when the words right before a figure name a statistic (peak,
    p99, average...) that none of its metrics is: "a peak of 3.66 TiB/min" for an average."""
    findings = []
    previous_end = 0
    for t in traced:
        start_of_window = max(previous_end, t.figure.start - 120)
        previous_end = t.figure.end
        if not t.metrics:
            continue
        before = article.body[start_of_window:t.figure.start]
        clause_start = max(before.rfind(c) for c in ",;:.") + 1
        # "6.4x at the mean and 12.1x at P99": a statistic after "at" is the figure's own, and
        # one that way before the figure belongs to the figure before it
        own_after = _AT_STAT_RE.match(article.body, t.figure.end)
        said = (_statistic(own_after.group()) if own_after is not None
                else _statistic(_AT_STAT_ANYWHERE_RE.sub(" ", before[clause_start:])))
        if not said:
            continue
        stats = set().union(*(_metric_statistics(article, m) for m in t.metrics))
        if stats and not said & stats:
            findings.append(body_span(
                article, t.figure.start, t.figure.end, Severity.error, "mislabeled-figure",
                f"{t.figure.text!r} is called {', '.join(sorted(said))} here, but it traces to "
                f"{', '.join(sorted(t.metrics))}, a {', '.join(sorted(stats))} figure",
                trace=tried(t)))
    return findings


#: What names a baseline: "over FlexGen", "than vanilla vLLM", "versus x86 H100".
_BASELINE_WORD = r"(?:over|than|versus|vs\.?|against|compared\s+(?:with|to)|relative\s+to)"
#: The baseline after a figure: "29x over X", "40% lower TTFT than X" (a few words between).
_BODY_BASELINE_RE = re.compile(
    r"(?:\s*[×x])?(?:\s+[\w-]+){0,3}?\s+" + _BASELINE_WORD
    + r"\s+(?P<b>[^,;:.()]+?)(?=\s+(?:and|or|on|at|with|for|in|while|when|using)\b|[,;:.()]|$)",
    re.IGNORECASE)
_RESPECTIVELY_RE = re.compile(r"[^.;]{0,80}?\brespectively\b", re.IGNORECASE)
_LABEL_BASELINE_RE = re.compile(r"\b" + _BASELINE_WORD + r"\s+(?P<b>[^,;:()]+)", re.IGNORECASE)
_BASELINE_STOP = frozenset({"the", "a", "an", "its", "their", "of", "with", "without", "any",
                            "baseline", "system", "systems"})


def _baseline_words(text: str) -> set[str]:
    return {lemma(w) for w in re.findall(r"[\w-]+", text.lower())} - _BASELINE_STOP


def _label_baselines(article: Article) -> dict[str, set[str]]:
    """Metric -> the words of the baseline its spec's label names ("throughput multiple over
    FlexGen": flexgen)."""
    scope = article.benchmark_scope
    out = {}
    for name, spec in ((scope.metric_specs or {}) if scope else {}).items():
        m = _LABEL_BASELINE_RE.search(spec.label)
        if m and name in scope.reported_metrics:  # type: ignore[union-attr]
            out[name] = _baseline_words(m.group("b"))
    return out


#: A baseline that opens a sentence and holds for all of it: "Against round-robin: 6.4x ...".
_LEADING_BASELINE_RE = re.compile(
    r"^(?:against|compared\s+(?:with|to)|versus|relative\s+to)\s+(?P<b>[^,:;.]+)[,:]",
    re.IGNORECASE)
_LIST_SPLIT_RE = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")


def _said_baseline(article: Article, t: TracedFigure) -> tuple[str, int] | None:
    """The baseline the body states for the figure, and where that statement ends: written
    after the figure ("29x over FlexGen"); one item of a list read "respectively" ("1.2x and
    1.3x over A and B respectively": B for 1.3x); or opening the sentence ("Against A: ...")."""
    body = article.body
    m = _BODY_BASELINE_RE.match(body, t.figure.end)
    if m is not None:
        resp = _RESPECTIVELY_RE.match(body, m.end("b"))
        if resp is None:
            return m.group("b"), m.end("b")
        items = _LIST_SPLIT_RE.split(body[m.start("b"):resp.end() - len("respectively")].strip())
        sentence = enclosing(sentences(body), t.figure.start, t.figure.end)
        if sentence is None:
            return None
        listed = _enumerations(sentence.text, sentence.start)
        group = sorted(k for k, g in listed.items() if g == listed.get(t.figure.start))
        if len(group) != len(items) or t.figure.start not in group:
            return None
        return items[group.index(t.figure.start)], resp.end()
    sentence = enclosing(sentences(body), t.figure.start, t.figure.end)
    lead = _LEADING_BASELINE_RE.match(sentence.text) if sentence is not None else None
    if sentence is None or lead is None:
        return None
    return lead.group("b"), sentence.start + lead.end("b")


def _wrong_baseline(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """``mislabeled-figure`` when the baseline the body gives a figure ("29x over FlexGen",
    "Against round-robin: ...", a list read "respectively") is the baseline of another metric's
    label and not of any metric the figure traces to: the figures of two baselines were
    swapped. An error when no word of the figure's own baseline is there; a warning when the
    written baseline only fits another metric better."""
    baselines = _label_baselines(article)
    findings = []
    for t in traced:
        own = [baselines[m] for m in t.metrics if m in baselines]
        said_at = _said_baseline(article, t) if own else None
        if said_at is None:
            continue
        text, said_end = said_at
        said = _baseline_words(text)
        own_fit = max(len(said & words) for words in own)
        others = {name: len(said & words) for name, words in baselines.items()
                  if name not in t.metrics}
        best = max(others, key=lambda n: others[n], default=None)
        if best is None or others[best] <= own_fit:
            continue
        severity = Severity.error if own_fit == 0 else Severity.warning
        start, end = min(t.figure.start, said_end - len(text)), max(t.figure.end, said_end)
        if article.body.count("\n", start, end):
            start, end = t.figure.start, t.figure.end
        findings.append(body_span(
            article, start, end, severity, "mislabeled-figure",
            f"{t.figure.text!r} is stated against {text.strip()!r}, the baseline of "
            f"{best}, but it traces to {', '.join(sorted(t.metrics))}, measured against "
            "another baseline" + ("" if own_fit == 0 else
                                  " (the baseline named fits both; the checker cannot be sure)"),
            trace=tried(t)))
    return findings


#: A name that tags a figure right after it: "55.0 with int2", "256 for FlashAttention" (not
#: "on"/"in"/"at": those name the hardware or model a figure was measured on, which metrics'
#: labels name unevenly).
_TAG_RE = re.compile(r"(?:\s*[×x%])?\s+(?:with|for|using)\s+(?P<t>[^,;:.()]+?)"
                     r"(?=\s+(?:and|or|but|while|whereas)\b|[,;:.()]|$)", re.IGNORECASE)
#: A name: a word with a digit or a capital after its first letter ("int4", "FlashInfer",
#: "TGI"), not a unit.
_NAME_TOKEN_RE = re.compile(r"(?<![\w-])(?=[\w-]*(?:\d|[A-Za-z][\w-]*[A-Z]))[A-Za-z][\w.-]*")


def _tag_names(text: str) -> set[str]:
    return {lemma(n) for n in _NAME_TOKEN_RE.findall(text)
            if parse_unit(n, 0) is None or parse_unit(n, 0)[1] != len(n)}  # type: ignore[index]


def _wrong_tag(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """``mislabeled-figure`` when the name tagging a figure ("55.0 with int4") is in another
    metric's name or label and in none of the metrics the figure traces to (55.0 is the int2
    score): the tags of two figures were swapped."""
    scope = article.benchmark_scope
    metrics = list(scope.reported_metrics) if scope is not None else []
    # the conditions every figure of the scope shares (its model, hardware, workload)
    shared = _tag_names(" ".join(filter(None, (scope.model, scope.hardware, scope.workload,
                                                scope.topology)))) if scope is not None else set()
    findings = []
    for t in traced:
        m = _TAG_RE.match(article.body, t.figure.end) if t.metrics else None
        names = _tag_names(m.group("t")) if m is not None else set()
        if m is None or not names or _RESPECTIVELY_RE.match(article.body, m.end("t")):
            continue
        if any(names & _metric_words(article, own) for own in t.metrics) or names & shared:
            continue
        others = [o for o in metrics if o not in t.metrics
                  and names <= _metric_words(article, o)]
        if others:
            sure = _surely_traced(article, t)  # a bare number may coincide with the metric
            findings.append(body_span(
                article, t.figure.start, m.end("t"),
                Severity.error if sure else Severity.warning, "mislabeled-figure",
                f"{t.figure.text!r} is tagged {m.group('t').strip()!r}, a name of "
                f"{', '.join(sorted(others))}, but it traces to {', '.join(sorted(t.metrics))}"
                + ("" if sure else " (a bare number: the checker cannot be sure it is that "
                                   "metric)"),
                trace=tried(t)))
    return findings


def _label_names(article: Article, metric: str) -> set[str]:
    """The names in a metric's spec label ("tokens TGI handles on one L4": tgi, l4)."""
    spec = ((article.benchmark_scope.metric_specs or {}).get(metric)
            if article.benchmark_scope else None)
    return _tag_names(spec.label) if spec is not None else set()


def _experiment_of(article: Article, metric: str) -> str | None:
    spec = ((article.benchmark_scope.metric_specs or {}).get(metric)
            if article.benchmark_scope else None)
    return spec.experiment if spec is not None else None


_CONNECTIVE_RE = re.compile(r"\b(?:and|but|where|while|whereas|against)\b", re.IGNORECASE)


def _wrong_subject(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """``mislabeled-figure`` when the clause names, before a figure, only a system that is in
    the label of a parallel metric (same experiment) and not the system of the figure's own
    label: "TGI handled 10k tokens where vLLM managed about 30k" when the sources give TGI 30k
    and vLLM 10k. A figure whose own label names no system is never flagged this way."""
    scope = article.benchmark_scope
    if scope is None:
        return []
    shared = _tag_names(" ".join(filter(None, (scope.model, scope.hardware, scope.workload,
                                                scope.topology))))
    spans = clauses(article.body)
    previous: dict[int, int] = {}
    findings = []
    for t in sorted(traced, key=lambda t: t.figure.start):
        clause = enclosing(spans, t.figure.start, t.figure.end)
        if clause is None or t.figure.kind is FigureKind.date:
            continue
        after = previous.get(clause.start)
        previous[clause.start] = t.figure.end
        window = article.body[after if after is not None else clause.start:t.figure.start]
        if after is not None:  # after another figure: only what follows a connective is ours
            cut = list(_CONNECTIVE_RE.finditer(window))
            window = window[cut[-1].end():] if cut else ""
        if len(t.metrics) != 1:
            continue
        names = _tag_names(window) - shared
        (own,) = t.metrics
        own_names = _label_names(article, own) - shared
        if not names or not own_names or names & own_names:
            continue
        parallel = [m for m in scope.reported_metrics if m != own
                    and _experiment_of(article, m) == _experiment_of(article, own)
                    and names & _label_names(article, m) and not own_names
                    & _label_names(article, m)]
        if parallel:
            sure = _surely_traced(article, t)
            findings.append(body_span(
                article, t.figure.start, t.figure.end,
                Severity.error if sure else Severity.warning, "mislabeled-figure",
                f"{t.figure.text!r} is credited here to {', '.join(sorted(names))}, the system "
                f"of {', '.join(sorted(parallel))}, but it traces to {own}, which is "
                f"{', '.join(sorted(own_names))}'s" + ("" if sure else
                " (a bare number: the checker cannot be sure it is that metric)"),
                trace=tried(t)))
    return findings


#: A parameter named right before its value: "a residual length of 128", "group size of 64".
_NAMED_BEFORE_RE = re.compile(r"(?P<p>(?:[A-Za-z][\w-]*\s+){1,3})of\s+(?:about\s+|roughly\s+|"
                              r"around\s+|up\s+to\s+|~)?$")
_PHRASE_STOP = frozenset({"a", "an", "the", "with", "and", "or", "its", "their", "at", "in",
                          "on", "for", "to", "by", "from", "as", "is", "are", "was", "were",
                          "has", "have", "had", "one", "each", "that", "this", "default",
                          "set", "uses", "use", "keeps", "suggested", "suggests"})


def _named_before(body: str, figure: Figure) -> set[str]:
    """The content words of the name written right before a figure and "of" ("with a group
    size of 128": group, size); empty when there is none."""
    m = _NAMED_BEFORE_RE.search(body[max(0, figure.start - 60):figure.start])
    if m is None:
        return set()
    kept: set[str] = set()
    for word in reversed(m.group("p").lower().split()):  # back to the last stop word
        if word in _PHRASE_STOP:
            break
        kept.add(lemma(word))
    return kept


def _wrong_parameter(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """``mislabeled-figure`` when the name written before a figure ("a group size of 128") is,
    word for word, another metric's name or label and fits none of the metrics the figure
    traces to (128 is the residual length; the group size is 64). Only names of two words or
    more: one word ("a speedup of 3x") fits too many metrics to be sure."""
    scope = article.benchmark_scope
    metrics = list(scope.reported_metrics) if scope is not None else []
    findings = []
    for t in traced:
        if not t.metrics or t.figure.kind is FigureKind.date:
            continue
        said = _named_before(article.body, t.figure)
        if len(said) < 2 or any(said <= _metric_words(article, m) for m in t.metrics):
            continue
        others = [m for m in metrics if m not in t.metrics and said <= _metric_words(article, m)]
        if others:
            findings.append(body_span(
                article, t.figure.start, t.figure.end, Severity.error, "mislabeled-figure",
                f"{t.figure.text!r} is called {' '.join(sorted(said))!r}, the name of "
                f"{', '.join(sorted(others))}, but it traces to {', '.join(sorted(t.metrics))}",
                trace=tried(t)))
    return findings


def _self_labelled(t: TracedFigure) -> bool:
    """A count with its noun or a quantity with its unit is named by its own phrase ("6.6 TiB/s
    spread over 180 storage nodes": 6.6 is a rate, whatever words sit nearby)."""
    q = t.quantity
    return q is not None and q.kind is Kind.count and q.noun is not None


def _noun_of_another(hit: Hit, figure: Figure, figures: list[Figure], body: str) -> bool:
    """True when the word is the noun written right after another figure ("180 storage
    nodes"): it names that figure, not this one."""
    for o in figures:
        if o is figure or not 0 <= hit[0] - o.end <= 16:
            continue
        between = body[o.end:hit[0]]
        unit = parse_unit(body, o.end)
        if not between.strip() or (unit is not None and not body[unit[1]:hit[0]].strip()):
            return True  # "180 storage nodes", "45 s cold": that figure's own word
    return False


def _mislabeled(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    vocab = vocabularies(article)
    all_terms = [w for words in vocab.values() for w in words]
    spans = clauses(article.body)
    by_clause = group_in(spans, [o.figure for o in traced if o.figure.kind is not FigureKind.date],
                         lambda f: (f.start, f.end))
    findings = []
    per_clause: dict[int, tuple[list[Hit], dict[int, tuple[int, int]]]] = {}
    for t in traced:
        own = _families(t)
        clause = enclosing(spans, t.figure.start, t.figure.end)
        if not own or clause is None or _self_labelled(t) or not _surely_traced(article, t):
            continue
        neighbours = by_clause.get(clause.start, [])
        if clause.start not in per_clause:  # the clause's words and ranges, read once
            per_clause[clause.start] = (find_terms(clause.text, all_terms, clause.start),
                                        _range_spans(article.body, neighbours))
        terms, ranges = per_clause[clause.start]
        hits = [h for h in terms
                if not _noun_of_another(h, t.figure, neighbours, article.body)
                and article.body[h[0]:h[1]].lower() != "means"]  # "a 36% saving means ..."
        if not hits:
            continue
        head = _head_label(article.body, ranges[t.figure.start], hits)
        labels = [(term, {f for f, words in vocab.items() if term in words})
                  for _, _, term in ([head] if head is not None else _labels_of(
                      t.figure, hits, neighbours, ranges[t.figure.start], article.body))]
        if any(named & own or _fits_own(article, term, t)
               or _BROADER.get(term.lower(), frozenset()) & own for term, named in labels):
            continue
        if _speed_like(article, t):  # "2.2 times faster" for a latency reduction
            labels = [(term, named) for term, named in labels
                      if term.lower() not in GENERIC_WORDS]
        if not labels or _fits_other_kind(article, t, labels) or not _known_family(article, t):
            continue
        term, named = labels[0]
        message = (f"{t.figure.text!r} traces to {', '.join(sorted(t.metrics))} but its clause "
                   f"calls it {term!r} ({', '.join(sorted(named))})")
        findings.append(body_span(article, t.figure.start, t.figure.end, Severity.error,
                                  "mislabeled-figure", message, trace=tried(t)))
    return findings


_REFERS_BACK = re.compile(r"\b(?:these|those|both|such|the\s+same)\s+(?:\w+\s+)?(?:figures|"
                          r"numbers|results|claims|benchmarks|measurements|reports)\b",
                          re.IGNORECASE)


def _desk_words(article: Article) -> re.Pattern[str]:
    """The desk's names in a paragraph: its publisher, the publisher's initials, we, the desk."""
    names = "|".join(re.escape(n) for n in desk_names(article.publisher))
    return re.compile(rf"\b(?:{names}|we|our|the desk)\b")


def _sources_author_reported(t: TracedFigure, article: Article) -> bool:
    """Every trace to a source's evidence is someone's report that needs its owner named: an
    author-reported fact, metric or scope, or a secondary report of it (a third party's
    account needs its teller named as much). The desk's own inferences that restate the figure
    are set aside. A count or size that documentation also states is not counted (a design
    parameter needs no credit), but a result (a multiplier, a rate, a percentage) that an
    author-reported fact states still needs its owner when documentation repeats it (a
    vendor's index restating its README's 6.6 TiB/s)."""
    sourced = [tr for tr in t.traces if tr.origin in ("fact", "scope", "metric")]
    if not any(tr.author_reported for tr in sourced):
        return False
    kinds = {f.id: f.evidence_type for f in article.facts}
    allowed = {EvidenceType.secondary_reporting}
    if t.quantity is not None and t.quantity.kind in _RESULT_KINDS and any(
            tr.author_reported and tr.origin == "fact" for tr in sourced):
        allowed |= _DOCUMENTATION
    return all(tr.author_reported or kinds.get(tr.fact_id or "") in allowed for tr in sourced)


_RESULT_KINDS = frozenset({Kind.multiplier, Kind.rate, Kind.percent})
_DOCUMENTATION = frozenset({EvidenceType.primary_documentation,
                            EvidenceType.dated_primary_research})


def _analysis_paragraphs(article: Article, traced: list[TracedFigure]) -> set[int]:
    """Starts of the desk's own analysis paragraphs: they name the desk or state a figure of
    its own arithmetic; there a restated author figure is the desk's input, not a report."""
    paras = paragraphs(article.body)
    desk = _desk_words(article)
    out = {p.start for p in paras if desk.search(p.text)}
    for t in traced:
        if t.traces and all(tr.origin in ("inference", "computation", "assumption")
                            for tr in t.traces):
            para = enclosing(paras, t.figure.start, t.figure.end)
            if para is not None:
                out.add(para.start)
    return out


def agent_names(article: Article) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The article's own agents: publishers (each part of "A / B") with the benchmark scope's
    ``reported_by``, and the sources' authors (full name and surname)."""
    names: list[str] = []
    authors: list[str] = []
    for src in article.sources:
        names += [p.strip() for p in re.split(r"\s*(?:/|,|;|\band\b)\s*", src.publisher)]
        for author in src.authors or []:
            authors += [author, author.split()[-1]]
    if article.benchmark_scope is not None:
        reported_by = article.benchmark_scope.reported_by
        names.append(reported_by.split(",")[0].strip())
        names += _quoted_parties(reported_by)
    return (tuple(dict.fromkeys(n for n in names if n and not n.endswith("et al."))),
            tuple(dict.fromkeys(a for a in authors if a)))


_PARTY_SPLIT = re.compile(r"\s*(?:[,;()]|\bquoting\b|\band\b|\bvia\b)\s*")
_PEOPLE_WORDS = re.compile(r"\b(?:authors?|team|maintainers|developers|engineers|researchers|"
                           r"contributors|page|post|paper|commit|benchmark|blog)\b", re.I)


def _quoted_parties(reported_by: str) -> list[str]:
    """The organisations a benchmark scope's ``reported_by`` names ("LMSYS, quoting Acme AI and
    Beta Group"), each with its first word ("Acme" for "Acme's hit rate"); not a product's
    people or documents ("Widget authors", "Widget team benchmark page"), whose first word is
    the product; a person's first name is not a party."""
    parties: list[str] = []
    for part in _PARTY_SPLIT.split(reported_by):
        words = part.split()
        if not words or not words[0][:1].isupper() or _PEOPLE_WORDS.search(part):
            continue
        parties += [part, words[0]] if len(words) > 1 and not is_person_name(part) else [part]
    return parties


def _unattributed(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    names, authors = agent_names(article)
    paras = paragraphs(article.body)
    desk = desk_names(article.publisher)
    product = f"{article.subject} {article.title}"
    attributed = {p.start: attributes(p.text, names, authors, desk, product) for p in paras}
    for prev, here in zip(paras, paras[1:], strict=False):
        if not attributed[here.start] and attributed[prev.start] and _REFERS_BACK.search(
                here.text):
            attributed[here.start] = True  # "Two of those figures ...": the same attribution
    analysis = _analysis_paragraphs(article, traced)
    findings = []
    seen: set[tuple[str, tuple[Decimal, ...]]] = set()  # figures already stated with an owner
    for t in sorted(traced, key=lambda t: t.figure.start):
        para = enclosing(paras, t.figure.start, t.figure.end)
        if para is None or t.figure.kind is FigureKind.date:
            continue
        key = _figure_key(t)
        if attributed[para.start]:
            seen.add(key)
            if _sources_author_reported(t, article) and _claimed_as_result(
                    article.body, t.figure, product):
                sentence = enclosing(sentences(article.body), t.figure.start, t.figure.end)
                if sentence is not None and not attributes(sentence.text, names, authors,
                                                                 desk, product):
                    findings.append(body_span(
                        article, t.figure.start, t.figure.end, Severity.warning,
                        "unattributed-figure",
                        f"{t.figure.text!r} is the authors' figure, stated here in the desk's "
                        "own voice as what the product does; its paragraph credits other "
                        "figures, this sentence credits none (the checker cannot be sure)",
                        trace=tried(t)))
            continue
        claimed = _claimed_as_result(article.body, t.figure, product)
        reported = t.author_reported or (_sources_author_reported(t, article) and (
            para.start not in analysis or claimed))
        if not reported or (key in seen and _refers_back_to(article.body, t.figure)):
            continue  # "the 13x": a figure whose owner the reader was already given
        if key in seen and para.start in analysis and not claimed:
            continue  # the desk's analysis weighs a figure credited earlier ("so 4x and 2x ...")
        sources = sorted({s for tr in t.traces for s in tr.source_ids})
        spelled = t.figure.spelled
        findings.append(body_span(
            article, t.figure.start, t.figure.end,
            Severity.warning if spelled else Severity.error, "unattributed-figure",
            f"{t.figure.text!r} is author-reported ({', '.join(sources) or 'benchmark scope'}"
            ", not independently reproduced) but its paragraph does not attribute it "
            "(e.g. 'the authors reported')" + (
                "; a spelled-out number may be prose that only shares the value, so this is "
                "not certain" if spelled else ""), trace=tried(t)))
    return findings


_REFERENCE_BEFORE = re.compile(r"\b(?:the|this|that|these|those|its|their|at|with)\s+$", re.I)


#: Verbs by which a product does something to a figure, in the present tense (a past tense
#: narrates an experiment that a neighbouring sentence has already credited: "The post
#: describes a test. Transfers reached 230 GB/s").
_RESULT_VERBS = (
    r"(?:serves|moves|cuts|delivers|reaches|achieves|sustains|handles|boosts|raises|lowers|"
    r"reduces|lifts|improves|increases|accelerates|turns\s+away|rejects|saves|attains|yields|"
    r"doubles|triples|halves|shrinks|outperforms|beats|speeds\s+up|keeps|makes|gives|brings|"
    r"enables|allows|offers|provides|runs|processes|supports)")
#: A figure stated as what the product does, right after its verb or a few words into the
#: verb's clause: "FastGen serves 1.42", "EFA moves 752 GB/s", "the grid cuts TTFT by 41x",
#: "the gateway lifts hit rates from about 25%", "the router turns away one caller in seven". The
#: subject is a name or "the" and a noun, with up to three words before the verb.
_RESULT_CLAIM_RE = re.compile(
    r"(?P<subject>(?:\b[A-Za-z][\w-]*[A-Z][\w-]*|\b[A-Z][\w-]*|"
    r"\b(?:the|The|its|Its|this|This)\s+[\w-]+)\s+(?:[\w-]+\s+){0,3}?)"
    # a second verb of the same subject: "Widget fine-tunes the heads and reaches 2x"
    r"(?:(?:[\w-]+\s+){1,8}?and\s+)?"
    rf"{_RESULT_VERBS}\s+(?:[\w-]+\s+){{0,7}}?"
    r"(?:by\s+|to\s+|at\s+|from\s+|of\s+|in\s+)?(?:about\s+|up\s+to\s+|roughly\s+|over\s+|"
    r"nearly\s+|almost\s+|around\s+|some\s+|one\s+\w+\s+in\s+)?$")

#: The product by name, right before a past-tense verb of result ("On two tasks Widget delivered
#: up to 5x"): the desk stating a result as the product's; a noun subject in the past tense
#: ("Transfers reached 230 GB/s") narrates a test credited nearby, so it is left out.
_PAST_CLAIM_RE = re.compile(
    r"(?P<subject>\b[A-Za-z][\w-]*[A-Z][\w-]*|\b[A-Z][\w-]*)\s+"
    r"(?:delivered|achieved|attained|sustained|outperformed|boosted|doubled|tripled)\s+"
    r"(?:[\w-]+\s+){0,5}?(?:by\s+|to\s+|at\s+|of\s+)?(?:about\s+|up\s+to\s+|roughly\s+|"
    r"over\s+|nearly\s+|almost\s+|around\s+)?$")

#: A relative or temporal clause opening before a past-tense claim: it narrates the setting of
#: something already reported ("the first release, where Widget delivered 2x").
_SETTING_BEFORE_RE = re.compile(r"\b(?:where|when|which|whereby|as|after|once|until)\s+$", re.I)


def _claimed_as_result(body: str, fig: Figure, product: str | None = None) -> bool:
    """In the desk's analysis paragraph, an author's figure is the desk's input, unless a
    sentence states it afresh as what the product does, in the present tense. The product is
    what the article is about: a word of the subject before the verb is a word of the
    article's subject or title ("the router" in an article on a KV router; not "HotPotQA
    moves from 30.08", a benchmark's score read from a table); ``product`` is that text,
    ``None`` to accept any subject."""
    start = max(0, fig.start - 90)
    before = body[start:fig.start]
    cut = max(before.rfind(". "), before.rfind("; "), before.rfind(": "), before.rfind("\n"))
    clause = before[cut + 1:] if cut >= 0 else before
    m = _RESULT_CLAIM_RE.search(clause)
    if m is None:
        m = _PAST_CLAIM_RE.search(clause)
        if m is not None and _SETTING_BEFORE_RE.search(clause[:m.start()]):
            return False  # "the first release, where Widget delivered 2x": a narrated setting
    if m is None or reported_clause(clause[:m.start()]):
        return False
    return product is None or bool(_stems(m.group("subject")) & _stems(product))


_SUBJECT_STOP = frozenset({"the", "its", "this", "with", "and", "for", "from", "that", "what",
                           "how", "who", "which", "a", "an", "of", "on", "in", "at", "to"})


def _stems(text: str) -> set[str]:
    """Words of ``text`` cut to five letters (router, routing: "route"), without stop words."""
    return {w[:5] for w in re.findall(r"[a-z0-9]+", text.lower())
            if w not in _SUBJECT_STOP and len(w) > 1}


def _refers_back_to(body: str, fig: Figure) -> bool:
    """A restated figure used as a reference or a test condition, not claimed as a result
    again: after a determiner ("the 13x is a warm-cache ratio"), as the condition of a test
    ("at 73% cache demand", "with a 128,000-token context" i.e. a hyphenated modifier)."""
    before = body[max(0, fig.start - 12):fig.start]
    return bool(_REFERENCE_BEFORE.search(before)) or body[fig.end:fig.end + 1] == "-"


def _figure_key(t: TracedFigure) -> tuple[str, tuple[Decimal, ...]]:
    kind = t.quantity.kind.value if t.quantity is not None else t.figure.kind.value
    return kind, tuple(t.figure.values)


@dataclass
class Experiment:
    """One experiment: figures (values) and words (terms) that identify it."""

    name: str
    values: list[Decimal] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    #: the kind of each value when known (a metric's quantity), parallel to ``values``
    kinds: list[Quantity | None] = field(default_factory=list)

    def owns(self, figure: Figure, quantity: Quantity | None = None) -> bool:
        """A figure belongs to the experiment when it states one of its values closely (within
        2%: "two" is not 2.2) and, when both kinds are known, as the same kind of quantity."""
        if figure.kind is FigureKind.date:
            return False
        for i, v in enumerate(self.values):
            kind = self.kinds[i] if i < len(self.kinds) else None
            for fv in figure.values:
                if quantize(v, figure.decimals) != fv or abs(v - fv) > abs(fv) / 50:
                    continue
                if quantity is None or kind is None or compare(
                        quantity, fv, v, kind, kind.kind is Kind.percent) is Verdict.match:
                    return True
        return False


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
            exp.values.append(Decimal(str(scope.reported_metrics[name])))
            exp.kinds.append(metric_quantity(name, spec.kind))
    if groups:
        return list(groups.values())
    if not scope.separate_scaling_experiment:
        return []
    main = Experiment("main", [Decimal(str(v)) for v in scope.reported_metrics.values()]
                      + _numbers(scope.hardware))
    scaling = Experiment("scaling", [v for v in _numbers(scope.separate_scaling_experiment)
                                     if v not in main.values])
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


def _sentence_owners(article: Article, sentence: Span, experiments: list[Experiment],
                     use_terms: bool) -> list[Mark]:
    marks = []
    typed = typed_figures(sentence.text)
    owner: dict[int, Experiment | None] = {}
    for fig, quantity in typed:
        owners = [e for e in experiments if e.owns(fig, quantity)]
        owner[fig.start] = owners[0] if len(owners) == 1 else None
    ranges = _range_spans(sentence.text, [f for f, _ in typed])
    listed = _enumerations(sentence.text, 0)
    for fig, quantity in typed:
        exp = owner[fig.start]
        if exp is None or _incidental_count(quantity):
            continue
        whole = ranges[fig.start]
        if any(owner[f.start] is not exp for f, _ in typed if whole[0] <= f.start < whole[1]):
            continue  # "14x to 24x": a range is an experiment's only when both ends are
        if any(owner[f.start] not in (None, exp) for f, _ in typed
               if f.start in listed and listed[f.start] == listed.get(fig.start)):
            continue  # "pages of 64KB, 128KB and 2MB": a list of values of mixed owners
        marks.append((sentence.start + fig.start, sentence.start + fig.end, exp))
    if use_terms:
        marks += _term_marks(article, sentence, experiments)
    return sorted(marks, key=lambda m: m[0])


def _term_marks(article: Article, sentence: Span, experiments: list[Experiment]) -> list[Mark]:
    return [(start, end, exp) for exp in experiments
            for start, end, term in find_terms(sentence.text, exp.terms, sentence.start)
            if not _verb_use(article.body, start, end, term)]


def _states(numbers: list[Figure], fig: Figure) -> bool:
    """One of ``numbers`` (a source's figures) states ``fig`` at its printed precision."""
    return any(quantize(v, fig.decimals) == fv and abs(v - fv) <= abs(fv) / 50
               for n in numbers for v in n.values for fv in fig.values)


#: A comma that starts the next result of a list: ", 28-30% lower for ...", ", and up to 5x ...".
_NEXT_RESULT_RE = re.compile(r",\s+(?:(?:and|or|but|while|whereas)\s+)?(?:[a-z]+\s+){0,2}")


def _result_groups(text: str) -> list[str]:
    """A fact cut into the results it lists: at ';' and ':', and at a comma whose next words
    start with a figure after words ("... on a serving benchmark, 28-30% lower for long
    prompts"); not inside a run of bare values ("by up to 29x, 29x and 3x": one statement)."""
    figures = [f for f in extract_figures(text) if f.kind is not FigureKind.date]
    starts = {f.start for f in figures}
    ends = {f.end for f in figures}
    cuts = [(m.start(), m.end()) for m in re.finditer(r"\s*[;:]\s*", text)]
    for m in _NEXT_RESULT_RE.finditer(text):
        if m.end() in starts and m.start() not in ends:
            cuts.append((m.start(), m.end()))
    groups, start = [], 0
    for cut_start, cut_end in sorted(cuts):
        if cut_start >= start:
            groups.append(text[start:cut_start])
            start = cut_end
    return [*groups, text[start:]]


def _facts_figures(article: Article) -> list[list[Figure]]:
    """The figures of each result each fact states (see :func:`_result_groups`)."""
    return [[f for f in extract_figures(group) if f.kind is not FigureKind.date]
            for fact in article.facts for group in _result_groups(fact.claim)]


def _stated_together(facts: list[list[Figure]], a: Figure | None, b: Figure | None) -> bool:
    """One fact gives both figures as one result (see :func:`_result_groups`): the sentence
    restates a combination the source made itself ("with 20% of tokens kept, throughput rose up
    to 9x" from a fact that says so), not a join of two experiments."""
    return a is not None and b is not None and any(
        _states(numbers, a) and _states(numbers, b) for numbers in facts)


def derived_sentences(article: Article, traced: list[TracedFigure]) -> frozenset[int]:
    """Starts of the sentences that hold a figure of the desk's own arithmetic (traced only to
    an inference or its computation): such a sentence combines figures on purpose ("45 s cold
    and 15 times faster warm: about 3 s a warm turn")."""
    spans = sentences(article.body)
    out = set()
    for t in traced:
        if t.traces and all(tr.origin in ("inference", "computation", "assumption")
                            for tr in t.traces):
            span = enclosing(spans, t.figure.start, t.figure.end)
            if span is not None:
                out.add(span.start)
    return frozenset(out)


def _foreign(figures: set[tuple[int, int]], marks: list[tuple[int, int, Experiment]],
             later: tuple[int, int, Experiment], earlier: tuple[int, int, Experiment]
             ) -> tuple[int, int, Experiment, Experiment]:
    """The figure to report: the one from the experiment the rest of the sentence is *not*
    about ("On the 12,031-request trace, the authors report 20 times ... and four times":
    the 12,031); on a tie, the later figure."""
    counts: dict[str, int] = {}
    for s, e, exp in marks:
        if (s, e) in figures:
            counts[exp.name] = counts.get(exp.name, 0) + 1
    if counts.get(earlier[2].name, 0) < counts.get(later[2].name, 0) and (
            earlier[0], earlier[1]) in figures:
        return earlier[0], earlier[1], earlier[2], later[2]
    return later[0], later[1], later[2], earlier[2]


#: List items and independent clauses of a sentence: split at ';' ':' and at a comma that is
#: not inside a date ("May 6, 2026"); ", and it answers" starts an independent clause.
_ITEM_SEP_RE = re.compile(r"[;:]\s*|,\s+(?!\d{4}\b)")
_OWN_SUBJECT_RE = re.compile(
    r"^(?:and|but|while|whereas)\s+(?:[a-z][\w-]*\s+){0,4}?"
    r"(?:(?:it|they|he|she|we)\s+[a-z]+|the\s+\w+\s+[a-z]+(?:s|ed))\b")
#: Connectives that add one result to another as one: never a list.
_JOINS_RE = re.compile(r"^(?:on\s+top\s+of|in\s+addition\s+to|plus|combined\s+with|together\s+"
                       r"with|compounding|adding\s+to|stacked\s+on|as\s+well\s+as)\b", re.I)
_NAME_STOP = frozenset({"test", "tests", "run", "runs", "experiment", "the", "of", "and", "on",
                        "with", "a", "an", "for", "in", "benchmark", "result", "results"})


def _list_items(sentence: Span) -> list[Span]:
    return _split_spans(sentence.text, sentence.start)


def _split_spans(text: str, offset: int) -> list[Span]:
    spans, start = [], 0
    for m in _ITEM_SEP_RE.finditer(text):
        spans.append(Span(offset + start, offset + m.start(), text[start:m.start()]))
        start = m.end()
    spans.append(Span(offset + start, offset + len(text), text[start:]))
    return spans


def _name_words(name: str) -> set[str]:
    """Content words of an experiment's name ("8xH100 long test": h100, long)."""
    spaced = re.sub(r"(?<=\d)x(?=[a-z])", " ", name.lower())
    return {w for w in re.findall(r"[a-z][a-z0-9-]*", spaced) if w not in _NAME_STOP}


def _names_itself(item: Span, exp: Experiment, other: Experiment) -> bool:
    """The list item carries a word of its own experiment's name that the other's lacks
    ("for the small test on the H100s", "for long-context inference")."""
    own = _name_words(exp.name) - _name_words(other.name)
    words = {w.rstrip("s") for w in re.findall(r"[a-z][a-z0-9-]*", item.text.lower())}
    return any(w.rstrip("s") in words or (len(w) >= 7 and any(
        x.startswith(w[:6]) for x in words)) for w in own)


def _has_figure(text: str) -> bool:
    return any(f.kind is not FigureKind.date for f in extract_figures(text))


def _result_item(items: list[Span], item: Span) -> Span:
    """The list item with the figure-less items before it that introduce it ("and gives
    Falcon-180B, served with pipeline parallelism, up to 5.6x": the name is two commas back)."""
    i = next(k for k, it in enumerate(items) if it.start == item.start)
    first = i
    while first > 0 and not _has_figure(items[first - 1].text):
        first -= 1
    if first == i:
        return item
    return Span(items[first].start, item.end, " ".join(it.text for it in items[first:i + 1]))


#: What separates the values of one enumeration: "64KB, 128KB, 256KB and 2MB".
_ENUM_JOIN_RE = re.compile(r"\s*(?:,\s*|,?\s+(?:and|or)\s+)")


def _enumerations(text: str, offset: int) -> dict[int, int]:
    """Figure start -> start of the enumeration it is in: values of one quantity listed with
    nothing but commas, "and" or "or" between them (after each one's unit). Values listed so
    are options or settings side by side, never one result joined from two experiments."""
    group: dict[int, int] = {}
    figures = [f for f in extract_figures(text) if f.kind is not FigureKind.date]
    for a, b in zip(figures, figures[1:], strict=False):
        unit = parse_unit(text, a.end)
        gap_start = unit[1] if unit is not None and unit[1] <= b.start else a.end
        suffix = re.match(r"[A-Za-z]+", text[gap_start:b.start])  # "32k, 64k": a suffix
        gap_start += suffix.end() if suffix else 0
        group.setdefault(offset + a.start, offset + a.start)
        if _ENUM_JOIN_RE.fullmatch(text[gap_start:b.start]):
            group[offset + b.start] = group[offset + a.start]
    return group


def _listed_apart(items: list[Span], a: tuple[int, int, Experiment],
                  b: tuple[int, int, Experiment], experiments: list[Experiment]) -> bool:
    """Two figures of different experiments in one sentence that do not join them: in different
    list items each naming its own experiment ("29 to 69% lower on the serving benchmark,
    28 to 30% lower for long-context inference"), or in independent clauses ("it fits three
    times as many tokens, and on long prompts it answers 13 times faster")."""
    first, second = sorted((a, b), key=lambda m: m[0])
    item_a = enclosing(items, first[0], first[1])
    item_b = enclosing(items, second[0], second[1])
    if item_a is None or item_b is None or item_a.start == item_b.start:
        return False
    if any(_JOINS_RE.match(it.text) for it in items if item_a.start < it.start <= item_b.start):
        return False  # "..., on top of the paper's 15-times gain": one compound result
    named_a, named_b = _result_item(items, item_a), _result_item(items, item_b)
    if _names_itself(named_a, first[2], second[2]) and _names_itself(named_b, second[2], first[2]):
        return True
    later = [it for it in items if item_a.start < it.start <= item_b.start]
    return any(_OWN_SUBJECT_RE.match(it.text) for it in later)


def conflations(article: Article, experiments: list[Experiment], *, use_terms: bool = False,
                skip: frozenset[int] = frozenset()
                ) -> list[tuple[int, int, Experiment, Experiment]]:
    """Spans where a sentence joins a second experiment to the first, with both experiments.

    Only figures identify an experiment unless ``use_terms``; at least one side must be a figure.
    """
    out: list[tuple[int, int, Experiment, Experiment]] = []
    if len(experiments) < 2:
        return out
    facts = _facts_figures(article)
    for sentence in sentences(article.body):
        if sentence.start in skip or SEPARATION_RE.search(sentence.text):
            continue
        placed = _sentence_owners(article, sentence, experiments, False)
        if not placed:
            continue  # at least one side of a join is a figure
        marks = sorted(placed + _term_marks(article, sentence, experiments), key=lambda m: m[0]
                       ) if use_terms else placed
        if len({id(m[2]) for m in marks}) < 2:
            continue
        figures = {(s, e) for s, e, _ in placed}
        written = {(sentence.start + f.start, sentence.start + f.end): f
                   for f in extract_figures(sentence.text)}
        enumerated = _enumerations(sentence.text, sentence.start)
        items = _list_items(sentence)
        for i, (start, end, exp) in enumerate(marks):
            earlier = [m for m in marks[:i] if m[2] is not exp
                       and not _listed_apart(items, m, (start, end, exp), experiments)
                       and not _stated_together(facts, written.get((m[0], m[1])),
                                                written.get((start, end)))
                       and not (m[0] in enumerated and enumerated.get(m[0])
                                == enumerated.get(start))]
            if not earlier:
                continue
            if (start, end) in figures:
                first = earlier[0]
                _, _, exp, other = _foreign(figures, marks, (start, end, exp), first)
                # the joined stretch: from one experiment's figure to the other's
                out.append((min(start, first[0]), max(end, first[1]), other, exp))
                break
            placed = [m for m in earlier if (m[0], m[1]) in figures]
            if placed:  # a word of this experiment joined to a figure of another
                out.append((placed[-1][0], placed[-1][1], exp, placed[-1][2]))
                break
    return out


def _conflated(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    return [
        body_span(article, start, end, Severity.error, "conflated-experiments",
                  f"this sentence joins a figure of the {second.name} experiment to the "
                  f"{first.name} experiment as one result; keep them in separate sentences")
        for start, end, first, second in conflations(
            article, experiments_of(article), skip=derived_sentences(article, traced))
    ]


def _sourced(t: TracedFigure) -> bool:
    """A figure that traces to sources' evidence and to none of the desk's own measurements."""
    return (t.figure.kind is not FigureKind.date
            and any(tr.origin in ("fact", "metric", "scope") for tr in t.traces)
            and not any(tr.origin == "measurement" for tr in t.traces))


def _desk_claims(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """``desk-claims-authors-figure``: a paragraph whose figures come from sources (none from
    the desk's own ledger measurements) and a sentence in it that presents them as the desk's
    own measurement ("PCT measured", "we tested", "These are PCT's measurements")."""
    paras = paragraphs(article.body)
    by_para = group_in(paras, [t for t in traced if _sourced(t)],
                       lambda t: (t.figure.start, t.figure.end))
    findings = []
    for para in paras:
        figures = by_para.get(para.start, [])
        if not figures or any(tr.origin == "measurement" for t in traced
                              if para.contains(t.figure.start, t.figure.end)
                              for tr in t.traces):
            continue  # the desk's own measurements are in this paragraph
        sources = sorted({s for t in figures for tr in t.traces for s in tr.source_ids})
        for sentence in sentences(para.text):
            claim = desk_claims(sentence.text, desk_names(article.publisher))
            if claim is None:
                continue
            start = para.start + sentence.start + claim.start()
            findings.append(body_span(
                article, start, start + len(claim.group()), Severity.error,
                "desk-claims-authors-figure",
                f"{claim.group()!r} presents this paragraph's figures (e.g. "
                f"{figures[0].figure.text!r}) as the desk's own measurement, but they come from "
                f"{', '.join(sources) or 'the sources'}, not from a ledger measurement"))
    return findings


def check_labels(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """Mislabeled, unattributed, desk-claimed and conflated figures of the body."""
    return (_mislabeled(article, traced) + _wrong_statistic(article, traced)
            + _wrong_baseline(article, traced) + _wrong_parameter(article, traced)
            + _wrong_tag(article, traced) + _wrong_subject(article, traced)
            + _unattributed(article, traced)
            + _desk_claims(article, traced) + _conflated(article, traced))
