"""Prose guardrails broken in wordings the reader missed: a plural agent with a verb's base form
("the maintainers put it at"), an owner the guardrail forbids although it names it in another
role, "per-GPU" written "per GPU", and "them" standing for the names of the guardrail's head.
Each guardrail and sentence is written here, on the seed article."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from verify_fixtures import adding, verify_with

Doc = dict[str, Any]


def guardrail(text: str):  # a prose guardrail, appended to the article's corrections
    def step(doc: Doc) -> None:
        doc["corrections"].append({"status": "prepublication_guardrail", "text": text})
    return step


def _warned(tmp_path: Path, rule: str, sentence: str) -> bool:
    doc, result = verify_with(tmp_path, guardrail(rule), adding(sentence))
    index = len(doc["corrections"])
    return any(f.rule == "guardrail" and f.message.startswith(f"guardrail {index} ")
               for f in result.findings)


CREDIT = "Do not credit the 1.7% and 92.2% hit rates to the Mooncake maintainers."


@pytest.mark.parametrize("sentence", [
    "The Mooncake maintainers put cache hits at 92.2% on the coding traces.",
    "The Mooncake maintainers report that hits climbed to 92.2%.",
    "The Mooncake maintainers also say hits went from 1.7% to 92.2%.",
])
def test_a_plural_agent_with_a_base_verb_is_credited(tmp_path: Path, sentence: str) -> None:
    assert _warned(tmp_path, CREDIT, sentence)


def test_the_figure_without_that_agent_keeps_the_guardrail(tmp_path: Path) -> None:
    assert not _warned(tmp_path, CREDIT, "The vLLM authors put cache hits at 92.2%.")


OWNER = ("The vLLM authors' throughput figures are quoted in the Acme newsletter; do not "
         "present them as Acme's or PCT's measurements.")


@pytest.mark.parametrize("sentence", [
    "Acme measured that vLLM with the store reached 3.8 times the throughput.",
    "On the vLLM traces, Acme benchmarked 3.8 times the throughput.",
])
def test_an_owner_the_guardrail_forbids_stays_forbidden(tmp_path: Path, sentence: str) -> None:
    assert _warned(tmp_path, OWNER, sentence)


def test_naming_the_owner_in_its_allowed_role_keeps_the_guardrail(tmp_path: Path) -> None:
    assert not _warned(tmp_path, OWNER,
                       "The Acme newsletter quotes the vLLM result of 3.8 times the throughput.")


PER_GPU = "The 12-GPU figures are totals for the deployment; do not present them as per-GPU rates."


@pytest.mark.parametrize("sentence", [
    "On 12 GB200 GPUs the store gave 3.8 times the throughput per GPU.",
    "Across 12 GB200 GPUs that is a per GPU gain of 3.8 times.",
])
def test_a_hyphenated_word_matches_its_spaced_form(tmp_path: Path, sentence: str) -> None:
    assert _warned(tmp_path, PER_GPU, sentence)


ALLOWED = ("The 12-GPU figure is a deployment total, not a per-GPU rate; only the vendor's "
           "slide words it as per GPU pair.")


def test_a_wording_the_guardrail_allows_is_no_violation(tmp_path: Path) -> None:
    assert not _warned(tmp_path, ALLOWED,
                       "On 12 GB200 GPUs the vendor's slide gives 3.8 times per GPU pair.")
    assert _warned(tmp_path, ALLOWED, "On 12 GB200 GPUs that is 3.8 times per GPU, it seems.")


THEM = ("Adoption by SGLang, LMCache or Dynamo is not a measured speedup in those projects; do "
        "not credit the 3.8 times to them.")


@pytest.mark.parametrize("sentence", [
    "SGLang, LMCache and Dynamo have adopted the store, each gaining 3.8 times the throughput.",
    "Dynamo, which sees 3.8 times the throughput, adopted the store early.",
    "LMCache reports 3.8 times the throughput with the store.",
])
def test_them_stands_for_the_names_of_the_head(tmp_path: Path, sentence: str) -> None:
    assert _warned(tmp_path, THEM, sentence)


def test_naming_them_apart_from_the_figure_keeps_the_guardrail(tmp_path: Path) -> None:
    assert not _warned(tmp_path, THEM, "SGLang, LMCache and Dynamo have adopted the store; "
                                       "the vLLM authors reported 3.8 times the throughput.")
