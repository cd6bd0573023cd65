"""Whose arithmetic a body figure restates (:mod:`ledger.verify.restated`): a figure that
another of the article's inferences works out, or that a source states (a table row given as
a bare number), is that inference's or that source's figure, not a changed result of the
inference whose words it shares."""

from __future__ import annotations

import json
from typing import Any

from verify_fixtures import load

from ledger.models import Article
from ledger.verify.tracing import check_tracing


def _inference(iid: str, claim: str, inputs: dict[str, float], expression: str,
               result: float, unit: str | None) -> dict[str, Any]:
    return {"id": iid, "basis_fact_ids": ["F1"], "label": "PCT analysis", "claim": claim,
            "computation": {"inputs": inputs, "steps": [
                {"name": "result", "expression": expression, "result": result, "unit": unit}]}}


#: Two inferences of one shape about two machines: a node's memory, worked out twice.
TWO_NODES = [
    _inference("I8", "Eight H200 GPUs at 141 GB each give one node 1,128 GB of HBM.",
               {"gpus": 8, "gb_each": 141}, "gpus * gb_each", 1128, "GB"),
    _inference("I9", "Four Gaudi 3 cards at 128 GB each give one node 512 GB of HBM.",
               {"cards": 4, "gb_each": 128}, "cards * gb_each", 512, "GB"),
]


def _arithmetic(sentence: str, inferences: list[dict[str, Any]],
                facts: list[str] = ()) -> list[str]:
    doc = load()
    doc["inferences"] = inferences
    doc["facts"] += [{"id": f"F{90 + i}", "claim": claim, "source_ids": ["S4"],
                      "evidence_type": "primary_documentation"}
                     for i, claim in enumerate(facts)]
    doc["body"] = sentence
    article = Article.model_validate_json(json.dumps(doc))
    return [f.message for f in check_tracing(article) if f.rule == "arithmetic"]


def test_another_inferences_result_is_no_changed_result_of_this_one() -> None:
    for sentence in (
        "By PCT's arithmetic, four Gaudi 3 cards at 128 GB each give one node 512 GB of HBM.",
        "One node of eight H200 GPUs at 141 GB each holds 1,128 GB of HBM, by PCT's arithmetic.",
        "A node of four Gaudi 3 cards holds 512 GB of HBM, the desk computes.",
    ):
        assert _arithmetic(sentence, TWO_NODES) == [], sentence


def test_a_changed_result_is_still_found_beside_another_inference() -> None:
    for sentence in (
        "By PCT's arithmetic, four Gaudi 3 cards at 128 GB each give one node 640 GB of HBM.",
        "One node of eight H200 GPUs at 141 GB each holds 1,024 GB of HBM, by PCT's arithmetic.",
    ):
        assert _arithmetic(sentence, TWO_NODES) != [], sentence


#: A source's table, its values written as bare numbers; the desk divides one row.
TABLE = ("Vendor table, output tokens/s on H100: Mistral 7B batch 32 TP1 128/128 9,412; "
         "Qwen 72B batch 32 TP4 128/128 2,980 and 2048/128 731.")
PER_GPU = _inference("I8", "Qwen 72B at 2,980 tokens/s on four GPUs is about 745 tokens/s "
                     "per GPU.", {"tps": 2980, "gpus": 4}, "tps / gpus", 745, "tokens/s")


def test_a_row_of_the_sources_table_is_no_changed_result() -> None:
    for sentence in (
        "Qwen 72B on four GPUs reached 2,980 tokens/s with 128-token prompts and 731 tokens/s "
        "with 2,048-token prompts.",
        "With 2,048-token prompts Qwen 72B on four GPUs gave 731 tokens/s, against 2,980 "
        "tokens/s with short ones.",
        "Mistral 7B on one GPU reached 9,412 tokens/s, and Qwen 72B 2,980 tokens/s on four.",
    ):
        assert _arithmetic(sentence, [PER_GPU], [TABLE]) == [], sentence


def test_a_changed_per_gpu_result_is_still_found_beside_the_table() -> None:
    sentence = "Qwen 72B at 2,980 tokens/s on four GPUs is about 790 tokens/s per GPU."
    assert _arithmetic(sentence, [PER_GPU], [TABLE]) != []
