"""``conflated-experiments`` from a one-run claim: "in the same batch-256 run", "in that same
H200 run", "in a single benchmark session" says the sentence's figures come from one run. The
sentence joins two experiments when

* its figures belong to two experiments (the experiments of :mod:`.experiments`, by value,
  each figure on its own, the ends of a range too; a figure of the desk's own arithmetic
  belongs to the experiment its inputs come from), or
* the run the claim names is another experiment than its figures'. The claim names a run by
  the words of an experiment's name in its clause ("the same *latency* run" for the "latency
  script" experiment): an error; or it points back to an earlier sentence, the nearest one
  that writes every word of the claim ("that same Llama 3.1 8B run", a few paragraphs back at
  most) or, for a claim without words of its own ("the same run"), the nearest one of its
  paragraph with figures of an experiment: a warning, since the checker resolves that
  reference by words, not by meaning.

A sentence that keeps experiments apart (:data:`.conflations.SEPARATION_RE`) makes no claim.
"""

from __future__ import annotations

import re
from decimal import Decimal

from ..models import Article
from ..quantities import typed_figures
from ..report import Finding, Severity
from .conflations import SEPARATION_RE
from .conflations import _name_words as name_words
from .experiments import Experiment, derived_inputs, experiments_of, sentence_owners
from .prose import Span, enclosing, paragraphs, sentences
from .text import body_span
from .tracing import TracedFigure

__all__ = ["ONE_RUN_RE", "check_one_run_claims"]

#: A claim that figures come from one run: "the same ... run", "a single ... session"; not "the
#: same study" or "the same post", a publication that may hold several experiments.
ONE_RUN_RE = re.compile(
    r"\b(?:(?:the|that|this)\s+(?:very\s+)?same|a\s+single)\s+"
    r"(?P<inner>(?:(?!(?:and|or|of|as|to|with)\b)[\w.-]+\s+){0,4})"
    r"(?:run|session|test|benchmark|experiment|measurement|trial|sweep|setup|configuration)"
    r"s?\b", re.IGNORECASE)
#: Where the claim's clause ends: at a semicolon or colon, or a comma or full stop before a
#: space ("10,755" goes on).
_CLAUSE_END_RE = re.compile(r"[;:]|[,.](?=\s|$)")
_LOOK_BACK = 3
_LOOK_BACK_NAMED = 12
_DETERMINERS = frozenset({"the", "a", "an", "its", "their", "that", "this", "one"})

Owned = dict[int, tuple[int, int, Experiment]]


def _owned(article: Article, sentence: Span, experiments: list[Experiment],
           derived: dict[int, frozenset[Decimal]], traced: list[TracedFigure]) -> Owned:
    """Figure start -> (start, end, experiment) for the figures of the sentence with one
    experiment; a figure of the desk's arithmetic takes the experiment of its inputs."""
    owned: Owned = {}
    for fig, quantity in typed_figures(sentence.text):
        owners = [exp for exp in experiments if exp.owns(fig, quantity)]
        if len(owners) == 1 and not quantity.spelled:  # each end of "from 100 to 300" too
            start = sentence.start + fig.start
            owned[start] = (start, sentence.start + fig.end, owners[0])
    numbers = derived.get(sentence.start, frozenset())
    inputs = [exp for exp in experiments if any(v in numbers for v in exp.values)]
    if len(inputs) == 1:
        for t in traced:
            if (sentence.start <= t.figure.start < sentence.end and t.traces
                    and t.figure.start not in owned
                    and all(tr.origin in ("inference", "computation") for tr in t.traces)):
                owned[t.figure.start] = (t.figure.start, t.figure.end, inputs[0])
    return owned


def _named(text: str, experiments: list[Experiment]) -> set[str]:
    """Experiments a word of ``text`` names, by a word of their name no other name has."""
    words = {w.rstrip("s") for w in re.findall(r"[a-z][a-z0-9-]*", text.lower())}
    out = set()
    for exp in experiments:
        others: set[str] = set().union(*(name_words(o.name) for o in experiments if o is not exp))
        if any(w.rstrip("s") in words for w in name_words(exp.name) - others):
            out.add(exp.name)
    return out


def _antecedent(article: Article, before: list[Span], paragraph_start: int, inner: str,
                experiments: list[Experiment]) -> set[str]:
    """The experiments of the earlier sentence a claim points back to: the nearest one that
    writes every word of the claim ("that same Llama 3.1 8B run"), or, for a claim without
    words of its own ("the same run"), the nearest one of the paragraph with figures of an
    experiment."""
    words = {w.lower() for w in re.findall(r"[\w.-]+", inner)} - _DETERMINERS
    candidates = before if words else [s for s in before if s.start >= paragraph_start]
    for sentence in candidates[::-1][:_LOOK_BACK if not words else _LOOK_BACK_NAMED]:
        said = {w.lower() for w in re.findall(r"[\w.-]+", sentence.text)}
        if words and not words <= said:
            continue
        found = {exp.name for _, _, exp in sentence_owners(article, sentence, experiments,
                                                           False)}
        if found:
            return found
    return set()


def _finding(article: Article, claim: re.Match[str], offset: int, clause_end: int,
             foreign: list[tuple[int, int, Experiment]], referred: set[str],
             severity: Severity) -> Finding:
    start = min([offset + claim.start()] + [s for s, _, _ in foreign])
    end = max([clause_end] + [e for _, e, _ in foreign])
    theirs = sorted({exp.name for _, _, exp in foreign})
    named = (f"the run it names is the {', '.join(sorted(referred))} experiment" if referred
             else "they are not one run")
    return body_span(article, start, end, severity, "conflated-experiments",
                     f"{claim.group()!r} says these figures come from one run, but figures of "
                     f"the {', '.join(theirs)} experiment are here and {named}; keep them in "
                     "separate sentences or name each run")


def check_one_run_claims(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """``conflated-experiments`` for one-run claims over figures of other experiments."""
    experiments = experiments_of(article)
    if len(experiments) < 2:
        return []
    derived = derived_inputs(article, traced)
    spans = sentences(article.body)
    paras = paragraphs(article.body)
    findings = []
    for i, sentence in enumerate(spans):
        claim = ONE_RUN_RE.search(sentence.text)
        if claim is None or SEPARATION_RE.search(sentence.text):
            continue
        owned = _owned(article, sentence, experiments, derived, traced)
        if not owned:
            continue
        tail = _CLAUSE_END_RE.search(sentence.text, claim.end())
        clause_end = sentence.start + (tail.start() if tail else len(sentence.text))
        referred = _named(article.body[sentence.start + claim.start():clause_end], experiments)
        severity = Severity.error
        if not referred:
            para = enclosing(paras, sentence.start, sentence.end)
            referred, severity = _antecedent(
                article, list(spans[:i]), para.start if para is not None else sentence.start,
                claim.group("inner"), experiments), Severity.warning
        own = {exp.name for _, _, exp in owned.values()}
        if len(own) >= 2 and not referred:
            first = min(owned.values(), key=lambda m: m[0])[2].name
            foreign = [m for m in owned.values() if m[2].name != first]
            findings.append(_finding(article, claim, sentence.start, clause_end, foreign,
                                     set(), Severity.error))
        elif referred and own - referred:
            foreign = [m for m in owned.values() if m[2].name not in referred]
            findings.append(_finding(article, claim, sentence.start, clause_end, foreign,
                                     referred, severity))
    return findings
