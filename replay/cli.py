"""``python -m replay``: run replays, write traces and the trace schema, measure
the break-even prefix length.

Exit codes: 0 success, 1 a check failed (schema out of date), 2 usage or input error.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from reference_store.errors import StoreError

__all__ = ["build_parser", "main", "trace_schema", "write_run_outputs"]

_EPILOG = """examples:
  python -m replay run examples/replay-coding-agent.yaml --out runs/demo
  python -m replay run examples/replay-coding-agent.yaml --run-file run.json
  python -m replay trace coding_agent --set sessions=8 --out trace.json
  python -m replay import-vllm conversations.json --out trace.json
  python -m replay schema --check schemas/trace.schema.json
  python -m replay break-even --rounds 5"""

Out = Callable[[str], None]


def trace_schema() -> dict[str, Any]:
    """The JSON Schema of the trace format (what ``schemas/trace.schema.json`` holds)."""
    from replay.trace import Trace
    body = Trace.model_json_schema(mode="validation")
    head = {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://kv-evidence-ledger.invalid/schemas/trace.schema.json",
            "title": body.pop("title", "Trace"),
            "description": "A replayable multi-turn workload: sessions of turns given as token "
                           "counts (carried over, new, output) and tool delays."}
    body.pop("description", None)
    return head | body


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m replay",
                                description="Replay multi-turn traffic and measure a KV cache.",
                                epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-v", "--verbose", action="store_true")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    r = sub.add_parser("run", help="run a replay config and print the summary table",
                       epilog="example: python -m replay run "
                              "examples/replay-coding-agent.yaml --out runs/demo")
    r.add_argument("config", type=Path)
    r.add_argument("--out", type=Path, help="directory for results.json and PNG plots")
    r.add_argument("--arm", action="append", help="run only this arm (repeatable)")
    r.add_argument("--run-file", type=Path, metavar="PATH",
                   help="record the replay as a sealed run and write it here "
                        "(schemas/run.schema.json; `ledger runs import PATH` stores it)")
    _add_command_option(r)
    rr = sub.add_parser("rerun", help="run a recorded run's config again and record it",
                        epilog="example: python -m replay rerun run.json --run-file again.json")
    rr.add_argument("original", type=Path, help="run file of the run to reproduce")
    rr.add_argument("--run-file", type=Path, metavar="PATH", required=True,
                    help="where to write the reproduction's run file")
    rr.add_argument("--out", type=Path, help="directory for results.json and PNG plots")
    _add_command_option(rr)
    t = sub.add_parser("trace", help="write a generated trace as JSON",
                       epilog="example: python -m replay trace coding_agent "
                              "--set sessions=8 --set seed=3")
    t.add_argument("kind", choices=("coding_agent", "multi_tenant_chat", "long_document_qa",
                                    "no_reuse"))
    t.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="generator parameter (YAML value)")
    t.add_argument("--out", type=Path)
    v = sub.add_parser("import-vllm", help="convert a vLLM multi-turn conversation file",
                       epilog="example: python -m replay import-vllm conv.json "
                              "--out trace.json")
    v.add_argument("file", type=Path)
    v.add_argument("--out", type=Path)
    s = sub.add_parser("schema", help="print the trace JSON Schema, or check a committed copy",
                       epilog="example: python -m replay schema --check "
                              "schemas/trace.schema.json")
    s.add_argument("--check", type=Path, help="exit 1 if this file differs from the model")
    b = sub.add_parser("break-even", help="predict and measure the break-even prefix length",
                       epilog="example: python -m replay break-even --rounds 7")
    b.add_argument("--rounds", type=int, default=5)
    b.add_argument("--master", help="reference-store master HOST:PORT (default: embedded store)")
    b.add_argument("--layers", type=int, default=2)
    b.add_argument("--width", type=int, default=128)
    b.add_argument("--torch-threads", type=int, default=1,
                   help="intra-op threads (1 is steadiest on a small shared machine)")
    return p


def _add_command_option(p: argparse.ArgumentParser) -> None:
    # `ledger run` and `ledger reproduce` pass the command the user typed, to be recorded
    p.add_argument("--command", dest="recorded_command", type=json.loads,
                   help=argparse.SUPPRESS)


def _recorded_command(args: argparse.Namespace) -> list[str]:
    given = args.recorded_command
    if given is None:
        return ["python", "-m", "replay", *sys.argv[1:]]
    if not isinstance(given, list) or not all(isinstance(a, str) for a in given):
        raise ValueError("--command: expected a JSON list of strings")
    return given


def _trace_inputs(cfg: Any, base_dir: Path) -> dict[str, Path]:
    raw = cfg.trace.file or cfg.trace.vllm_multiturn
    if raw is None:
        return {}
    path = Path(raw)
    return {"trace": path if path.is_absolute() else base_dir / path}


def _seed(cfg: Any) -> int | None:
    gen = cfg.trace.generator
    return int(gen.seed) if gen is not None else None


def write_run_outputs(run: Any, out_dir: Path) -> list[Path]:
    """results.json, the SLO sensitivity table (text and JSON) and the PNG plots of a run."""
    from replay.plots import plot_all
    from replay.report import run_document
    from replay.sensitivity import sensitivity_table, slo_sensitivity
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = out_dir / "results.json"
    doc.write_text(json.dumps(run_document(run), indent=1))
    rows = slo_sensitivity(run)
    table = out_dir / "slo_sensitivity.txt"
    table.write_text(sensitivity_table(run, rows) + "\n")
    data = out_dir / "slo_sensitivity.json"
    data.write_text(json.dumps(rows, indent=1))
    return [doc, table, data, *plot_all(run, out_dir)]


def _run(args: argparse.Namespace, out: Out) -> int:
    from replay.config import load_config
    from replay.report import summary_table
    from replay.runner import check_arms, check_completed, run_config
    cfg = load_config(args.config)
    check_arms(cfg, args.arm)
    if args.run_file is not None:
        from replay.record import record_run_file
        path: Path = args.config
        params = {"config": cfg.model_dump(mode="json"), "config_path": str(path),
                  "config_dir": str(path.resolve().parent)}
        result, _ = record_run_file(
            cfg, args.run_file, base_dir=path.parent, command=_recorded_command(args),
            parameters=params, inputs={"config": path, **_trace_inputs(cfg, path.parent)},
            seed=_seed(cfg), description=cfg.description or cfg.name, only=args.arm,
            out=args.out)
        assert result is not None
        out(summary_table(result))
        return 0
    run = run_config(cfg, base_dir=args.config.parent, only=args.arm)
    out(summary_table(run))
    if args.out:
        for path in write_run_outputs(run, args.out):
            out(f"wrote {path}")
    check_completed(run)
    return 0


def _rerun(args: argparse.Namespace, out: Out) -> int:
    from ledger.runs import load_run_file
    from replay.config import ConfigError, parse_config
    from replay.record import record_run_file
    from replay.report import summary_table
    original = load_run_file(args.original)  # DocumentError is a ValueError
    params = original.parameters
    if "config" not in params:
        raise ValueError(f"run {original.id} was not recorded by `ledger run`: it has no "
                         "replay config to run again")
    base = Path(params.get("config_dir", "."))
    try:
        cfg = parse_config(params["config"], base_dir=base)
    except ConfigError as exc:
        raise ValueError(f"run {original.id}: {exc}") from None
    result, _ = record_run_file(
        cfg, args.run_file, base_dir=base, command=_recorded_command(args),
        parameters={**params, "reproduces": original.id}, inputs=_trace_inputs(cfg, base),
        seed=original.seed, description=f"reproduction of {original.id}", out=args.out)
    assert result is not None
    out(summary_table(result))
    return 0


def _trace(args: argparse.Namespace, out: Out) -> int:
    from pydantic import TypeAdapter

    from replay.generators import GeneratorParams, generate
    params: dict[str, Any] = {"kind": args.kind}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--set {item!r}: expected KEY=VALUE")
        params[key] = yaml.safe_load(value)
    trace = generate(TypeAdapter(GeneratorParams).validate_python(params))
    _emit(trace.model_dump_json(indent=1), args.out, out)
    return 0


def _import(args: argparse.Namespace, out: Out) -> int:
    from replay.vllm_import import load_conversations
    _emit(load_conversations(args.file).model_dump_json(indent=1), args.out, out)
    return 0


def _schema(args: argparse.Namespace, out: Out) -> int:
    text = json.dumps(trace_schema(), indent=2, ensure_ascii=False) + "\n"
    if args.check is None:
        out(text.rstrip("\n"))
        return 0
    try:
        committed = args.check.read_text()
    except OSError as exc:
        raise ValueError(f"{args.check}: cannot read: {exc.strerror}") from None
    if json.loads(committed) != json.loads(text):
        out(f"{args.check}: out of date; regenerate with "
            f"`python -m replay schema > {args.check}`")
        return 1
    out(f"{args.check}: up to date")
    return 0


def _break_even(args: argparse.Namespace, out: Out) -> int:
    import torch

    from replay.breakeven import measure_break_even
    from replay.model import ModelConfig, TinyTransformer
    torch.set_num_threads(args.torch_threads)
    model = TinyTransformer(ModelConfig(layers=args.layers, width=args.width))
    if args.master:
        from reference_store.client import StoreClient
        store: Any = StoreClient(args.master)
    else:
        from reference_store import EmbeddedStore, StoreConfig
        store = EmbeddedStore(StoreConfig(host_bytes=512 << 20))
    try:
        res = measure_break_even(model, store, rounds=args.rounds)
    finally:
        store.close()
    out(f"read path: {res.load_latency_s * 1e3:.3f} ms + {res.bandwidth_bytes_per_s / 1e9:.2f} "
        f"GB/s; prefill fit a={res.prefill_fit['a']:.2e} b={res.prefill_fit['b']:.2e} "
        f"c={res.prefill_fit['c']:.2e}")
    out(f"{'prefix':>7} {'recompute ms':>13} {'load ms':>8} {'pred rec':>9} {'pred load':>9}")
    for p in res.points:
        out(f"{p.prefix_tokens:>7} {p.recompute_s * 1e3:>13.2f} {p.load_s * 1e3:>8.2f} "
            f"{p.predicted_recompute_s * 1e3:>9.2f} {p.predicted_load_s * 1e3:>9.2f}")
    out(f"break-even prefix: predicted {res.predicted_break_even_tokens}, measured "
        f"{res.measured_break_even_tokens} tokens (suffix {res.suffix_tokens})")
    return 0


def _emit(text: str, path: Path | None, out: Out) -> None:
    if path is None:
        out(text)
    else:
        path.write_text(text + "\n")
        out(f"wrote {path}")


_COMMANDS = {"run": _run, "rerun": _rerun, "trace": _trace, "import-vllm": _import, "schema": _schema,
             "break-even": _break_even}


def _stdout(text: str) -> None:
    sys.stdout.write(text + "\n")


def main(argv: Sequence[str] | None = None,
         out: Out | None = None) -> int:
    """Entry point; exit code 0, 1 (a check failed) or 2 (usage or input error)."""
    out = out or _stdout
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        return _COMMANDS[args.command](args, out)
    except (ValueError, OSError) as exc:  # ConfigError and format errors are ValueErrors
        sys.stderr.write(f"error: {exc}\n")
        return 2
    except StoreError as exc:  # the store a config names cannot be reached, or refused us
        sys.stderr.write(f"error: store: {exc}\n")
        return 2
    except RuntimeError as exc:
        from replay.runner import AllRequestsFailed  # raised only once the runner is loaded
        if not isinstance(exc, AllRequestsFailed):
            raise
        sys.stderr.write(f"error: {exc}\n")
        return 1
