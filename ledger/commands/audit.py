"""``ledger checkpoint [FILE]`` and ``ledger audit [--checkpoint FILE]``"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from ..errors import IntegrityError, UsageError
from ..log import AuditResult, TreeHead
from ..schema import read_json
from ._common import add_command, write_output
from ._ledger import add_db_options, dumps, open_ledger

__all__ = ["DEFAULT_CHECKPOINT", "read_checkpoint", "register"]

#: Where ``ledger checkpoint`` writes by default; commit this file to git.
DEFAULT_CHECKPOINT = "ledger-checkpoint.json"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(
        subparsers, "checkpoint",
        "Audit the log, then write its tree head (size, root, time) to FILE, to be committed "
        "to git. If FILE already holds a checkpoint, the log must extend it. Exit 3 when the "
        "log does not verify.",
        f"ledger checkpoint {DEFAULT_CHECKPOINT} && git add {DEFAULT_CHECKPOINT}")
    p.add_argument("file", nargs="?", default=DEFAULT_CHECKPOINT, metavar="FILE")
    add_db_options(p)
    p.set_defaults(func=_checkpoint)

    p = add_command(
        subparsers, "audit",
        "Recompute every hash of the append-only log and prove that it extends the "
        "checkpoint. Exit 0 when it verifies, 3 on any mismatch (naming the first bad entry).",
        f"ledger audit --checkpoint {DEFAULT_CHECKPOINT}")
    p.add_argument("--checkpoint", metavar="FILE", help="a file written by `ledger checkpoint`")
    add_db_options(p)
    p.set_defaults(func=_audit)


def read_checkpoint(path: str | Path) -> TreeHead:
    """Raises :class:`DocumentError` (unreadable) or :class:`UsageError` (malformed field)."""
    return TreeHead.from_dict(read_json(path), str(path))


def _result_text(data: dict[str, Any]) -> str:
    if data["ok"]:
        text = f"OK: {data['size']} entries verify; root {data['root']}"
        if "checkpoint" in data:
            cp = data["checkpoint"]
            text += f"\nextends the checkpoint of {cp['time']} (size {cp['size']})"
        return text
    return f"FAILED at entry {data['bad_entry']}: {data['problem']}"


def _audit(args: argparse.Namespace) -> int:
    checkpoint = read_checkpoint(args.checkpoint) if args.checkpoint else None
    with open_ledger(args) as ledger:
        result: AuditResult = ledger.audit(checkpoint)
    data = result.to_dict()
    write_output(dumps(data) if args.format == "json" else _result_text(data), None)
    return 0 if result.ok else IntegrityError.exit_code


def _checkpoint(args: argparse.Namespace) -> int:
    previous = read_checkpoint(args.file) if Path(args.file).is_file() else None
    with open_ledger(args) as ledger:
        result = ledger.audit(previous)
        result.raise_for_problem()
        head = ledger.tree_head()
    text = json.dumps(head.to_dict(), indent=2) + "\n"
    tmp = Path(f"{args.file}.tmp-{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, args.file)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise UsageError(f"cannot write {args.file}: {exc.strerror}") from None
    data = head.to_dict() | {"file": args.file}
    write_output(dumps(data) if args.format == "json" else
                 f"checkpoint {args.file}: size {head.size}, root {head.root}", None)
    return 0
