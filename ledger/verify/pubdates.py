"""Publication dates in prose against the sources' own: "The paper, posted to arXiv on 4 March
2024, ..." or "their post of October 10, 2024" dates a document, and the sources the passage
cites say when their documents appeared.

A body date *dates a publication* when a publishing verb leads to it in its sentence ("posted
to arXiv on", "dated", "first published", an issue "opened on"), a document noun names it
("a post of", "an April 2026 deep dive"), or it opens a sentence whose verb publishes ("On
August 25, 2023, two analysts wrote up ..."). Such a date is read against the sources cited by
its sentence (or, when the sentence cites none, by its paragraph): when it is the date of none
of them, nor of any other source of the article, the two disagree. Which one is wrong is
decided by the rest of the evidence: a date that a fact also states (its claim or a quote)
leaves the source's date the odd one, and the finding points at that source; otherwise it
points at the body. The document may be one the passage does not cite, so every finding is a
warning that says so.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re

from ..figures import Figure, FigureKind, extract_figures
from ..models import Article, Source
from ..report import Finding, Severity
from .intervals import cited_sources
from .prose import Span, paragraphs, sentences
from .text import body_span

__all__ = ["publication_dates"]

_DOCUMENT = (r"(?:paper|preprint|post|blog|article|issue|pull\s+request|report|write-?up|summary|"
             r"deep\s+dive|note|announcement|readme|page|thread|review|analysis|changelog|"
             r"newsletter|press\s+release|piece|essay|story|column|tutorial|guide|survey|study|"
             r"teardown)s?")
_DOCUMENT_RE = re.compile(r"\b" + _DOCUMENT + r"\b", re.IGNORECASE)
#: A publishing verb leading to the date: "posted to arXiv on", "dated", "opened on".
_VERB_BEFORE_RE = re.compile(
    r"\b(?:posted|published|dated|filed|submitted|uploaded|opened|appeared|went\s+up|written|"
    r"wrote(?:\s+(?:it\s+)?up)?)\b(?:\s+(?!and\b|but\b)[\w'’-]+){0,3}?\s+(?:on|in)\s+$|"
    r"\bdated\s+$", re.IGNORECASE)
_WEAK_VERB_RE = re.compile(r"opened|appeared|went", re.IGNORECASE)
#: A document noun leading to the date: "their post of", "a paper from", "an article dated".
_NOUN_BEFORE_RE = re.compile(r"\b" + _DOCUMENT + r"\s+(?:of|from|dated)\s+$", re.IGNORECASE)
#: The date as an attribute of a document: "An April 2026 deep dive", "a June 3 post".
_NOUN_AFTER_RE = re.compile(r"(?:['’]s)?\s+(?:[\w-]+\s+)?" + _DOCUMENT + r"\b", re.IGNORECASE)
#: A sentence opened by the date, whose verb publishes: "On May 30, 2024, a report said".
_OPENS_RE = re.compile(r"\s*(?:On|In|Dated)\s+$")
_PUBLISHES_RE = re.compile(r",?[^.;]{0,140}?\b(?:wrote(?:\s+(?:it\s+)?up)?|published|posted|"
                           r"blogged|reported|announced\s+in\s+a\s+post)\b", re.IGNORECASE)


def _publishing(body: str, sentence: Span, start: int, end: int) -> bool:
    """The date at ``body[start:end]`` dates a document's appearance."""
    lead = body[max(sentence.start, start - 60):start]
    if _NOUN_BEFORE_RE.search(lead) or _NOUN_AFTER_RE.match(body, end, sentence.end):
        return True
    verb = _VERB_BEFORE_RE.search(lead)
    if verb is not None:  # things other than documents open and appear: a venue, a bug
        return _WEAK_VERB_RE.match(verb.group()) is None or (
            _DOCUMENT_RE.search(sentence.text) is not None)
    if _OPENS_RE.fullmatch(body, sentence.start, start):
        return _PUBLISHES_RE.match(body, end, sentence.end) is not None
    return False


def _days(source: Source) -> list[dt.date]:
    return [d for d in (source.published_at, source.updated_at, source.page_date) if d]


def _overlaps(lo: dt.date, hi: dt.date, days: list[dt.date]) -> bool:
    return any(lo <= d <= hi for d in days)


def _period(f: Figure) -> tuple[dt.date, dt.date]:
    """The first and last day of a date written to the day or to the month."""
    assert f.date is not None
    if f.date_precision != "month":
        return f.date, f.date
    last = calendar.monthrange(f.date.year, f.date.month)[1]
    return f.date, f.date.replace(day=last)


def _fact_periods(article: Article) -> list[tuple[dt.date, dt.date]]:
    """Every day or month a fact states, in its claim or its quotes."""
    out = []
    for fact in article.facts:
        for text in [fact.claim, *(q.text for q in fact.quotes or [])]:
            for f in extract_figures(text):
                if f.kind is not FigureKind.date or f.date is None:
                    continue
                if f.date_precision in ("day", "month"):
                    out.append(_period(f))
    return out


def publication_dates(article: Article) -> list[Finding]:
    """A warning for each publication date of the body that no cited source has."""
    body, out = article.body, []
    all_days = [d for s in article.sources for d in _days(s)]
    facts: list[tuple[dt.date, dt.date]] | None = None
    spans = sentences(body)
    paras = paragraphs(body)
    for n, sentence in enumerate(spans):
        periods = [(f, *_period(f)) for f in extract_figures(sentence.text)
                   if f.kind is FigureKind.date and f.date is not None
                   and f.date_precision in ("day", "month")]
        if not periods or any(_overlaps(lo, hi, all_days) for _, lo, hi in periods):
            # a sentence that states a cited source's date ("the page, last updated on ...,
            # links an earlier post from ...") dates its other documents apart from it
            continue
        for f, lo, hi in periods:
            start, end = sentence.start + f.start, sentence.start + f.end
            if not _publishing(body, sentence, start, end):
                continue
            cited = cited_sources(article, spans, n) or _paragraph_sources(article, paras, start)
            dated = [s for s in cited if _days(s)]
            if not dated:
                continue
            facts = _fact_periods(article) if facts is None else facts
            out.append(_finding(article, start, end, f.text, dated,
                                any(a <= hi and lo <= b for a, b in facts)))
    return out


def _paragraph_sources(article: Article, paras: tuple[Span, ...], at: int) -> list[Source]:
    by_id = {s.id: s for s in article.sources}
    for para in paras:
        if para.start <= at < para.end:
            ids = dict.fromkeys(re.findall(r"\[(S[0-9]+)\]", para.text))
            return [by_id[i] for i in ids if i in by_id]
    return []


def _finding(article: Article, start: int, end: int, text: str, dated: list[Source],
             in_facts: bool) -> Finding:
    listed = ", ".join(f"{s.id} {'/'.join(d.isoformat() for d in _days(s))}" for s in dated)
    if in_facts and len(dated) == 1:
        index = article.sources.index(dated[0])
        field = "published_at" if dated[0].published_at else (
            "updated_at" if dated[0].updated_at else "page_date")
        return Finding(
            Severity.warning, "date-order",
            f"source {dated[0].id} is dated {listed}, but the body dates its publication "
            f"{text!r} and a fact states that date too; one of the two is wrong (or the body "
            f"means a document the passage does not cite)", f"/sources/{index}/{field}")
    return body_span(
        article, start, end, Severity.warning, "date-order",
        f"{text!r} dates a publication, but the sources cited here are dated {listed}, and no "
        "source of the article has that date; the checker cannot tell whether the body means "
        "another document")
