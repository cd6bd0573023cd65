"""``mislabeled-figure`` by the words of a figure's clause.

A figure that traces to a reported metric (or a measurement's metric) is described, in its
clause, by the vocabulary of a different metric (:mod:`.vocabulary`). A word describes the
figure it is nearest to ("3.8 times the throughput and a 46-fold reduction in median time to
first token": 3.8 is throughput, 46 is TTFT); a figure no word is nearest to takes the word
nearest to it ("throughput rose from 1.7% to 92.2%": both are called throughput); a word
right after the figure ("2.5x lower latency") labels it alone; both ends of a range share
its words; a word that also names the traced metric (its name, label or vocabulary) fits.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..figures import Figure, FigureKind, extract_figures
from ..models import Article
from ..quantities import Kind, parse_unit
from ..report import Finding, Severity
from .ownlabel import own_label
from .prohibitions import article_prohibitions, in_prohibition
from .prose import clauses, enclosing, find_terms, group_in
from .ranges import range_spans
from .text import body_span, with_label
from .tracing import TracedFigure, tried
from .vocabulary import (
    BROADER,
    DEFAULT_VOCABULARY,
    GENERIC_WORDS,
    fits_other_kind,
    fits_own,
    known_family,
    metric_families,
    metric_family,
    metric_words,
    names_another_kind,
    speed_like,
    surely_traced,
    vocabularies,
)

__all__ = ["Hit", "check_vocabulary"]


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
    reachable = [h for h in hits if any(whole[0] <= f.start < whole[1] for f in candidates(h))
                 and not _in_another_conjunct(body, h, figure, figures)]
    if not reachable:
        return []
    return [min(reachable, key=lambda h: (_gap(h[0], h[1], whole[0], whole[1]),
                                          0 if h[0] >= whole[1] else 1))]


_AND_RE = re.compile(r"\band\b")
#: After an "and", words that open a conjunct of their own ("... and boost speed by 100x"),
#: unlike a hedge or a preposition before the next figure ("... and about 3x at batch 8").
_CONJUNCT_RE = re.compile(r"\b(?:and|while|whereas|but)\s+(?!(?:about|nearly|roughly|around|almost|up|by|to|then|"
                          r"over|under|just|some|only|at|in|a|an|the)\b)[a-z]{3,}\b[^.;]*$")


def _in_another_conjunct(body: str, hit: Hit, figure: Figure, figures: list[Figure]) -> bool:
    """True when another figure and then an "and" with words of its own stand between the word
    and the figure: "cut costs by 10x and boost speed by 100x" -- costs are the 10x's; the
    100x is not the word's nearest figure and gets no word from it."""
    if hit[1] > figure.start:
        return False
    between = [f for f in figures if hit[1] <= f.start and f.end <= figure.start]
    return bool(between) and _CONJUNCT_RE.search(body, between[-1].end, figure.start) is not None


#: Words between a figure and the noun it measures: "2.5x the throughput", "40% lower latency".
_HEAD_GAP_RE = re.compile(
    r"(?:\s*[×x])?\s+(?:(?:the|a|an|more|less|lower|higher|faster|slower|better|greater|"
    r"fewer|smaller|larger|shorter|longer)\s+){0,2}", re.IGNORECASE)


def _head_label(body: str, figure: tuple[int, int], hits: list[Hit]) -> Hit | None:
    """The word the figure measures when it follows the figure right away ("2.5x lower
    latency", "3x the throughput at equal cost"): that word alone labels it, whatever other
    words of the clause say (the "cost" of a condition that follows is not the figure's)."""
    unit = parse_unit(body, figure[1])  # "3.25 seconds": the unit says the kind, not the word
    gap = _HEAD_GAP_RE.match(body, unit[1] if unit is not None else figure[1])
    if gap is None:
        return None
    return next((h for h in hits if h[0] == gap.end()), None)


def _self_labelled(t: TracedFigure) -> bool:
    """A count with its noun or a quantity with its unit is named by its own phrase ("6.6 TiB/s
    spread over 180 storage nodes": 6.6 is a rate, whatever words sit nearby)."""
    q = t.quantity
    return q is not None and q.kind is Kind.count and q.noun is not None


#: A preposition that opens an adjunct of the quantity before it: "750 TOPS at INT8".
_ONE_WORD_RE = re.compile(r"(?:\s*[A-Za-z][\w/-]*)?")
_ADJUNCT_RE = re.compile(r"\s+(?:at|in|on|for|with|under)\s+(?:(?:the|a|an)\s+)?")
#: What a figure is for, right after it: "3x for JSON grammar and 100x for JSON schema".
_FOR_RE = re.compile(r"\s+for\s+(?:(?:the|a|an)\s+)?")


def _noun_of_another(hit: Hit, figure: Figure, figures: list[Figure], body: str) -> bool:
    """True when the word is the noun written right after another figure ("180 storage
    nodes"), or the object of a preposition right after another figure's unit ("750 TOPS at
    INT8 and 188 TFLOPS": INT8 qualifies the 750): it names that figure, not this one."""
    for o in figures:
        if o is figure or not 0 <= hit[0] - o.end <= 24:
            continue
        between = body[o.end:hit[0]]
        unit = parse_unit(body, o.end)
        if not between.strip() and hit[0] - o.end <= 16:
            return True  # "180 storage nodes": that figure's own word
        phrase = own_label(body, o, min(len(body), hit[1] + 1))
        if phrase is not None and phrase[0] <= hit[0] and hit[1] <= phrase[1]:
            return True  # "7 representative sub-scenarios in 21 hours": the 7's noun phrase
        if unit is not None and not body[unit[1]:hit[0]].strip():
            return True  # "45 s cold": that figure's own word
        word = _ONE_WORD_RE.match(body, o.end)
        head = unit[1] if unit is not None else word.end() if word is not None else o.end
        if _ADJUNCT_RE.fullmatch(body, head, hit[0]) or _FOR_RE.fullmatch(body, o.end, hit[0]):
            return True  # "750 TOPS at INT8", "3x for JSON grammar": that figure's adjunct
    return False


#: Head nouns of a constraint: a metric word before one of them qualifies the constraint
#: ("within a latency budget", "under a p99 latency SLO", "at different latency cutoffs"),
#: a condition of the result, not what the figure measures.
_CONSTRAINT_HEAD_RE = re.compile(
    r"[\s-]+(?:budgets?|cut-?offs?|SLOs?|SLAs?|targets?|limits?|caps?|ceilings?|bounds?|"
    r"thresholds?|constraints?|requirements?|deadlines?|objectives?)\b", re.IGNORECASE)


def _qualifies_constraint(body: str, hit: Hit) -> bool:
    return _CONSTRAINT_HEAD_RE.match(body, hit[1]) is not None


def _own_unit(body: str, figure: Figure, hit: Hit) -> bool:
    """The word is the unit written right after the figure ("3.25 seconds", "36 tokens per
    second"): it says what kind of quantity the figure is, not which metric, so it neither
    labels the figure nor clears another word's label."""
    unit = parse_unit(body, figure.end)
    return unit is not None and figure.end <= hit[0] and hit[1] <= unit[1]


def _families(vocab: dict[str, list[str]], term: str) -> set[str]:
    return {f for f, words in vocab.items() if term in words}


#: The words that name a family of speed metric without saying which time or rate.
_BARE_SPEED_FAMILIES = frozenset({"latency", "throughput"})
#: A metric's own words that say which of them it is.
_NAMED_SPEED = frozenset({"latency", "throughput", "ttft", "tpot", "itl", "goodput", "e2e",
                          "time", "qps", "rps", "request", "token"})


def _names_other_metric(article: Article, t: TracedFigure, word: str) -> bool:
    """Another metric of the scope is of the family ``word`` names, or has it among its words
    ("6.5x the decode throughput" where a decode throughput gain is reported too)."""
    scope = article.benchmark_scope
    others = set(scope.reported_metrics or {}) - set(t.metrics) if scope else set()
    return any(metric_family(m) == word or word in metric_words(article, m) for m in others)


@lru_cache(maxsize=512)
def _figures_of(text: str) -> tuple[Figure, ...]:
    """The figures of a fact's or a claim's text, read once for all the body's figures."""
    return tuple(extract_figures(text))


def _windows(text: str, values: tuple) -> list[tuple[int, int]]:
    """Where the words of each figure of ``text`` with these values stand: its own clause,
    nearer to it than to the figures beside it ("3.8x throughput, 46x lower median TTFT":
    throughput is the 3.8x's), within :data:`_NEAR` characters. The metric word a figure's
    phrase ends in is that figure's, however near the next one ("1.5x lower inference latency
    and 3.5x higher throughput": latency is the 1.5x's, not the 3.5x's)."""
    figures = _figures_of(text)
    out = []
    for k, f in enumerate(figures):
        if f.values != values:
            continue
        start = max((figures[k - 1].end + f.start) // 2 if k else 0, f.start - _NEAR,
                    max(text.rfind(c, 0, f.start) for c in ",;:") + 1)
        if k and (before := _head_end(text, figures[k - 1].end)) is not None:
            start = max(start, min(before, f.start))
        stops = [i for c in ",;:" if (i := text.find(c, f.end)) >= 0]
        end = min((f.end + figures[k + 1].start) // 2 if k + 1 < len(figures)
                  else len(text), f.end + _NEAR, *stops)
        if (own := _head_end(text, f.end)) is not None:
            end = max(end, own)
        out.append((start, end))
    return out


#: A figure's phrase up to its metric word: a comparative and up to two modifiers
#: ("3.5x higher inference throughput", "40% lower p99 latency", "2x the decode throughput").
_PHRASE_GAP_RE = re.compile(
    r"(?:\s*[×x%])?\s+(?:(?:the|a|an|more|less|lower|higher|faster|slower|better|greater|"
    r"fewer|smaller|larger|shorter|longer)\s+)?(?:(?!(?:than|and|or|at|in|on|for|with|over|"
    r"of|to|by|from|vs)\b)[A-Za-z0-9][\w/-]*\s+){0,2}?", re.IGNORECASE)


def _head_end(text: str, at: int) -> int | None:
    """Where the metric word that ends the phrase right after a figure (ending at ``at``)
    ends, or None when no vocabulary word ends such a phrase."""
    gap = _PHRASE_GAP_RE.match(text, at)
    if gap is None:
        return None
    m = _FAMILY_RE.search(text, gap.start(), min(len(text), gap.start() + 48))
    if m is None or _PHRASE_GAP_RE.fullmatch(text, at, m.start()) is None:
        return None
    return m.end()


def _traced_texts(article: Article, t: TracedFigure) -> list[str]:
    """The facts' claims and the inferences' claims the figure traces to."""
    out = []
    for tr in t.traces:
        if (m := re.fullmatch(r"/facts/(\d+)/claim", tr.pointer)) and int(m.group(1)) < len(
                article.facts):
            out.append(article.facts[int(m.group(1))].claim)
        elif (m := re.fullmatch(r"/inferences/(\d+)/claim", tr.pointer)) and int(
                m.group(1)) < len(article.inferences):
            out.append(article.inferences[int(m.group(1))].claim)
        elif (m := re.fullmatch(r"/benchmark_scope/(\w+)", tr.pointer)) and isinstance(
                text := getattr(article.benchmark_scope, m.group(1), None), str):
            out.append(text)  # the scope's words: its separate experiment, its workload
    return out


def _fact_says(article: Article, t: TracedFigure, term: str) -> bool:
    """A fact the figure also traces to writes the clause's word beside the same number: the
    figure is that fact's (a secondary summary's "raise network cost by about 30%", "400 Gbps
    of RDMA throughput per host"), whatever metric shares it."""
    word = re.compile(rf"\b{re.escape(term)}", re.IGNORECASE)
    for tr in t.traces:
        m = re.fullmatch(r"/facts/(\d+)/claim", tr.pointer)
        if m is None or int(m.group(1)) >= len(article.facts):
            continue
        claim = article.facts[int(m.group(1))].claim
        for start, end in _windows(claim, t.figure.values):
            if (hit := word.search(claim, start)) is not None and hit.start() < end:
                return True  # the word starts in the window (it may run past its end)
    return False


def _evidence_families(article: Article, t: TracedFigure) -> set[str]:
    """The metric families that every fact or inference claim the figure traces to names
    beside its number ("up to 70% higher throughput than ZeRO-3": throughput); empty when
    one of them names none (the checker does not know what that evidence calls it)."""
    texts = _traced_texts(article, t)
    if not texts or len(texts) != len([tr for tr in t.traces if tr.origin != "date"]):
        return set()  # a metric, a scope or a computation value: named elsewhere
    families: set[str] | None = None
    for text in texts:
        here = {family for start, end in _windows(text, t.figure.values)
                for family, _, _ in _family_terms(text[start:end])}
        if not here:
            return set()
        families = here if families is None else families & here
    return families or set()


_FAMILY_OF = {w.lower(): family for family, words in DEFAULT_VOCABULARY.items() for w in words}
#: Every default vocabulary word, longest first, in one pattern (read once per window).
_FAMILY_RE = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(_FAMILY_OF, key=len,
                                                                   reverse=True))) + r")\b",
                        re.IGNORECASE)


def _family_terms(text: str) -> list[tuple[str, int, int]]:
    return [(_FAMILY_OF[m.group().lower()], m.start(), m.end())
            for m in _FAMILY_RE.finditer(text)]


#: How far from a fact's number its word may stand, within the figures around it.
_NEAR = 40


def _typed(t: TracedFigure) -> bool:
    return t.quantity is not None and t.quantity.kind is not Kind.number and t.traced


#: Families of speed, which a generic comparative ("faster", "a gain") fits alike.
_SPEED_FAMILIES = frozenset({"throughput", "ttft", "latency"})


def _told_otherwise(article: Article, t: TracedFigure, told: set[str],
                    labels: list[tuple[str, set[str]]], chosen: list[Hit]) -> Finding | None:
    """A warning when the clause calls a figure of no metric by a family that none of the
    facts it traces to names beside its number ("70% lower memory use" where the fact gives
    "70% higher throughput"): the facts are prose, so the checker cannot be sure."""
    labels = [(term, named) for term, named in labels if named and term.lower() not in (
        GENERIC_WORDS if told <= _SPEED_FAMILIES else frozenset())]
    if not labels or any(named & told or BROADER.get(term.lower(), frozenset()) & told
                         or _fact_says(article, t, term) for term, named in labels):
        return None
    term, named = labels[0]
    where = next((h for h in chosen if h[2] == term), None)
    start, end = with_label(article.body, t.figure.start, t.figure.end, where)
    sources = ", ".join(tr.describe() for tr in t.traces if tr.origin != "date")
    return body_span(
        article, start, end, Severity.warning, "mislabeled-figure",
        f"{t.figure.text!r} traces to {sources}, which calls it {', '.join(sorted(told))}, "
        f"but its clause calls it {term!r} ({', '.join(sorted(named))}); the evidence is "
        "prose, so the checker cannot be sure", trace=tried(t))


def check_vocabulary(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    vocab = vocabularies(article)
    all_terms = [w for words in vocab.values() for w in words]
    spans = clauses(article.body)
    by_clause = group_in(spans, [o.figure for o in traced if o.figure.kind is not FigureKind.date],
                         lambda f: (f.start, f.end))
    findings = []
    per_clause: dict[int, tuple[list[Hit], dict[int, tuple[int, int]]]] = {}
    forbidding = article_prohibitions(article)  # "Do not call the 90% a latency cut"
    for t in traced:
        own = metric_families(t)
        clause = enclosing(spans, t.figure.start, t.figure.end)
        if not (own or _typed(t)) or clause is None or _self_labelled(t) or (
                own and not surely_traced(article, t)):
            continue
        neighbours = by_clause.get(clause.start, [])
        if clause.start not in per_clause:  # the clause's words and ranges, read once
            per_clause[clause.start] = (find_terms(clause.text, all_terms, clause.start),
                                        range_spans(article.body, neighbours))
        terms, ranges = per_clause[clause.start]
        hits = [h for h in terms
                if not in_prohibition(forbidding, h[0], h[1])
                and not _noun_of_another(h, t.figure, neighbours, article.body)
                and article.body[h[0]:h[1]].lower() != "means"  # "a 36% saving means ..."
                and not _qualifies_constraint(article.body, h)
                and not names_another_kind(article, t, _families(vocab, h[2]))]
        if not hits:
            continue
        # a figure of no metric: what the facts it traces to call it beside its number
        told = set() if own else _evidence_families(article, t)
        if not (own or told):
            continue
        head = _head_label(article.body, ranges[t.figure.start], hits)
        # the figure's own unit takes part in which word is nearest to which figure, but it
        # labels nothing: "36 tokens per second" says a rate, not which metric
        chosen = [h for h in ([head] if head is not None else _labels_of(
                      t.figure, hits, neighbours, ranges[t.figure.start], article.body))
                  if not _own_unit(article.body, t.figure, h)]
        labels = [(term, {f for f, words in vocab.items() if term in words})
                  for _, _, term in chosen]
        if not labels:
            continue
        if told:
            if (finding := _told_otherwise(article, t, told, labels, chosen)) is not None:
                findings.append(finding)
            continue
        if any(named & own or fits_own(article, term, t)
               or BROADER.get(term.lower(), frozenset()) & own for term, named in labels):
            continue
        if speed_like(article, t):  # "2.2 times faster" for a latency reduction
            # a speedup of no one family ("decoding speedup") is a ratio of times and of
            # rates alike: the bare "latency" or "throughput" classing it ("the 2x is a
            # latency result") names it as well as the other
            # (a word right after the figure, "3.7x lower latency", still says which)
            generic = (GENERIC_WORDS | _BARE_SPEED_FAMILIES
                       if head is None and not own & set(DEFAULT_VOCABULARY) and not any(
                           metric_words(article, m) & _NAMED_SPEED for m in t.metrics)
                       else GENERIC_WORDS)
            labels = [(term, named) for term, named in labels
                      if term.lower() not in generic or (
                          term.lower() in _BARE_SPEED_FAMILIES
                          and _names_other_metric(article, t, term.lower()))]
        if not labels or fits_other_kind(article, t, labels) or not known_family(article, t):
            continue
        if any(_fact_says(article, t, term) for term, _ in labels):
            continue  # "30% higher network cost": a fact with the same number says "cost"
        term, named = labels[0]
        message = (f"{t.figure.text!r} traces to {', '.join(sorted(t.metrics))} but its clause "
                   f"calls it {term!r} ({', '.join(sorted(named))})")
        where = next((h for h in chosen if h[2] == term), None)
        start, end = with_label(article.body, t.figure.start, t.figure.end, where)
        findings.append(body_span(article, start, end, Severity.error,
                                  "mislabeled-figure", message, trace=tried(t)))
    return findings
