"""Run a replay config: build the trace, model, store and instances for each arm, warm up if asked,
replay, and reduce to figures (and a cost comparison of two arms).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from replay.config import Arm, ConfigError, ReplayConfig
from replay.cost import CostComparison, CostModel, Deployment, compare, hourly_cost
from replay.engine import InstanceConfig, ServingInstance
from replay.generators import generate
from replay.metrics import (
    RequestRecord,
    Summary,
    hit_rate_over_time,
    per_turn,
    summarise,
)
from replay.model import ModelConfig, TinyTransformer
from replay.replayer import Backend, Fault, InProcessBackend, replay
from replay.router import Router
from replay.trace import Trace, TurnRequest, prefix_tokens
from replay.vllm_import import load_conversations

__all__ = ["AllRequestsFailed", "ArmResult", "ReplayRun", "check_arms", "check_completed", "load_trace", "model_config", "replay_steps", "run_arm", "run_config"]

logger = logging.getLogger(__name__)


@dataclass
class ArmResult:
    """What one arm measured."""

    arm: Arm
    summary: Summary
    records: list[RequestRecord]
    per_turn: dict[int, dict[str, float]]
    hit_rate_over_time: list[tuple[float, float]]
    deployment: Deployment
    cost_per_hour: float | None = None
    cost_per_completion: float | None = None
    store_stats: dict[str, Any] = field(default_factory=dict)
    faults_applied: int = 0


@dataclass
class ReplayRun:
    """Every arm of one invocation, with the comparison the config asked for."""

    config: ReplayConfig
    trace: Trace
    arms: dict[str, ArmResult]
    started_at: float
    ended_at: float
    comparison: CostComparison | None = None
    #: One ReplayRun per round (each arm's replay of that round alone), for per-round samples.
    rounds: list[ReplayRun] = field(default_factory=list)
    #: The thread counts the replay pinned (torch intra-op and inter-op).
    threads: dict[str, int] = field(default_factory=dict)


def load_trace(cfg: ReplayConfig, base_dir: Path | None = None) -> Trace:
    """The trace a config names (generated, read, or imported).

    Raises:
        ValueError: unreadable or invalid trace file.
    """
    sec = cfg.trace
    if sec.generator is not None:
        return generate(sec.generator)
    raw = sec.file or sec.vllm_multiturn
    assert raw is not None  # the config validator guarantees one source
    path = Path(raw)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    if sec.vllm_multiturn:
        return load_conversations(path, vocab_size=cfg.model.vocab_size,
                                  default_output_tokens=sec.vllm_output_tokens)
    try:
        return Trace.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise ValueError(f"trace.file {path}: cannot read: {exc.strerror}") from None


def model_config(cfg: ReplayConfig) -> ModelConfig:
    m = cfg.model
    return ModelConfig(name=m.name, layers=m.layers, heads=m.heads, width=m.width,
                       vocab_size=m.vocab_size, block_size=m.block_size, seed=m.seed,
                       dtype=m.dtype)


def _warm_requests(trace: Trace) -> list[TurnRequest]:
    used = sorted({s.prefix_id for s in trace.sessions if s.prefix_id is not None})
    out = []
    for pid in used:
        toks = prefix_tokens(trace, pid)
        if toks:
            out.append(TurnRequest(session_id=f"warm-{pid}", tenant="default", turn=0,
                                   prompt=toks, output_tokens=1, tool_delay_s=0.0,
                                   carried_tokens=len(toks), prefix_tokens=len(toks)))
    return out


async def _warm(backend: Backend, trace: Trace) -> None:
    """Serve every shared prefix once on every instance (not measured)."""
    for req in _warm_requests(trace):
        for i in range(backend.size):
            async for _ in backend.stream(i, req):
                pass


def _store_snapshot(store: Any) -> dict[str, Any]:
    if store is None or not hasattr(store, "stats"):
        return {}
    s = store.stats()
    if isinstance(s, dict):  # the cluster client reports the master's view
        return {k: s[k] for k in ("objects", "evictions", "used_bytes", "capacity_bytes")
                if isinstance(s.get(k), int)}
    return {"objects": s.objects, "hits": s.hits, "misses": s.misses,
            "evictions": s.evictions, "used_bytes": s.used_bytes,
            "capacity_bytes": s.capacity_bytes}


def _deployment(arm: Arm) -> Deployment:
    gib = 1 << 30
    if arm.store.mode == "none":
        return Deployment(instances=arm.instances.count)
    return Deployment(instances=arm.instances.count, store_memory_gib=arm.store.host_bytes / gib,
                      store_disk_gib=arm.store.disk_bytes / gib)


def _fault_handler(cluster: Any) -> Any:
    if cluster is None:
        return None

    async def apply(f: Fault) -> None:
        if f.action == "restart_store_master":
            await asyncio.to_thread(cluster.restart_master)
        elif f.action == "restart_store_node":
            await asyncio.to_thread(cluster.restart_node)
        else:
            raise ValueError(f"fault {f.action}: unknown action")
    return apply


async def _run_arm_async(cfg: ReplayConfig, arm: Arm, trace: Trace, backend: Backend,
                         evictions: Any, cluster: Any = None) -> tuple[Any, tuple[int, int]]:
    if arm.warmth == "warm":
        await _warm(backend, trace)
    before = evictions()
    router = Router(arm.routing, backend.size, block_size=cfg.model.block_size)
    faults = [Fault(after_requests=f.after_requests, instance=f.instance, action=f.action)
              for f in arm.faults]
    result = await replay(trace, backend, router, delay_scale=arm.delay_scale,
                          max_concurrency=cfg.max_concurrency, faults=faults,
                          on_fault=_fault_handler(cluster))
    after = evictions()
    await backend.aclose()
    return result, (after[0] - before[0], after[1] - before[1])


def _open_store(stack: ExitStack, arm: Arm) -> tuple[Any, Any]:
    """The store in-process instances share (None for processes: they connect themselves),
    and the store cluster this run started, if any."""
    if arm.store.mode == "embedded":
        from reference_store.config import StoreConfig
        from reference_store.embedded import EmbeddedStore
        store = EmbeddedStore(StoreConfig(host_bytes=arm.store.host_bytes))
        stack.callback(store.close)
        return store, None
    if arm.store.mode == "distributed" and arm.instances.mode == "in_process":
        from reference_store.client import StoreClient
        from replay.cluster import store_cluster
        address, cluster = arm.store.address, None
        if address == "auto":
            cluster = stack.enter_context(store_cluster(arm.store.host_bytes))
            address = cluster.address
        assert address is not None  # the config validator requires it
        client = StoreClient(address, data_path=arm.store.data_path)
        stack.callback(client.close)
        return client, cluster
    return None, None


def _in_process(cfg: ReplayConfig, arm: Arm, trace: Trace, model: TinyTransformer,
                store: Any, cluster: Any) -> tuple[Any, tuple[int, int]]:
    insts = [ServingInstance(model, InstanceConfig(
        name=f"instance{i}", local_cache_blocks=arm.instances.local_cache_blocks,
        isolation=arm.instances.isolation), store=store) for i in range(arm.instances.count)]

    def evictions() -> tuple[int, int]:
        ins = sum(i.local.stats.inserted for i in insts)
        ev = sum(i.local.stats.evicted for i in insts)
        snap = _store_snapshot(store)
        store_ev = snap.get("evictions", 0)
        return ins + snap.get("objects", 0) + store_ev, ev + store_ev

    return asyncio.run(_run_arm_async(cfg, arm, trace, InProcessBackend(insts), evictions,
                                      cluster))


@dataclass
class _Round:
    records: list[RequestRecord]
    duration_s: float
    evictions: tuple[int, int]
    store_stats: dict[str, Any]
    faults: int


def _replay_once(cfg: ReplayConfig, arm: Arm, trace: Trace, model: TinyTransformer) -> _Round:
    with ExitStack() as stack:
        store, cluster = _open_store(stack, arm)
        if arm.instances.mode == "processes":
            from replay.cluster import run_with_processes
            result, ev = run_with_processes(cfg, arm, trace, _run_arm_async)
        else:
            result, ev = _in_process(cfg, arm, trace, model, store, cluster)
        return _Round(result.records, result.duration_s, ev, _store_snapshot(store),
                      len(result.faults_applied))


def _merge(cfg: ReplayConfig, arm: Arm, rounds: list[_Round]) -> ArmResult:
    """Pool the rounds of one arm: records together, durations and counters summed."""
    records, offset = [], 0.0
    for r in rounds:
        records += [rec.model_copy(update={"sent_s": rec.sent_s + offset}) for rec in r.records]
        offset += r.duration_s
    ev = (sum(r.evictions[0] for r in rounds), sum(r.evictions[1] for r in rounds))
    summary = summarise(records, offset, cfg.slo, evictions=ev)
    dep = _deployment(arm)
    out = ArmResult(arm=arm, summary=summary, records=records, per_turn=per_turn(records),
                    hit_rate_over_time=hit_rate_over_time(records), deployment=dep,
                    store_stats=rounds[-1].store_stats,
                    faults_applied=sum(r.faults for r in rounds))
    if isinstance(cfg.cost_model, CostModel):
        out.cost_per_hour = hourly_cost(cfg.cost_model, dep)
        if summary.slo_met_per_hour > 0:
            out.cost_per_completion = out.cost_per_hour / summary.slo_met_per_hour
    return out


def run_arm(cfg: ReplayConfig, arm: Arm, trace: Trace, model: TinyTransformer) -> ArmResult:
    """Replay ``trace`` once with the settings of ``arm`` (in-process or server processes)."""
    return _merge(cfg, arm, [_replay_once(cfg, arm, trace, model)])


def run_config(cfg: ReplayConfig, *, base_dir: Path | None = None,
               only: Sequence[str] | None = None,
               on_step: Callable[[str], None] | None = None) -> ReplayRun:
    """Run every arm of ``cfg`` (or those named in ``only``) on one trace, one after another.

    ``on_step(label)`` is called after each replay of one arm (rounds x arms calls in all; see
    :func:`replay_steps`), so a caller can show progress.
    """
    check_arms(cfg, only)
    previous = torch.get_num_threads()
    if cfg.model.torch_threads:
        # one thread per process is far steadier than two on a small shared machine
        torch.set_num_threads(cfg.model.torch_threads)
    try:
        return _run_arms(cfg, base_dir, only, on_step)
    finally:
        torch.set_num_threads(previous)


class AllRequestsFailed(RuntimeError):
    """Every request of every arm failed: the run measured nothing."""


def check_arms(cfg: ReplayConfig, only: Sequence[str] | None) -> None:
    """Raises :class:`ConfigError` when ``only`` names an arm the config lacks (an empty
    selection would record a run with no measurements)."""
    names = [a.name for a in cfg.arms]
    unknown = [n for n in only or [] if n not in names]
    if unknown:
        raise ConfigError(f"--arm {', '.join(unknown)}: no such arm in {cfg.name} "
                          f"(its arms: {', '.join(names)})")


def check_completed(run: ReplayRun) -> None:
    """Raises :class:`AllRequestsFailed` when no request of any arm completed."""
    if run.arms and all(a.summary.completed == 0 for a in run.arms.values()):
        total = sum(a.summary.requests for a in run.arms.values())
        raise AllRequestsFailed(f"every request failed ({total} of {total}); the run "
                                "measured nothing (see the records in results.json)")


def replay_steps(cfg: ReplayConfig, only: Sequence[str] | None = None) -> int:
    """How many times :func:`run_config` calls ``on_step``."""
    return cfg.rounds * sum(1 for a in cfg.arms if not only or a.name in only)


def _run_arms(cfg: ReplayConfig, base_dir: Path | None, only: Sequence[str] | None,
              on_step: Callable[[str], None] | None = None) -> ReplayRun:
    trace = load_trace(cfg, base_dir)
    if trace.vocab_size > cfg.model.vocab_size:
        raise ConfigError(f"trace vocab_size {trace.vocab_size} exceeds model.vocab_size "
                          f"{cfg.model.vocab_size}: token ids would fall outside the model")
    model = TinyTransformer(model_config(cfg))
    started = time.time()
    names = [a.name for a in cfg.arms if not only or a.name in only]
    rounds: dict[str, list[_Round]] = {n: [] for n in names}
    r = 0
    while r < cfg.rounds or (cfg.interval.max_rounds is not None and r < cfg.interval.max_rounds
                             and not _bounded(cfg, trace, names, rounds, started)):
        for name in names:  # arms alternate, so a slow spell of the machine hits them all
            logger.info("round %d, arm %s: replaying %d requests", r + 1, name,
                        trace.request_count)
            rounds[name].append(_replay_once(cfg, cfg.arm(name), trace, model))
            if on_step is not None:
                on_step(f"round {r + 1}/{max(cfg.rounds, r + 1)}, arm {name}")
        r += 1
    arms = {n: _merge(cfg, cfg.arm(n), rounds[n]) for n in names}
    run = _with_comparison(ReplayRun(config=cfg, trace=trace, arms=arms, started_at=started,
                                     ended_at=time.time()))
    run.rounds = _round_runs(cfg, trace, names, rounds, started, run.ended_at)
    run.threads = {"torch": torch.get_num_threads(), "torch_interop": torch.get_num_interop_threads()}
    return run


def _round_runs(cfg: ReplayConfig, trace: Trace, names: list[str],
                rounds: dict[str, list[_Round]], started: float, ended: float) -> list[ReplayRun]:
    count = min(len(v) for v in rounds.values()) if rounds else 0
    if count < 2:
        return []
    return [_with_comparison(ReplayRun(
        config=cfg, trace=trace, arms={n: _merge(cfg, cfg.arm(n), [rounds[n][r]]) for n in names},
        started_at=started, ended_at=ended)) for r in range(count)]


def _bounded(cfg: ReplayConfig, trace: Trace, names: list[str],
             rounds: dict[str, list[_Round]], started: float) -> bool:
    """Whether every watched metric's 95% interval is within the configured relative width."""
    from replay.spread import interval_widths
    probe = ReplayRun(config=cfg, trace=trace, arms={}, started_at=started, ended_at=time.time())
    probe.rounds = _round_runs(cfg, trace, names, rounds, started, probe.ended_at)
    widths = interval_widths(probe)
    logger.info("interval widths after %d rounds: %s", len(probe.rounds), widths)
    return bool(widths) and all(w is not None and w <= cfg.interval.relative_width
                                for w in widths.values())


def _with_comparison(run: ReplayRun) -> ReplayRun:
    cfg, arms = run.config, run.arms
    if cfg.compare and isinstance(cfg.cost_model, CostModel) and set(cfg.compare) <= set(arms):
        ref, cand = (arms[n] for n in cfg.compare)
        run.comparison = compare(cfg.cost_model, ref.deployment, ref.summary.slo_met_per_hour,
                                 cand.deployment, cand.summary.slo_met_per_hour)
    return run
