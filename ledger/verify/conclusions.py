"""``unsupported-conclusion``: the body draws a sweeping conclusion that nothing in the article
states ("This shows that DeepSeek overstated the result", "... proves that round-robin should
never be used").

What is detected, and only this, because it can be detected reliably: a sentence with a
conclusion verb and ``that`` (shows, proves, demonstrates, establishes, confirms, means) whose
conclusion uses a sweeping word (overstated, obsolete, always, never, cheapest, will replace,
...), when no inference or fact of the article uses that word. Whether the facts *support* a
conclusion is an editor's judgement, so the finding is a warning that says so.
"""

from __future__ import annotations

import re

from ..models import Article
from ..report import Finding, Severity
from .prose import sentences
from .text import body_span

__all__ = ["SWEEPING_WORDS", "check_conclusions"]

_CONCLUDES_RE = re.compile(
    r"\b(?:shows?|showed|proves?|proved|demonstrates?|demonstrated|establishes|established|"
    r"confirms?|confirmed|means)\s+that\s+(?P<claim>.+?)\s*[.!?]?$", re.IGNORECASE)
#: Words that make a conclusion sweeping: a judgement of someone's honesty or a universal.
SWEEPING_WORDS = (
    "overstated", "overstates", "overstate", "exaggerated", "exaggerates", "inflated", "misled",
    "wrong", "false", "obsolete", "always", "never", "cheapest", "fastest", "best", "worst",
    "replace", "replaces", "will", "guarantees", "guaranteed", "universally", "every", "any",
    "no longer", "all", "only", "must",
)
_SWEEPING_RE = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in SWEEPING_WORDS) + r")\b",
                          re.IGNORECASE)


def _stated(article: Article, word: str) -> bool:
    pattern = re.compile(rf"\b{re.escape(word)}\b", re.IGNORECASE)
    texts = [inf.claim for inf in article.inferences] + [f.claim for f in article.facts]
    return any(pattern.search(t) for t in texts)


def check_conclusions(article: Article) -> list[Finding]:
    """A warning for each sweeping conclusion that the article's evidence never states."""
    findings = []
    for sentence in sentences(article.body):
        m = _CONCLUDES_RE.search(sentence.text)
        if m is None:
            continue
        claim = m.group("claim")
        word = _SWEEPING_RE.search(claim)
        if word is None or _stated(article, word.group()):
            continue
        start = sentence.start + m.start("claim")
        findings.append(body_span(
            article, start, start + len(claim), Severity.warning, "unsupported-conclusion",
            f"this conclusion ({word.group()!r}) is stated by no inference or fact of the "
            "article; the checker cannot decide whether the facts support it: add an inference "
            "with its basis, or soften the wording"))
    return findings
