"""Date order: sources, observation, publication and the date in the article id agree."""

from __future__ import annotations

import datetime as dt

from ..figures import Figure, FigureKind, extract_figures
from ..models import Article, CorrectionStatus
from ..report import Finding, Severity
from .evidence import build_index
from .intervals import Interval, ordered_mentions, relative_intervals
from .pubdates import publication_dates
from .text import body_span

__all__ = ["check_dates"]


def _error(message: str, pointer: str) -> Finding:
    return Finding(Severity.error, "date-order", message, pointer)


def _revised(article: Article) -> dt.date:
    """The date of the article's latest version: its publication date, or the date of its
    latest dated correction, update or clarification (a corrected version may report what
    happened after first publication)."""
    dates = [c.date for c in article.corrections
             if c.date is not None and c.status is not CorrectionStatus.prepublication_guardrail]
    return max([article.publication_date, *dates])


def _body_dates(article: Article) -> list[Finding]:
    """A date in the body (a day, a month or a year, also a bare year that no evidence states)
    later than the article's latest version: nothing the article reports can have happened
    after it was published (or corrected)."""
    latest = _revised(article)
    return [
        body_span(article, f.start, f.end, Severity.error, "date-order",
                  f"{f.text!r} is after the article's publication date "
                  f"{article.publication_date}" + (f" and its latest correction {latest}"
                                                   if latest != article.publication_date else ""))
        for f in extract_figures(article.body)
        if (f.kind is FigureKind.date and f.date is not None and _after(f, latest))
        or (f.kind is FigureKind.year and f.value is not None
            and f.value > latest.year and not _stated_year(article, int(f.value)))
    ]


def _stated_year(article: Article, year: int) -> bool:
    """The article's evidence states ``year`` (a roadmap fact: "scheduled for 2029"), so a bare
    year after publication is a forecast it reports, not an event it dates wrongly."""
    index = build_index(article)
    return (any(ev.value == year for ev in index.numbers)
            or any(d.date.year == year for d in (*index.dates, *index.month_days)))


def _after(fig: Figure, latest: dt.date) -> bool:
    """The whole day, month ("January 2027": its first day) or year lies after ``latest``."""
    assert fig.date is not None
    if fig.date_precision == "day":
        return fig.date > latest
    if fig.date_precision == "month":
        return (fig.date.year, fig.date.month) > (latest.year, latest.month)
    if fig.date_precision == "year":
        return fig.date.year > latest.year
    return False


def _interval_finding(article: Article, interval: Interval) -> Finding:
    """A relative date that contradicts its pair of dates: an error when both dates are sure,
    a warning when the checker could not tell which two dates the phrase joins."""
    start = interval.span_start if interval.span_start is not None else interval.start
    end = interval.span_end if interval.span_end is not None else interval.end
    if "\n" in article.body[start:end]:
        start, end = interval.start, interval.end
    severity = Severity.error if interval.certain else Severity.warning
    return body_span(article, start, end, severity, "date-order", interval.message)


def check_dates(article: Article) -> list[Finding]:
    findings = []
    for i, src in enumerate(article.sources):
        here = f"/sources/{i}/retrieved_at"
        for name in ("published_at", "updated_at", "page_date"):
            value = getattr(src, name)
            if value is not None and src.retrieved_at < value:
                findings.append(_error(
                    f"source {src.id} was retrieved on {src.retrieved_at}, before its "
                    f"{name} {value}", here))
        if src.published_at and src.updated_at and src.updated_at < src.published_at:
            findings.append(_error(
                f"source {src.id} was updated on {src.updated_at}, before it was published on "
                f"{src.published_at}", f"/sources/{i}/updated_at"))
        if src.retrieved_at > article.as_of_date:
            findings.append(_error(
                f"source {src.id} was retrieved on {src.retrieved_at}, after the article's "
                f"as-of date {article.as_of_date}", here))
    if article.observation_date > _revised(article):
        findings.append(_error(
            f"observation date {article.observation_date} is after the publication date "
            f"{article.publication_date}", "/observation_date"))
    in_id = article.date_in_id
    if in_id is None:
        findings.append(_error(f"the id {article.id!r} holds no valid date", "/id"))
    elif in_id != article.publication_date:
        findings.append(_error(
            f"the id says {in_id} but the publication date is {article.publication_date}", "/id"))
    for i, m in enumerate(article.measurements or []):
        if m.measured_at > article.as_of_date:
            findings.append(_error(
                f"measurement {m.id} is dated {m.measured_at}, after the article's as-of date "
                f"{article.as_of_date}", f"/measurements/{i}/measured_at"))
    findings += _body_dates(article)
    findings += publication_dates(article)
    findings += [_interval_finding(article, i) for i in
                 [*relative_intervals(article), *ordered_mentions(article)] if not i.agrees]
    scope = article.benchmark_scope
    if scope and scope.publication_date > article.as_of_date:
        findings.append(_error(
            f"the benchmark was published on {scope.publication_date}, after the article's "
            f"as-of date {article.as_of_date}", "/benchmark_scope/publication_date"))
    return findings
