"""Facts against their sources' own words.

Always (no snapshot needed):

* ``unquoted-fact`` (warning): an article that quotes some of its facts leaves an
  author-reported fact with figures unquoted; an article that quotes none (written before quotes
  existed; quotes are optional for old articles) gets the same finding as a ``note`` saying its
  facts are not grounded in quotes;
* ``quote-source-not-cited`` (error): a quote names a source the fact does not cite;
* ``ungrounded-figure``: a figure of the claim appears in none of its quotes (nor, for a date,
  among the source's own dates). Its severity follows what the quotes say
  (:func:`ledger.grounding.ground_figures`):

  - **error** when a quote states a figure of the same kind (a multiplier, a percent, a size,
    a count of the same thing) that no figure of the claim uses: the quote covers that result
    and gives another value, so the claim or the quote is mistyped (``48x`` against a quoted
    ``46x``). Unused quoted figures pair one to one with the claim's, nearest value first;
  - **note**, one per fact listing the figures, when the quotes state no unused figure of their
    kind: the quote is partial. Desks routinely quote the sentence behind a fact's headline
    figure and not the formula, the setup or the other results (a fact with four results and
    a quote of one); such a figure is not evidence of a mistake, and the body's figures are
    still traced to the claim. It is a note rather than a warning because partial quotes are
    normal on correct articles: a warning per partially quoted fact would spend most of the
    warning budget (at most one warning per clean article on average, all rules together) on
    articles with nothing wrong, and a warning that is always there is not read.

With snapshots of the sources (``ledger verify --db`` or ``--sources DIR``), from
:func:`grounding_check`:

* ``quote-not-found`` (error): the quote is not in the snapshot taken at retrieval; the finding
  shows the closest passage and its similarity;
* ``stale-quote`` (warning): the quote was in the snapshot taken at retrieval and is gone from
  the latest one;
* ``source-metadata-mismatch`` (warning): the source's publisher, published_at or page_date
  disagrees with the page's own metadata;
* ``snapshot-unreadable`` (error): the saved page has no readable text (one line says why).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import ExtractError
from ..figures import extract_figures
from ..grounding import Ungrounded, closest_passage, contains, ground_figures, normalize
from ..models import AUTHOR_REPORTED_EVIDENCE, Article, Fact, Source
from ..readable import PageMeta
from ..report import Finding, Severity

__all__ = [
    "SnapshotLookup",
    "SnapshotText",
    "SourceSnapshots",
    "check_quotes",
    "grounding_check",
]


@dataclass(frozen=True)
class SnapshotText:
    """The readable text of one snapshot, normalised once."""

    text: str
    retrieved_at: str
    label: str
    meta: PageMeta = field(default_factory=PageMeta)

    @property
    def normalized(self) -> str:
        return normalize(self.text)


@dataclass(frozen=True)
class SourceSnapshots:
    at_retrieval: SnapshotText
    latest: SnapshotText


#: ``(article_id, source) -> snapshots``; None when the source has no readable snapshot.
SnapshotLookup = Callable[[str, Source], "SourceSnapshots | None"]


def _source_dates(source: Source | None) -> list[dt.date]:
    if source is None:
        return []
    return [d for d in (source.published_at, source.updated_at, source.page_date) if d]


def _fact_findings(article: Article, i: int, fact: Fact) -> list[Finding]:
    base = f"/facts/{i}"
    quotes = fact.quotes or []
    findings = []
    for j, quote in enumerate(quotes):
        if quote.source_id not in fact.source_ids:
            findings.append(Finding(
                Severity.error, "quote-source-not-cited",
                f"fact {fact.id} quotes {quote.source_id}, which it does not cite "
                f"(source_ids: {', '.join(fact.source_ids)})", f"{base}/quotes/{j}/source_id"))
    sources = {s.id: s for s in article.sources}
    dates = [d for sid in fact.source_ids for d in _source_dates(sources.get(sid))]
    missing = ground_figures(fact.claim, [q.text for q in quotes], dates)
    quoted_from = f"{len(quotes)} quote(s) from {', '.join(sorted({q.source_id for q in quotes}))}"
    for u in missing:
        if u.contradicted_by is not None:
            findings.append(_contradicted(fact, u, quoted_from, f"{base}/claim"))
    unquoted = [u for u in missing if u.contradicted_by is None]
    if unquoted:
        findings.append(_unquoted_figures(fact, unquoted, quoted_from, f"{base}/claim"))
    return findings


def _contradicted(fact: Fact, u: Ungrounded, quoted_from: str, pointer: str) -> Finding:
    assert u.contradicted_by is not None
    said, said_q = u.contradicted_by
    trace = ({"figure": u.figure.text, **{"figure_" + k: v for k, v in u.quantity.to_dict().items()}},
             {"quote_figure": said.text, "verdict": "value",
              **{"quote_" + k: v for k, v in said_q.to_dict().items()}})
    return Finding(
        Severity.error, "ungrounded-figure",
        f"fact {fact.id}: {u.figure.text!r} appears in none of its quotes ({quoted_from}), "
        f"which state {said.text!r} ({said_q.describe()}), a figure of the same kind the claim "
        f"does not use: one of the two is mistyped", pointer, trace=trace)


def _unquoted_figures(fact: Fact, unquoted: list[Ungrounded], quoted_from: str, pointer: str
                      ) -> Finding:
    texts = ", ".join(repr(u.figure.text) for u in unquoted[:12])
    more = f" and {len(unquoted) - 12} more" if len(unquoted) > 12 else ""
    trace = tuple({"figure": u.figure.text, **{"figure_" + k: v for k, v in
                                               u.quantity.to_dict().items()}}
                  for u in unquoted[:12])
    return Finding(
        Severity.note, "ungrounded-figure",
        f"fact {fact.id}: {len(unquoted)} figure(s) appear in none of its quotes ({quoted_from}):"
        f" {texts}{more}; the quotes state no other figure of their kind, so the quote is "
        f"partial, not contradicted; quote the passage that gives them to have them checked",
        pointer, trace=trace)


def _is_unquoted(fact: Fact) -> bool:
    return (not fact.quotes and fact.evidence_type in AUTHOR_REPORTED_EVIDENCE
            and bool(extract_figures(fact.claim)))


def _unquoted_finding(article: Article, unquoted: list[tuple[int, Fact]]) -> Finding:
    ids = ", ".join(f.id for _, f in unquoted)
    if not any(f.quotes for f in article.facts):
        return Finding(
            Severity.note, "unquoted-fact",
            f"this article quotes no source, so its facts are not grounded in quotes "
            f"({len(unquoted)} report the authors' figures: {ids}); add facts[].quotes with the "
            f"sources' words to have them checked", f"/facts/{unquoted[0][0]}")
    return Finding(
        Severity.warning, "unquoted-fact",
        f"{len(unquoted)} fact(s) report the authors' figures but quote none of their "
        f"sources ({ids}), while other facts here are quoted; add facts[].quotes with the "
        f"sources' words", f"/facts/{unquoted[0][0]}")


def check_quotes(article: Article) -> list[Finding]:
    """The checks that need no snapshot (see the module doc).

    Unquoted facts make ONE finding per article, listing them: an article written before quotes
    existed gets one thing to fix, not a finding for each fact. It is a warning only where the
    article quotes some facts and not others; an article with no quote at all gets a note.
    """
    findings: list[Finding] = []
    unquoted = [(i, f) for i, f in enumerate(article.facts) if _is_unquoted(f)]
    if unquoted:
        findings.append(_unquoted_finding(article, unquoted))
    for i, fact in enumerate(article.facts):
        if fact.quotes:
            findings.extend(_fact_findings(article, i, fact))
    return findings


def _quote_findings(article: Article, snaps_by_source: dict[str, SourceSnapshots]
                    ) -> list[Finding]:
    findings: list[Finding] = []
    for i, fact in enumerate(article.facts):
        for j, quote in enumerate(fact.quotes or []):
            snaps = snaps_by_source.get(quote.source_id)
            if snaps is None:
                continue
            pointer = f"/facts/{i}/quotes/{j}/text"
            first, latest = snaps.at_retrieval, snaps.latest
            if not contains(first.normalized, quote.text):
                near = closest_passage(first.normalized, quote.text)
                findings.append(Finding(
                    Severity.error, "quote-not-found",
                    f"fact {fact.id}: quote not found in {quote.source_id} ({first.label}); "
                    f"closest passage ({near.similarity:.0f}% similar): {near.text!r}", pointer))
            elif latest is not first and not contains(latest.normalized, quote.text):
                near = closest_passage(latest.normalized, quote.text)
                findings.append(Finding(
                    Severity.warning, "stale-quote",
                    f"fact {fact.id}: quote was in {quote.source_id} at retrieval "
                    f"({first.label}) and is gone from the latest snapshot ({latest.label}); "
                    f"now closest ({near.similarity:.0f}% similar): {near.text!r}", pointer))
    return findings


def _date_of(value: str | None) -> dt.date | None:
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value.strip()[:10])
    except ValueError:
        return None


def _same_name(ours: str, theirs: str) -> bool:
    a, b = normalize(ours).casefold(), normalize(theirs).casefold()
    return a in b or b in a


def _metadata_findings(article: Article, snaps_by_source: dict[str, SourceSnapshots]
                       ) -> list[Finding]:
    findings: list[Finding] = []
    for k, source in enumerate(article.sources):
        snaps = snaps_by_source.get(source.id)
        if snaps is None:
            continue
        meta, where = snaps.at_retrieval.meta, f"/sources/{k}"
        problems: list[tuple[str, str]] = []
        if meta.site_name and not _same_name(source.publisher, meta.site_name):
            problems.append(("publisher", f"publisher {source.publisher!r}, the page's site "
                             f"name {meta.site_name!r}"))
        published = _date_of(meta.published)
        if published and source.published_at and published != source.published_at:
            problems.append(("published_at", f"published_at {source.published_at}, the page "
                             f"says published {published}"))
        modified = _date_of(meta.modified) or published
        if modified and source.page_date and modified != source.page_date:
            problems.append(("page_date", f"page_date {source.page_date}, the page's own date "
                             f"is {modified}"))
        for name, text in problems:
            findings.append(Finding(Severity.warning, "source-metadata-mismatch",
                                    f"source {source.id}: {text} ({snaps.at_retrieval.label})",
                                    f"{where}/{name}"))
    return findings


def _snapshots(article: Article, lookup: SnapshotLookup
               ) -> tuple[dict[str, SourceSnapshots], list[Finding]]:
    found: dict[str, SourceSnapshots] = {}
    findings: list[Finding] = []
    for k, source in enumerate(article.sources):
        try:
            snaps = lookup(article.id, source)
        except ExtractError as exc:
            findings.append(Finding(Severity.error, "snapshot-unreadable",
                                    f"source {source.id}: {exc}", f"/sources/{k}"))
            continue
        if snaps is not None:
            found[source.id] = snaps
    return found, findings


def grounding_check(lookup: SnapshotLookup) -> Callable[[Article], list[Finding]]:
    """A check of quotes and metadata against the snapshots ``lookup`` returns (it may raise
    :class:`ExtractError` for a source whose saved page has no readable text)."""
    def check(article: Article) -> list[Finding]:
        snaps, findings = _snapshots(article, lookup)
        return findings + _quote_findings(article, snaps) + _metadata_findings(article, snaps)
    return check
