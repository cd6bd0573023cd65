"""The seed article's qualitative claims, shown by a replay on this machine.

On an agentic trace (a coding agent: shared system prompt, per-repository context, the whole
context sent back every turn) served by three round-robin instances with small local prefix
caches:

* without a shared store, later turns reuse the system prompt alone;
* with the shared store, they reuse most of the context (every full block of the previous
  prompt);
* prefill work falls, decode work does not change.

The replay runs one request at a time with no tool delay so that the order -- and so every
counter below -- is deterministic. Work is asserted as counted tokens and attention pairs, never
as wall-clock time (times are compared in ``benchmarks/replay_claims.py``).
"""

from __future__ import annotations

import pytest

from replay.config import parse_config
from replay.runner import ReplayRun, run_config

SYSTEM = 128
REPO = 256
BLOCK = 16


@pytest.fixture(scope="module")
def run() -> ReplayRun:
    cfg = parse_config({
        "name": "claims",
        "trace": {"generator": {"kind": "coding_agent", "sessions": 4, "repos": 4, "turns": 4,
                                "system_prompt_tokens": SYSTEM, "repo_context_tokens": REPO,
                                "first_message_tokens": 32, "vocab_size": 512}},
        "model": {"layers": 1, "heads": 2, "width": 32, "vocab_size": 512, "block_size": BLOCK,
                  "torch_threads": 1},
        "instances": {"count": 3, "local_cache_blocks": 72},
        "routing": "round_robin", "delay_scale": 0, "max_concurrency": 1,
        "arms": [{"name": "no_store", "store": {"mode": "none"}},
                 {"name": "store", "store": {"mode": "embedded", "host_bytes": 64 << 20}},
                 {"name": "warm_store", "warmth": "warm",
                  "store": {"mode": "embedded", "host_bytes": 64 << 20}}],
    })
    return run_config(cfg)


def _by_key(run: ReplayRun, arm: str) -> dict[tuple[str, int], object]:
    return {(r.session_id, r.turn): r for r in run.arms[arm].records}


def test_every_request_completed(run: ReplayRun) -> None:
    for arm in run.arms.values():
        assert arm.summary.completed == 16 and arm.summary.failed == 0


def test_without_the_store_later_turns_reuse_the_system_prompt_alone(run: ReplayRun) -> None:
    later = [r for r in run.arms["no_store"].records if r.turn >= 1]
    assert all(r.server_int("local_hit_tokens") + r.server_int("store_hit_tokens") <= SYSTEM
               for r in later)
    assert sum(r.server_int("local_hit_tokens") for r in later) == SYSTEM * len(later)


def test_with_the_store_later_turns_reuse_the_whole_previous_prompt(run: ReplayRun) -> None:
    recs = _by_key(run, "store")
    for (sid, turn), r in recs.items():
        if turn == 0:
            continue
        prev = recs[(sid, turn - 1)]
        full_prev = prev.prompt_tokens // BLOCK * BLOCK  # type: ignore[attr-defined]
        hits = r.server_int("local_hit_tokens") + r.server_int("store_hit_tokens")  # type: ignore[attr-defined]
        assert hits >= full_prev, (sid, turn)
    later = [r for r in run.arms["store"].records if r.turn >= 1]
    rate = sum(r.server_int("local_hit_tokens") + r.server_int("store_hit_tokens")
               for r in later) / sum(r.prompt_tokens for r in later)
    assert rate > 0.7  # most of the context
    assert run.arms["store"].summary.hit_rate > 2.5 * run.arms["no_store"].summary.hit_rate


def test_warm_cache_serves_the_first_turn_from_the_shared_prefix(run: ReplayRun) -> None:
    first = [r for r in run.arms["warm_store"].records if r.turn == 0]
    assert all(r.server_int("local_hit_tokens") + r.server_int("store_hit_tokens")
               == SYSTEM + REPO for r in first)
    cold_first = [r for r in run.arms["store"].records if r.turn == 0]
    assert cold_first[0].server_int("local_hit_tokens") == 0


def test_prefill_work_falls_and_decode_work_does_not(run: ReplayRun) -> None:
    base, store = _by_key(run, "no_store"), _by_key(run, "store")
    s_base, s_store = run.arms["no_store"].summary, run.arms["store"].summary
    assert s_store.computed_prefill_tokens is not None and s_base.computed_prefill_tokens
    assert s_store.computed_prefill_tokens < 0.5 * s_base.computed_prefill_tokens
    pairs_base = sum(r.server_int("attention_pairs") for r in base.values())  # type: ignore[attr-defined]
    pairs_store = sum(r.server_int("attention_pairs") for r in store.values())  # type: ignore[attr-defined]
    assert pairs_store < 0.5 * pairs_base
    for key, r in base.items():
        # the same decode steps over the same context lengths: identical decode work
        assert r.output_tokens == store[key].output_tokens  # type: ignore[attr-defined]
        assert r.server_int("output_tokens") == store[key].server_int("output_tokens")  # type: ignore[attr-defined]
        assert r.prompt_tokens == store[key].prompt_tokens  # type: ignore[attr-defined]
