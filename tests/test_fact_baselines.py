"""A figure's baseline read from the fact it traces to (``mislabeled-figure``): the body states
the figure against another system than its fact does (sentences written for these tests)."""

from __future__ import annotations

from pathlib import Path

from verify_fixtures import add_fact, adding, rules_at, verify_with

TWO_BASELINES = ("On the authors' agent trace, Mooncake Store reached 2.7x over LMCache and "
                 "1.6x over a local CPU offload cache.")


def test_a_figure_given_another_figures_baseline_is_mislabeled(tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, lambda d: add_fact(d, TWO_BASELINES),
        adding("The authors report 1.6x over LMCache on that trace."))
    assert rules_at(result, doc, "1.6x").get("mislabeled-figure") == "error"


def test_the_multiple_of_a_named_system_is_read_too(tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, lambda d: add_fact(d, TWO_BASELINES),
        adding("The authors report 2.7 times the throughput of a local CPU offload cache."))
    assert rules_at(result, doc, "2.7 times").get("mislabeled-figure") == "error"


def test_the_facts_own_baseline_and_a_list_of_baselines_pass(tmp_path: Path) -> None:
    for sentence in ("The authors report 2.7x over LMCache on that trace.",
                     "The authors report 1.6x over a CPU offload cache on one host."):
        doc, result = verify_with(tmp_path, lambda d: add_fact(d, TWO_BASELINES),
                                  adding(sentence))
        figure = sentence.split()[3]
        assert "mislabeled-figure" not in rules_at(result, doc, figure), sentence
    listed = ("The authors measured 1.3x and 1.5x compared with the offload paths of LMCache "
              "and of a CPU cache.")
    doc, result = verify_with(
        tmp_path, lambda d: add_fact(d, listed),
        adding("They report 1.3x and 1.5x over LMCache and a CPU cache respectively."))
    assert "mislabeled-figure" not in rules_at(result, doc, "1.5x")


def test_a_baseline_the_facts_never_name_is_only_a_warning(tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, lambda d: add_fact(d, TWO_BASELINES),
        adding("The authors report 2.7x over Redis on that trace."))
    assert rules_at(result, doc, "2.7x").get("mislabeled-figure") == "warning"
