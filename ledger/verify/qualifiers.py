"""``mislabeled-figure`` by what is written around a figure besides its metric's words: the
statistic before it ("a peak of 3.66 TiB/min" for an average), the name that tags it ("55.0 with
int4"), the system a clause credits it to ("TGI handled 10k tokens where vLLM managed 30k") and
the parameter named before it ("a group size of 128"). Each is a mislabel when it belongs to
another metric of the scope and to none of the metrics the figure traces to. A statistic is
also read against the one fact that states the figure's value, when no metric names one: "an
average of 60 GB/s" for a fact's "up to 60 GB/s" ("up to" is a peak there).
"""

from __future__ import annotations

import re

from ..figures import Figure, FigureKind, extract_figures, quantize
from ..models import Article
from ..quantities import lemma, parse_unit
from ..report import Finding, Severity
from .baselines import RESPECTIVELY_RE
from .prose import clauses, enclosing
from .text import body_span, with_label
from .tracing import TracedFigure, tried
from .vocabulary import STAT_RE, metric_statistics, metric_words, named_statistics, surely_traced

__all__ = ["check_parameters", "check_statistics", "check_subjects", "check_tags"]


_AT_STAT_RE = re.compile(r"(?:\s+[\w-]+){0,2}?\s+at\s+(?:the\s+)?" + STAT_RE.pattern,
                         re.IGNORECASE)


_AT_STAT_ANYWHERE_RE = re.compile(r"\bat\s+(?:the\s+)?" + STAT_RE.pattern, re.IGNORECASE)


def check_statistics(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """``mislabeled-figure`` when the words right before a figure name a statistic (peak,
    p99, average...) that none of its metrics is: "a peak of 3.66 TiB/min" for an average."""
    findings = []
    previous_end = 0
    facts: list[tuple[str, list[tuple[Figure, set[str]]]]] | None = None
    for t in traced:
        start_of_window = max(previous_end, t.figure.start - 120)
        previous_end = t.figure.end
        if not t.traces or t.figure.kind is FigureKind.date:
            continue
        said, word = _stated_statistics(article.body, start_of_window, t.figure)
        if not said:
            continue
        stats = set().union(*(metric_statistics(article, m) for m in t.metrics))
        owner = f"{', '.join(sorted(t.metrics))}, a"
        if not stats:  # no metric, or one whose words name no statistic: the fact's words
            facts = _fact_statistics(article) if facts is None else facts
            stats, fact_id = _fact_statistic(t, facts)
            owner = f"fact {fact_id}, which states it as a"
        if stats and not said & stats:
            start, end = with_label(article.body, t.figure.start, t.figure.end, (
                word.start(), word.end(), word.group()) if word is not None else None)
            findings.append(body_span(
                article, start, end, Severity.error, "mislabeled-figure",
                f"{t.figure.text!r} is called {', '.join(sorted(said))} here, but it traces to "
                f"{owner} {', '.join(sorted(stats))} figure", trace=tried(t)))
    return findings


def _stated_statistics(body: str, start_of_window: int, figure: Figure
                       ) -> tuple[set[str], re.Match[str] | None]:
    """The statistics the words right around a figure name, and the word that names the
    nearest: after it with "at" ("6.4x at the mean"), else before it in its clause, leaving out
    one that "at" gives another figure."""
    before = body[start_of_window:figure.start]
    clause_start = start_of_window + max(before.rfind(c) for c in ",;:.?!") + 1
    # "6.4x at the mean and 12.1x at P99": a statistic after "at" is the figure's own, and
    # one that way before the figure belongs to the figure before it
    own_after = _AT_STAT_RE.match(body, figure.end)
    if own_after is not None:
        return (named_statistics(own_after.group()),
                STAT_RE.search(body, figure.end, own_after.end()))
    words = list(STAT_RE.finditer(body, clause_start, figure.start))
    return (named_statistics(_AT_STAT_ANYWHERE_RE.sub(" ", body[clause_start:figure.start])),
            words[-1] if words else None)


#: In a fact, "up to" states a figure's maximum as much as "peak" does.
_UP_TO_RE = re.compile(r"\bup\s+to\s+$", re.IGNORECASE)


def _fact_statistics(article: Article) -> list[tuple[str, list[tuple[Figure, set[str]]]]]:
    """Each fact's figures with the statistics its words name for each ("a peak of 3,335",
    "up to 60 GB/s", "an average of 2,228.99"); a figure naming none is left out."""
    out = []
    for fact in article.facts:
        figures, previous = [], 0
        for fig in extract_figures(fact.claim):
            if fig.kind is FigureKind.date:
                continue
            window = max(previous, fig.start - 120)
            previous = fig.end
            stats, _ = _stated_statistics(fact.claim, window, fig)
            if _UP_TO_RE.search(fact.claim, window, fig.start):
                stats = stats | {"peak"}
            figures.append((fig, stats))
        out.append((fact.id, figures))
    return out


def _fact_statistic(t: TracedFigure, facts: list[tuple[str, list[tuple[Figure, set[str]]]]]
                    ) -> tuple[set[str], str]:
    """The statistics of the one fact figure the body figure restates, when exactly one of
    the facts it traces to states its value and names a statistic for it, with that fact's
    id; else nothing to compare."""
    d = t.figure.decimals
    traced = {tr.fact_id for tr in t.traces if tr.fact_id}  # only the facts it traces to
    same = [(fid, stats) for fid, figures in facts if fid in traced for fig, stats in figures
            if fig.kind is t.figure.kind and len(fig.values) == len(t.figure.values)
            and all(quantize(v, d) == w for v, w in zip(fig.values, t.figure.values, strict=True))]
    if len(same) != 1 or not same[0][1]:
        return set(), ""
    fid, stats = same[0]
    return stats, fid


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


def check_tags(article: Article, traced: list[TracedFigure]) -> list[Finding]:
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
        if m is None or not names or RESPECTIVELY_RE.match(article.body, m.end("t")):
            continue
        if any(names & metric_words(article, own) for own in t.metrics) or names & shared:
            continue
        others = [o for o in metrics if o not in t.metrics
                  and names <= metric_words(article, o)]
        if others:
            sure = surely_traced(article, t)  # a bare number may coincide with the metric
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


def check_subjects(article: Article, traced: list[TracedFigure]) -> list[Finding]:
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
            sure = surely_traced(article, t)
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


def _name_words(metric: str) -> set[str]:
    return {lemma(w) for w in metric.lower().split("_") if w}


def _fits_variant(article: Article, said: set[str], own: str, other: str) -> bool:
    """The name fits ``own`` too when the two metrics are one family -- one's name is the
    other's plus qualifiers ("earlier_ttft_cut_pct", "ttft_cut_pct") -- and the words the name
    takes from ``other`` are the family's ("reduction"), not the qualifier that tells ``other``
    apart ("p99" in "p99_sort_ms" beside "sort_ms")."""
    own_name, other_name = _name_words(own), _name_words(other)
    # siblings too: names that differ in one word each ("s3bench_write_util_gbit_s" and
    # "s3bench_read_util_gbit_s"), the words before a list of both ("average network
    # utilization of 77 Gbit/s in the write phase and 84.6 Gbit/s in the read phase")
    siblings = len(own_name - other_name) == 1 == len(other_name - own_name) \
        and len(own_name & other_name) >= 2
    if not (own_name <= other_name or other_name <= own_name or siblings):
        return False
    stats, own_stats = named_statistics(" ".join(said)), metric_statistics(article, own)
    if stats and own_stats and not stats <= own_stats:
        return False  # "a tail sort time" for a metric known to be a mean
    return not (said - metric_words(article, own)) & (other_name - own_name)


def check_parameters(article: Article, traced: list[TracedFigure]) -> list[Finding]:
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
        if len(said) < 2 or any(said <= metric_words(article, m) for m in t.metrics):
            continue
        others = [m for m in metrics if m not in t.metrics and said <= metric_words(article, m)
                  and not any(_fits_variant(article, said, own, m) for own in t.metrics)]
        if others:
            findings.append(body_span(
                article, t.figure.start, t.figure.end, Severity.error, "mislabeled-figure",
                f"{t.figure.text!r} is called {' '.join(sorted(said))!r}, the name of "
                f"{', '.join(sorted(others))}, but it traces to {', '.join(sorted(t.metrics))}",
                trace=tried(t)))
    return findings
