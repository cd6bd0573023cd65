"""Referential integrity: ids are unique and every reference resolves."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from ..models import Article
from ..report import Finding, Severity
from .text import body_span

__all__ = ["CITATION_RE", "check_integrity"]

#: A citation marker in the body: ``[S4]``.
CITATION_RE = re.compile(r"\[(S[0-9]+)\]")


def _duplicates(ids: Iterable[str], collection: str, article: Article) -> list[Finding]:
    items = list(ids)
    findings = []
    for ident, count in Counter(items).items():
        if count > 1:
            index = [i for i, x in enumerate(items) if x == ident][1]
            findings.append(
                Finding(
                    Severity.error, "duplicate-id",
                    f"{collection} id {ident!r} is used {count} times; ids must be unique",
                    f"/{collection}/{index}/id",
                )
            )
    return findings


def check_integrity(article: Article) -> list[Finding]:
    findings = _duplicates((s.id for s in article.sources), "sources", article)
    findings += _duplicates((f.id for f in article.facts), "facts", article)
    findings += _duplicates((i.id for i in article.inferences), "inferences", article)
    findings += _duplicates((m.id for m in article.measurements or []), "measurements", article)
    source_ids = {s.id for s in article.sources}
    fact_ids = {f.id for f in article.facts}
    measurement_ids = {m.id for m in article.measurements or []}
    for i, fact in enumerate(article.facts):
        for j, sid in enumerate(fact.source_ids):
            if sid not in source_ids:
                findings.append(Finding(
                    Severity.error, "dangling-reference",
                    f"fact {fact.id} cites source {sid}, which is not in sources",
                    f"/facts/{i}/source_ids/{j}",
                ))
        for j, mid in enumerate(fact.measurement_ids or []):
            if mid not in measurement_ids:
                findings.append(Finding(
                    Severity.error, "dangling-reference",
                    f"fact {fact.id} cites measurement {mid}, which is not in measurements",
                    f"/facts/{i}/measurement_ids/{j}",
                ))
    for i, inference in enumerate(article.inferences):
        for j, fid in enumerate(inference.basis_fact_ids):
            if fid not in fact_ids:
                findings.append(Finding(
                    Severity.error, "dangling-reference",
                    f"inference {inference.id} rests on fact {fid}, which is not in facts",
                    f"/inferences/{i}/basis_fact_ids/{j}",
                ))
    for match in CITATION_RE.finditer(article.body):
        if match.group(1) not in source_ids:
            findings.append(body_span(
                article, match.start(), match.end(), Severity.error, "dangling-citation",
                f"citation [{match.group(1)}] names a source that is not in sources",
            ))
    return findings
