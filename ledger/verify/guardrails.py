"""Guardrails: each pre-publication guardrail is enforced on the body, or reported unchecked.

A guardrail is checked through its structured ``rule`` when it has one; otherwise its prose is
read for the common phrasings (:func:`rule_from_prose`):

* "Do not label X as Y, Z or W" -> forbidden label (X must contain a figure);
* "Do not conflate A with B" -> separate experiments (figures and words of A and of B);
* "Do not repeat X as current ...; D documentation describes S" -> dated status (X and D must
  contain dates, S names the subject);
* "A, B and C are distinct dates" -> distinct dates (each item must hold a date, or say
  "today's", which is the observation date). A document named as an interval's reference
  ("two months after the arXiv posting, on D") is not the one D dates; a date the prose could
  give to more than one of the documents is a warning, not an error.

A violation is an error with rule id ``guardrail``, except a join of the experiments a
separate-experiments guardrail keeps apart: that mistake is ``conflated-experiments``, whoever
declared the experiments, and its message names the guardrail. A guardrail that has no rule and
whose prose cannot be read is a warning, ``unchecked-guardrail``: never passed in silence.
"""

from __future__ import annotations

import datetime as dt
import re
from bisect import bisect_left
from collections.abc import Callable
from decimal import Decimal

from ..figures import Figure, FigureKind, extract_figures, quantize
from ..models import (
    Article,
    Correction,
    CorrectionStatus,
    DatedStatusRule,
    DistinctDatesRule,
    ExperimentSpec,
    ForbiddenLabelRule,
    GuardrailRule,
    SeparateExperimentsRule,
)
from ..quantities import Kind, Quantity, metric_quantity, parse_unit, typed_figures
from ..report import Finding, Severity
from .conflations import WORKED_DOUBT, conflations, stated_as_written, worked_relation
from .denials import check_denial, denials
from .derivations import check_form, form_rule
from .experiments import Experiment, derived_inputs
from .meaning import _NEGATED_BEFORE, _same_word, check_prose_rule, find_lemmas, prose_rule
from .ownlabel import names_noun, own_label, range_start
from .prose import (
    Span,
    clauses,
    enclosing,
    find_terms,
    following,
    group_in,
    paragraphs,
    sentences,
)
from .secondhand import check_secondhand, secondhand
from .stale import check_stale, stale_rule
from .text import body_span
from .tracing import TracedFigure
from .transfers import check_transfer, transfer_rule
from .vocabulary import metric_family, vocabularies

__all__ = ["check_guardrails", "guardrail_rules", "rule_from_prose"]

_LABEL_RE = re.compile(
    r"^\s*Do not (?:label|call|describe|present|report) (?P<fig>.+?) as (?P<labels>[^;.]+)",
    re.IGNORECASE)
#: "Do not merge A and B [into one claim | as one result] [or present ...]": B ends where the
#: joining phrase or the next instruction starts; a bracket's commas are its own ("Micron's
#: sample figures (11 Gbps, 2.8 TB/s)").
_CONFLATE_RE = re.compile(
    r"^\s*Do not (?:conflate|mix|merge|combine) (?P<a>(?:\([^()]*\)|[^(])+?) (?:with|and|to) "
    r"(?P<b>(?:\([^()]*\)|[^(])+?)(?=\s+(?:into|as\s+(?:one|a\s+single)|together)\b|,?\s+(?:or|and|nor)\s+"
    r"(?:do\s+not\s+|never\s+)?(?:present|describe|call|label|treat|report|add|sum|credit|"
    r"attribute|state|say|write)\b|\s*[;.,]|\s*$)",
    re.IGNORECASE)
_STATUS_RE = re.compile(
    r"^\s*Do not (?:repeat|present|report|describe) (?P<stale>.+?) as current (?P<what>[^;.]+)"
    r"(?:[;.]\s*(?P<obs>.+?)\s+(?:describes?|documents?|shows?|lists?|states?)\s+"
    r"(?P<subject>[^;.]+))?", re.IGNORECASE)
_DISTINCT_RE = re.compile(r"^\s*(?P<items>.+?)\s+are\s+(?:distinct|different|separate)\s+dates",
                          re.IGNORECASE)
_LIST_SPLIT_RE = re.compile(r",(?!\s*\d)\s*(?:and\s+|or\s+|nor\s+)?|\s+(?:and|or|nor)\s+")
_STOPWORDS = {"the", "a", "an", "of", "experiment", "experiments", "run", "runs", "test",
              "tests", "result", "results", "benchmark", "its", "their", "this", "that"}
#: how far back a date without its own name looks for the document it dates
_CONTEXT_CHARS = 400
_CONJUNCTION_RE = re.compile(r"\b(?:and|or|but|while|whereas)\b|[;:]", re.IGNORECASE)
#: A conjunction that opens a subordinate clause with its own verb or subject ("before quoting
#: the 3.2x", "because nobody has reproduced it"): a word before it belongs to the main clause.
_SUBORDINATE_RE = re.compile(
    r"\b(?:before|after|until|unless|because|although|though|once|since)\s+(?:\w+ing|it|they|"
    r"you|we|he|she|nobody|no\s+one|anyone|someone|the\s+\w+\s+(?:is|are|was|were|has|have))\b",
    re.IGNORECASE)
#: "total memory falls by less than four times": the labelled quantity is bounded by the
#: figure, so it is not the figure; the sentence keeps the guardrail
_BOUND_BEFORE = re.compile(r"\b(?:(?:less|fewer|smaller)\s+than|short\s+of|well\s+(?:under|below))"
                           r"\s+(?:about\s+|roughly\s+)?$", re.IGNORECASE)
_TODAY_RE = re.compile(r"\b(?:today'?s?|current|this)\b", re.IGNORECASE)


def _one_value(text: str) -> Decimal | None:
    values = [f.value for f in extract_figures(text) if f.value is not None
              and f.kind is not FigureKind.date]
    return values[0] if len(values) == 1 else None


def _evidence_dates(article: Article) -> list[dt.date]:
    dates = [article.as_of_date, article.publication_date, article.observation_date]
    for src in article.sources:
        dates += [d for d in (src.published_at, src.updated_at, src.page_date) if d]
    if article.benchmark_scope:
        dates.append(article.benchmark_scope.publication_date)
    return dates


def _resolve_date(text: str, article: Article) -> dt.date | None:
    """The one date a phrase names: written out, or "today's" (the observation date)."""
    dated = [f for f in extract_figures(text) if f.kind is FigureKind.date and f.date]
    if len(dated) == 1:
        f = dated[0]
        if f.date_precision == "day":
            return f.date
        assert f.date is not None
        matches = {d for d in _evidence_dates(article)
                   if (d.month, d.day) == (f.date.month, f.date.day)}
        return matches.pop() if len(matches) == 1 else None
    if not dated and _TODAY_RE.search(text):
        return article.observation_date
    return None


def _is_unit(word: str) -> bool:
    """``Gbps``, ``TB/s``: the whole word is a unit."""
    unit = parse_unit(word, 0)
    return unit is not None and unit[1] == len(word)


def _terms(text: str) -> list[str]:
    words = [re.sub(r"(?:'s|’s)$", "", w.strip(".,;:'\"()")) for w in text.split()]
    return [w for w in words if w and w.lower() not in _STOPWORDS
            and not any(c.isdigit() for c in w)]


def _distinct_from_prose(items_text: str, article: Article) -> DistinctDatesRule | None:
    dates: dict[str, dt.date] = {}
    terms: dict[str, list[str]] = {}
    for item in filter(None, (s.strip() for s in _LIST_SPLIT_RE.split(items_text))):
        date = _resolve_date(item, article)
        if date is None:
            return None
        dates[item] = date
        terms[item] = _terms(item)
    if len(dates) < 2:
        return None
    return DistinctDatesRule(kind="distinct_dates", dates=dates, terms=terms)


#: an adjective that qualifies a noun said later: an ordinal or a participle/adjective form
_ADJECTIVE_RE = re.compile(r"^(?:first|second|third|fourth|fifth|other|another|further|new|"
                           r"[a-z]+(?:ing|ed|al|ive|ent|ant|ous|ic|ary|ible|able))$")
_ARTICLE_RE = re.compile(r"^(?:an?|the)\s+", re.IGNORECASE)


def _distribute(labels: list[str]) -> list[str]:
    """Adjectives coordinated before one noun each qualify it: "a second or confirming
    evaluation" forbids "second evaluation" and "confirming evaluation" (not "a second");
    a list of nouns ("a throughput, cost or GPU saving") stays as it is."""
    if len(labels) < 2:
        return labels
    words = [_ARTICLE_RE.sub("", label).split() for label in labels]
    *first, last = words
    if len(last) < 2 or not all(len(w) == 1 and _ADJECTIVE_RE.match(w[0]) for w in first):
        return labels
    noun = " ".join(last[1:])
    return [f"{w[0]} {noun}" for w in first] + [" ".join(last)]


def rule_from_prose(text: str, article: Article) -> GuardrailRule | None:
    """A structured rule read from a guardrail's prose, or None when it cannot be read."""
    if m := _LABEL_RE.match(text):
        value = _one_value(m.group("fig"))
        labels = _distribute([s.strip() for s in _LIST_SPLIT_RE.split(m.group("labels"))
                              if s.strip()])
        if value is not None and labels:
            return ForbiddenLabelRule(kind="forbidden_label", value=float(value), forbidden=labels)
        return None
    if m := _CONFLATE_RE.match(text):
        parts = (m.group("a"), m.group("b"))
        # a word both parts use ("figures"), or a unit, tells neither experiment apart
        shared = {w.lower() for w in _terms(parts[0])} & {w.lower() for w in _terms(parts[1])}
        specs = [ExperimentSpec(name=part.strip(), values=[float(v) for v in _values(part)],
                                terms=[w for w in _terms(part) if w.lower() not in shared
                                       and not _is_unit(w)]) for part in parts]
        if all(s.values or s.terms for s in specs):
            return SeparateExperimentsRule(kind="separate_experiments", experiments=specs)
        return None
    if m := _STATUS_RE.match(text):
        stale = _resolve_date(m.group("stale"), article)
        observed = _resolve_date(m.group("obs") or "", article)
        if stale is None or observed is None or not m.group("subject"):
            return None
        return DatedStatusRule(kind="dated_status", subjects=[m.group("subject").strip()],
                               observed_on=observed, stale_dates=[stale])
    if m := _DISTINCT_RE.match(text):
        return _distinct_from_prose(m.group("items"), article)
    return None


def _values(text: str) -> list[Decimal]:
    return [v for f in extract_figures(text) if f.kind is not FigureKind.date for v in f.values]


def _guardrail_prefix(article: Article, index: int) -> str:
    """How a finding names the guardrail it breaks; the report matches findings to guardrails
    by it."""
    return f"guardrail {index + 1} ({article.corrections[index].text[:60]!r}...): "


def _violation(article: Article, start: int, end: int, index: int, message: str,
               severity: Severity = Severity.error) -> Finding:
    return body_span(article, start, end, severity, "guardrail",
                     f"{_guardrail_prefix(article, index)}{message}")


def _forbidden(rule: ForbiddenLabelRule, article: Article, traced: list[TracedFigure],
               index: int) -> list[Finding]:
    """A forbidden word that labels the protected figure breaks the rule.

    Sure (an error): the word is in the figure's own label, the phrase it carries ("20% lower
    power", "the 5x is a throughput result"; :func:`.ownlabel.own_label`), or the figure carries
    no words and the word is nearer to it than to any other figure of its clause (or sentence):
    "throughput rose 1.9x" breaks the rule, while "3.8 times the throughput and 46-fold lower
    TTFT" does not (throughput is 3.8's word). A word in another figure's own label is that
    figure's ("6x in the prefix stage and 8x in decoding"). When the figure carries its own
    label and the word sits elsewhere in the clause ("a 10x speedup ... with accuracy
    maintained"), the checker cannot be sure it labels the figure: a note."""
    body = article.body
    spans = clauses(body) if rule.scope == "clause" else sentences(body)
    by_span = group_in(spans, [o.figure for o in traced if o.figure.kind is not FigureKind.date],
                       lambda f: (f.start, f.end))
    findings = []
    exact = _evidence_values(article)
    pointed: set[tuple[int, int]] = set()
    for t in traced:
        span = (enclosing(spans, t.figure.start, t.figure.end) if _targets(rule, t, exact)
                and not _BOUND_BEFORE.search(body, max(0, t.figure.start - 30), t.figure.start)
                else None)
        if span is None:
            continue
        neighbours = by_span.get(span.start, [])
        span = _with_heading(body, spans, span, by_span)
        labels = {(f.start, f.end): own_label(body, f, span.end) for f in neighbours}
        found = _labelled(rule, article, t, span, neighbours, labels)
        if found is None and rule.scope == "clause":
            found = _appositive(rule, body, spans, span, by_span)
        again = False
        if found is None and (found := _said_again(rule, body, span, by_span)) is not None:
            if found[:2] in pointed:
                continue  # one finding per sentence that points back
            pointed.add(found[:2])
            again = True
        if found is not None:
            start, end, term, sure = found
            said = body[start:end]
            # the other forbidden words of the same phrase: "the batched throughput"
            for s2, e2, _t in find_lemmas(span.text, rule.forbidden, span.start):
                if s2 >= end and re.fullmatch(r"[\s\w-]{0,20}", body[end:s2]):
                    end = e2
            message = (
                f"the sentence after {t.figure.text!r} points back at it and calls it {said!r}"
                f"{'' if said.lower() == term.lower() else f' (read as {term!r})'}, which this "
                "guardrail forbids (it may point at another figure: the checker cannot be sure)"
                if again else
                f"{t.figure.text!r} is labelled {said!r}, which this guardrail forbids"
                if sure else
                f"{t.figure.text!r} is described as {said!r} in the words after it, which "
                "this guardrail forbids (the checker cannot be sure)"
                if sure is False and said.lower() == term.lower() else
                f"{t.figure.text!r} is labelled {said!r}, read as {term!r}, which this "
                "guardrail forbids (a synonym: the checker cannot be sure)"
                if sure is False else
                f"{t.figure.text!r} carries its own label {_label_text(body, labels, t.figure)!r}"
                f"; {term!r} in its clause may label it, which this guardrail forbids (the "
                "checker cannot be sure)")
            severity = (Severity.note if sure is None else
                        Severity.error if sure else Severity.warning)
            findings.append(_violation(  # from the figure to the word that breaks it
                article, min(t.figure.start, start), max(t.figure.end, end), index, message,
                severity))
    return findings


_APPOSITIVE_RE = re.compile(r"^\s*(?:an?|the|its|their|one)\s+(?:[\w'’-]+\s+)?$", re.IGNORECASE)


def _appositive(rule: ForbiddenLabelRule, body: str, spans: tuple[Span, ...], span: Span,
                by_span: dict[int, list[Figure]]) -> tuple[int, int, str, bool | None] | None:
    """A forbidden label in a clause without figures that follows the figure's clause in its
    sentence ("repeats the figure as 55%; a second evaluation that confirms it"): that clause
    can only describe a figure before it. Not sure: a warning."""
    sentence = enclosing(sentences(body), span.start, span.end)
    if sentence is None:
        return None
    # the clauses after the figure's, found by bisection (a scan from the first clause for
    # every figure would make a long body quadratic)
    for k in range(bisect_left(spans, span.end, key=lambda c: c.start), len(spans)):
        clause = spans[k]
        if clause.end > sentence.end or by_span.get(clause.start):
            break
        # a noun phrase set after a semicolon or a dash, headed by the label: "; a second
        # evaluation that ..." (a clause with its own subject and verb is about that subject)
        lead = body[max(0, clause.start - 3):clause.start]
        if not re.search(r"[;—–]\s*$", lead):
            break
        for start, end, term in find_lemmas(clause.text, rule.forbidden, clause.start):
            if _APPOSITIVE_RE.match(body[clause.start:start]):
                return start, end, term, False
        break  # only the clause right after the figure's
    return None


#: A sentence that opens by pointing back at the figure before it: "That is ...", "This
#: figure counts as ...", "It remains ...".
_POINTS_BACK_RE = re.compile(
    r"\s*(?:\[S\d+\]\s*)*(?:That|This|It|Such\s+a\s+\w+|(?:That|This|The)\s+(?:figure|number|"
    r"rate|result|value|claim|ceiling|peak|maximum))\s+(?:is|was|remains|represents|counts\s+as|"
    r"reflects|describes|amounts\s+to|means)\b")


def _said_again(rule: ForbiddenLabelRule, body: str, span: Span,
                by_span: dict[int, list[Figure]]) -> tuple[int, int, str, bool | None] | None:
    """A forbidden label in the next sentence, when that sentence has no figure and opens by
    pointing back ("... up to 4,000 tokens per second. That is the typical rate across
    tasks."): it can only describe what came before. The figure it points at may be another
    of the sentence before, so the checker cannot be sure: a warning."""
    spans = sentences(body)
    sentence = enclosing(spans, span.start, span.end)
    if sentence is None:
        return None
    after = following(spans, sentence)
    if after is None or by_span.get(after.start) or "\n\n" in body[sentence.end:after.start]:
        return None
    if any(f.kind is not FigureKind.date for f in extract_figures(after.text)):
        return None
    opening = _POINTS_BACK_RE.match(after.text)
    if opening is None:
        return None
    for start, end, term in find_lemmas(after.text, rule.forbidden, after.start):
        if not _NEGATED_BEFORE.search(body[after.start:start]):
            return start, end, term, False
    return None


def _with_heading(body: str, spans: tuple[Span, ...], span: Span,
                  by_span: dict[int, list[Figure]]) -> Span:
    """A clause after a colon, with the clause before it when that one has no figure: the
    heading names the figure ("End-to-end latency: 2.2x lower")."""
    end = span.start  # the text before the clause, without its trailing white space (read
    while end > 0 and body[end - 1].isspace():  # in place: a copy would make this quadratic)
        end -= 1
    if end == 0 or body[end - 1] != ":":
        return span
    before = enclosing(spans, end - 2, end - 1)
    if before is None or by_span.get(before.start) or "\n" in body[before.start:span.start]:
        return span
    return Span(before.start, span.end, body[before.start:span.end])


def _label_text(body: str, labels: dict[tuple[int, int], tuple[int, int] | None],
                fig: Figure) -> str:
    own = labels.get((fig.start, fig.end))
    return body[own[0]:own[1]] if own else ""


def _labelled(rule: ForbiddenLabelRule, article: Article, t: TracedFigure, span: Span,
              neighbours: list[Figure], labels: dict[tuple[int, int], tuple[int, int] | None]
              ) -> tuple[int, int, str, bool | None] | None:
    """``(start, end, term, sure)`` of the first forbidden word that labels ``t``'s figure:
    sure True (the word itself), False (a synonym), None (the figure names itself and the word
    sits elsewhere)."""
    body, fig = article.body, t.figure
    own = labels.get((fig.start, fig.end))
    before = [f for f in neighbours if f.end <= fig.start]
    first = range_start(body, fig, before[-1] if before else None)
    # a range written "2.8 to 5 times" stands as one figure: its first number is no rival
    rivals = [f for f in neighbours if f is fig or not first <= f.start < fig.start]
    unsure = None
    for start, end, term in find_lemmas(span.text, rule.forbidden, span.start):
        if _names_another_metric(article, rule, t, term, span.text):
            continue  # "67% lower model cost": the figure's other metric, named rightly
        if _NEGATED_BEFORE.search(body[span.start:start]):
            continue  # "the 5x is not a throughput result" keeps the guardrail
        # the forbidden word itself is sure; a synonym of it is read, not sure: a warning
        exact = any(_same_word(body[start:end], t) for t in rule.forbidden)
        if own is not None and own[0] <= start and end <= own[1]:
            return start, end, term, exact
        if any(lab is not None and lab[0] <= start and end <= lab[1] for key, lab
               in labels.items() if key != (fig.start, fig.end)):
            continue  # another figure's own words
        candidates = [f for f in rivals if f.start < start or not _self_named(body, f)
                      or (f is fig and _a_time(body, f))] or rivals
        # a word after "and", "but", "while" starts the next conjunct: it names what follows
        # ("3.3 times and TTFT improved 5 times"), not the figure before the conjunction
        candidates = [f for f in candidates if f.end > start
                      or not _CONJUNCTION_RE.search(body[f.end:start])] or candidates
        if fig.start >= end and _SUBORDINATE_RE.search(body, end, fig.start):
            continue  # "measure throughput before quoting the 3.2x": the main clause's word
        if _nearest_figure(start, end, candidates, fig, first) is not fig:
            continue
        if not names_noun(body, own):
            return start, end, term, exact
        unsure = unsure or (start, end, term, None)
    return unsure


def _names_another_metric(article: Article, rule: ForbiddenLabelRule, t: TracedFigure,
                          term: str, clause: str) -> bool:
    """True when the figure also traces to a metric other than the rule's, and the word is
    that metric's (its family's vocabulary or its own name)."""
    others = [m for m in t.metrics if m != rule.metric]
    if not rule.metric or not others:
        return False
    specs = (article.benchmark_scope.metric_specs or {}) if article.benchmark_scope else {}
    if any(m in specs for m in others):
        # the other metric's own words (not the forbidden word, not the rule metric's) must
        # be in the clause: "a 67% cost reduction" is the model-cost figure, "a cost saving
        # per GPU" is the throughput-per-GPU figure mislabelled
        def words(metric: str) -> set[str]:
            spec = specs.get(metric)
            text = " ".join((spec.label, *spec.vocabulary)) if spec else metric.replace("_", " ")
            return {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z][\w-]+", text)}
        own = words(rule.metric) | {w.lower().rstrip("s") for w in term.split()} | _STOPWORDS
        theirs = set().union(*(words(m) for m in others if m in specs)) - own
        said = {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z][\w-]+", clause)}
        return bool(theirs & said)
    vocab = vocabularies(article)
    low = term.lower()
    return any(low in (w.lower() for w in vocab.get(metric_family(m), [])) or low in m.lower()
               for m in others)


def _targets(rule: ForbiddenLabelRule, t: TracedFigure, exact: frozenset[Decimal]) -> bool:
    """The figure states the rule's figure: its metric, or its value at the figure's
    precision, unless the figure is exactly another value of the evidence ("12x" beside a
    protected 11.7x is the 12x the evidence states, not 11.7x rounded)."""
    if rule.metric and rule.metric in t.metrics:
        return rule.value is None or not _rounded_away(Decimal(str(rule.value)), t, exact)
    if rule.value is None or t.figure.kind is FigureKind.date:
        return False
    target = Decimal(str(rule.value))
    return any(quantize(target, t.figure.decimals) == v for v in t.figure.values) and (
        not _rounded_away(target, t, exact))


def _rounded_away(target: Decimal, t: TracedFigure, exact: frozenset[Decimal]) -> bool:
    """The figure is not ``target`` but exactly another number of the evidence."""
    return target not in t.figure.values and any(v in exact for v in t.figure.values)


def _evidence_values(article: Article) -> frozenset[Decimal]:
    """Every number the article's evidence states exactly: facts, reported metrics,
    inference inputs and results."""
    texts = [f.claim for f in article.facts] + [i.claim for i in article.inferences]
    values = {v for text in texts for f in extract_figures(text)
              if f.kind is not FigureKind.date for v in f.values}
    scope = article.benchmark_scope
    values |= {Decimal(str(v)) for v in (scope.reported_metrics.values() if scope else ())}
    return frozenset(values)


def _self_named(body: str, fig: Figure) -> bool:
    """A figure that carries its own noun or unit ("a 128,000-token context", "40 GB/s") is not
    labelled by a word before it: "a 41x gain in tokens per GPU with a 128,000-token context"
    labels the 41x."""
    return body[fig.end:fig.end + 1] == "-" or parse_unit(body, fig.end) is not None


def _a_time(body: str, fig: Figure) -> bool:
    """A time ("0.57 s") says how long, not what took that long: the protected figure may
    still be labelled by a word before it ("its first token in 0.57 s")."""
    unit = parse_unit(body, fig.end)
    return unit is not None and unit[0].dimension == "s"


def _nearest_figure(start: int, end: int, figures: list[Figure], fig: Figure | None = None,
                    fig_start: int | None = None) -> Figure | None:
    """The figure nearest to the word at ``[start, end)``; ``fig`` is measured from
    ``fig_start`` (the start of the range it ends)."""
    def distance(f: Figure) -> tuple[int, int]:
        f_start = fig_start if f is fig and fig_start is not None else f.start
        gap = max(start - f.end, f_start - end, 0)
        return gap, 0 if f.end <= start else 1  # ties: the figure before the word wins
    return min(figures, key=distance, default=None)


def _typed_experiment(article: Article, spec: ExperimentSpec, text: str) -> Experiment:
    """The experiment of a join guardrail, each value typed by the reported metric that states
    it (a metric of the experiment of that name first), so that a "15%" is not the paper's
    "15x"; else as the guardrail's own ``text`` writes it ("<1 µs" is a duration, never "1
    lane"); a value neither types stays untyped."""
    scope = article.benchmark_scope
    metrics = scope.reported_metrics if scope else {}
    specs = (scope.metric_specs or {}) if scope else {}
    written: dict[Decimal, Quantity] = {}
    for f, q in typed_figures(text):
        if q.kind is not Kind.number:
            for v in f.values:
                written.setdefault(v, q)
    experiment = Experiment(spec.name, terms=list(spec.terms))
    for value in (Decimal(str(v)) for v in spec.values):
        named = sorted((name for name, v in metrics.items() if Decimal(str(v)) == value),
                       key=lambda n: (specs[n].experiment != spec.name) if n in specs else True)
        experiment.add(named[0] if named else "", value, metric_quantity(
            named[0], specs[named[0]].kind if named[0] in specs else None) if named
            else written.get(value))
    return experiment


def _separate(rule: SeparateExperimentsRule, article: Article, traced: list[TracedFigure],
              index: int) -> list[Finding]:
    """A sentence that joins the experiments a guardrail keeps apart is a
    ``conflated-experiments`` error, whoever declared the experiments (the scope's metric specs
    or this guardrail): the rule names the mistake; the message names the guardrail it breaks,
    so that the report still shows that guardrail as violated."""
    experiments = [_typed_experiment(article, e, article.corrections[index].text)
                   for e in rule.experiments]
    return [
        body_span(article, start, end, Severity.warning if worked else Severity.error,
                  "conflated-experiments",
                  f"{_guardrail_prefix(article, index)}this sentence joins the {second.name!r} "
                  f"experiment to the {first.name!r} experiment as one result; keep them in "
                  "separate sentences" + (WORKED_DOUBT if worked else ""))
        for start, end, first, second in conflations(
            article, experiments, use_terms=True, computed=derived_inputs(article, traced),
            as_written=stated_as_written(article, traced))
        for worked in [worked_relation(article.body, start, end)]
    ]


#: Documents whose contents change after they are first published.
_LIVING = r"(?:README|docs?|documentation|guide|manual|wiki)"
#: "cite the documentation (as retrieved)": only a living document shows the current status.
_CITE_LIVING = re.compile(rf"\bcite (?:the |its |their )?(?:current |live )?{_LIVING}\b", re.I)


def _source_dates(article: Article, source_id: str, retrieved: bool = False,
                  living_only: bool = False) -> set[dt.date]:
    """The dates a source shows its contents as of: its own dates, else (undated
    documentation) the day it was retrieved; with ``retrieved``, that day too: a guardrail
    that says "as retrieved on D" takes the retrieval as the observation, unless it asks to
    cite the documentation (``living_only``) and this source is no living document (a dated
    announcement stays as of its own date)."""
    for src in article.sources:
        if src.id == source_id:
            dated = {d for d in (src.published_at, src.updated_at, src.page_date) if d}
            living = re.search(rf"\b{_LIVING}\b", src.title, re.I) is not None
            if retrieved and (living or not living_only):
                return dated | {src.retrieved_at}
            return dated or {src.retrieved_at}
    return set()


def _dated(rule: DatedStatusRule, article: Article, index: int) -> list[Finding]:
    retrieved = re.search(r"\bretriev", article.corrections[index].text, re.I) is not None
    living_only = _CITE_LIVING.search(article.corrections[index].text) is not None
    findings = []
    paras = paragraphs(article.body)
    stale = {(d.month, d.day) for d in rule.stale_dates}
    for sentence in sentences(article.body):
        for start, end, term in find_terms(sentence.text, rule.subjects, sentence.start):
            para = enclosing(paras, start, end)
            cited = re.findall(r"\[(S\d+)\]", para.text if para else "")
            observed = any(rule.observed_on in _source_dates(article, s, retrieved, living_only)
                           for s in cited)
            in_sentence = [f for f in extract_figures(sentence.text)
                           if f.kind is FigureKind.date and f.date
                           and (f.date.month, f.date.day) in stale]
            if in_sentence or not observed:
                why = ("it is dated with a stale date" if in_sentence else
                       f"its paragraph cites no source observed on {rule.observed_on}")
                findings.append(_violation(
                    article, start, end, index,
                    f"{term!r} is stated as current feature status but {why}"))
    return findings


#: "after the arXiv posting", "two months before the launch", "since Acme's first preview": the
#: document named after it is the point an interval counts from, not the event a date labels
_REFERENCE_BEFORE = re.compile(
    r"\b(?:after|before|since|following|preceding|ahead\s+of|prior\s+to|until|till)\s+"
    r"(?:(?:the|a|an|its|their|his|her|this|that|[\w-]+['’]s)\s+)?(?:[\w'’.-]+\s+){0,2}$",
    re.IGNORECASE)


def _reference(body: str, hit: tuple[int, int, str], fig: Figure, clause: Span | None) -> bool:
    """The document of ``hit`` is named as an interval's reference point ("two months after the
    arXiv posting, on March 17"), unless the date is written inside that reference phrase
    ("after the arXiv posting on January 18"): then it is that document's date."""
    if not _REFERENCE_BEFORE.search(body, max(0, hit[0] - 60), hit[0]):
        return False
    return not (clause is not None and clause.contains(hit[0], hit[1]) and hit[1] <= fig.start)


def _one_reading(all_terms: list[tuple[str, str]], hits: list[tuple[int, int, str]],
                 nearest: tuple[int, int, str], owners: set[str], clause: Span | None) -> bool:
    """The prose gives the date to ``owners`` alone: no other of the guardrail's documents is
    named in the sentence, or none other in the date's clause, which names ``nearest``."""
    def named(where: list[tuple[int, int, str]]) -> set[str]:
        return {label for label, t in all_terms for h in where if t == h[2]}
    in_clause = [h for h in hits if clause is not None and clause.contains(h[0], h[1])]
    return named(hits) == owners or (nearest in in_clause and named(in_clause) == owners)


def _distinct(rule: DistinctDatesRule, article: Article, index: int) -> list[Finding]:
    """A date of one document given to another of the guardrail's documents.

    The date goes to the document named nearest to it in its sentence; a document named as an
    interval's reference point ("after X") is not the one it dates. Sure (an error) only when
    the prose leaves no other reading: the sentence names no other of the guardrail's
    documents, or the date's clause names that one alone; otherwise a warning that says the
    checker cannot be sure."""
    findings = []
    body = article.body
    spans, parts = sentences(body), clauses(body)
    all_terms = [(label, t) for label, terms in rule.terms.items() for t in terms]
    for fig in extract_figures(body):
        labels = [label for label, d in rule.dates.items() if _same_date(fig, d)]
        sentence = enclosing(spans, fig.start, fig.end)
        if len(labels) != 1 or sentence is None:
            continue
        clause = enclosing(parts, fig.start, fig.end)
        said = find_terms(sentence.text, [t for _, t in all_terms], sentence.start)
        hits = [h for h in said if not _reference(body, h, fig, clause)]
        if said and not hits:
            continue  # only reference points are named: the date is the main clause's event
        context = ""
        if not hits:  # "The release post, dated ...": the last one named before it
            window = max(0, sentence.start - _CONTEXT_CHARS)
            hits = find_terms(body[window:sentence.start], [t for _, t in all_terms],
                              window)[-1:]
            context = " (named in the text before this sentence; the checker cannot be sure)"
        if not hits:
            continue
        nearest = min(hits, key=lambda h: max(h[0] - fig.end, fig.start - h[1], 0))
        owners = {label for label, t in all_terms if t == nearest[2]}
        if labels[0] in owners:
            continue
        sure = not context and _one_reading(all_terms, hits, nearest, owners, clause)
        if not sure and not context:
            context = (" (the sentence names more than one of these documents; the checker "
                       "cannot be sure which one the date is given to)")
        findings.append(_violation(
            article, fig.start, fig.end, index,
            f"{fig.text!r} is the date of the {labels[0]!r} but is given to the "
            f"{' / '.join(sorted(owners))!r}{context}",
            Severity.error if sure else Severity.warning))
    return findings


def _same_date(fig: Figure, date: dt.date) -> bool:
    if fig.kind is not FigureKind.date or fig.date is None:
        return False
    if fig.date_precision == "month_day":
        return (fig.date.month, fig.date.day) == (date.month, date.day)
    return fig.date_precision == "day" and fig.date == date


def guardrail_rules(article: Article) -> list[tuple[int, Correction, GuardrailRule | None]]:
    """Each guardrail with its rule: the structured one, else the one read from its prose."""
    out = []
    for i, correction in enumerate(article.corrections):
        if correction.rule is None and correction.status is not (
                CorrectionStatus.prepublication_guardrail):
            continue
        out.append((i, correction, correction.rule or rule_from_prose(correction.text, article)))
    return out


def _apply(rule: GuardrailRule, article: Article, traced: list[TracedFigure],
           index: int) -> list[Finding]:
    if isinstance(rule, ForbiddenLabelRule):
        return _forbidden(rule, article, traced, index)
    if isinstance(rule, SeparateExperimentsRule):
        return _separate(rule, article, traced, index)
    if isinstance(rule, DatedStatusRule):
        return _dated(rule, article, index)
    return _distinct(rule, article, index)


def _more_readings(text: str) -> list[Callable[[Article, int], list[Finding]]]:
    """The checks of the other prose phrasings a guardrail holds: a secondary source that did
    not measure (:mod:`.secondhand`), a forbidden derivation or percent (:mod:`.derivations`)."""
    out: list[Callable[[Article, int], list[Finding]]] = []
    if (relayed := secondhand(text)) is not None:
        out.append(lambda article, index: check_secondhand(relayed, article, index))
    if (form := form_rule(text)) is not None:
        out.append(lambda article, index: check_form(form, article, index))
    if (carried := transfer_rule(text)) is not None:
        out.append(lambda article, index: check_transfer(carried, article, index))
    if (dated := stale_rule(text)) is not None:
        out.append(lambda article, index: check_stale(dated, article, index))
    return out


def check_guardrails(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """``guardrail`` errors for violations; ``unchecked-guardrail`` warnings for the rest."""
    findings = []
    for index, correction, rule in guardrail_rules(article):
        prose = prose_rule(correction.text) if correction.rule is None else None
        if isinstance(rule, ForbiddenLabelRule) and all(
                len(label.split()) <= 2 for label in rule.forbidden):
            prose = None  # "do not describe the 100 as GPU memory": the label read exactly
        denied = denials(correction.text) if correction.rule is None else []
        more = _more_readings(correction.text) if correction.rule is None else []
        if prose is not None or denied or more:  # by meaning too, beside a phrasing read exactly
            found = _apply(rule, article, traced, index) if rule is not None else []
            for check in more:
                found += check(article, index)
            if prose is not None:
                found += check_prose_rule(prose, article, traced, index)
            for denial in denied:
                found += check_denial(denial, article, traced, index)
            taken: set[tuple[str, int | None, int | None]] = set()
            for f in found:  # one finding of a rule per place
                if (f.rule, f.line, f.column) not in taken:
                    taken.add((f.rule, f.line, f.column))
                    findings.append(f)
            continue
        if rule is None:
            findings.append(Finding(
                Severity.warning, "unchecked-guardrail",
                "this guardrail has no structured rule and its wording is not one the checker "
                "can read; add a `rule` so it is enforced", f"/corrections/{index}/text"))
            continue
        findings += _apply(rule, article, traced, index)
    return findings
