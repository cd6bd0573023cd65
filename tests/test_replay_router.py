"""Routing policies."""

from __future__ import annotations

import pytest

from replay.router import Router

A = list(range(64))
B = [1000 + i for i in range(64)]


def test_round_robin_cycles() -> None:
    r = Router("round_robin", 3)
    assert [r.choose(A) for _ in range(7)] == [0, 1, 2, 0, 1, 2, 0]


def test_least_loaded_follows_in_flight_counts() -> None:
    r = Router("least_loaded", 3)
    assert [r.choose(A) for _ in range(3)] == [0, 1, 2]
    r.done(1)
    assert r.choose(A) == 1
    r.done(2)
    assert r.choose(A) == 2
    assert r.inflight == [1, 1, 1]


def test_prefix_affinity_returns_a_prompt_to_the_instance_that_saw_its_prefix() -> None:
    r = Router("prefix_affinity", 3, block_size=16)
    first = r.choose(A)
    r.done(first)
    other = r.choose(B)  # a new prompt goes where the fewest blocks were sent
    r.done(other)
    assert other != first
    assert r.choose(A + [5, 6, 7]) == first
    assert r.choose(B[:48]) == other


def test_prefix_affinity_gives_way_when_the_owner_is_overloaded() -> None:
    r = Router("prefix_affinity", 2, block_size=16, balance_threshold=1)
    owner = r.choose(A)
    assert r.choose(A) == owner      # 1 in flight there, 0 elsewhere: within the threshold
    assert r.choose(A) != owner      # 2 more than the other instance: balance wins


def test_done_never_goes_below_zero() -> None:
    r = Router("least_loaded", 2)
    r.done(0)
    assert r.inflight == [0, 0]


def test_bad_policy_and_size() -> None:
    with pytest.raises(ValueError, match="routing.policy"):
        Router("random", 2)
    with pytest.raises(ValueError, match="at least one"):
        Router("round_robin", 0)
