"""``mislabeled-figure``: a word that names only ratio metrics (a speed-up, a percent cut) is no
label of an amount (a duration, a size): "before restoring into HBM (12 s ...)" does not call
12 s the restore speed-up. Words naming a metric of the figure's own kind still label it, and
a ratio figure may scale any metric. Sentences and metrics written here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from verify_fixtures import add_metric, adding, rules_at, verify_with


def _metrics(doc: dict[str, Any]) -> None:
    add_metric(doc, "restore_speedup_max_multiplier", 6.5, "best restore speed-up",
               ["restoring", "restore"], "multiplier", "restore microbenchmark")
    add_metric(doc, "qwen7b_restore_s", 12, "Qwen-7B restore time into HBM", ["Qwen-7B"],
               "quantity")
    add_metric(doc, "qwen72b_restore_s", 41, "Qwen-72B restore time into HBM", ["Qwen-72B"],
               "quantity")


@pytest.mark.parametrize(("sentence", "figure"), [
    ("The cold path is slow: restoring into HBM (12 s for Qwen-7B, 41 s for Qwen-72B) "
     "comes first.", "12 s"),
    ("Restoring into HBM (41 s for Qwen-72B and 12 s for Qwen-7B) has to finish first.",
     "41 s"),
    ("Until restoring ends (12 s on Qwen-7B, 41 s on Qwen-72B), no token is served.", "12 s"),
])
def test_a_ratio_metrics_word_does_not_label_an_amount(tmp_path: Path, sentence: str,
                                                       figure: str) -> None:
    doc, result = verify_with(tmp_path, _metrics, adding(sentence))
    assert "mislabeled-figure" not in rules_at(result, doc, figure), result.findings


def test_models_swapped_between_durations_are_still_mislabeled(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _metrics, adding(
        "The cold path is slow: restoring into HBM (12 s for Qwen-72B, 41 s for Qwen-7B) "
        "comes first."))
    found = {**rules_at(result, doc, "12 s"), **rules_at(result, doc, "41 s")}
    assert found.get("mislabeled-figure") == "error", result.findings
