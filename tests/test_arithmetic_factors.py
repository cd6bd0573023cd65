"""``arithmetic``: a claim's percent that the computation applies as a written-out factor
("price * 0.8" for a 20% discount, "rate * 1.25" for 25% more) is the arithmetic's own value;
a percent none of it gives is still an error. Sentences and numbers written here."""

from __future__ import annotations

import json

import pytest
from verify_fixtures import claim_errors, inference_article


@pytest.mark.parametrize(("claim", "inputs", "steps"), [
    ("Adding 10% and 30% to 200 GB/s gives 220 to 260 GB/s.", {"bw": 200},
     [("low", "bw * 1.1", 220), ("high", "bw * 1.3", 260)]),
    ("A 20% discount on a $50 hour leaves $40.", {"price": 50},
     [("after", "price * 0.8", 40)]),
    ("Cutting 1,200 ms by 25% brings the wait to 900 ms.", {"wait_ms": 1200},
     [("after_ms", "0.75 * wait_ms", 900)]),
    ("With 12.5% overhead, 64 GiB of weights need 72 GiB.", {"weights": 64},
     [("total", "weights * (1 + 0.125)", 72)]),
])
def test_a_percent_applied_as_a_factor_is_explained(claim: str, inputs: dict[str, float],
                                                    steps: list[tuple[str, str, float]]) -> None:
    assert claim_errors(inference_article(claim, inputs, steps)) == []


@pytest.mark.parametrize(("claim", "inputs", "steps"), [
    # the factor says 10%, the claim 15%
    ("Adding 15% to 200 GB/s gives 220 GB/s.", {"bw": 200}, [("high", "bw * 1.1", 220)]),
    # a whole-number constant converts units; it states no percent
    ("At 8% more, 3,000 GB/s is 24,000 Gb/s.", {"gbyte": 3000},
     [("gbit", "gbyte * 8", 24000)]),
])
def test_a_percent_no_factor_gives_is_still_an_error(claim: str, inputs: dict[str, float],
                                                     steps: list[tuple[str, str, float]]) -> None:
    assert len(claim_errors(inference_article(claim, inputs, steps))) == 1


@pytest.mark.parametrize(("claim", "inputs", "steps"), [
    # the claim derives a percent from two of its own figures of one quantity (8-bit against
    # 16-bit: half), beside the result its computation gives
    ("Moving the cache from 30 GB to 15.9 GB saves 47%, short of the 50% that an 8-bit "
     "against a 16-bit format implies.", {"before": 30, "after": 15.9},
     [("saving", "(1 - after / before) * 100", 47)]),
    ("A 3-bit format against a 16-bit one implies an 81.25% saving; measured, 5.1 GB fell "
     "to 1.2 GB, a 76.5% cut.", {"before": 5.1, "after": 1.2},
     [("cut", "(1 - after / before) * 100", 76.47)]),
    ("Of 64 experts the router wakes 8, so 12.5% of them work per token; measured compute "
     "is 14% of the dense model's.", {"active_tflops": 1.4, "dense_tflops": 10},
     [("share", "active_tflops / dense_tflops * 100", 14)]),
])
def test_a_percent_of_two_of_the_claims_own_figures_is_explained(
        claim: str, inputs: dict[str, float], steps: list[tuple[str, str, float]]) -> None:
    assert claim_errors(inference_article(claim, inputs, steps)) == []


@pytest.mark.parametrize(("claim", "inputs", "steps"), [
    # a changed result is no ratio of the claim's own figures
    ("A 3-bit format against a 16-bit one implies an 81.25% saving; measured, 5.1 GB fell "
     "to 1.2 GB, a 70% cut.", {"before": 5.1, "after": 1.2},
     [("cut", "(1 - after / before) * 100", 76.47)]),
    # the computation's own operands are not the claim's figures to divide
    ("Moving the cache from 30 GB to 15.9 GB saves 53%.", {"before": 30, "after": 15.9},
     [("saving", "(1 - after / before) * 100", 47)]),
])
def test_a_percent_neither_gives_is_still_an_error(
        claim: str, inputs: dict[str, float], steps: list[tuple[str, str, float]]) -> None:
    assert len(claim_errors(inference_article(claim, inputs, steps))) == 1
