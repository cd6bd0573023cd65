"""``ledger runs list|show|diff|export|import``"""

from __future__ import annotations

import argparse
from typing import Any

from ..models import RunStatus
from ..runs import diff_runs, import_run, load_run_file, run_document
from ._common import add_command, write_output
from ._ledger import add_db_options, dumps, emit, open_ledger

__all__ = ["register", "run_text"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(subparsers, "runs", "List, show and compare measurement runs.",
                    "ledger runs list --status finished")
    sub = p.add_subparsers(dest="runs_command", metavar="ACTION", required=True)
    q = add_command(sub, "list", "List runs, oldest first.", "ledger runs list --format json")
    q.add_argument("--status", choices=[s.value for s in RunStatus])
    add_db_options(q)
    q.set_defaults(func=_list)
    q = add_command(sub, "show", "Show one run with its environment and metrics.",
                    "ledger runs show run-20261129T203100Z-1a2b3c4d")
    q.add_argument("run_id", metavar="RUN_ID")
    add_db_options(q)
    q.set_defaults(func=_show)
    q = add_command(sub, "diff", "Compare two runs: parameters, environment, metric ratios.",
                    "ledger runs diff RUN_A RUN_B --format json")
    q.add_argument("a", metavar="RUN_A")
    q.add_argument("b", metavar="RUN_B")
    add_db_options(q)
    q.set_defaults(func=_diff)
    q = add_command(sub, "export", "Write a run record as JSON (to commit beside the article "
                    "that cites it).", "ledger runs export RUN_ID --output examples/runs/RUN_ID.json")
    q.add_argument("run_id", metavar="RUN_ID")
    q.add_argument("--output", metavar="FILE", help="write here instead of stdout")
    add_db_options(q)
    q.set_defaults(func=_export)
    q = add_command(sub, "import", "Record exported run files in this ledger (an identical run "
                    "already there is left alone; a different one with the same id is refused).",
                    "ledger runs import examples/runs/*.json --db ledger.db")
    q.add_argument("files", nargs="+", metavar="FILE")
    add_db_options(q)
    q.set_defaults(func=_import)


def _list(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger:
        runs = ledger.list_runs(RunStatus(args.status) if args.status else None)
    emit(args, [r.model_dump(mode="json") for r in runs], _list_text)
    return 0


def _list_text(runs: list[dict[str, Any]]) -> str:
    if not runs:
        return "no runs"
    return "\n".join(
        f"{r['id']}  {r['status']:8}  {r['started_at']}  {len(r['metrics'])} metric(s)  "
        f"git {(r.get('git_commit') or '-')[:10]}{'+dirty' if r.get('git_dirty') else ''}"
        for r in runs)


def run_text(r: dict[str, Any]) -> str:
    """A run as tables by arm and metric (see :mod:`ledger.runview`)."""
    from ..runview import run_tables

    return run_tables(r, r.get("reproductions"))


def _show(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger:
        run = ledger.get_run(args.run_id)
        reproductions = [r.to_dict() for r in ledger.reproductions(run.id)]
    emit(args, run.model_dump(mode="json") | {"reproductions": reproductions}, run_text)
    return 0


def _diff(args: argparse.Namespace) -> int:
    from ..runview import diff_tables

    with open_ledger(args) as ledger:
        a, b = ledger.get_run(args.a), ledger.get_run(args.b)
    ja, jb = a.model_dump(mode="json"), b.model_dump(mode="json")
    emit(args, diff_runs(a, b), lambda d: diff_tables(d, ja, jb))
    return 0


def _export(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger:
        run = ledger.get_run(args.run_id)
    write_output(dumps(run_document(run)), args.output)
    return 0


def _import(args: argparse.Namespace) -> int:
    runs = [load_run_file(path) for path in args.files]  # every file parses before any is stored
    with open_ledger(args, create=True) as ledger:
        results = [{"run_id": run.id, "result": import_run(ledger, run)} for run in runs]
    emit(args, results, lambda rs: "\n".join(f"{r['run_id']}: {r['result']}" for r in rs))
    return 0
