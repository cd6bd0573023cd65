"""Reducing request records to a run's figures."""

from __future__ import annotations

import pytest

from replay.metrics import (
    SLO,
    RequestRecord,
    hit_rate_over_time,
    per_turn,
    summarise,
)


def rec(turn: int, ttft: float | None, e2e: float | None, *, prompt: int = 100, hits: int = 0,
        ok: bool = True, server: bool = True, sent: float = 0.0) -> RequestRecord:
    stats = {"local_hit_tokens": hits, "store_hit_tokens": 0, "computed_tokens": prompt - hits,
             "transfer_s": 0.0, "transfer_bytes": 0, "prefill_s": 0.01 * (prompt - hits),
             "decode_s": 0.5, "output_tokens": 11} if server else None
    return RequestRecord(session_id="s", turn=turn, instance=0, sent_s=sent, ttft_s=ttft,
                         e2e_s=e2e, ok=ok, prompt_tokens=prompt, output_tokens=11, server=stats)


def test_percentiles_throughput_and_slo() -> None:
    records = [rec(0, t, t + 1.0) for t in (0.1, 0.2, 0.3, 0.4, 5.0)]
    records.append(rec(1, None, None, ok=False))
    s = summarise(records, 10.0, SLO(ttft_s=1.0, e2e_s=2.0))
    assert (s.requests, s.completed, s.failed) == (6, 5, 1)
    assert s.p50_ttft_s == pytest.approx(0.3)
    assert s.p99_ttft_s == pytest.approx(0.4 + 0.96 * 4.6)
    assert s.throughput_rps == pytest.approx(0.5)
    assert s.slo_met == 4 and s.slo_met_per_hour == pytest.approx(4 / 10 * 3600)
    assert s.output_tokens_per_s == pytest.approx(5.5)


def test_hit_rate_skipped_tokens_and_evictions() -> None:
    records = [rec(0, 0.1, 0.2, hits=0), rec(1, 0.1, 0.2, hits=80)]
    s = summarise(records, 1.0, SLO(), evictions=(40, 10))
    assert s.hit_rate == pytest.approx(0.4)
    assert s.skipped_prefill_tokens == 80 and s.computed_prefill_tokens == 120
    assert s.eviction_rate == pytest.approx(0.25) and s.evicted_blocks == 10
    assert s.decode_s_per_token == pytest.approx(1.0 / 20)


def test_server_figures_are_absent_when_the_backend_reports_none() -> None:
    s = summarise([rec(0, 0.1, 0.2, server=False)], 1.0, SLO())
    assert s.hit_rate is None and s.skipped_prefill_tokens is None


def test_per_turn_and_hit_rate_over_time() -> None:
    records = [rec(0, 0.1, 0.2, hits=0, sent=0.0), rec(1, 0.1, 0.2, hits=50, sent=1.0),
               rec(1, 0.1, 0.2, hits=100, prompt=200, sent=2.0)]
    turns = per_turn(records)
    assert turns[0]["hit_rate"] == 0.0
    assert turns[1]["hit_rate"] == pytest.approx(150 / 300)
    assert hit_rate_over_time(records, window=2) == [(0.0, 0.0), (1.0, 0.25),
                                                     (2.0, pytest.approx(150 / 300))]


def test_duration_must_be_positive() -> None:
    with pytest.raises(ValueError, match="duration_s"):
        summarise([], 0.0, SLO())
