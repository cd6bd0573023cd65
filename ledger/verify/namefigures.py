"""Numbers inside names: a version ("TensorRT-LLM v0.14.0", "0.10.08") or a model's size
("Llama 3.1 405B", "a 1B draft model") that the body writes and no evidence does.

Names with digits are not figures (:mod:`ledger.figures` leaves them out of tracing), but the
number in them is still a claim: the version a benchmark ran, the model it ran on. Every such
name the body writes should come from somewhere the article records, so the check is literal:
the token, or for a size the same number before "B" or "billion", must occur in the article
outside its body (facts and their quotes, sources' titles and addresses, the benchmark scope,
inferences, guardrails). One that occurs nowhere is an ``untraced-figure`` error: a changed
version or size, or a name the facts should record.
"""

from __future__ import annotations

import re

from ..models import Article
from ..report import Finding, Severity
from .evidence import evidence_text
from .text import body_span

__all__ = ["check_name_figures"]

#: A version: "v0.14.0", "0.10.08", "v1.2" (three parts, or two after a "v").
_VERSION_RE = re.compile(r"(?<![\w.])(?:v\d+(?:\.\d+)+|\d+\.\d+\.\d+(?:\.\d+)*)(?![\w.]*\d)")
#: A model's size in parameters: "405B", "1.5B" (not "8x7B", "A14B", "$1.5B").
_SIZE_RE = re.compile(r"(?<![\w.$-])(?P<n>\d+(?:\.\d+)?)B(?!\w)")


def check_name_figures(article: Article) -> list[Finding]:
    """``untraced-figure`` for each version or model size in the body that the article's
    evidence never writes."""
    body = article.body
    found = [(m, "version") for m in _VERSION_RE.finditer(body)]
    found += [(m, "model size") for m in _SIZE_RE.finditer(body)]
    if not found:
        return []
    evidence = evidence_text(article)
    findings = []
    for m, what in sorted(found, key=lambda x: x[0].start()):
        token = m.group()
        if what == "version":
            known = token in evidence or token.lstrip("v") in evidence
        else:
            n = re.escape(m.group("n"))
            known = re.search(rf"(?<![\w.]){n}\s?(?:B\b|billion\b)", evidence) is not None
        if not known:
            findings.append(body_span(
                article, m.start(), m.end(), Severity.error, "untraced-figure",
                f"{what} {token!r} is written in the body but nowhere in the article's facts, "
                "quotes, sources, scope or inferences; check it against the source, or record "
                "the source that names it"))
    return findings
