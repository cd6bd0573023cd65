"""``mislabeled-figure`` by a figure's baseline: a baseline written after a figure ("29x over
FlexGen"), read "respectively" from a list, or opening the sentence ("Against round-robin: ...")
that is another metric's label baseline, not the figure's own.
"""

from __future__ import annotations

import re

from ..models import Article
from ..quantities import lemma
from ..report import Finding, Severity
from .prose import enclosing, sentences
from .ranges import enumerations
from .text import body_span
from .tracing import TracedFigure, tried

__all__ = ["RESPECTIVELY_RE", "check_baselines"]


#: What names a baseline: "over FlexGen", "than vanilla vLLM", "versus x86 H100".
_BASELINE_WORD = r"(?:over|than|versus|vs\.?|against|compared\s+(?:with|to)|relative\s+to)"


#: The baseline after a figure: "29x over X", "40% lower TTFT than X" (a few words between).
_BODY_BASELINE_RE = re.compile(
    r"(?:\s*[×x])?(?:\s+[\w-]+){0,3}?\s+" + _BASELINE_WORD
    + r"\s+(?P<b>[^,;:.()]+?)(?=\s+(?:and|or|on|at|with|for|in|while|when|using)\b|[,;:.()]|$)",
    re.IGNORECASE)


RESPECTIVELY_RE = re.compile(r"[^.;]{0,80}?\brespectively\b", re.IGNORECASE)


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
        resp = RESPECTIVELY_RE.match(body, m.end("b"))
        if resp is None:
            return m.group("b"), m.end("b")
        items = _LIST_SPLIT_RE.split(body[m.start("b"):resp.end() - len("respectively")].strip())
        sentence = enclosing(sentences(body), t.figure.start, t.figure.end)
        if sentence is None:
            return None
        listed = enumerations(sentence.text, sentence.start)
        group = sorted(k for k, g in listed.items() if g == listed.get(t.figure.start))
        if len(group) != len(items) or t.figure.start not in group:
            return None
        return items[group.index(t.figure.start)], resp.end()
    sentence = enclosing(sentences(body), t.figure.start, t.figure.end)
    lead = _LEADING_BASELINE_RE.match(sentence.text) if sentence is not None else None
    if sentence is None or lead is None:
        return None
    return lead.group("b"), sentence.start + lead.end("b")


def check_baselines(article: Article, traced: list[TracedFigure]) -> list[Finding]:
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
