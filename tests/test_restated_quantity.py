"""Arithmetic restated in prose (:mod:`ledger.verify.restated`): a body figure restates an
inference's result only when it measures the same thing ("96 GB of activation memory"), not
when it sits near the same words but measures another ("150 GB for its weights")."""

from __future__ import annotations

import json

from verify_fixtures import load

from ledger.models import Article
from ledger.verify.restated import restatements

INFERENCE = {
    "id": "I9", "basis_fact_ids": ["F1"], "label": "PCT analysis",
    "claim": "Four replicas at 32k tokens need about 96 GB of activation memory on Qwen 72B.",
    "computation": {"inputs": {"act_gb_per_replica": 24, "replicas": 4},
                    "steps": [{"name": "act_gb", "expression": "act_gb_per_replica * replicas",
                               "result": 96, "unit": "GB"}]}}


def _restated(sentence: str) -> list[str]:
    doc = load()
    doc["inferences"] = [INFERENCE]
    doc["body"] = sentence
    article = Article.model_validate_json(json.dumps(doc))
    return [r.figure.text for r in restatements(article)]


def test_a_figure_of_another_thing_near_the_same_words_is_no_restatement() -> None:
    for sentence in (
        "Qwen 72B needs about 150 GB for its weights in BF16, and Qwen 32B about 66 GB.",
        "On Qwen 72B each replica needs about 80 GB of disk for checkpoints at 32k tokens.",
        "Four replicas of Qwen 72B need about 600 GB of weights in all, before tokens.",
    ):
        assert _restated(sentence) == [], sentence


def test_the_same_quantity_with_another_value_is_still_a_restatement() -> None:
    for sentence in (
        "Four replicas at 32k tokens add about 90 GB of activation memory on Qwen 72B.",
        "On Qwen 72B, four replicas at 32k tokens need some 100 GB of activation memory.",
    ):
        assert _restated(sentence) != [], sentence


def test_what_a_figure_measures_skips_figures_and_small_words() -> None:
    from ledger.quantities import typed_figures
    from ledger.verify.restated import _measured

    def measured(text: str) -> set[str]:
        fig = typed_figures(text)[0][0]
        return _measured(text, fig)

    assert measured("about 6% of a 30 ms decode step") == {"decode", "step"}
    assert measured("150 GB for its weights in BF16") == {"weight"}
    assert measured("about 96 GB of activation memory on Qwen") == {"activation", "memory"}
    assert measured("150 GB, as before") == set()
