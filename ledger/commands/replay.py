"""``ledger run CONFIG``, ``ledger reproduce RUN_ID``, ``ledger ingest-bench FILE``.

``run`` executes a replay config (``replay``) and records it as a sealed run with
every seed agent field; ``reproduce`` re-runs a recorded run's configuration and checks its ratios
and rates within the tolerances the configuration states (exit 1 when one is outside);
``ingest-bench`` records a ``vllm bench serve --save-result`` file as a run.
"""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path
from typing import Any

from ..errors import DocumentError, UsageError
from ..models import Run, RunMetric, RunStatus
from ..progress import progress
from ..runs import RunRecorder, digest_file, new_run_id
from ._common import add_command
from ._ledger import add_db_options, emit, open_ledger

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(subparsers, "run", "Run a replay config and record it as a sealed run.",
                    "ledger run examples/replay-coding-agent.yaml --out runs/demo")
    p.add_argument("config", metavar="CONFIG", help="replay config (YAML or JSON)")
    p.add_argument("--out", metavar="DIR", help="results and plots (default runs/RUN_ID)")
    p.add_argument("--arm", action="append", help="run only this arm (repeatable)")
    add_db_options(p)
    p.set_defaults(func=_run)
    p = add_command(subparsers, "reproduce",
                    "Re-run a recorded replay and compare it within its stated tolerances.",
                    "ledger reproduce run-20261129T203100Z-1a2b3c4d")
    p.add_argument("run_id", metavar="RUN_ID")
    p.add_argument("--out", metavar="DIR", help="results and plots (default runs/NEW_RUN_ID)")
    add_db_options(p)
    p.set_defaults(func=_reproduce)
    p = add_command(subparsers, "ingest-bench",
                    "Record a `vllm bench serve --save-result` JSON file as a run.",
                    "ledger ingest-bench results/vllm-8qps-Llama.json --source-url "
                    "https://example.org/run --field hardware_and_gpu_count='8x H100'")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--source-url", help="where the result was published or archived")
    p.add_argument("--field", action="append", default=[], metavar="KEY=VALUE",
                   help="an agent field (model_and_revision, routing_policy, ...); repeatable")
    add_db_options(p)
    p.set_defaults(func=_ingest)


# --- ledger run ---------------------------------------------------------------------------------


def _load_config(path: Path) -> Any:
    from replay.config import ConfigError, load_config
    try:
        return load_config(path)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def _revision(run: Run) -> str:
    if run.git_commit:
        return run.git_commit[:12] + ("+dirty" if run.git_dirty else "")
    return "kv-evidence-ledger " + str(run.environment.get("packages", {})
                                       .get("kv-evidence-ledger", "unknown"))


def _execute(rec: RunRecorder, cfg: Any, base_dir: Path, only: list[str] | None,
             out: str | None, source: str) -> Any:
    """Replay, write outputs, and fill the recorder (metrics, outputs, agent fields)."""
    from replay.cli import write_run_outputs
    from replay.record import agent_fields, metric_rows
    from replay.runner import replay_steps, run_config
    assert rec.run is not None
    try:
        with progress(replay_steps(cfg, only), "replaying") as step:
            result = run_config(cfg, base_dir=base_dir, only=only, on_step=step)
    except ValueError as exc:  # a trace file or vocabulary the config cannot use
        raise UsageError(str(exc)) from None
    for path in write_run_outputs(result, Path(out or f"runs/{rec.run_id}")):
        rec.add_output(path.name, path)
    for name, value, unit, agg, n in metric_rows(result):
        rec.metric(name, value, unit=unit, aggregation=agg, sample_count=n)
    rec.agent_fields.update(agent_fields(
        result, engine_revision=_revision(rec.run), environment=rec.run.environment,
        source=source, retrieved_at=rec.run.started_at))
    return result


def _trace_inputs(cfg: Any, base_dir: Path) -> dict[str, Path]:
    raw = cfg.trace.file or cfg.trace.vllm_multiturn
    if raw is None:
        return {}
    path = Path(raw)
    return {"trace": path if path.is_absolute() else base_dir / path}


def _summary(result: Any, run: Run | None) -> dict[str, Any]:
    from replay.report import summary_table
    return {"run_id": run.id if run else None, "status": run.status.value if run else None,
            "table": summary_table(result),
            "metrics": [m.model_dump(mode="json") for m in (run.metrics if run else [])]}


def _run(args: argparse.Namespace) -> int:
    path = Path(args.config)
    cfg = _load_config(path)
    params = {"config": cfg.model_dump(mode="json"), "config_path": str(path),
              "config_dir": str(path.resolve().parent)}
    with open_ledger(args, create=True) as ledger:
        rec = RunRecorder(ledger, command=["ledger", "run", str(path)], parameters=params,
                          seed=_seed(cfg), description=cfg.description or cfg.name)
        with rec:
            rec.add_input("config", path)
            for name, p in _trace_inputs(cfg, path.parent).items():
                rec.add_input(name, p)
            result = _execute(rec, cfg, path.parent, args.arm, args.out, f"ledger run {path}")
    emit(args, _summary(result, rec.run), lambda d: f"{d['table']}\nrecorded {d['run_id']} "
                                                    f"({d['status']})")
    return 0


def _seed(cfg: Any) -> int | None:
    gen = cfg.trace.generator
    return int(gen.seed) if gen is not None else None


# --- ledger reproduce ---------------------------------------------------------------------------


def _reproduce(args: argparse.Namespace) -> int:
    from replay.config import ConfigError, parse_config
    from replay.reproduce import compare_metrics
    with open_ledger(args) as ledger:
        original = ledger.get_run(args.run_id)
        params = original.parameters
        if "config" not in params:
            raise UsageError(f"run {args.run_id} was not recorded by `ledger run`: "
                             "it has no replay config to run again")
        base = Path(params.get("config_dir", "."))
        try:
            cfg = parse_config(params["config"], base_dir=base)
        except ConfigError as exc:
            raise UsageError(f"run {args.run_id}: {exc}") from None
        rec = RunRecorder(ledger, command=["ledger", "reproduce", args.run_id],
                          parameters={**params, "reproduces": args.run_id}, seed=original.seed,
                          description=f"reproduction of {args.run_id}")
        with rec:
            for name, p in _trace_inputs(cfg, base).items():
                rec.add_input(name, p)
            result = _execute(rec, cfg, base, None, args.out, f"ledger reproduce {args.run_id}")
    assert rec.run is not None
    tol = {"ratio": cfg.reproduce.ratio_tolerance, "rate": cfg.reproduce.rate_tolerance}
    rows = compare_metrics([(m.name, m.value, m.unit) for m in original.metrics],
                           [(m.name, m.value, m.unit) for m in rec.run.metrics],
                           tol, cfg.reproduce.metrics)
    changed = {k for k in original.inputs
               if k in rec.run.inputs and original.inputs[k] != rec.run.inputs[k]}
    ok = all(r.ok for r in rows) and not changed
    data = {"original": args.run_id, "reproduction": rec.run.id, "ok": ok,
            "changed_inputs": sorted(changed), "table": _summary(result, rec.run)["table"],
            "comparisons": [r.model_dump() for r in rows]}
    emit(args, data, _reproduce_text)
    return 0 if ok else 1


def _reproduce_text(d: dict[str, Any]) -> str:
    lines = [d["table"], f"reproduction {d['reproduction']} of {d['original']}:"]
    for c in d["comparisons"]:
        again = "-" if c["reproduced"] is None else f"{c['reproduced']:.4g}"
        verdict = ("ok" if c["ok"] else "DIFFERS") if c["checked"] else "reported"
        lines.append(f"  {c['name']:<34} {c['original']:>10.4g} -> {again:>10} {c['unit']:<16}"
                     f" {verdict:<8} {c['tolerance'] or ''} {c['note']}")
    for name in d["changed_inputs"]:
        lines.append(f"  input {name!r} changed since the original run")
    lines.append("reproduced within tolerances" if d["ok"] else "NOT reproduced")
    return "\n".join(lines)


# --- ledger ingest-bench ------------------------------------------------------------------------


def _fields(items: list[str]) -> dict[str, str]:
    from replay.record import AGENT_FIELDS
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or key not in AGENT_FIELDS:
            raise UsageError(f"--field {item!r}: expected KEY=VALUE with KEY one of "
                             f"{', '.join(AGENT_FIELDS)}")
        out[key] = value
    return out


def _ingest(args: argparse.Namespace) -> int:
    from replay.vllm_bench import BenchFormatError, load_bench_result
    try:
        bench = load_bench_result(args.file)
    except BenchFormatError as exc:
        raise DocumentError(args.file, str(exc).removeprefix(f"{args.file}: ")) from None
    now = dt.datetime.now(dt.UTC)
    started = bench.started_at or now
    ended = started + dt.timedelta(seconds=bench.duration_s or 0.0)
    fields: dict[str, Any] = {"model_and_revision": bench.model_id,
                              "source_url": args.source_url or str(Path(args.file).resolve()),
                              "retrieved_at": now.isoformat()}
    fields.update(_fields(args.field))
    run = Run(id=new_run_id(now), status=RunStatus.finished, started_at=started, ended_at=ended,
              command=["vllm", "bench", "serve", "--save-result"], parameters=bench.settings,
              environment={"recorded_by": "vllm bench serve",
                           "note": "the result file does not describe the benchmark machine; "
                                   "see agent_fields.hardware_and_gpu_count"},
              inputs={"bench_result": digest_file(args.file)},
              metrics=[RunMetric(name=n, value=v, unit=u, aggregation=a, sample_count=c)
                       for n, v, u, a, c in bench.metrics],
              agent_fields=fields, description=f"vllm bench serve result {Path(args.file).name}")
    with open_ledger(args, create=True) as ledger:
        run_id = ledger.record_run(run)
    emit(args, {"run_id": run_id, "metrics": len(run.metrics)},
         lambda d: f"recorded {d['run_id']} with {d['metrics']} metric(s)")
    return 0
