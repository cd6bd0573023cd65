"""Prose guardrails that keep a secondary source from being presented as the one that measured.

Editors write these in several ways, none of them "do not label X as Y":

* "Acme's page is a third-party summary; its figures are the authors'";
* "its figures are the authors', not Acme's measurements";
* "never describe its figures as Acme's own measurements or as an independent reproduction";
* "Acme's digest and Jo Roe's notes are write-ups; the figures are the authors'".

The guardrail names the secondary sources as possessives ("Acme's", "Jo Roe's"). The body
breaks it where one of them is made the party that measured: the agent of a measuring verb
("Acme measured", "Acme's team benchmarked", "Acme independently reproduced"), the owner of
measurements ("Acme's own tests", "in Acme's measurements"), or an "independent reproduction"
said of it. Naming the source as the place a figure was read ("Acme's page repeats the 3x")
keeps the guardrail, and so does a negation ("Acme did not measure"). Reading prose is
uncertain, so a violation is a warning (rule ``guardrail``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..models import Article
from ..report import Finding, Severity
from .meaning import _NEGATED_BEFORE
from .prose import sentences
from .text import body_span

__all__ = ["Secondhand", "check_secondhand", "secondhand"]

#: the guardrail says the figures are relayed, not measured, by the sources it names
_RELAYED_RE = re.compile(
    r"\b(?:third[-\s]party|secondary|automated|machine[-\s]generated|second[-\s]hand)\s+"
    r"(?:summar(?:y|ies)|reviews?|write-?ups?|digests?|notes|reports?|pages?|accounts?)\b"
    r"|\bfigures\s+are\s+the\s+authors['’]"
    r"|\b(?:not|never)\b[^;.]*\b(?:own\s+)?(?:measurements|tests|benchmarks|reproductions?)\b",
    re.IGNORECASE)
#: a secondary source named as a possessive: of its document ("Acme's page"), or of the
#: measurements it did not make ("not Acme's measurements"); not "Acme's own 20X figures"
_OWNER_RE = re.compile(
    r"(?P<name>(?:[A-Z][\w.-]*\s+){0,2}[A-Z][\w.-]*)(?:'s|’s)\s+(?:(?:[\w-]+\s+){0,2}(?:page|review|notes|"
    r"summary|digest|write-?up|post|blog|newsletter|article|site|piece|coverage|report|"
    r"account|explainer|overview)\b|(?:own\s+)?(?:measurements|tests|benchmarks)\b)")
_NOT_OWNERS = frozenset({"The", "This", "That", "Its", "Their", "Never", "Do", "PCT"})
_MEASURE = (r"(?:measured|measures|measure|tested|tests|benchmarked|benchmarks|reproduced|"
            r"reproduces|replicated|replicates|confirmed|confirms|verified|verifies|ran|runs|"
            r"clocked|timed|recorded|observed)")
#: the name as the agent: "Acme measured", "Acme's team independently benchmarked"
_AGENT_RE = re.compile(
    rf"^(?:(?:'s|’s)\s+(?:own\s+)?(?:team|engineers|staff|lab|testers|authors)\s+)?\s*"
    rf"(?:(?:also|independently|itself|themselves|separately|then|later|first)\s+)*{_MEASURE}\b",
    re.IGNORECASE)
#: the name as the owner of measurements: "Acme's own tests", "Acme's benchmark runs"
_OWNED_RE = re.compile(
    r"^(?:'s|’s)\s+(?:own\s+|independent\s+|separate\s+)*(?:measurements?|tests?|testing|"
    r"benchmarks?|benchmark\s+runs|runs|experiments?|reproductions?|replications?|lab)\b",
    re.IGNORECASE)
_INDEPENDENT_RE = re.compile(r"\bindependent(?:ly)?\s+(?:reproduc\w*|replicat\w*|confirm\w*|"
                             r"verif\w*|measure\w*)", re.IGNORECASE)


@dataclass
class Secondhand:
    """The secondary sources a guardrail says did not measure the figures."""

    owners: list[str]


def secondhand(text: str) -> Secondhand | None:
    """The rule a guardrail's prose states, or None when it says no such thing."""
    if not _RELAYED_RE.search(text):
        return None
    owners = []
    for m in _OWNER_RE.finditer(text):
        words = m.group("name").split()
        while words and words[0] in _NOT_OWNERS:
            words = words[1:]
        name = " ".join(words)
        if name and name not in owners and name.lower() != "authors":
            owners.append(name)
    return Secondhand(owners) if owners else None


def _independent(text: str) -> bool:
    """The sentence calls something an independent reproduction, not negated."""
    m = _INDEPENDENT_RE.search(text)
    return m is not None and not _NEGATED_BEFORE.search(text[:m.start()])


def check_secondhand(rule: Secondhand, article: Article, index: int) -> list[Finding]:
    """Warnings where a sentence makes one of the rule's sources the party that measured."""
    text = article.corrections[index].text
    findings = []
    for sentence in sentences(article.body):
        for owner in rule.owners:
            for m in re.finditer(rf"(?<![\w-]){re.escape(owner)}(?![\w-])", sentence.text):
                before, after = sentence.text[:m.start()], sentence.text[m.end():]
                if _NEGATED_BEFORE.search(before) or re.match(
                        r"^(?:'s|’s)?\s+(?:did|does|do|has|have|had)\s+not\b", after):
                    continue
                if _AGENT_RE.match(after) or _OWNED_RE.match(after) or _independent(
                        sentence.text):
                    findings.append(body_span(
                        article, sentence.start + m.start(), sentence.end, Severity.warning,
                        "guardrail",
                        f"guardrail {index + 1} ({text[:60]!r}...), read from its prose: this "
                        f"sentence presents {owner!r} as the party that measured, which the "
                        "guardrail rules out (its figures are relayed); the checker read the "
                        "guardrail's wording and cannot be sure"))
                    break
    return findings
