"""``mislabeled-figure`` by a figure's baseline: a baseline written after a figure ("29x over
FlexGen"), read "respectively" from a list, or opening the sentence ("Against round-robin: ...")
that is another metric's label baseline, not the figure's own; or that is the baseline another
fact gives for another figure, where the figure's own fact names a different one.
"""

from __future__ import annotations

import re
from decimal import Decimal

from ..figures import extract_figures
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


#: The baseline of a multiple: "1.9 times the throughput of X", "2x the goodput of X".
_OF_BASELINE_RE = re.compile(
    r"(?:\s*[×x]|\s+times)?\s+the\s+[\w-]+(?:\s+[\w-]+)?\s+of\s+"
    r"(?P<b>[^,;:.()]+?)(?=\s+(?:and|or|on|at|with|for|in|while|when|using)\b|[,;:.()]|$)",
    re.IGNORECASE)


def _baseline_after(text: str, end: int) -> re.Match[str] | None:
    """The baseline written right after a figure ending at ``end``, if any."""
    return _BODY_BASELINE_RE.match(text, end) or _OF_BASELINE_RE.match(text, end)


#: A fact's baseline runs on through a list of systems ("1.22x and 1.29x compared with the
#: kernels of A and B"), and ends where another comparison begins ("8x over A and 9x over B").
_FACT_BASELINE_RE = re.compile(
    r"(?:\s*[×x]|\s+times)?(?:\s+[\w-]+){0,3}?\s+(?:" + _BASELINE_WORD[3:-1] + r"|of)\s+"
    r"(?P<b>[^,;:.()]+?)(?=\s+(?:and|or)\s+(?:[\w-]+\s+)?\d|\s+(?:on|at|with|for|in|while|"
    r"when)\b|[,;:.()]|$)", re.IGNORECASE)


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
    m = _baseline_after(body, t.figure.end)
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


def _has_number(text: str) -> bool:
    """A figure in digits ("than 197 TFLOPs"): a comparison with a value, not a system (a name
    such as "DeepSpeed-Zero-Inference" holds only a number word)."""
    return any(not f.spelled for f in extract_figures(text))


def _fact_baselines(article: Article) -> dict[str, list[tuple[tuple[Decimal, ...], set[str]]]]:
    """Fact id -> (values, baseline words) for each figure of its claim that names a baseline
    after it ("1.91x the throughput of vLLM" does not; "1.91x over vLLM" does)."""
    out: dict[str, list[tuple[tuple[Decimal, ...], set[str]]]] = {}
    for fact in article.facts:
        for fig in extract_figures(fact.claim):
            m = _FACT_BASELINE_RE.match(fact.claim, fig.end)
            if m is not None and not _has_number(m.group("b")) and (
                    words := _baseline_words(m.group("b"))):  # "than 197 TFLOPs" is no system
                out.setdefault(fact.id, []).append((fig.values, words))
    return out


#: Words that describe a baseline without naming one.
_GENERIC_BASELINE = frozenset({
    "state-of-the-art", "sota", "existing", "prior", "previous", "other", "leading", "competing",
    "conventional", "traditional", "popular", "inference", "serving", "engine", "framework",
    "solution", "approach", "method", "alternative", "best", "current", "open-source",
    "standard", "typical", "default", "naive", "vanilla", "original"})


def _share_word(a: set[str], b: set[str]) -> bool:
    """Whether two baselines share a word, or the stem of one ("quantized" and
    "quantization" share "quanti")."""
    return bool(a & b) or any(len(x) > 5 and len(y) > 5 and x[:6] == y[:6] for x in a for y in b)


def _fact_baseline_findings(article: Article, traced: list[TracedFigure]) -> list[Finding]:
    """``mislabeled-figure`` when the body states a figure against a baseline that shares no
    word with the baseline its fact names ("2.1x over A" where the fact gives 2.1x over B).
    An error when the stated baseline is the one another fact gives another figure (the two
    were swapped); a warning otherwise, for it may be the fact's baseline under another name
    ("Transformers" for "HF"). A fact whose baseline is generic ("state-of-the-art systems")
    settles nothing."""
    stated = _fact_baselines(article)
    findings = []
    for t in traced:
        own = [words for tr in t.traces if tr.fact_id in stated
               for values, words in stated[tr.fact_id] if values == t.figure.values]
        if any(not words - _GENERIC_BASELINE for words in own):
            continue  # "over state-of-the-art systems": any system named may be one of them
        said_at = _said_baseline(article, t) if own else None
        if said_at is None:
            continue
        text, said_end = said_at
        said = set() if _has_number(text) else _baseline_words(text)
        if not said or any(_share_word(said, words) for words in own):
            continue
        others = [words for pairs in stated.values() for values, words in pairs
                  if values != t.figure.values]
        sure = any(said <= words for words in others)  # another figure's baseline: swapped
        start, end = min(t.figure.start, said_end - len(text)), max(t.figure.end, said_end)
        if article.body.count("\n", start, end):
            start, end = t.figure.start, t.figure.end
        facts = ", ".join(sorted({tr.fact_id for tr in t.traces if tr.fact_id in stated}))
        findings.append(body_span(
            article, start, end, Severity.error if sure else Severity.warning,
            "mislabeled-figure",
            f"{t.figure.text!r} is stated against {text.strip()!r}, but its evidence ({facts}) "
            f"gives it against {' / '.join(sorted(' '.join(sorted(w)) for w in own))}" + (
                f"; the article's facts name {text.strip()!r} as another system" if sure else
                " (another name for the same system? the checker cannot be sure)"),
            trace=tried(t)))
    return findings


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
    flagged = {(f.line, f.column) for f in findings}
    return findings + [f for f in _fact_baseline_findings(article, traced)
                       if (f.line, f.column) not in flagged]
