"""Prose guardrails that keep a result on the hardware or setting it was measured on.

Editors write them as "Do not extend the A100 results to other GPU generations", "do not
present them as evidence for cloud RoCE or InfiniBand fabrics", "Do not carry the ENA Express
claim over to EFA collective performance", "Do not extrapolate the laptop result to
billion-vector scale". :func:`transfer_rule` reads the targets the result must not be carried
to: the names and words after "to" or "evidence for" ("RoCE", "InfiniBand", "billion-vector"),
or, for "other GPU generations" (or GPUs, hardware, accelerators), any GPU named in the body
that the guardrail's own subject does not name.

The body breaks the guardrail where a clause carries a result over to a target ("the results
carry over directly to RoCE", "the same speedups should hold on Hopper GPUs", "keep H100
clusters just as busy", "by extension to EFA's traffic") and does not hedge or negate it
("whether they hold on H100 is untested"). Reading prose is uncertain, so a violation is a
warning (rule ``guardrail``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..models import Article
from ..report import Finding
from .prose import sentences
from .text import prose_guardrail_warning

__all__ = ["Transfer", "check_transfer", "transfer_rule"]

_RULE_RE = re.compile(
    r"\b(?:do\s+not|don't|never|not)\s+(?:"
    r"(?:generali[sz]e|extend|apply|transfer|extrapolate|carry)\s+(?P<x>[^;.]+?)\s+"
    r"(?:over\s+)?to\s+(?P<y>[^;.]+)"
    r"|(?:present|treat|cite|use|read|take)\s+(?P<x2>[^;.]+?)\s+as\s+evidence\s+(?:for|of|about)\s+"
    r"(?P<y2>[^;.]+))", re.IGNORECASE)
#: A target that names a class of hardware: any GPU the subject does not name breaks it.
_OTHER_HARDWARE_RE = re.compile(r"\bother\s+(?:GPU\s+generations?|GPUs|generations|hardware|"
                                r"accelerators|chips|architectures)\b", re.IGNORECASE)
#: GPUs and accelerators by model number or architecture name.
_GPU_RE = re.compile(r"\b(?:[A-Z]{1,2}\d{2,4}[A-Z]?(?:-\d+G)?|MI\d{3}X?|TPU\s?v\d+\w*|Hopper|"
                     r"Blackwell|Ampere|Volta|Turing|Lovelace|Rubin|Gaudi\s?\d?)\b")
_STOP = frozenset({"the", "a", "an", "other", "or", "and", "any", "its", "their", "to", "of",
                   "for", "without", "new", "measurements", "evidence", "results", "result",
                   "performance", "scale", "clusters", "cluster", "fabrics", "fabric",
                   "workloads", "workload", "systems", "system", "production", "traffic"})
#: A clause that carries a result over: "carry over", "hold on", "apply to", "just as".
_CARRY_RE = re.compile(
    r"\b(?:carr(?:y|ies|ied)\s+over|hold(?:s|ing)?\s+(?:up\s+)?(?:on|for)|appl(?:y|ies|ied)\s+"
    r"(?:\w+\s+)?to|transfer(?:s|red)?\s+(?:\w+\s+)?to|extend(?:s|ed)?\s+(?:\w+\s+)?to|"
    r"generali[sz]e(?:s|d)?\s+to|translate(?:s|d)?\s+(?:\w+\s+)?(?:to|into)|by\s+extension|"
    r"just\s+as|equally|the\s+same\s+(?:[\w-]+\s+){0,2}(?:on|for|at|once)|as\s+well\s+on)\b",
    re.IGNORECASE)
#: A hedge, a question or a negation in the clause: no claim that the result carries over.
_HEDGE_RE = re.compile(r"\b(?:not|no|never|untested|unproven|unknown|whether|if|unless|until|"
                       r"may|might|could|cannot|can't|ask|test|measure|verify|check|confirm|"
                       r"only|rather)\b|\?", re.IGNORECASE)
_CLAUSE_RE = re.compile(r"[;:]|,\s+(?:and|but|yet|while|whereas|although|though)\b|\s+[—–]\s+")


@dataclass(frozen=True)
class Transfer:
    """Words a result must not be carried to, and whether any GPU but the subject's is one."""

    targets: tuple[str, ...]
    subject_gpus: tuple[str, ...]
    other_gpus: bool


def transfer_rule(text: str) -> Transfer | None:
    m = _RULE_RE.search(text)
    if m is None:
        return None
    x, y = m.group("x") or m.group("x2"), m.group("y") or m.group("y2")
    other = bool(_OTHER_HARDWARE_RE.search(y))
    targets = tuple(dict.fromkeys(
        w for w in re.findall(r"[A-Za-z][\w-]*", _OTHER_HARDWARE_RE.sub(" ", y))
        if w.lower() not in _STOP and len(w) > 2 and (not other or w[0].isupper())))
    if not targets and not other:
        return None
    head = text[:m.start()] + " " + x + " " + text[m.end():]  # all but the targets
    return Transfer(targets, tuple(dict.fromkeys(_GPU_RE.findall(head))), other)


def _target_pattern(term: str) -> re.Pattern[str]:
    """A target in the body, its first word's stem ("billion-vector" -> "billions")."""
    stem = term.split("-")[0]
    return re.compile(rf"(?<![\w-]){re.escape(stem)}\w*", re.IGNORECASE)


def check_transfer(rule: Transfer, article: Article, index: int) -> list[Finding]:
    """Warnings where a clause carries a result over to one of the rule's targets."""
    findings = []
    for sentence in sentences(article.body):
        offset = 0
        for clause in _CLAUSE_RE.split(sentence.text):
            start = sentence.text.find(clause, offset)
            offset = start + len(clause)
            carry = _CARRY_RE.search(clause)
            if carry is None or _HEDGE_RE.search(clause):
                continue
            hit = next((m for t in rule.targets for m in [_target_pattern(t).search(clause)]
                        if m is not None), None)
            if hit is None and rule.other_gpus:
                hit = next((m for m in _GPU_RE.finditer(clause)
                            if m.group() not in rule.subject_gpus), None)
            if hit is None:
                continue
            at = sentence.start + start
            findings.append(prose_guardrail_warning(
                article, index, at + min(carry.start(), hit.start()),
                at + max(carry.end(), hit.end()),
                f"this clause carries the result over to {hit.group()!r}, which the guardrail "
                "rules out"))
            break
    return findings
