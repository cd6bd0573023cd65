"""How a figure's quantity is read from the words around it (:mod:`ledger.quantity_phrases`):
what the number is, so that tracing compares like with like. Sentences written for these
mechanisms, on other systems and numbers than the corpus."""

from __future__ import annotations

import pytest

from ledger.quantities import typed_figures


def _read(text: str) -> list[tuple[str, str]]:
    return [(f.text, q.describe()) for f, q in typed_figures(text)]


@pytest.mark.parametrize(("text", "expected"), [
    # "N times" and a comparative: a multiple, not repetitions
    ("Paged blocks let it hold prompts 6 times longer than the dense layout.",
     [("6 times", "multiplier")]),
    ("The int4 path is five times cheaper per token than fp16.", [("five times", "multiplier")]),
    ("Queues grew 3 to 12 times deeper than before the change.",
     [("3", "multiplier"), ("12 times", "multiplier")]),
    ("Batches ran 4 times wider than the default allowed.", [("4 times", "multiplier")]),
    # repetitions stay repetitions, also before a word ending in -er
    ("The suite ran 5 times under load.", [("5 times", "count of times")]),
    ("The node was restarted 3 times after the upgrade.", [("3 times", "count of times")]),
])
def test_times_before_a_comparative_is_a_multiple(text: str, expected: list[tuple[str, str]]
                                                  ) -> None:
    assert _read(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # "A vs B unit": the first number is written in the second's unit, like a range
    ("Memory per card: 24 vs 48 GB.", [("24", "size in GB"), ("48", "size in GB")]),
    ("Fabric links run at 400 versus 800 Gbps.", [("400", "rate in Gb/s"),
                                                  ("800", "rate in Gb/s")]),
    ("Decode latency 31 vs. 18 ms per token.", [("31", "duration in ms"),
                                                ("18", "duration in ms")]),
])
def test_the_first_of_a_pair_compared_with_vs_takes_the_second_unit(
        text: str, expected: list[tuple[str, str]]) -> None:
    assert _read(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # a name with digits between a number and its unit: "1979 FP8 TFLOPS" is a rate
    ("The part peaks at 1979 FP8 TFLOPS.", [("1979", "rate in TFLOP/s")]),
    ("Each card lists 989 BF16/FP16 TFLOPS of dense compute.", [("989", "rate in TFLOP/s")]),
    ("The board carries 96 HBM3 GB.", [("96", "size in GB")]),
    # a name before a counted noun is still a count of that noun
    ("The pod has 8 H100 GPUs.", [("8", "count of h100 gpus")]),
])
def test_a_unit_after_a_name_with_digits_is_the_numbers_unit(
        text: str, expected: list[tuple[str, str]]) -> None:
    assert _read(text) == expected
