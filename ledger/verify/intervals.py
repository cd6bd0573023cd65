"""Intervals stated between the body's own dates: "Three months later the v0.3.0 post, dated
May 21, 2025, ..." after a sentence dated February 18, 2025; "... and version 3 on April 16,
2024, two weeks later"; "merged the next day, May 8, 2024".

A relative phrase joins two dates, a *target* (the date it describes) and a *reference* (the
date it counts from). Which two is read from where the phrase stands:

* the target is the date right beside the phrase ("April 16, 2024, two weeks later", "the next
  day, May 8"), else the nearest date after it in its sentence ("Nine weeks later the report,
  dated ..."), else the nearest one before it;
* the reference is a date the phrase names ("two weeks after April 12, 2024", "before its
  December 10 item"), else the date of the earlier sentence that shares the most words with
  what the phrase names ("four months after that first version"), else the nearest date
  stated before the target.

The phrase states a duration (days, weeks, months or years, within 30% of itself: "three
years" is 2.1 to 3.9 years) or a calendar step (the next / the same / the previous day). A
contradiction is *certain* -- an error -- when both dates are: the target stands beside the phrase or is its sentence's only
candidate, and the reference is in the same sentence, is named, or the phrase opens its
sentence right after the reference. Otherwise the phrase is read against every pair that it
could join: one that fits means no finding, none that fits a warning. Dates may be days,
months or years; a pair fits when some day of each period fits.

``earlier``/``later`` as an adjective ("an earlier blog post from September 11, 2023") also
orders two dates: the thing's own date against the one stated before it in its sentence.

:func:`relative_intervals` gives each phrase's span, whether it agrees and how sure the check
is; ``date-order`` reports a contradiction, and a duration that agrees is traced (no
``untraced-figure``).
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass

from ..figures import FigureKind, extract_figures
from ..models import Article, Source
from ..quantities import Kind, lemma, typed_figures
from .prose import Span, sentences
from .scope import per_article

__all__ = ["Interval", "cited_sources", "ordered_mentions", "relative_intervals"]

_DAYS = {"day": 1.0, "week": 7.0, "month": 30.44, "year": 365.25}
_AFTER_RE = re.compile(r"[\s-]+(?P<unit>day|week|month|year)s?\s+(?P<w>later|after|afterwards|"
                       r"earlier|before|prior)\b", re.IGNORECASE)
#: A one-step phrase without a numeral: "the next day", "the same day", "a week later".
_STEP_RE = re.compile(
    r"\b(?:the\s+(?P<rel>next|following|same|previous|preceding|prior)\s+(?P<u1>day)"
    r"|the\s+(?P<u2>day)\s+(?P<w2>after|before)\b(?!\s+(?:that|which|when|it|they|he|she))"
    r"|(?:a|one)\s+(?P<u3>day|week|month|year)\s+(?P<w3>later|after|afterwards|earlier|before))\b",
    re.IGNORECASE)
_LATER = frozenset({"later", "after", "afterwards", "next", "following"})
_EARLIER = frozenset({"earlier", "before", "prior", "previous", "preceding"})


@dataclass(frozen=True)
class Interval:
    """One relative phrase of the body: ``start``/``end`` is the phrase, ``span_start`` where
    a finding on it starts (the target date when it stands right before the phrase)."""

    start: int
    end: int
    agrees: bool
    message: str
    certain: bool = True
    span_start: int | None = None
    span_end: int | None = None


@dataclass(frozen=True)
class _Date:
    start: int
    end: int
    lo: dt.date
    hi: dt.date
    text: str
    of: str = ""  # what the date is, when it is not written in the body ("S2's date")

    def label(self) -> str:
        text = self.lo.isoformat() if self.lo == self.hi else self.text
        return f"{text} ({self.of})" if self.of else text


@dataclass(frozen=True)
class _Phrase:
    start: int
    end: int
    low: float  # the gap it allows, in days (negative: the target is earlier)
    high: float
    later: bool
    word: str  # the word after the unit: "later", "after", "before", ... or "" for a step
    text: str


#: A year written after a name with two capitals is the name of an event ("ICLR 2025", "OSDI
#: 2024"), not a date an interval counts from.
_EVENT_YEAR_RE = re.compile(r"\b[A-Z][A-Za-z]*[A-Z][A-Za-z]*['’]?\s+$")


def _dated(text: str, offset: int, year: int | None = None) -> list[_Date]:
    """Dates of ``text`` as periods (a day, a month or a year). A day written without its year
    ("on April 22") takes the year of the date written before it (``year``, then each date of
    the text in turn), as a reader does."""
    out = []
    for f in extract_figures(text):
        if f.kind is FigureKind.date and f.date is not None and f.date_precision == "month_day":
            if year is None:
                continue
            try:
                lo = hi = f.date.replace(year=year)
            except ValueError:  # February 29 of a year that has none
                continue
        elif f.kind is FigureKind.date and f.date is not None and f.date_precision == "day":
            lo = hi = f.date
        elif f.kind is FigureKind.date and f.date is not None and f.date_precision == "month":
            lo = f.date
            hi = f.date.replace(day=calendar.monthrange(f.date.year, f.date.month)[1])
        elif (f.kind is FigureKind.year and f.value is not None and 1900 <= f.value <= 2200
              and not _EVENT_YEAR_RE.search(text, max(0, f.start - 40), f.start)):
            lo, hi = dt.date(int(f.value), 1, 1), dt.date(int(f.value), 12, 31)
        else:
            continue
        year = lo.year
        out.append(_Date(offset + f.start, offset + f.end, lo, hi, f.text))
    return out


def _phrases(sentence: Span) -> list[_Phrase]:
    out = []
    for fig, q in typed_figures(sentence.text):
        m = _AFTER_RE.match(sentence.text, fig.end)
        if q.kind is not Kind.duration or m is None:
            continue
        word = m.group("w").lower()
        stated = float(fig.values[0]) * _DAYS[m.group("unit").lower()]
        out.append(_span_phrase(sentence.start + fig.start, sentence.start + m.end(),
                                stated, word, sentence.text[fig.start:m.end()]))
    for m in _STEP_RE.finditer(sentence.text):
        start, end = sentence.start + m.start(), sentence.start + m.end()
        if m.group("rel"):
            rel = m.group("rel").lower()
            step = 0.0 if rel == "same" else 1.0 if rel in _LATER else -1.0
            out.append(_Phrase(start, end, step, step, step >= 0, "", m.group()))
        elif m.group("u2"):
            step = 1.0 if m.group("w2").lower() == "after" else -1.0
            out.append(_Phrase(start, end, step, step, step > 0, m.group("w2").lower(),
                               m.group()))
        else:
            out.append(_span_phrase(start, end, _DAYS[m.group("u3").lower()],
                                    m.group("w3").lower(), m.group()))
    return sorted(out, key=lambda p: p.start)


def _span_phrase(start: int, end: int, stated: float, word: str, text: str) -> _Phrase:
    later = word in _LATER
    low, high = stated * 0.7, stated * 1.3
    return _Phrase(start, end, low if later else -high, high if later else -low, later, word,
                   text)


def _fits(target: _Date, ref: _Date, phrase: _Phrase) -> bool:
    """Some day of the target's period lies the phrase's gap after (or before) some day of the
    reference's period."""
    low = (target.lo - ref.hi).days
    high = (target.hi - ref.lo).days
    if phrase.low == phrase.high == 0.0:  # "the same day": the periods overlap
        return low <= 0 <= high
    return low <= phrase.high and high >= phrase.low and (high > 0 if phrase.later else low < 0)


#: Words that hedge an interval ("a little under a year later", "less than two weeks later").
_HEDGE = (r"(?:(?:about|around|roughly|nearly|almost|some|just|only|exactly|barely|well|"
          r"a\s+little|a\s+bit|a\s+full|fully|slightly)\s+)?(?:(?:under|over|more\s+than|less\s+than|"
          r"within)\s+)?")
_BESIDE_BEFORE_RE = re.compile(r"[\s,(–—-]*(?:or\s+|that\s+is,?\s+|i\.e\.,?\s+)?" + _HEDGE)
_BESIDE_AFTER_RE = re.compile(r"[\s,(:–—-]*(?:on\s+|in\s+)?")
_NAMED_RE = re.compile(r"\s+(?:on\s+|(?:its|their|his|her|the)\s+)?")  # "before its December 10 item"
_OPENS_RE = re.compile(r"\W*(?:(?:and|but|then|so|just|about|some|only|roughly|nearly|almost|"
                       r"exactly|over|under|barely)\s+)*", re.IGNORECASE)
#: "after that first version", "before the paper": the phrase names what it counts from; a bare
#: "that" ("eleven days after that.") points back to the date just before.
_OWN_REFERENCE_RE = re.compile(r"\s+(?:to\s+)?(?:(?:that|this)\b(?!\s*(?:[.,;:)\[]|$))|the\b|"
                               r"its\b|their\b|his\b|her\b|our\b|[A-Z])")


def _beside(body: str, phrase: _Phrase, dates: list[_Date]) -> _Date | None:
    """The date written right before or right after the phrase ("June 25, 2024, 15 days
    later"; "the next day, June 27")."""
    for d in dates:
        if d.end <= phrase.start and _BESIDE_BEFORE_RE.fullmatch(body, d.end, phrase.start):
            return d
        if phrase.end <= d.start and phrase.word in ("", "later", "earlier", "afterwards") and (
                _BESIDE_AFTER_RE.fullmatch(body, phrase.end, d.start)):
            return d
    return None


@per_article
def relative_intervals(article: Article) -> list[Interval]:
    """Each relative phrase of the body read against the dates around it."""
    body = article.body
    out: list[Interval] = []
    seen: list[_Date] = []
    said: list[tuple[_Date, set[str]]] = []  # each earlier date with its sentence's words
    spans = sentences(body)
    for n, sentence in enumerate(spans):
        dates = _dated(sentence.text, sentence.start, seen[-1].lo.year if seen else None)
        for phrase in _phrases(sentence):
            if dates:
                interval = _read(article, sentence, phrase, dates, seen, said)
            else:
                interval = _read_undated(article, spans, n, phrase, seen, said)
            if interval is not None:
                out.append(interval)
        seen += dates
        words = _words(sentence.text)
        said += [(d, words) for d in dates]
    return out


#: "four years before this article", "two weeks before publication": the article's own date.
_THIS_ARTICLE_RE = re.compile(r"\s+(?:this|the\s+present)\s+(?:article|piece|story|report|"
                              r"spotlight|writing)\b|\s+(?:publication|today|now)\b",
                              re.IGNORECASE)


#: Between a date and a phrase after it, a second verb of the same subject: the phrase dates
#: that event from the date ("opened on August 6 and merged the next day"), which has none.
_NEXT_EVENT_RE = re.compile(r",?\s+(?:and|then|but)\s+(?:was\s+|were\s+)?[a-z]+(?:ed|t|n)\s+",
                            re.IGNORECASE)


def _read(article: Article, sentence: Span, phrase: _Phrase, dates: list[_Date],
          seen: list[_Date], said: list[tuple[_Date, set[str]]]) -> Interval | None:
    """The phrase read against its target and reference, or None when it has no pair."""
    body = article.body
    if phrase.word in ("after", "before", "prior") and _THIS_ARTICLE_RE.match(body, phrase.end):
        day = article.publication_date
        target, sure_target, beside = _target(body, phrase, dates)
        own = _Date(phrase.end, phrase.end, day, day, "", "this article's date")
        return _judge(phrase, target, own, sure_target, [], beside, False)
    named = [d for d in dates if d.start >= phrase.end
             and phrase.word in ("after", "before", "prior")
             and _NAMED_RE.fullmatch(body, phrase.end, d.start)]
    if named:  # "two weeks after April 12, 2024": that date is the reference
        others = [d for d in dates if d is not named[0]]
        if not others:
            return None
        next_to = _beside(body, phrase, others)  # "January 4, 2025, two weeks before ..."
        near = next_to or min(others, key=lambda d: abs(d.start - phrase.start))
        return _judge(phrase, near, named[0], next_to is not None or len(others) == 1, [],
                      next_to is not None, True)
    target, sure_target, beside = _target(body, phrase, dates)
    if not beside and target.end <= phrase.start and _NEXT_EVENT_RE.fullmatch(
            body, target.end, phrase.start):
        return None  # "opened on August 6, 2026 and merged the next day": an undated event
    earlier = [d for d in dates if d.end <= target.start]
    if phrase.word in ("after", "before", "prior") and _OWN_REFERENCE_RE.match(body, phrase.end):
        # "four months after that first version": the date of the earlier sentence that names
        # that version, or of the one source it names ("after the arXiv paper"); failing that,
        # an earlier date that fits, or it is left to tracing
        ref = _referent(body, phrase.end, sentence.end, said)
        if ref is None:
            ref = _source_referent(article, phrase.end, sentence.end)
            if ref is not None and not _fits(target, ref, phrase) and any(
                    _fits(target, d, phrase) for d in [*seen, *earlier]):
                return None  # another date of the body fits: the document may be another
        if ref is None:
            fits = [d for d in [*seen, *earlier] if _fits(target, d, phrase)]
            if not fits:
                return None
            ref = fits[-1]
        return _judge(phrase, target, ref, sure_target, [], beside, ref in earlier)
    if earlier:
        return _judge(phrase, target, earlier[-1], sure_target, [*seen, *earlier[:-1]], beside,
                      True)
    if not seen:
        return None
    opens = _OPENS_RE.fullmatch(body, sentence.start, phrase.start) is not None
    return _judge(phrase, target, seen[-1], sure_target and opens, seen[:-1], beside, False)


def _read_undated(article: Article, spans: tuple[Span, ...], n: int, phrase: _Phrase,
                  seen: list[_Date], said: list[tuple[_Date, set[str]]]) -> Interval | None:
    """A phrase in a sentence that states no date ("Six days later the author summarised it on
    his blog. [S2]"), read against the discourse: its target is the publication date of the
    source its sentence cites, or, when it cites none, the first date of the next sentence of
    its paragraph or the source that sentence cites ("Eight months later a rival answered. In a
    post dated ..."); its reference is the date the phrase names or the last date stated
    before. Neither end is sure, so a contradiction is a warning, and only when no pair of
    candidates fits."""
    body, sentence = article.body, spans[n]
    targets = _cited_dates(article, spans, n, phrase.end)
    after = spans[n + 1] if n + 1 < len(spans) else None
    if not targets and after is not None and not _cites(article, spans, n) and (
            "\n" not in body[sentence.end:after.start]):
        targets = _dated(after.text, after.start, seen[-1].lo.year if seen else None)[:1]
        targets += _cited_dates(article, spans, n + 1, after.start)
    if not targets:
        return None
    refs = seen
    if phrase.word in ("after", "before", "prior") and _OWN_REFERENCE_RE.match(body, phrase.end):
        ref = _referent(body, phrase.end, sentence.end, said)
        if ref is None:
            ref = _source_referent(article, phrase.end, sentence.end)
        refs = [ref] if ref is not None else seen
    if not refs:
        return None
    for target in targets:
        interval = _judge(phrase, target, refs[-1], False, refs[:-1], False, False)
        if interval.agrees:
            return interval
    return _judge(phrase, targets[0], refs[-1], False, refs[:-1], False, False)


_CITATION_RE = re.compile(r"\[(S[0-9]+)\]")
_LEAD_CITATIONS_RE = re.compile(r"\s*(?:\[S[0-9]+\][\s,;]*)+")


def _citations(body: str, spans: tuple[Span, ...], n: int, start: int) -> list[re.Match[str]]:
    """The citation markers of sentence ``n`` after ``start``: those inside it, less a run that
    opens it (that run closes the sentence before), and the run that opens the next one."""
    sentence = spans[n]
    lead = _LEAD_CITATIONS_RE.match(body, sentence.start, sentence.end)
    found = list(_CITATION_RE.finditer(body, max(start, lead.end() if lead else sentence.start),
                                       sentence.end))
    if n + 1 < len(spans):
        after = spans[n + 1]
        closing = _LEAD_CITATIONS_RE.match(body, after.start, after.end)
        if closing is not None:
            found += _CITATION_RE.finditer(body, after.start, closing.end())
    return found


def _cites(article: Article, spans: tuple[Span, ...], n: int) -> bool:
    return bool(_citations(article.body, spans, n, spans[n].start))


def cited_sources(article: Article, spans: tuple[Span, ...], n: int,
                  start: int | None = None) -> list[Source]:
    """The sources sentence ``n`` of ``spans`` cites (after ``start``), in order, once each."""
    by_id = {s.id: s for s in article.sources}
    ids = dict.fromkeys(m.group(1) for m in _citations(
        article.body, spans, n, spans[n].start if start is None else start))
    return [by_id[i] for i in ids if i in by_id]


def _cited_dates(article: Article, spans: tuple[Span, ...], n: int, start: int) -> list[_Date]:
    """The publication dates of the sources sentence ``n`` cites after ``start``."""
    return [_Date(start, start, s.published_at, s.published_at, s.id, f"{s.id}'s date")
            for s in cited_sources(article, spans, n, start) if s.published_at is not None]


def _target(body: str, phrase: _Phrase, dates: list[_Date]) -> tuple[_Date, bool, bool]:
    """The date the phrase describes, whether that is sure and whether it stands beside the
    phrase."""
    beside = _beside(body, phrase, dates)
    if beside is not None:
        return beside, True, True
    after = [d for d in dates if d.start >= phrase.end]
    if after:
        return after[0], len(after) == 1, False
    return dates[-1], len(dates) == 1, False


def _judge(phrase: _Phrase, target: _Date, ref: _Date, sure: bool,
           alternatives: list[_Date], beside: bool, ref_here: bool) -> Interval:
    """Agreement of the phrase with (target, ref); when the pair is not sure, any earlier date
    that fits is read as the reference meant."""
    agrees = _fits(target, ref, phrase) or (
        not sure and any(_fits(target, d, phrase) for d in alternatives))
    gap = (target.lo - ref.lo).days
    direction = "the same day as" if phrase.low == phrase.high == 0.0 else (
        "after" if phrase.later else "before")
    message = (f"{phrase.text!r} puts {target.label()} {direction} {ref.label()}, but it is "
               f"{abs(gap)} days {'after' if gap > 0 else 'before'} it")
    if not sure:
        message += " (which two dates the phrase joins is not certain)"
    # a finding covers the date beside the phrase too (the two are read as one statement), and
    # the reference when the same sentence states it: the whole stretch that contradicts itself
    start = min(target.start, phrase.start) if beside else phrase.start
    end = max(target.end, phrase.end) if beside else phrase.end
    start = min(start, ref.start) if ref_here else start
    return Interval(phrase.start, phrase.end, agrees, message, sure, start, end)


_REFERENCE_RE = re.compile(r"[^,;.:()]{1,60}")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z-]{2,}")
_STOP = frozenset({"that", "the", "this", "its", "their", "his", "her", "our", "and", "with",
                   "was", "were", "has", "had", "then", "which", "from", "into", "for"})


def _words(text: str) -> set[str]:
    return {lemma(w) for w in _WORD_RE.findall(text) if w.lower() not in _STOP}


def _referent(body: str, end: int, stop: int,
              said: list[tuple[_Date, set[str]]]) -> _Date | None:
    """The date of the earlier sentence that shares the most words with the reference named
    after the interval ("that first version" -> "A first version appeared on ..."), if one
    shares more than any other."""
    m = _REFERENCE_RE.match(body[:stop], end)
    words = _words(m.group()) if m else set()
    if not words:
        return None
    scored = sorted(((len(words & w), i) for i, (_, w) in enumerate(said)), reverse=True)
    if not scored or scored[0][0] == 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return said[scored[0][1]][0]


#: Words for a kind of document, by where a source lives: "the paper" is the arXiv preprint,
#: "the blog post" the page under /blog/, "the README" the repository's.
_DOCUMENT_WORDS = (
    (re.compile(r"arxiv\.org|openreview\.net|usenix\.org|dl\.acm\.org|proceedings|\.pdf$"),
     {"paper", "preprint", "abstract", "arxiv", "study"}),
    (re.compile(r"\bblog\b|/posts?/|/news/|medium\.com|substack"),
     {"blog", "post", "write-up", "writeup", "announcement"}),
    (re.compile(r"github\.com|gitlab\.com"), {"readme", "repository", "repo", "github", "release"}),
    (re.compile(r"\bdocs?\b|/documentation/|readthedocs"), {"docs", "documentation", "guide",
                                                         "manual"}),
)


def _source_words(source: Source) -> set[str]:
    words = _words(f"{source.title} {source.publisher or ''}")
    url = source.url.lower()
    for pattern, kinds in _DOCUMENT_WORDS:
        if pattern.search(url):
            words |= {lemma(w) for w in kinds}
    return words


def _source_referent(article: Article, end: int, stop: int) -> _Date | None:
    """The publication date of the one source that the reference after the interval names
    ("two months after the arXiv paper", "after the blog post"), read from the source's title,
    publisher and the kind of document its address is; None when no source, or more than one
    equally, is named, or the one named has no date."""
    m = _REFERENCE_RE.match(article.body[:stop], end)
    words = _words(m.group()) if m else set()
    if not words:
        return None
    scored = sorted(((len(words & _source_words(s)), i) for i, s in enumerate(article.sources)),
                    reverse=True)
    if not scored or scored[0][0] == 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    source = article.sources[scored[0][1]]
    if source.published_at is None:
        return None
    return _Date(end, end, source.published_at, source.published_at, "",
                 f"{source.id}'s date")


#: "an earlier blog post from September 11, 2023", "a later revision dated ...": the thing's
#: own date, ordered against the date stated before it in the sentence.
_ORDERED_RE = re.compile(
    r"\b(?:an?|the|its|their|his|her|our)\s+(?P<w>earlier|older|previous|prior|later|newer|"
    r"subsequent)\s+(?:[\w'’-]+\s+){1,3}?(?:from|dated|of|on|published\s+on|posted\s+on|"
    r"released\s+on)\s+$", re.IGNORECASE)


#: A page's last change, and its first publication: "(last modified 18 June 2025)" after
#: "published on May 1, 2025" cannot be the earlier of the two.
_CHANGED_RE = re.compile(r"\b(?:modified|updated|revised|edited|changed)\s+(?:on\s+|in\s+)?$",
                         re.IGNORECASE)
_FIRST_RE = re.compile(r"\b(?:published|posted|released|appeared|submitted|uploaded|created)\b"
                       r"[^.;()]{0,25}$", re.IGNORECASE)


@per_article
def ordered_mentions(article: Article) -> list[Interval]:
    """Each "an earlier X from DATE" whose date is on the wrong side of the date stated
    before it in the same sentence, and each "last modified DATE" before the "published DATE"
    stated before it (only contradictions are returned)."""
    out = []
    year = None
    for sentence in sentences(article.body):
        dates = _dated(sentence.text, sentence.start, year)
        year = dates[-1].lo.year if dates else year
        for i, d in enumerate(dates[1:], 1):
            lead = article.body[max(sentence.start, d.start - 80):d.start]
            changed = _changed_before_published(article.body, sentence, dates[:i], d, lead)
            if changed is not None:
                out.append(changed)
                continue
            m = _ORDERED_RE.search(lead)
            if m is None:
                continue
            ref = dates[i - 1]
            earlier = m.group("w").lower() in ("earlier", "older", "previous", "prior")
            wrong = d.lo > ref.hi if earlier else d.hi < ref.lo
            if wrong:
                out.append(Interval(
                    d.start, d.end, False,
                    f"{d.text!r} dates {m.group().strip()!r}, "
                    f"{'an earlier' if earlier else 'a later'} thing, "
                    f"{'after' if earlier else 'before'} {ref.text}, stated before it",
                    True, d.start, d.end))
    return out


def _changed_before_published(body: str, sentence: Span, before: list[_Date], d: _Date,
                              lead: str) -> Interval | None:
    """"last modified DATE" that is before a "published DATE" stated earlier in the sentence."""
    if not _CHANGED_RE.search(lead):
        return None
    for ref in reversed(before):
        if _FIRST_RE.search(body, max(sentence.start, ref.start - 40), ref.start) and (
                d.hi < ref.lo):
            return Interval(d.start, d.end, False,
                            f"{d.text!r} dates a change before the publication on {ref.text} "
                            "stated before it", True, d.start, d.end)
    return None
