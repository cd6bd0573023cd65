"""``conflated-experiments``: one sentence joins figures of two different experiments (the
scope's main run and its ``separate_scaling_experiment``, or the ``experiment`` of each metric
spec, see :mod:`.experiments`) without words that keep them apart ("a separate scaling
experiment", "a different deployment", "whereas", "unlike", "cannot be compared", "do not
agree", ...). Two figures are no join when one fact states them as one result (the source's
own combination: "with 20% of tokens kept, up to 29x"), and a range is an experiment's only when
both its ends are. A figure or word inside a prohibition ("Do not call the 50x an end-to-end
gain", :mod:`.prohibitions`) joins nothing: the sentence forbids the join it names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal

from ..figures import Figure, FigureKind, extract_figures, quantize
from ..models import Article
from ..report import Finding, Severity
from .experiments import (
    Experiment,
    Mark,
    computed_from,
    derived_inputs,
    experiments_of,
    sentence_owners,
    term_marks,
)
from .prohibitions import article_prohibitions, in_prohibition
from .prose import Span, enclosing, find_terms, sentences
from .ranges import enumerations
from .scope import per_article
from .text import body_span
from .tracing import Trace, TracedFigure, build_index

__all__ = ["SEPARATION_RE", "WORKED_DOUBT", "check_conflations", "conflations", "worked_relation"]


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
    r"|\b(?:sits?\s+\S+\s+(?:above|below)|a\s+gap)\b"
    # the two ends of a spread of separate results: "up to 1.9x at one end and up to 3.6x at
    # the other"
    r"|\bat\s+one\s+end\b(?:[^.;]|\.(?=\d))*\bat\s+the\s+other\b"
    # a choice between results: "ask which mode the provider runs: the 5% to 15% saving at
    # stock clocks, or the 20% performance gain"
    r"|\b(?:which|whether)\b[^.;]*?,\s+or\s+(?:the|a|an|its|their)\b",
    re.IGNORECASE)


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


@per_article
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


def _a_setting_of(facts: list[list[Figure]], fig: Figure | None, mine: Experiment,
                  other: Figure | None, theirs: Experiment) -> bool:
    """``fig``, a count or a bare number, is stated by a fact in one result with ``other``, and
    that result states more values of ``theirs`` than of ``mine``: the figure is a setting of
    their result ("at (32, 32, 512, 64)" in a row of the commit's TFLOPS)."""
    def count(numbers: list[Figure], exp: Experiment) -> int:  # distinct values it states
        return len({v for n in numbers for v in n.values if v in exp.values})
    if fig is None or fig.kind not in (FigureKind.number, FigureKind.noun_count):
        return False  # a result (2x, 40%) is no setting, whatever a fact lists beside it
    return other is not None and any(
        _states(numbers, fig) and _states(numbers, other)
        and count(numbers, theirs) > count(numbers, mine) for numbers in facts)


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
#: not inside a date ("May 6, 2026"); ", and it answers" starts an independent clause. Two
#: phrases of one role coordinated without a comma are items too: "by up to 3.85x against A
#: and by up to 5.81x against B", "says that X and that Y", "... and up to 6.7x ...", and
#: alternatives ("up to 11.7x faster or 12x the throughput"); they are apart only when each
#: names its own experiment (:func:`_listed_apart`).
_ITEM_SEP_RE = re.compile(
    r"[;:]\s*|,\s+(?!\d{4}\b)"
    r"|\s+(?:and|or)\s+(?=(?:that|by|against|compared|versus|over)\b)"
    r"|\s+(?:and|or)\s+(?=(?:an?\s+)?(?:up\s+to\s+|about\s+|roughly\s+|nearly\s+|some\s+)?\d)"
    # a second predicate of the subject: "achieved 1.25-3.96x ... and came within 10% ..."
    r"|\s+(?:and|but)\s+(?=(?:[a-z]{3,}ed|came|ran|fell|rose|grew|took|gave|made|hit|beat|"
    r"won|kept|held|met|got)\s)"
    # "... and the 50x figure is the kernel alone": a clause whose subject is its own, kept
    # with its conjunction so that :data:`_OWN_FIGURE_SUBJECT_RE` reads it
    r"|\s+(?=(?:and|but|while|whereas)\s+(?:the|its|their|this|that)\s+(?:[\w.%'’-]+\s+){1,3}?"
    r"(?:is|are|was|were)\b)")


_OWN_SUBJECT_RE = re.compile(
    r"^(?:and|but|while|whereas)\s+(?:[a-z][\w-]*\s+){0,4}?"
    r"(?:(?:it|they|he|she|we)\s+[a-z]+|the\s+\w+\s+[a-z]+(?:s|ed))\b")
#: A clause whose subject is its own figure and a linking verb: ", and 75% more requests means
#: 1.75 times as many", ", but the 35% is a count".
_OWN_FIGURE_SUBJECT_RE = re.compile(
    r"^(?:and|but|while|whereas)\s+(?:(?:the|a|an|its|their|this)\s+)?(?:[\w.,%'’-]+\s+){0,4}?"
    r"(?:means|meant|is|are|was|were|equals|equalled|amounts|translates|corresponds|"
    r"stands|comes)\b")
#: Words by which a later clause ties itself back to the result before it: then it joins.
_TIES_RE = re.compile(r"\b(?:(?:the|that|this)\s+same|also|as\s+well|both|together|combined|"
                      r"on\s+top\s+of)\b", re.IGNORECASE)
_PART_SEP_RE = re.compile(r"\s*;\s*")
#: Words that make a sentence's results one result, however its list names their parts:
#: "Together, ...", "... at once", "one 13-node deployment delivered ...".
_AS_ONE_RE = re.compile(
    r"^\s*(?:together|combined|in\s+total|all\s+told|between\s+them)\b"
    r"|\bat\s+(?:once|the\s+same\s+time)\b|\bsimultaneously\b"
    r"|\b(?:one|a\s+single)\s+(?:[\w-]+\s+){0,2}(?:deployment|cluster|machine|system)\s+"
    r"(?:delivered|delivers|handled|handles|served|serves|ran|runs|reached|reaches|achieved|"
    r"achieves|sustained|sustains)\b", re.IGNORECASE)


#: Connectives that add one result to another as one: never a list.
_JOINS_RE = re.compile(r"^(?:on\s+top\s+of|in\s+addition\s+to|plus|combined\s+with|together\s+"
                       r"with|compounding|adding\s+to|stacked\s+on|as\s+well\s+as)\b", re.I)


#: Words that say a figure comes from the run just named: "in the same runs", "that same
#: demo", "in that run"; never a list of separate results.
_SAME_RUN_RE = re.compile(
    r"\b(?:the|that|this|one)\s+(?:very\s+)?same\b"
    r"|\b(?:in|from|during|on)\s+(?:that|this)\s+(?:run|test|demo|setup|experiment|trial|"
    r"deployment|benchmark|study|evaluation)s?\b", re.IGNORECASE)
#: the head nouns any experiment may have ("the thesis system", "the 70B setup"): a list item
#: that says "system throughput" does not name the thesis system
_NAME_STOP = frozenset({"test", "tests", "run", "runs", "experiment", "the", "of", "and", "on",
                        "with", "a", "an", "for", "in", "benchmark", "result", "results",
                        "system", "systems", "setup", "setups"})


def _list_items(sentence: Span) -> list[Span]:
    return _split_spans(sentence.text, sentence.start)


#: The low end of a range that "between" opens: "between 1.16" (its "and" joins the range's ends,
#: it separates no items).
_BETWEEN_LOW_RE = re.compile(r"\bbetween\s+(?:about\s+|roughly\s+)?[\d.,]+\s*[^\s\d]{0,6}$",
                             re.IGNORECASE)


def _split_spans(text: str, offset: int) -> list[Span]:
    spans, start = [], 0
    for m in _ITEM_SEP_RE.finditer(text):
        if m.group().strip() == "and" and _BETWEEN_LOW_RE.search(text, 0, m.start()):
            continue
        spans.append(Span(offset + start, offset + m.start(), text[start:m.start()]))
        start = m.end()
    spans.append(Span(offset + start, offset + len(text), text[start:]))
    return spans


def _name_words(name: str) -> set[str]:
    """Content words of an experiment's name ("8xH100 long test": h100, long); a figure in the
    name ("the bench's 3.3x") and a possessive's "s" are no words."""
    spaced = re.sub(r"(?<=\d)x(?=[a-z])", " ", name.lower())
    spaced = re.sub(r"['’]s\b|(?<![\w.-])\d[\d.,]*(?:x|%)?(?![\w-])", " ", spaced)
    return {w for w in re.findall(r"[a-z][a-z0-9-]*", spaced) if w not in _NAME_STOP}


def _names_itself(item: Span, exp: Experiment, other: Experiment) -> int:
    """2 when the list item carries a word of its own experiment's name that the other's lacks
    ("for the small test on the H100s", "for long-context inference"), 1 when it carries one of
    its own terms ("on TREC" for the LongBench experiment), else 0."""
    own = _name_words(exp.name) - _name_words(other.name)
    words = {w.rstrip("s") for w in re.findall(r"[a-z][a-z0-9-]*", item.text.lower())}
    if any(w.rstrip("s") in words or (len(w) >= 7 and any(
            x.startswith(w[:6]) for x in words)) for w in own):
        return 2
    theirs = {t.lower() for t in other.terms}
    return int(any(term.lower() not in theirs
                   for _, _, term in find_terms(item.text, [t for t in exp.terms if t])))


def _parts_apart(text: str, offset: int, first: int, second: int) -> bool:
    """The two positions lie in different parts of a list cut by semicolons ("on LongBench,
    ... 0.7% ...; and in a needle test, ... 128 ..."), and no part from the second's on ties
    itself back ("in that same run", "combined with")."""
    cuts = [offset + m.start() for m in _PART_SEP_RE.finditer(text)]
    between = [c for c in cuts if first <= c < second]
    if not between:
        return False
    later = text[between[0] - offset:]
    return not _TIES_RE.search(later) and not any(
        _JOINS_RE.match(re.sub(r"^(?:and|but)\s+", "", part.strip()))
        for part in _PART_SEP_RE.split(later))


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


def _listed_apart(items: list[Span], a: tuple[int, int, Experiment],
                  b: tuple[int, int, Experiment], experiments: list[Experiment]) -> bool:
    """Two figures of different experiments in one sentence that do not join them: in different
    list items each naming its own experiment ("29 to 69% lower on the serving benchmark,
    28 to 30% lower for long-context inference"), or in independent clauses ("it fits three
    times as many tokens, and on long prompts it answers 13 times faster")."""
    if any(_AS_ONE_RE.search(it.text) for it in items):
        return False  # "Together, one 13-node deployment delivered 54,543 prefill and ..."
    first, second = sorted((a, b), key=lambda m: m[0])
    item_a = enclosing(items, first[0], first[1])
    item_b = enclosing(items, second[0], second[1])
    if item_a is None or item_b is None or item_a.start == item_b.start:
        return False
    between = [it for it in items if item_a.start < it.start <= item_b.start]
    if any(_JOINS_RE.match(it.text) or _SAME_RUN_RE.search(it.text) for it in between):
        return False  # "..., on top of the paper's 15-times gain", "..., in that same demo"
    named_a, named_b = _result_item(items, item_a), _result_item(items, item_b)
    ties = any(_TIES_RE.search(it.text) for it in items if it.start > item_a.start)
    by_a = _names_itself(named_a, first[2], second[2])
    by_b = _names_itself(named_b, second[2], first[2])
    if by_a and by_b and (by_a == by_b == 2 or not ties):
        return True  # a term names a part of its experiment unless a later part ties back
    if any(_OWN_SUBJECT_RE.match(it.text) for it in between):
        return True
    return not ties and any(_OWN_FIGURE_SUBJECT_RE.match(it.text) for it in between)


#: A figure that names a document rather than stating a result: "the 3.6x listing", "the
#: "up to 3.6x" post", "its 2x announcement".
_DOC_NAME_BEFORE_RE = re.compile(r"\b(?:the|its|their|that|this)\s+(?:up\s+to\s+)?[\"“]?$",
                                 re.IGNORECASE)
_DOC_NAME_AFTER_RE = re.compile(r"[\"”]?\s+(?:post|listing|paper|item|announcement|article|"
                                r"blog|entry|release|headline|page|thread|write-?up|slide)s?\b")


def _names_document(body: str, start: int, end: int) -> bool:
    return bool(_DOC_NAME_BEFORE_RE.search(body, max(0, start - 16), start)
                and _DOC_NAME_AFTER_RE.match(body, end))


@per_article
def stated_as_written(article: Article, traced: list[TracedFigure]) -> dict[int, Figure]:
    """Figures (by start) whose every value some evidence they trace to states with exactly
    those digits ("1.3x" where a fact says "about 1.3x"): such a figure is that evidence's,
    not an experiment's value that merely rounds to it (1.29)."""
    numbers: dict[Trace, set[Decimal]] = {}
    for ev in build_index(article).numbers:
        numbers.setdefault(ev.trace, set()).add(ev.value)
    return {t.figure.start: t.figure for t in traced if t.traced and all(
        any(v in numbers.get(tr, ()) for tr in t.traces) for v in t.figure.values)}


def _rounded_only(mark: Mark, written: Mapping[int, Figure]) -> bool:
    """The mark's figure is other evidence's as written and no exact value of its experiment."""
    figure = written.get(mark[0])
    return figure is not None and not any(v in mark[2].values for v in figure.values)


def conflations(article: Article, experiments: list[Experiment], *, use_terms: bool = False,
                computed: Mapping[int, frozenset[Decimal]] | None = None,
                as_written: Mapping[int, Figure] | None = None
                ) -> list[tuple[int, int, Experiment, Experiment]]:
    """Spans where a sentence joins a second experiment to the first, with both experiments.

    Only figures identify an experiment unless ``use_terms``; at least one side must be a figure.
    ``as_written``: figures other evidence states with their very digits
    (:func:`stated_as_written`), which an experiment owns only by an exactly equal value.
    """
    out: list[tuple[int, int, Experiment, Experiment]] = []
    if len(experiments) < 2:
        return out
    facts = _facts_figures(article)
    forbidding = article_prohibitions(article)  # "Do not call the 50x end-to-end": no join
    for sentence in sentences(article.body):
        if SEPARATION_RE.search(sentence.text):
            continue
        placed = [m for m in sentence_owners(article, sentence, experiments, False)
                  if not in_prohibition(forbidding, m[0], m[1])
                  and not _names_document(article.body, m[0], m[1])]
        if as_written:  # "up to about 1.3x" from the kernel table, not the 1.29 rounded
            placed = [m for m in placed if not _rounded_only(m, as_written)]
        if computed and sentence.start in computed:  # the desk's own arithmetic combines
            # its inputs on purpose: only a figure it does not compute from can be joined
            placed = [m for m in placed
                      if not _computed(computed[sentence.start], article.body, m)]
        if not placed:
            continue  # at least one side of a join is a figure
        written = {(sentence.start + f.start, sentence.start + f.end): f
                   for f in extract_figures(sentence.text)}
        # a figure a fact states in one result with another experiment's figure of this
        # sentence is that result's setting ("at batch 32 ... 290.005 TFLOPS" from one
        # commit's row): no mark of its own experiment, for a figure or for a word
        placed = [m for m in placed if not any(
            n[2] is not m[2] and _a_setting_of(facts, written.get((m[0], m[1])), m[2],
                                               written.get((n[0], n[1])), n[2])
            for n in placed)]
        if not placed:
            continue
        marks = sorted(placed + [m for m in term_marks(article, sentence, experiments)
                                 if not in_prohibition(forbidding, m[0], m[1])],
                       key=lambda m: m[0]) if use_terms else placed
        if len({id(m[2]) for m in marks}) < 2:
            continue
        figures = {(s, e) for s, e, _ in placed}
        enumerated = enumerations(sentence.text, sentence.start)
        items = _list_items(sentence)
        for i, (start, end, exp) in enumerate(marks):
            earlier = [m for m in marks[:i] if m[2] is not exp
                       and not _listed_apart(items, m, (start, end, exp), experiments)
                       and not _parts_apart(sentence.text, sentence.start, m[1], start)
                       and not _stated_together(facts, written.get((m[0], m[1])),
                                                written.get((start, end)))
                       and not (m[0] in enumerated and enumerated.get(m[0])
                                == enumerated.get(start))]
            if not earlier or not use_terms and any(
                    _stated_together(facts, written.get((m[0], m[1])), written.get((start, end)))
                    for m in marks[:i] if m[2] is not exp):
                # a source states this figure with one of the other experiment's: its setting
                # ("an additional 30% with 3D at 512 GPUs"), not a figure joined to it; a
                # guardrail's own words for an experiment still join ("in the same simulated
                # scenarios, Kimi handled 75% more")
                continue
            if (start, end) in figures:
                first = earlier[0]
                _, _, exp, other = _foreign(figures, marks, (start, end, exp), first)
                # the joined stretch: from one experiment's figure to the other's
                out.append((min(start, first[0]), max(end, first[1]), other, exp))
                break
            placed = [m for m in earlier if (m[0], m[1]) in figures]
            if placed:  # a word of this experiment joined to a figure of another: the
                # stretch from that figure to this experiment's last mark in the sentence
                last = max(m[1] for m in marks if m[2] is exp)
                out.append((placed[-1][0], max(placed[-1][1], last), exp, placed[-1][2]))
                break
    return out


def _computed(values: frozenset[Decimal], body: str, mark: Mark) -> bool:
    figure = next((f for f in extract_figures(body[mark[0]:mark[1]])), None)
    return figure is not None and computed_from(values, figure)


def worked_relation(body: str, start: int, end: int) -> bool:
    """Whether the sentence around ``[start, end)`` works one of its figures out of two others
    ("1,536 GiB over 16 chips is 96 GiB each, and 16 chips at 1,299 TFLOPS make 20.8
    PFLOPS"): a product of two figures of at least 2 (a quotient is a product read the other
    way), within 0.25%, at a scale of 1 or 1,000, in a sentence that says it works it out
    ("divided by", "is ... each", "make", "PCT's check"). Such a
    sentence relates two experiments' figures by arithmetic; whether it also presents them as
    one result the checker cannot tell, so a join there is a warning."""
    span = enclosing(sentences(body), start, end)
    if span is None or not _WORKING_RE.search(span.text):
        return False
    values = sorted({float(f.values[0]) for f in extract_figures(span.text)
                     if not f.spelled and f.values and f.values[0] >= 2})[:12]
    for i, a in enumerate(values):
        for j, b in enumerate(values):
            if i == j:
                continue
            for k, c in enumerate(values):
                if k in (i, j):
                    continue
                for scale in (1.0, 1000.0, 0.001):
                    if abs(a * b * scale - c) <= _WORKED_TOLERANCE * c:
                        return True
    return False


#: Words by which a sentence says it works a figure out: "divided by 16", "1,536 GiB over 16
#: chips is 96 GiB each", "16 chips at 1,299 TFLOPS make 20.8 PFLOPS", "PCT's check".
_WORKING_RE = re.compile(
    r"\b(?:divided\s+by|multiplied\s+by|over\s+\d[\d,]*\s+[\w-]+\s+is|each\s+of\s+which|"
    r"makes?|works?\s+out|comes?\s+to|(?:PCT|the\s+desk)(?:'s|’s)\s+(?:check|arithmetic|sum))"
    r"\b|\bis\s+[^.;]{0,40}?\beach\b|\s=\s", re.IGNORECASE)
#: How near a product must come to the figure it works out ("16 chips at 1,299 TFLOPS make
#: 20.8 PFLOPS": 20.784, within 0.2%).
_WORKED_TOLERANCE = 0.0025


def check_conflations(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    return [
        body_span(article, start, end, Severity.warning if worked else Severity.error,
                  "conflated-experiments",
                  f"this sentence joins a figure of the {second.name} experiment to the "
                  f"{first.name} experiment as one result; keep them in separate sentences"
                  + (WORKED_DOUBT if worked else ""))
        for start, end, first, second in conflations(
            article, experiments_of(article), computed=derived_inputs(article, traced),
            as_written=stated_as_written(article, traced))
        for worked in [worked_relation(article.body, start, end)]
    ]


WORKED_DOUBT = (" (the sentence works one of its figures out of the others, so it may "
                 "relate the two experiments rather than join them: the checker cannot be sure)")
