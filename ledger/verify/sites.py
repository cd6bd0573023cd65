"""``misattributed-source`` for a site or an organisation named as where the cited document
lives or where it comes from: "indexed on alphaXiv", "a summary of that post on Ainvest", "a
commentary from Moonshot AI". Part of :func:`ledger.verify.owners.check_owners`.

"On" also introduces topics ("a post on NVIDIA GPUs"), so a site counts only when it is, word for
word, the site or publisher of one of the article's sources (then it is another source's, an
error). "From" names an owner: an error when the name owns another of the article's sources, a
warning when the article knows nothing of it (it may be the authors' affiliation).
"""

from __future__ import annotations

import re

from ..models import Article, Source
from ..report import Finding, Severity
from .persons import is_person_name
from .sourcenames import NAME, accepted, matches, norm, org_start, owner_trace, owns, site_words
from .text import body_span

__all__ = ["host_findings"]

#: A site named as where the cited document lives: "indexed on alphaXiv", "a summary of that
#: post on Ainvest adds", "a commentary on hotmolts argues". "On" also names topics ("a post on
#: NVIDIA GPUs"), so the name counts only when it is, word for word, the site or publisher of
#: one of the article's sources.
_HOST_RE = re.compile(
    r"\b(?:post|article|summary|commentary|overview|abstract|paper|preprint|page|write-?up|"
    r"thread|video|notes?|review|report|copy|version|digest|explainer|discussion|study|analysis|"
    r"indexed|posted|published|hosted|listed|archived|mirrored|reposted|shared|available)"
    r"\s+(?:(?:of|about)\s+(?:that|this|the|its|their)\s+[a-z]+\s+)?(?:on|at)\s+"
    r"(?P<name>[A-Za-z][\w.&+-]*[\w&+](?:\s+[A-Z][\w.&+-]*){0,2})"
    r"(?=\s*(?:[,;:\[(]|\.(?:\s|$)|$)|\s+[a-z]+(?:s|ed)\b)")


#: A document "from" or "by" its owner: "a commentary from Moonshot AI", "a summary by WeSpeak"
#: (a person named so is read as an author by :mod:`ledger.verify.persons`).
_FROM_RE = re.compile(
    r"\b(?:[Aa]n?|[Tt]he|[Tt]his|[Tt]hat)\s+(?:[a-z][\w-]*\s+)?(?:post|article|summary|"
    r"commentary|overview|paper|preprint|page|write-?up|thread|video|notes?|review|report|"
    rf"digest|explainer|analysis|blog|guide|whitepaper|study)\s+(?:from|by)\s+{NAME}(?!['’]s)")


def _site_of(name: str, src: Source) -> bool:
    """Every word of ``name`` is a word of the source's publisher or site ("CMU Catalyst",
    "machinedaily.ai", "alphaXiv"); "NVIDIA GPUs" is no site."""
    key = set(norm(name).split())
    own = set(norm(src.publisher).split()) | site_words(src)
    return bool(key) and key <= own


def host_findings(article: Article, text: str, offset: int, cited: list[str]) -> list[Finding]:
    """``misattributed-source`` for a site named as the cited document's host that is another
    source's site, not the cited one's."""
    findings = []
    for m in _HOST_RE.finditer(text):
        name = m.group("name")
        if matches(name, accepted(article, cited, "doc")):
            continue
        others = [src for src in article.sources if src.id not in cited and _site_of(name, src)]
        if not others:
            continue
        publishers = ", ".join(f"{src.id}: {src.publisher}" for src in article.sources
                               if src.id in cited)
        findings.append(body_span(
            article, offset + m.start("name"), offset + m.end("name"), Severity.error,
            "misattributed-source",
            f"{name!r} is named as the site of what [{'], ['.join(cited)}] says, but it is the "
            f"site of {', '.join(src.id for src in others)}, not of the cited source(s) "
            f"({publishers})", trace=owner_trace(article, cited)))
    return findings + _from_findings(article, text, offset, cited)


def _from_findings(article: Article, text: str, offset: int, cited: list[str]
                   ) -> list[Finding]:
    """``misattributed-source`` for "a commentary from NAME" where NAME is not the cited
    source's: an error when NAME owns another of the article's sources, else a warning (the
    name may be the authors' affiliation, which the sources do not record)."""
    findings = []
    for m in _FROM_RE.finditer(text):
        start = org_start(text, m.start("name"))
        name = text[start:m.end("name")]
        if is_person_name(name) or matches(name, accepted(article, cited, "doc")):
            continue
        others = [src.id for src in owns(article, name) if src.id not in cited]
        publishers = ", ".join(f"{src.id}: {src.publisher}" for src in article.sources
                               if src.id in cited)
        why = (f"; {name!r} owns {', '.join(others)} instead" if others else
               "; it may be the authors' affiliation, which the sources do not record")
        findings.append(body_span(
            article, offset + start, offset + m.end("name"),
            Severity.error if others else Severity.warning, "misattributed-source",
            f"{name!r} is named as the owner of what [{'], ['.join(cited)}] says, but it is "
            f"neither the publisher nor an author of the cited source(s) ({publishers}){why}",
            trace=owner_trace(article, cited)))
    return findings
