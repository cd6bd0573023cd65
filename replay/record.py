"""What a replay contributes to a ledger run, and the run file that carries it.

:func:`agent_fields` fills the seed's agent fields (the list is the ledger's,
:data:`ledger.agent_fields.AGENT_FIELDS`) and :func:`metric_rows` the metrics;
:func:`record_run_file` replays a config through the ledger's public
:class:`~ledger.runs.RunRecorder` and writes the sealed run as a run file
(``schemas/run.schema.json``), which ``ledger run`` and ``ledger reproduce`` import. The ledger
never imports this package: the run file is the only seam between them.
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
from pathlib import Path
from typing import Any

from replay.cost import CostModel
from replay.report import MetricRow, flat_metrics
from replay.runner import ReplayRun

__all__ = ["ENGINE_NAME", "agent_fields", "metric_rows", "record_run_file"]

ENGINE_NAME = "replay (tiny torch transformer, CPU)"

_CONNECTOR = {"none": "none (local prefix cache only)",
              "embedded": "reference_store EmbeddedStore (in-process)",
              "distributed": "reference_store StoreClient"}


def _connector(store: Any) -> str:
    """What carried KV blocks: the store kind and, for a cluster, the client's data path
    ("auto": shared memory with nodes on the same machine, TCP otherwise)."""
    if store.mode == "distributed":
        return f"{_CONNECTOR['distributed']} (data_path={store.data_path})"
    return _CONNECTOR[store.mode]


def _per_arm(run: ReplayRun, fn: Any) -> dict[str, Any]:
    return {name: fn(a) for name, a in run.arms.items()}


def _capacity(run: ReplayRun) -> dict[str, Any]:
    block = run.config.model
    from replay.runner import model_config
    nbytes = model_config(run.config).block_nbytes

    def one(a: Any) -> dict[str, Any]:
        return {"local_blocks_per_instance": a.arm.instances.local_cache_blocks,
                "local_bytes_per_instance": a.arm.instances.local_cache_blocks * nbytes,
                "block_tokens": block.block_size,
                "store_host_bytes": a.arm.store.host_bytes if a.arm.store.mode != "none" else 0,
                "store_disk_bytes": a.arm.store.disk_bytes if a.arm.store.mode != "none" else 0}
    return _per_arm(run, one)


def agent_fields(run: ReplayRun, *, engine_revision: str, environment: dict[str, Any],
                 source: str, retrieved_at: dt.datetime) -> dict[str, Any]:
    """Every seed agent field for a replay run; per-arm values are keyed by arm name."""
    m, cost = run.config.model, run.config.cost_model
    slo = run.config.slo
    gpus = environment.get("gpus") or []
    return {
        "model_and_revision": f"{m.name} (random weights, seed {m.seed}; {m.layers} layers, "
                              f"{m.heads} heads, width {m.width}, {m.dtype})",
        "serving_engine_revision": f"{ENGINE_NAME} @ {engine_revision}",
        "cache_connector_revision": _per_arm(
            run, lambda a: f"{_connector(a.arm.store)} @ {engine_revision}"),
        "hardware_and_gpu_count": f"{environment.get('cpu', 'unknown CPU')} x"
                                  f"{environment.get('cpu_count', '?')} CPUs, {len(gpus)} GPUs",
        "prefill_decode_topology": _per_arm(
            run, lambda a: f"{a.arm.instances.count} aggregated instances (prefill and decode "
                           f"on the same instance), {a.arm.instances.mode.replace('_', '-')}"),
        "cache_capacity_by_tier": _capacity(run),
        "tenant_isolation_policy": _per_arm(
            run, lambda a: "cache_salt per tenant" if a.arm.instances.isolation == "salt"
            else "shared namespace (no isolation)"),
        "request_mix": {"trace": run.trace.name, "kind": run.trace.kind,
                        "requests": run.trace.request_count,
                        "sessions": len(run.trace.sessions),
                        "generator": (run.config.trace.generator.model_dump()
                                      if run.config.trace.generator else None)},
        "routing_policy": _per_arm(run, lambda a: a.arm.routing),
        "cache_warmth": _per_arm(run, lambda a: a.arm.warmth),
        "prefix_reuse_rate": _per_arm(run, lambda a: a.summary.hit_rate),
        "transfer_latency": _per_arm(run, lambda a: {"p50_s": a.summary.p50_transfer_s,
                                                     "total_s": a.summary.transfer_s_total}),
        "eviction_rate": _per_arm(run, lambda a: a.summary.eviction_rate),
        "p50_ttft": _per_arm(run, lambda a: a.summary.p50_ttft_s),
        "p99_ttft": _per_arm(run, lambda a: a.summary.p99_ttft_s),
        "end_to_end_latency": _per_arm(run, lambda a: {"p50_s": a.summary.p50_e2e_s,
                                                       "p99_s": a.summary.p99_e2e_s}),
        "completed_requests_meeting_slo_per_hour": {
            "slo": slo.model_dump(), **_per_arm(run, lambda a: a.summary.slo_met_per_hour)},
        "total_infrastructure_cost_per_hour": _per_arm(run, lambda a: a.cost_per_hour),
        "currency": cost.currency if isinstance(cost, CostModel) else None,
        "source_url": source,
        "retrieved_at": retrieved_at.isoformat(),
    }


def metric_rows(run: ReplayRun) -> list[MetricRow]:
    """The run's figures as ledger metric rows (name, value, unit, aggregation, samples)."""
    return flat_metrics(run)


def _revision(run: Any) -> str:
    if run.git_commit:
        return str(run.git_commit[:12]) + ("+dirty" if run.git_dirty else "")
    return "kv-evidence-ledger " + str(run.environment.get("packages", {})
                                       .get("kv-evidence-ledger", "unknown"))


def record_run_file(cfg: Any, run_file: Path, *, base_dir: Path, command: list[str],
                    parameters: dict[str, Any], inputs: dict[str, Path], seed: int | None,
                    description: str, only: list[str] | None = None,
                    out: Path | None = None) -> tuple[ReplayRun | None, Any]:
    """Replay ``cfg`` and record it through the ledger's :class:`~ledger.runs.RunRecorder` (in
    a throwaway SQLite ledger), then write the sealed run to ``run_file``: finished, or failed
    with the error when the replay raised (the exception still propagates). Outputs (results
    and plots) go to ``out`` (default ``runs/RUN_ID``). Returns the replay and the run."""
    from ledger.db import Ledger
    from ledger.progress import progress
    from ledger.runs import RunRecorder
    from replay.cli import write_run_outputs
    from replay.runner import check_completed, replay_steps, run_config
    from replay.spread import spread_rows

    result: ReplayRun | None = None
    with tempfile.TemporaryDirectory(prefix="replay-record-") as tmp, \
            Ledger.open(str(Path(tmp) / "record.db")) as ledger:
        rec = RunRecorder(ledger, command=command, parameters=parameters, seed=seed,
                          description=description)
        try:
            with rec:
                assert rec.run is not None
                for name, path in inputs.items():
                    rec.add_input(name, path)
                with progress(replay_steps(cfg, only), "replaying") as step:
                    result = run_config(cfg, base_dir=base_dir, only=only, on_step=step)
                for path in write_run_outputs(result, out or Path("runs") / rec.run_id):
                    rec.add_output(path.name, path)
                check_completed(result)  # seals the run as failed, with the reason
                for (name, value, unit, agg, n), samples, spread in spread_rows(result):
                    rec.metric(name, value, unit=unit, aggregation=agg, sample_count=n,
                               samples=samples, spread=spread)
                rec.threads.update(result.threads)
                rec.agent_fields.update(agent_fields(
                    result, engine_revision=_revision(rec.run),
                    environment=rec.run.environment, source=" ".join(command),
                    retrieved_at=rec.run.started_at))
        finally:
            if rec.run is not None:
                run_file.write_text(json.dumps(rec.run.model_dump(mode="json"), indent=1) + "\n")
    return result, rec.run
