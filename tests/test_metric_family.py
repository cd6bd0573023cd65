"""``mislabeled-figure`` by the name before a figure ("a TTFT reduction of 88%"): a metric that
is another's variant (its name is the other's plus qualifiers, "earlier_ttft_cut_pct" beside
"ttft_cut_pct") answers to the family's words too; only the qualifier that tells the two apart
("p99" against the mean) makes a label the other's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from verify_fixtures import add_fact, add_metric, adding, rules_at, verify_with

Doc = dict[str, Any]


def _family(doc: Doc) -> None:
    """A current result with a spec, and an earlier version's result named as its variant."""
    add_metric(doc, "wait_cut_pct", 41, "best-case queueing delay reduction",
               ["queueing delay", "wait"], "percent")
    doc["benchmark_scope"]["reported_metrics"]["v1_wait_cut_pct"] = 37
    add_metric(doc, "sort_ms", 12, "mean sort time", ["sort time"], "quantity")
    add_metric(doc, "p99_sort_ms", 19, "p99 sort time", ["sort time"], "quantity")
    add_fact(doc, "The paper cuts queueing delay by up to 41%; its first version reported up "
                  "to 37%. Sorting took 12 ms on average and 19 ms at p99.")


def test_a_family_word_fits_the_variant_metric(tmp_path: Path) -> None:
    for sentence, figure in [
        ("The first version gave a queueing delay reduction of up to 37%.", "37%"),
        ("Its v1 preprint reported a wait reduction of 37%.", "37%"),
        ("An older draft claimed a best-case queueing delay reduction of 37%.", "37%"),
    ]:
        doc, result = verify_with(tmp_path, _family, adding(sentence))
        assert not [f for f in result.findings if f.rule == "schema"], result.findings
        assert "mislabeled-figure" not in rules_at(result, doc, figure), (sentence, result)


def test_the_qualifier_that_tells_metrics_apart_is_still_a_mislabel(tmp_path: Path) -> None:
    # 12 ms is the mean; "p99" is the qualifier that names the other metric
    doc, result = verify_with(tmp_path, _family, adding("It had a p99 sort time of 12 ms."))
    assert rules_at(result, doc, "12 ms").get("mislabeled-figure") == "error", result


def test_a_statistic_the_variant_is_known_not_to_be_is_still_a_mislabel(tmp_path: Path) -> None:
    def tail(doc: Doc) -> None:
        _family(doc)
        add_metric(doc, "sort_ms_tail", 23, "worst sort time", ["sort time"], "quantity")
        add_fact(doc, "The tail sort time was 23 ms.")
    # 12 ms is a mean; "tail" (p99) is a statistic it is known not to be
    doc, result = verify_with(tmp_path, tail, adding("It had a tail sort time of 12 ms."))
    assert rules_at(result, doc, "12 ms").get("mislabeled-figure") == "error", result
