"""``misattributed-source``: people named as a cited work's authors, owners of products, and
markers that cite together; on mutated copies of the desk's article (sentences written here)."""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_fixtures import (
    DOCUMENTATION,
    Doc,
    add_fact,
    findings_at,
    replace_body,
    replacing,
    verify_mutant,
    verify_with,
)

from ledger.report import FileResult
from ledger.verify.persons import authorships, is_person_name, same_person

S4_OPEN = "In a May 6, 2026 vLLM report, the authors tested"
S3_OPEN = "MooncakeStoreConnector extends reuse beyond one instance."


def owner_findings(result: FileResult, doc: Doc, text: str) -> list[str]:
    return [f.severity.value for f in findings_at(result, doc, text)
            if f.rule == "misattributed-source"]


def _acme_study(doc: Doc) -> None:
    """A party the S4 report quotes, so its studies may be named beside the citation."""
    add_fact(doc, "Acme, quoted in the post, reports a cache study.", DOCUMENTATION,
             fact_id="F99")


def test_listed_authors_pass(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, replacing(
        S4_OPEN, "In a May 6, 2026 report by Yifan Qiao, Trong Le and three colleagues, "
        "the authors tested"))
    assert not [f for f in result.findings if f.rule == "misattributed-source"], result.findings


def test_author_of_another_source_is_an_error(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, replacing(
        S4_OPEN, "In a May 6, 2026 report by Ruoyu Qin and four colleagues, the authors "
        "tested"))
    assert owner_findings(result, doc, "Ruoyu Qin") == ["error"]


def test_unknown_person_is_an_error_when_the_source_lists_its_authors(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, replacing(
        S4_OPEN, "In a May 6, 2026 post by Wei Qiao, the authors tested"))
    assert owner_findings(result, doc, "Wei Qiao") == ["error"]  # not Yifan Qiao


def test_partial_list_is_a_warning(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, replacing(
        S4_OPEN, "In a May 6, 2026 report by Yifan Qiao, Maria Lopez and colleagues, the "
        "authors tested"))
    assert owner_findings(result, doc, "Maria Lopez") == ["warning"]
    assert owner_findings(result, doc, "Yifan Qiao") == []


def test_source_without_authors_is_a_warning(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, replacing(
        S3_OPEN, "MooncakeStoreConnector, from Maria Lopez and colleagues, extends reuse "
        "beyond one instance."))
    assert owner_findings(result, doc, "Maria Lopez") == ["warning"]


def test_faq_owner(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, replacing(
        S3_OPEN, "Intel's FAQ says MooncakeStoreConnector extends reuse beyond one instance."))
    assert owner_findings(result, doc, "Intel's") == ["error"]


@pytest.mark.parametrize(("sentence", "owner", "expected"), [
    # kvcache-ai publishes S6, whose title names Mooncake: it owns the product
    ("kvcache-ai's Mooncake integration extends reuse beyond one instance.", "kvcache-ai", []),
    # vLLM publishes the cited guide
    ("vLLM's MooncakeStoreConnector plugin extends reuse beyond one instance.", "vLLM's", []),
    # arXiv publishes S1, while the cited S3 documents the connector
    ("arXiv's MooncakeStoreConnector plugin extends reuse beyond one instance.", "arXiv's",
     ["error"]),
    # a company that owns no source: it may still own the product
    ("Intel's MooncakeStoreConnector plugin extends reuse beyond one instance.", "Intel's",
     ["warning"]),
])
def test_product_owner(tmp_path: Path, sentence: str, owner: str, expected: list[str]) -> None:
    doc, result = verify_with(tmp_path, replacing(S3_OPEN, sentence))
    assert owner_findings(result, doc, owner) == expected, result.findings


def test_markers_separated_by_a_space_cite_together(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        replace_body(doc, "That puts memory placement", "arXiv lists the paper. That puts memory "
                     "placement")
        replace_body(doc, "alongside accelerator performance in the serving design. [S1]",
                     "alongside accelerator performance in the serving design. [S2] [S1]")
    doc, result = verify_mutant(tmp_path, mutate)
    assert owner_findings(result, doc, "arXiv") == [], result.findings


@pytest.mark.parametrize(("name", "author", "same"), [
    ("Joey Gonzalez", "Joseph E. Gonzalez", True),
    ("Inigo Goiri", "Íñigo Goiri", True),
    ("Gonzalez", "Joseph E. Gonzalez", True),
    ("Hao Zhang", "Qizheng Zhang", False),
    ("Hao Zhang", "Hao Li", False),
])
def test_same_person(name: str, author: str, same: bool) -> None:
    assert same_person(name, author) is same


def test_authorship_constructions() -> None:
    found = authorships("Frobnicator, by Jane Roe, Ian Poe and six co-authors, is fast.")
    assert [n for _, _, n in found[0].names] == ["Jane Roe", "Ian Poe"]
    assert found[0].work == "Frobnicator"
    assert [n for _, _, n in authorships("It was described in a post by Ada Byron.")[0].names] \
        == ["Ada Byron"]
    assert authorships("Requests served by Widget Cloud rose.") == []
    assert not is_person_name("Microsoft Research") and not is_person_name("NVIDIA Dynamo")


def test_secondary_source_naming_the_works_authors_is_a_warning(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        doc["sources"][3]["primary"] = False
        replace_body(doc, S4_OPEN, "In a May 6, 2026 report by Maria Lopez, the authors tested")
    doc, result = verify_mutant(tmp_path, mutate)
    assert owner_findings(result, doc, "Maria Lopez") == ["warning"]


@pytest.mark.parametrize(("sentence", "owner", "expected"), [
    # a document named after the product its cited title names
    ("The MooncakeStoreConnector usage guide says reuse extends beyond one instance.",
     "MooncakeStoreConnector", []),
    ("The Intel usage guide says reuse extends beyond one instance.", "Intel", ["error"]),
])
def test_document_named_after_a_product(tmp_path: Path, sentence: str, owner: str,
                                        expected: list[str]) -> None:
    doc, result = verify_with(tmp_path, replacing(S3_OPEN, sentence))
    assert owner_findings(result, doc, owner) == expected, result.findings


@pytest.mark.parametrize(("opening", "owner", "expected"), [
    ("Intel's review puts it plainly: the authors tested", "Intel's", ["error"]),
    ("Intel's explainer puts it plainly: the authors tested", "Intel's", ["error"]),
    # a result or study of a party the source quotes (Acme, in a fact citing S4) is accepted;
    # of anyone else, not, with capitalised words before the noun too
    ("Acme's GPU cache study puts it plainly: the authors tested", "Acme's", []),
    ("Intel's GPU Cache study puts it plainly: the authors tested", "Intel's", ["error"]),
    ("In an explainer by the vLLM team, the authors tested", "vLLM", []),
    # a person's group is matched as a person: the same surname is not enough
    ("Wei Qiao's group reports that the authors tested", "Wei Qiao's", ["error"]),
    ("Yifan Qiao's group reports that the authors tested", "Yifan Qiao's", []),
])
def test_documents_and_groups(tmp_path: Path, opening: str, owner: str,
                              expected: list[str]) -> None:
    doc, result = verify_with(tmp_path, _acme_study, replacing(S4_OPEN, opening))
    assert owner_findings(result, doc, owner) == expected, result.findings


def test_a_talk_by_someone_may_be_what_the_source_reports(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, replacing(
        S4_OPEN, "In a May 6, 2026 post on a talk by Maria Lopez, the authors tested"))
    assert owner_findings(result, doc, "Maria Lopez") == ["warning"]


@pytest.mark.parametrize("opening", [
    # the possessive governs its own noun, not "the authors" of the next clause
    "In a May 6, 2026 post on Intel's Kimi deployment, the authors tested",
    # a product in the object says nothing about whose the citation is
    "In a May 6, 2026 vLLM report, the authors tested Intel's Widget framework and",
])
def test_possessives_that_are_not_owners_of_the_citation(tmp_path: Path, opening: str) -> None:
    doc, result = verify_with(tmp_path, replacing(S4_OPEN, opening))
    assert owner_findings(result, doc, "Intel") == [], result.findings


def test_authorship_by_groups_and_opening_names() -> None:
    found = authorships("The study, from nine authors including Jane Roe and Ian Poe, is long.")
    assert [n for au in found for _, _, n in au.names] == ["Jane Roe", "Ian Poe"]
    found = authorships("Gadget, from a ten-author group led by Ada Byron, with Ian Poe "
                        "listed last, pages weights.")
    assert [n for au in found for _, _, n in au.names] == ["Ada Byron"]
    found = authorships("Jane Roe and Ian Poe frame caching as paging and report 2x.")
    assert [n for au in found for _, _, n in au.names] == ["Jane Roe", "Ian Poe"]
    # opening names with no verb of saying are not named as the work's authors
    assert authorships("Jane Roe joined the Gadget project in 2024.") == []
    assert authorships("The announcement by Ada Byron lists three backends.")[0].names


@pytest.mark.parametrize(("opening", "person", "expected"), [
    ("In a May 6, 2026 vLLM report, six authors including Yifan Qiao and Maria Lopez tested",
     "Maria Lopez", ["warning"]),
    ("In a May 6, 2026 vLLM report, a five-person team led by Maria Lopez tested",
     "Maria Lopez", ["error"]),
    ("In a May 6, 2026 vLLM report, a five-person team led by Yifan Qiao tested",
     "Yifan Qiao", []),
    ("Maria Lopez and Wei Chen describe a May 6, 2026 vLLM report in which the authors tested",
     "Maria Lopez", ["error"]),
    ("Yifan Qiao and Ao Shen describe a May 6, 2026 vLLM report in which the authors tested",
     "Yifan Qiao", []),
    ("The May 6, 2026 announcement by Maria Lopez says the authors tested", "Maria Lopez",
     ["error"]),
])
def test_people_named_in_groups_and_as_subjects(tmp_path: Path, opening: str, person: str,
                                               expected: list[str]) -> None:
    doc, result = verify_with(tmp_path, replacing(S4_OPEN, opening))
    assert owner_findings(result, doc, person) == expected, result.findings


@pytest.mark.parametrize(("opening", "owner", "expected"), [
    # a named subject taking a position in the cited work
    ("Intel argues that in a May 6, 2026 vLLM report the authors tested", "Intel", ["error"]),
    ("vLLM argues that in a May 6, 2026 report the authors tested", "vLLM", []),
    # a possessive before an evaluation or an example: the owner of that work
    ("Intel's evaluation shows that in a May 6, 2026 vLLM report the authors tested", "Intel",
     ["error"]),
    ("Acme's evaluation shows that in a May 6, 2026 vLLM report the authors tested", "Acme", []),
    ("Intel's agentic example shows that in a May 6, 2026 vLLM report the authors tested",
     "Intel", ["error"]),
])
def test_stances_evaluations_and_examples(tmp_path: Path, opening: str, owner: str,
                                          expected: list[str]) -> None:
    doc, result = verify_with(tmp_path, _acme_study, replacing(S4_OPEN, opening))
    assert owner_findings(result, doc, owner) == expected, result.findings


@pytest.mark.parametrize(("sentence", "expected"), [
    # a named document's possessive before a thing it holds: the source discusses it
    ("A run of the Intel tutorial's kernel extends reuse beyond one instance.", []),
    ("The Intel tutorial's figures say reuse extends beyond one instance.", ["error"]),
])
def test_named_document_as_a_modifier(tmp_path: Path, sentence: str,
                                      expected: list[str]) -> None:
    doc, result = verify_with(tmp_path, replacing(S3_OPEN, sentence))
    assert owner_findings(result, doc, "Intel") == expected, result.findings


def test_possessives_and_documents_are_not_people_or_owners(tmp_path: Path) -> None:
    # "Widget's Pager treats ...": a product, not two people opening the sentence
    assert authorships("Gadget's Pager treats the cache as a store and reports 2x.") == []
    doc, result = verify_with(tmp_path, replacing(
        S4_OPEN, "The README's agentic example shows that in a May 6, 2026 vLLM report the "
        "authors tested"))
    assert owner_findings(result, doc, "README") == [], result.findings


def _s3_secondary_on_s4(doc: Doc) -> None:
    """S3 becomes an unsigned review of S4's work: no authors of its own, not primary."""
    doc["sources"][2]["primary"] = False


@pytest.mark.parametrize(("sentence", "expected"), [
    # S3 lists no authors and Yifan Qiao wrote S4: the sentence may name the authors of a work
    # S3 reports on, which the checker cannot decide (a warning, not an error)
    ("MooncakeStoreConnector, from Yifan Qiao and colleagues, extends reuse beyond one "
     "instance.", ["warning"]),
    ("The connector, in a write-up by Bowen Wang, extends reuse beyond one instance.",
     ["warning"]),
])
def test_author_of_another_source_named_beside_an_unsigned_source(
        tmp_path: Path, sentence: str, expected: list[str]) -> None:
    doc, result = verify_with(tmp_path, replacing(S3_OPEN, sentence))
    person = "Bowen Wang" if "Bowen" in sentence else "Yifan Qiao"
    assert owner_findings(result, doc, person) == expected, result.findings


def test_a_reviewed_works_authors_beside_the_review(tmp_path: Path) -> None:
    # the Infinite-LLM shape in other words: a paper titled "Name: ...", its first author
    # named beside the citation of an unsigned review of it
    def mutate(doc: Doc) -> None:
        _s3_secondary_on_s4(doc)
        doc["sources"][3]["title"] = "FlexStore: Serving Agentic Workloads at Scale"
        replace_body(doc, S3_OPEN, "FlexStore, from Ao Shen and colleagues, extends reuse "
                     "beyond one instance.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert owner_findings(result, doc, "Ao Shen") == [], result.findings


@pytest.mark.parametrize(("sentence", "owner", "expected"), [
    # a publication whose name opens with "The", as the subject of a verb of telling
    ("The Register reported that MooncakeStoreConnector extends reuse beyond one instance.",
     "Register", ["error"]),
    ("The Register, reviewing the connector, relayed that it extends reuse beyond one "
     "instance.", "Register", ["error"]),
    # the subject after an opening date
    ("On 3 March 2026 Intel published a note: the connector extends reuse beyond one "
     "instance.", "Intel", ["error"]),
    ("On 3 March 2026 vLLM published a note: the connector extends reuse beyond one "
     "instance.", "vLLM", []),
    # "as NAME records it", "told NAME": the party whose account is cited
    ("As Intel records it, the connector extends reuse beyond one instance.", "Intel",
     ["error"]),
    ("As vLLM records it, the connector extends reuse beyond one instance.", "vLLM", []),
    ("A maintainer told Intel that the connector extends reuse beyond one instance.", "Intel",
     ["error"]),
    # a possessive heading the subject of a verb of saying, whatever its noun
    ("Intel's spec sheet for the connector lists reuse beyond one instance.", "Intel",
     ["error"]),
    ("vLLM's spec sheet for the connector lists reuse beyond one instance.", "vLLM", []),
])
def test_owners_as_tellers(tmp_path: Path, sentence: str, owner: str,
                           expected: list[str]) -> None:
    doc, result = verify_with(tmp_path, replacing(S3_OPEN, sentence))
    assert owner_findings(result, doc, owner) == expected, result.findings


@pytest.mark.parametrize("sentence, owner, construction", [
    # who put the document out, after a participle
    ("Tuning notes compiled by Contoso Labs give the queue depth as 64.", "Contoso Labs", "doc"),
    ("The later abstract, as archived by Paperlist, adds a third model.", "Paperlist", "doc"),
    # where its code lives
    ("Pagewise, a KV store in Initech's GitHub organisation, caches pages.", "Initech", "doc"),
    # a possessive with a bare apostrophe after a final s
    ("Globex Systems' release notes list four tiers.", "Globex Systems", "doc"),
    # the name's own outlet, not a topic it shares with a title
    ("In a Contoso engineering-blog tutorial, the cache hits 40% of prompts.", "Contoso", "doc"),
])
def test_more_owner_constructions(sentence: str, owner: str, construction: str) -> None:
    from ledger.verify.owners import owners_in
    assert (owner, construction) in [(n, c) for _, _, n, c, _ in owners_in(sentence)]


def test_a_person_after_by_is_left_to_authorships() -> None:
    from ledger.verify.owners import owners_in
    assert not owners_in("The notes, published by Jane Roe, list four tiers.")


def test_put_out_by_people_is_an_authorship() -> None:
    [au] = authorships("Pagewise, posted to arXiv on March 3, 2026 by Ana Ruiz and Tom Berg, "
                       "moves the cache.")
    assert [n for _, _, n in au.names] == ["Ana Ruiz", "Tom Berg"]


def test_a_shared_generic_word_is_no_match() -> None:
    from ledger.verify.sourcenames import matches
    assert not matches("Initech Research", ["Globex Research"])
    assert not matches("Contoso AI Lab", ["Fabrikam AI Lab"])
    assert matches("Initech", ["Initech Research"])
    assert matches("Initech Research", ["Initech"])


def test_names_after_an_opening_document_phrase_are_its_authors() -> None:
    [au] = authorships("In a Contoso tutorial published May 2, 2026, Ana Ruiz and Tom Berg "
                       "cache the prompts.")
    assert [n for _, _, n in au.names] == ["Ana Ruiz", "Tom Berg"]
    assert not authorships("In a post on caching, Red Hat Summit attendees heard it.")
