"""Running replay configs end to end: arms, warmth, faults, cost, server processes."""

from __future__ import annotations

import pytest

from replay.config import ConfigError, parse_config
from replay.report import flat_metrics, run_document, summary_table
from replay.runner import run_config

TINY = {"layers": 1, "heads": 2, "width": 32, "vocab_size": 512, "torch_threads": 1}
AGENT = {"generator": {"kind": "coding_agent", "sessions": 2, "turns": 3, "vocab_size": 512,
                       "system_prompt_tokens": 64, "repo_context_tokens": 64}}
COST = {"currency": "USD", "accelerator_per_hour": 2.0, "cpu_memory_gib_per_hour": 0.01,
        "operations_per_hour": 0.1}


def test_two_arms_a_comparison_and_ledger_ready_metrics() -> None:
    cfg = parse_config({
        "name": "t", "trace": AGENT, "model": TINY, "delay_scale": 0, "max_concurrency": 1,
        "instances": {"count": 2}, "cost_model": COST, "slo": {"ttft_s": 10, "e2e_s": 20},
        "arms": [{"name": "base"}, {"name": "store", "store": {"mode": "embedded"}}],
        "compare": ["base", "store"]})
    run = run_config(cfg)
    assert set(run.arms) == {"base", "store"}
    assert run.comparison is not None
    assert run.comparison.cost_ratio == pytest.approx((4.0 + 0.25 * 0.01 + 0.1) / 4.0)
    names = {m[0] for m in flat_metrics(run)}
    assert {"base_p50_ttft", "store_hit_rate", "p50_ttft_speedup", "cost_reduction",
            "store_cost_per_completion"} <= names
    assert all(m[0].islower() and " " not in m[0] for m in flat_metrics(run))
    table = summary_table(run)
    assert "base" in table and "store" in table and "cost per completion" in table
    doc = run_document(run)
    assert len(doc["arms"]["store"]["records"]) == 6


def test_restarting_an_instance_mid_run_loses_its_local_cache_only() -> None:
    cfg = parse_config({
        "name": "t", "trace": AGENT, "model": TINY, "delay_scale": 0, "max_concurrency": 1,
        "instances": {"count": 1}, "store": {"mode": "embedded"},
        "faults": [{"after_requests": 4, "instance": 0}]})
    arm = run_config(cfg).arms["main"]
    assert arm.faults_applied == 1
    fifth = arm.records[4]  # first request after the restart: served from the store
    assert fifth.server_int("local_hit_tokens") == 0
    assert fifth.server_int("store_hit_tokens") > 0


def test_trace_vocabulary_must_fit_the_model() -> None:
    cfg = parse_config({"name": "t", "trace": {"generator": {"kind": "no_reuse"}},
                        "model": TINY})
    with pytest.raises(ConfigError, match="vocab_size"):
        run_config(cfg)


@pytest.mark.slow
def test_server_processes_with_a_distributed_store() -> None:
    three = {"generator": {**AGENT["generator"], "sessions": 3}}
    cfg = parse_config({
        "name": "t", "trace": three, "model": TINY, "delay_scale": 0, "max_concurrency": 1,
        "instances": {"count": 2, "mode": "processes"}, "routing": "round_robin",
        "store": {"mode": "distributed", "address": "auto", "host_bytes": 64 << 20}})
    arm = run_config(cfg).arms["main"]
    assert arm.summary.completed == 9 and arm.summary.failed == 0
    assert (arm.summary.store_hit_tokens or 0) > 0  # blocks crossed process boundaries


@pytest.mark.slow
def test_store_node_and_master_restarts_mid_run_cost_hits_not_requests() -> None:
    cfg = parse_config({
        "name": "t", "trace": AGENT, "model": TINY, "delay_scale": 0, "max_concurrency": 1,
        "instances": {"count": 1, "local_cache_blocks": 0},  # every reuse comes from the store
        "store": {"mode": "distributed", "address": "auto", "host_bytes": 32 << 20},
        "faults": [{"after_requests": 3, "action": "restart_store_node"},
                   {"after_requests": 5, "action": "restart_store_master"}]})
    arm = run_config(cfg).arms["main"]
    assert arm.faults_applied == 2
    assert arm.summary.completed == 6 and arm.summary.failed == 0
    recs = arm.records
    assert recs[2].server_int("store_hit_tokens") > 0       # before: the store serves
    assert recs[3].server_int("store_hit_tokens") == 0      # the new node is empty
    # how fast the store recovers is timing (node re-registration), so it is measured by the
    # run's store_errors and hit rate over time, not asserted here


def test_store_faults_need_a_cluster_the_run_starts() -> None:
    with pytest.raises(ConfigError, match="faults"):
        parse_config({"name": "t", "trace": AGENT, "store": {"mode": "embedded"},
                      "faults": [{"after_requests": 1, "action": "restart_store_node"}]})
    with pytest.raises(ConfigError, match="out of range"):
        parse_config({"name": "t", "trace": AGENT, "instances": {"count": 1},
                      "faults": [{"after_requests": 1, "instance": 3}]})
