"""``misattributed-source`` on owners written another way than the source's publisher: an
organisation's initials ("University of Toronto" for "UT ..."), a named group inside an
organisation ("Meta's FAIR team"), and the article's own system naming its own repository or
paper ("the Slabcache repository"); wrong owners stay errors."""

from __future__ import annotations

import json
from typing import Any

from verify_fixtures import load

from ledger.models import Article
from ledger.verify.owners import check_owners


def _source(sid: str, publisher: str, title: str, url: str,
            authors: list[str] | None = None) -> dict[str, Any]:
    return {"id": sid, "title": title, "publisher": publisher, "published_at": None,
            "retrieved_at": "2026-11-04", "url": url, "primary": True, "authors": authors}


SOURCES = [
    _source("S1", "UT Systems Lab (utsyslab.github.io)", "Slabcache (project page)",
            "https://utsyslab.github.io/projects/slabcache"),
    _source("S2", "CMU Catalyst", "Tiered KV caching for long prompts",
            "https://catalyst.cs.cmu.edu/papers/tiered-kv"),
    _source("S3", "NVIDIA", "Inference at scale", "https://developer.nvidia.com/blog/scale"),
    _source("S4", "Massachusetts Institute of Technology", "Sparse attention notes",
            "https://web.mit.edu/sparse-notes"),
    _source("S5", "FAIR", "Long-context evaluation", "https://ai.meta.com/research/long-eval"),
    _source("S6", "jdoe/kvtier (GitHub)", "kvtier README",
            "https://github.com/jdoe/kvtier/blob/main/README.md"),
]


def _owners(sentence: str, *, title: str = "Slabcache: a tiered KV store",
            subject: str = "Slabcache tiered KV cache store (kvtier)") -> list[tuple[str, str]]:
    doc = load()
    doc["sources"] = SOURCES
    doc["facts"] = [{"id": "F1", "claim": "The project page links the code.",
                     "source_ids": ["S1"], "evidence_type": "primary_documentation"}]
    doc["title"], doc["subject"], doc["body"] = title, subject, sentence
    doc["inferences"], doc["corrections"], doc["measurements"] = [], [], []
    doc.pop("benchmark_scope", None)
    article = Article.model_validate_json(json.dumps(doc))
    return [(f.severity.value, sentence[f.column - 1:f.end_column - 1])
            for f in check_owners(article) if f.line is not None]


def test_an_organisations_initials_name_the_same_owner() -> None:
    assert _owners("The page kept by the University of Toronto's systems group links the "
                   "code. [S1]") == []
    assert _owners("Carnegie Mellon University's write-up measures the gain. [S2]") == []
    assert _owners("MIT's notes put the saving at a third. [S4]") == []
    assert _owners("The notes of the Massachusetts Institute of Technology's group put the "
                   "saving at a third. [S4]") == []


def test_an_organisation_that_is_not_the_publisher_stays_an_error() -> None:
    found = _owners("The page kept by the University of Toronto's systems group links the "
                    "code. [S2]")
    assert [s for s, _ in found] == ["error"]
    assert [s for s, _ in _owners("Stanford University's post measures the gain. [S1]")] == [
        "error"]
    assert [s for s, _ in _owners("MIT's notes put the saving at a third. [S2]")] == ["error"]


def test_a_named_group_inside_an_organisation_owns_its_work() -> None:
    assert _owners("Meta's FAIR team reports the evaluation. [S5]") == []
    assert _owners("Toronto's UT Systems group keeps the page. [S1]") == []
    # the group named is not the publisher: still the wrong owner
    assert [s for s, _ in _owners("Meta's FAIR team reports the evaluation. [S3]")] == [
        "error"]


def test_the_articles_own_system_names_its_own_repository_and_paper() -> None:
    assert _owners("The code now lives in kvtier, which started as the Slabcache repository "
                   "and was renamed later. [S6]") == []
    assert _owners("The Slabcache paper describes two tiers. [S2]") == []
    assert _owners("As the Slabcache documentation puts it, the page is the unit. [S1]") == []


def test_a_system_named_as_owner_that_owns_another_source_stays_an_error() -> None:
    # NVIDIA is the article's subject here but publishes S3, not the cited S6
    found = _owners("The code sits in the NVIDIA repository. [S6]",
                    title="NVIDIA's tiered cache", subject="NVIDIA tiered KV cache")
    assert [s for s, _ in found] == ["error"]
    # a name neither the article's system nor the publisher
    assert [s for s, _ in _owners("The code sits in the Redwood repository. [S6]")] == ["error"]
