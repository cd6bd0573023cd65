"""``ledger run CONFIG``, ``ledger reproduce RUN_ID``, ``ledger ingest-bench FILE``.

``run`` executes a replay config and records it as a sealed run with every seed agent field;
``reproduce`` re-runs a recorded run's configuration and checks its ratios and rates within the
tolerances the configuration states (exit 1 when one is outside); ``ingest-bench`` records a
``vllm bench serve --save-result`` file as a run.

The ledger never imports the replay harness: ``run`` and ``reproduce`` start it as a child
process (``python -m replay run|rerun ... --run-file FILE``) and import the run file it writes
(``schemas/run.schema.json``), the one seam between the two.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..agent_fields import parse_field_args
from ..errors import DocumentError, UsageError
from ..extras import require
from ..models import Run, RunMetric, RunStatus
from ..reproduce import compare_metrics
from ..runs import digest_file, import_run, load_run_file, new_run_id
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
                    "Re-run a recorded replay and check every figure that ingested articles "
                    "print from it (each with its article and sentence) and the metrics its "
                    "configuration names; record the reproduction in the ledger. Exit 1 when "
                    "a cited figure or a configured metric does not hold.",
                    "ledger reproduce --article pct-2026-11-29-replay-shared-kv-cache")
    p.add_argument("run_id", metavar="RUN_ID", nargs="?")
    p.add_argument("--article", metavar="ID", help="reproduce every run this article cites")
    p.add_argument("--out", metavar="DIR", help="results and plots (default runs/NEW_RUN_ID)")
    p.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                   help="every row, the replay's summary table and the harness's log")
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


# --- the harness, as a child process ------------------------------------------------------------

#: what ``python -m replay`` imports (the ``replay`` extra installs them)
_HARNESS_MODULES = ("replay", "torch", "numpy", "matplotlib", "yaml", "cbor2", "xxhash")


def run_harness(argv: list[str], command: list[str], *, verbose: bool = False,
                original: Run | None = None) -> tuple[int, Run | None, str]:
    """Run ``python -m replay ARGV --run-file TMP`` (with ``original`` written to a run file
    and passed first, for ``rerun``); returns its exit code, the run it recorded (``None``
    when it failed before recording) and its standard output (the summary table). Its stderr
    (progress and error lines) goes straight to a terminal, else is copied to ours."""
    require("replay", *_HARNESS_MODULES)
    with tempfile.TemporaryDirectory(prefix="ledger-run-") as tmp:
        run_file = Path(tmp) / "run.json"
        if original is not None:
            given = Path(tmp) / "original.json"
            given.write_text(json.dumps(original.model_dump(mode="json")))
            argv = [argv[0], str(given), *argv[1:]]
        cmd = [sys.executable, "-m", "replay", *(["-v"] if verbose else []), *argv,
               "--run-file", str(run_file), "--command", json.dumps(command)]
        live = sys.stderr.isatty()
        done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True,
                              stderr=None if live else subprocess.PIPE)
        if done.stderr:
            sys.stderr.write(done.stderr)
        run = load_run_file(run_file) if run_file.exists() else None
    return done.returncode, run, done.stdout.rstrip("\n")


def _record(args: argparse.Namespace, argv: list[str], command: list[str],
            original: Run | None = None) -> tuple[int, Run | None, str]:
    """The harness's run, imported into this ledger (a failed run too, as a record)."""
    rc, run, table = run_harness(argv, command, verbose=args.verbose, original=original)
    if run is not None:
        with open_ledger(args, create=True) as ledger:
            import_run(ledger, run)
    return rc, run, table


def _summary(table: str, run: Run | None) -> dict[str, Any]:
    return {"run_id": run.id if run else None, "status": run.status.value if run else None,
            "table": table,
            "metrics": [m.model_dump(mode="json") for m in (run.metrics if run else [])]}


# --- ledger run ---------------------------------------------------------------------------------


def _run(args: argparse.Namespace) -> int:
    path = Path(args.config)
    argv = ["run", str(path), *(["--out", args.out] if args.out else [])]
    for arm in args.arm or []:
        argv += ["--arm", arm]
    rc, run, table = _record(args, argv, ["ledger", "run", str(path)])
    if rc != 0 or run is None:
        return rc or 2
    emit(args, _summary(table, run), lambda d: f"{d['table']}\nrecorded {d['run_id']} "
                                               f"({d['status']})")
    return 0


# --- ledger reproduce ---------------------------------------------------------------------------


def _tolerances(original: Run) -> tuple[dict[str, float], list[str] | None]:
    """The tolerances and checked metrics the original run's replay config states."""
    stated = original.parameters["config"].get("reproduce") or {}
    tol = {"ratio": float(stated["ratio_tolerance"]), "rate": float(stated["rate_tolerance"])}
    return tol, stated.get("metrics")


def _reproduce(args: argparse.Namespace) -> int:
    if bool(args.run_id) == bool(args.article):
        raise UsageError("give a RUN_ID or --article ID (one of them)")
    run_ids = [args.run_id] if args.run_id else _article_runs(args)
    results = [_reproduce_one(args, run_id) for run_id in run_ids]
    data = {"ok": all(r["ok"] for r in results), "reproductions": results}
    verbose = bool(getattr(args, "verbose", False))
    emit(args, data if len(results) > 1 else results[0],
         lambda d: _reproduce_text(d, verbose) if len(results) == 1 else
         "\n\n".join(_reproduce_text(r, verbose) for r in d["reproductions"]))
    return 0 if data["ok"] else 1


def _article_runs(args: argparse.Namespace) -> list[str]:
    from ..cited import _runs_of

    with open_ledger(args) as ledger:
        article = ledger.get_article(args.article)
    by_id = {m.id: m for m in article.measurements or []}
    runs = sorted({r for m in by_id.values() for r in _runs_of(m, by_id)[0]})
    if not runs:
        raise UsageError(f"article {args.article} cites no run")
    return runs


def _reproduce_one(args: argparse.Namespace, run_id: str) -> dict[str, Any]:
    from ..cited import cited_figures

    with open_ledger(args) as ledger:
        original = ledger.get_run(run_id)
        run_id = original.id  # the id itself, should the name given be an alias
        with ledger.read() as conn:
            cited = cited_figures(conn, run_id)
    if "config" not in original.parameters:
        raise UsageError(f"run {run_id} was not recorded by `ledger run`: "
                         "it has no replay config to run again")
    argv = ["rerun", *(["--out", args.out] if args.out else [])]
    rc, run, table = _record(args, argv, ["ledger", "reproduce", run_id], original)
    if run is None:
        raise UsageError(f"the rerun of {run_id} failed before recording a run (exit {rc})")
    tol, checked = _tolerances(original)
    intervals = {m.name: (m.spread.ci_low, m.spread.ci_high)
                 for m in original.metrics if m.spread is not None}
    rows = compare_metrics([(m.name, m.value, m.unit) for m in original.metrics],
                           [(m.name, m.value, m.unit) for m in run.metrics], tol, checked,
                           intervals)
    figures = _check_cited(cited, run, tol)
    changed = {k for k in original.inputs
               if k in run.inputs and original.inputs[k] != run.inputs[k]}
    ok = rc == 0 and all(r.ok for r in rows) and all(f["ok"] for f in figures) and not changed
    entry = _record_reproduction(args, original, run, rows, figures, ok)
    return {"original": run_id, "reproduction": run.id, "ok": ok, "entry": entry,
            "changed_inputs": sorted(changed), "table": table, "figures": figures,
            "comparisons": [r.model_dump() for r in rows]}


def _check_cited(cited: list[Any], run: Run, tol: dict[str, float]) -> list[dict[str, Any]]:
    from ..cited import figure_holds, measurement_value

    metrics = {m.name: m.value for m in run.metrics}
    out = []
    for c in cited:
        value = measurement_value(c, metrics)
        ok, note = figure_holds(c.figure, value, c.measurement.unit, tol)
        out.append(c.to_dict() | {"reproduced": value, "unit": c.measurement.unit, "ok": ok,
                                  "note": note})
    return out


def _record_reproduction(args: argparse.Namespace, original: Run, run: Run, rows: list[Any],
                         figures: list[dict[str, Any]], ok: bool) -> int:
    from ..levels import Reproduction, machine_fingerprint, same_machine

    failed = {r.name for r in rows if r.checked and not r.ok}
    failed |= {f["metric"] for f in figures if not f["ok"]}
    held = ({r.name for r in rows if r.checked and r.ok} | {f["metric"] for f in figures}) - failed
    env_a, env_b = original.environment, run.environment
    other_person = (env_a.get("operator") and env_b.get("operator")
                    and env_a["operator"] != env_b["operator"])
    revision = (run.git_commit or "")[:12] + ("+dirty" if run.git_dirty else "")
    reproduction = Reproduction(
        original=original.id, run_id=run.id, date=(run.ended_at or run.started_at).isoformat(),
        machine=machine_fingerprint(env_b), operator=env_b.get("operator"),
        revision=revision or None,
        independent=bool(not same_machine(env_a, env_b) or other_person),
        held=tuple(sorted(held)), failed=tuple(sorted(failed)),
        figures=[{k: f[k] for k in ("article", "measurement", "metric", "figure", "ok")}
                 for f in figures])
    with open_ledger(args) as ledger:
        return ledger.record_reproduction(reproduction)


def _reproduce_text(d: dict[str, Any], verbose: bool = False) -> str:
    figures, comparisons = d["figures"], d["comparisons"]
    bad_figures = [f for f in figures if not f["ok"]]
    bad_metrics = [c for c in comparisons if c["checked"] and not c["ok"]]
    checked = [c for c in comparisons if c["checked"]]
    verdict = "REPRODUCED" if d["ok"] else "NOT REPRODUCED"
    lines = [f"{verdict}: {d['original']} rerun as {d['reproduction']} (ledger entry "
             f"{d['entry']}): {len(figures) - len(bad_figures)} of {len(figures)} cited "
             f"figure(s) hold; {len(checked) - len(bad_metrics)} of {len(checked)} configured "
             "metric(s) within tolerance"]
    lines += [f"  input {name!r} changed since the original run" for name in d["changed_inputs"]]
    shown = figures if verbose or len(figures) <= 20 else bad_figures
    if shown:
        lines.append("cited figures:")
    for f in sorted(shown, key=lambda f: f["ok"]):
        mark = "holds" if f["ok"] else "DOES NOT HOLD"
        lines.append(f"  {mark:<13} {f['figure']!r} ({f['article']} {f['measurement']}, "
                     f"{f['metric']}): {f['note']}")
        if not f["ok"] or verbose:
            lines.append(f"                sentence: {f['sentence']}")
    rows = comparisons if verbose else bad_metrics
    if rows:
        lines.append("metrics:" if verbose else "configured metrics outside tolerance:")
    for c in rows:
        again = "-" if c["reproduced"] is None else f"{c['reproduced']:.4g}"
        state = ("ok" if c["ok"] else "DIFFERS") if c["checked"] else "reported"
        lines.append(f"  {c['name']:<34} {c['original']:>10.4g} -> {again:>10} {c['unit']:<16}"
                     f" {state:<8} {c['tolerance'] or ''} {c['note']}")
    if verbose:
        lines += ["", d["table"]]
    return "\n".join(lines)


# --- ledger ingest-bench ------------------------------------------------------------------------


def _ingest(args: argparse.Namespace) -> int:
    from ..vllm_bench import BenchFormatError, load_bench_result
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
    fields.update(parse_field_args(args.field))
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
