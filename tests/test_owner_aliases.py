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


def test_a_site_named_as_the_host_of_the_cited_document_must_be_its_own() -> None:
    # S5 is FAIR's; the CMU page and the NVIDIA blog are other sources of the article
    found = _owners("The evaluation is still listed on CMU Catalyst. [S5]")
    assert [s for s, _ in found] == ["error"]
    found = _owners("A digest of that study on NVIDIA adds the reason. [S5]")
    assert [s for s, _ in found] == ["error"]
    # the host that is the cited source's publisher or site, and hosts the article does not
    # cite at all, are no finding
    assert _owners("The evaluation is still listed on FAIR. [S5]") == []
    assert _owners("A digest of that study on Hacker News adds the reason. [S5]") == []
    # "on" before a topic, not a site: a name that no source of the article publishes
    assert _owners("A post on NVIDIA GPUs explains the limits. [S5]") == []
    assert _owners("A digest on Slabcache adds the reason. [S5]") == []


def test_a_marker_that_closes_the_sentence_before_is_not_the_next_sentences_start() -> None:
    # "[S1] Acme's widget library ..." after a sentence that ends "... default. [S1]": the
    # possessive opens its own sentence, which cites S3
    found = _owners("The page keeps the defaults. [S1] Meta's kvtier library also ships a "
                    "press. [S3]")
    assert [(s, t) for s, t in found] == [("warning", "Meta's")]


def test_a_document_from_an_organisation_names_its_owner() -> None:
    assert _owners("A commentary from FAIR argues the opposite. [S5]") == []
    assert _owners("A note from Carnegie Mellon University argues the opposite. [S2]") == []
    # another source's publisher: an error; a name the article knows nothing of: a warning
    # (it may be the authors' affiliation, which the sources do not record)
    assert [s for s, _ in _owners("A commentary from NVIDIA argues the opposite. [S5]")] == [
        "error"]
    assert [s for s, _ in _owners("A commentary from Redwood Labs argues the opposite. "
                                  "[S5]")] == ["warning"]
    # people are read as authors elsewhere; a place or a time is no owner
    assert _owners("A paper from 2023 argues the opposite. [S5]") == []


def test_by_an_organisations_count_names_the_owner_of_the_figure() -> None:
    assert _owners("The cache cut misses by a third, by FAIR's count. [S5]") == []
    assert [s for s, _ in _owners("The cache cut misses by a third, by NVIDIA's count. "
                                  "[S5]")] == ["error"]
    assert [s for s, _ in _owners("By CMU Catalyst's tally, the cache cut misses by a third. "
                                  "[S5]")] == ["error"]


def test_a_document_by_an_organisation_names_its_owner() -> None:
    assert _owners("A short summary by FAIR adds the reason. [S5]") == []
    assert [s for s, _ in _owners("A short summary by NVIDIA adds the reason. [S5]")] == [
        "error"]
    assert [s for s, _ in _owners("A short summary by Redwood Labs adds the reason. [S5]")
            ] == ["warning"]


def test_a_time_in_the_possessive_is_no_owner() -> None:
    for sentence in ("Today's README lists two kernels. [S5]",
                     "Monday's post lists two kernels. [S5]",
                     "March's release notes list two kernels. [S5]",
                     "Yesterday's changelog lists two kernels. [S5]"):
        assert _owners(sentence) == [], sentence
    assert [s for s, _ in _owners("NVIDIA's README lists two kernels. [S5]")] == ["error"]
