"""``conflated-experiments`` from a one-run claim (ledger.verify.sameruns): "in the same ...
run", "in a single ... session" says the sentence's figures come from one run; when the run it
names (by its experiment's words, or by the earlier sentence it points back to) is not the
experiment of the figures, or the figures come from two experiments, the sentence joins them.
Sentences, systems and values written for these tests."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from verify_fixtures import load

from ledger.models import Article
from ledger.verify.consistency import word_count
from ledger.verify.sameruns import check_one_run_claims
from ledger.verify.tracing import trace_figures

METRICS = {"prefill_tokens_s": (5120, "quantity", "prefill sweep"),
           "decode_tokens_s": (830, "quantity", "decode sweep"),
           "p50_latency_ms": (41, "quantity", "decode sweep")}


def _article(body: str) -> Article:
    doc: dict[str, Any] = copy.deepcopy(load())
    doc["body"] = body + "\n"
    doc["editorial_word_count"] = word_count(doc["body"])
    scope = doc["benchmark_scope"]
    scope["reported_metrics"] = {n: v for n, (v, _, _) in METRICS.items()}
    scope["metric_specs"] = {n: {"label": n.replace("_", " "), "kind": k, "vocabulary": [],
                                 "experiment": e} for n, (_, k, e) in METRICS.items()}
    return Article.model_validate_json(json.dumps(doc))


def _claimed(body: str) -> list[tuple[str, str]]:
    article = _article(body)
    findings = check_one_run_claims(article, trace_figures(article))
    return [(f.severity.value, article.body.split("\n")[(f.line or 1) - 1][
        (f.column or 1) - 1:(f.end_column or 1) - 1]) for f in findings]


@pytest.mark.parametrize(("body", "severity", "covers"), [
    ("The vendor ran two sweeps. In the same prefill sweep, decode reached 830 tokens/s.",
     "error", "830"),
    ("Prefill ran at 5120 tokens/s and decode at 830 tokens/s in a single benchmark session.",
     "error", "single benchmark session"),
    ("The prefill sweep on the H200 gave 5120 tokens/s. In that same H200 run, median latency "
     "was 41 ms.", "warning", "41"),
])
def test_a_one_run_claim_over_another_experiment_joins_them(body: str, severity: str,
                                                            covers: str) -> None:
    found = _claimed(body)
    assert [s for s, _ in found] == [severity], found
    assert covers in found[0][1], found


@pytest.mark.parametrize("body", [
    "The vendor ran two sweeps. In the same decode sweep, median latency was 41 ms.",
    "The decode sweep reached 830 tokens/s. In the same run, median latency was 41 ms.",
    "The same post describes a separate experiment: prefill at 5120 tokens/s.",
    "A second suite describes the same format and tests decode at 830 tokens/s.",
    "In the same table the vendor lists prefill at 5120 tokens/s.",
])
def test_a_one_run_claim_over_its_own_experiment_is_no_join(body: str) -> None:
    assert _claimed(body) == []


def test_the_same_study_is_a_publication_not_a_run() -> None:
    assert _claimed("The decode sweep reached 830 tokens/s; the same study drove prefill to "
                    "5120 tokens/s.") == []


@pytest.mark.parametrize(("body", "covers"), [
    ("Decode moved from 830 tokens/s to 5120 tokens/s within a single benchmark session.",
     "5120"),
    ("The prefill sweep used a Qwen 2.5 7B model and gave 5120 tokens/s.\n\nLater the vendor "
     "tuned decode. On that same Qwen 2.5 7B run, decode reached 830 tokens/s.", "830"),
])
def test_each_end_of_a_range_and_an_earlier_paragraph_are_read(body: str, covers: str) -> None:
    found = _claimed(body)
    assert len(found) == 1 and covers in found[0][1], found
