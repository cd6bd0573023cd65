"""A multiplier stated as the ratio of the two figures before it (ledger.verify.ratios):
sentences written here."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from verify_fixtures import adding, findings_at, verify_with

from ledger.quantities import typed_figures
from ledger.verify.ratios import disagrees, stated_ratios


def _ratio(text: str) -> Decimal | None:
    typed = typed_figures(text)
    found = stated_ratios(text, typed)
    return next(iter(found.values()))[0] if found else None


@pytest.mark.parametrize("text, ratio", [
    ("The cold run took 9.6 seconds on one engine and 30.1 on the other, about three times "
     "apart.", "3.135"),
    ("Alone it wrote 41.0 GB/s and with the cache 97.2 GB/s, or 2.37x.", "2.370"),
    ("A batch took 812 ms before tuning against 203 ms after, roughly 4 times faster.", "4"),
    ("The small pool held 120 sessions and the large one 480 sessions, four times apart.", "4"),
])
def test_a_marked_multiplier_after_two_figures_of_one_quantity(text: str, ratio: str) -> None:
    found = _ratio(text)
    assert found is not None and abs(found - Decimal(ratio)) < Decimal("0.01")


@pytest.mark.parametrize("text", [
    # percents: "13% left" is no operand of the speed-up
    "An 87% cut leaves 13% of the wait, about 7.7 times faster.",
    # a multiplier of a third thing
    "199 GB at 380K tokens would need 80 GB cards, roughly 2.5 times the card's memory.",
    # a list of multipliers
    "It moved 87 GB/s and 190 GB/s, roughly 2.4 and 4.6 times the link.",
    # not marked as their ratio
    "It ran 12.1 seconds against 28.3 seconds, and throughput rose 3 times.",
    # two kinds of quantity
    "It used 8 GPUs for 30 seconds, about 4 times apart.",
])
def test_other_shapes_are_not_a_stated_ratio(text: str) -> None:
    assert _ratio(text) is None


def test_trailing_zeros_are_not_precision() -> None:
    ((fig, _),) = typed_figures("about 300 times")
    assert not disagrees(Decimal("299.5"), fig)
    ((three, _),) = typed_figures("three times")
    assert disagrees(Decimal("2.34"), three)


def test_a_wrong_ratio_does_not_trace_to_a_coincidence(tmp_path: Path) -> None:
    wrong = "On one node the warm run took 1.2 seconds and the cold run 3.1, about 3.8 times apart."
    doc, result = verify_with(tmp_path, adding(wrong))
    assert {f.rule for f in findings_at(result, doc, "3.8 times apart")} >= {"untraced-figure"}
    right = "On one node the warm run took 1.0 seconds and the cold run 3.8, about 3.8 times apart."
    doc, result = verify_with(tmp_path, adding(right))
    assert "untraced-figure" not in {f.rule for f in findings_at(result, doc, "3.8 times apart")}


def test_two_multipliers_are_the_ratios_of_their_own_pairs() -> None:
    text = ("Its prefill ran at 120.0 tokens/s and its decode at 18.0 tokens/s, against 40.0 and "
            "9.0 for the old engine — roughly 3 times and twofold.")
    typed = typed_figures(text)
    found = stated_ratios(text, typed)
    ratios = sorted(v[0] for v in found.values())
    assert ratios == [Decimal(2), Decimal(3)]
    by_text = {f.text: found[f.start][0] for f, _ in typed if f.start in found}
    assert not disagrees(by_text["3 times"], next(f for f, _ in typed if f.text == "3 times"))
    wrong = text.replace("twofold", "threefold")
    typed = typed_figures(wrong)
    found = stated_ratios(wrong, typed)
    three = next(f for f, _ in typed if f.text == "threefold")
    assert disagrees(found[three.start][0], three)
