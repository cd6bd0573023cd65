"""Which text of an assumption is an equation to recompute (:func:`ledger.verify.arithmetic.
equations`): the number next to "=", not a number further back in the sentence nor a digit
inside a name. Sentences written for the mechanism."""

from __future__ import annotations

import pytest

from ledger.verify.arithmetic import equations


@pytest.mark.parametrize("text", [
    # words, not a number, stand left of "=": a label of what the number counts
    "2023 was not a leap year (February = 28 days).",
    "The rack holds 8 nodes (the node count = 8 in every row).",
    "Measured in 2025 over one quarter (January to March = 90 days).",
    # a digit inside a name is no number
    "Counted per calendar quarter (Q1 = 90 days).",
    "The H100 = 80 GB part is the one compared.",
])
def test_words_left_of_the_equals_sign_make_no_equation(text: str) -> None:
    assert equations(text) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("Three cards: 3 x 64 GB = 192 GB.", [("3 x 64", "192")]),
    ("From 3 December to 9 August: 28 + 213 + 9 = 250 days.", [("28 + 213 + 9", "250")]),
    ("Per GPU: (3317 / 4) tokens/s = 829 tokens/s.", [("(3317 / 4)", "829")]),
])
def test_an_expression_next_to_the_equals_sign_is_still_an_equation(
        text: str, expected: list[tuple[str, str]]) -> None:
    assert equations(text) == expected
