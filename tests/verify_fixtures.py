"""Helpers shared by the verify tests: mutate the desk's article, write it, verify the real file."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ledger.report import FileResult, Finding
from ledger.verify import verify_file
from ledger.verify.consistency import word_count

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "claims" / "pct-2026-11-04-spotlight-mooncake-store.json"
SECOND = ROOT / "claims" / "pct-2026-11-29-spotlight-sglang-hicache.json"

Mutation = Callable[[dict[str, Any]], None]


def load(path: Path = SEED) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def replace_body(doc: dict[str, Any], old: str, new: str) -> None:
    """Replace ``old`` (which must occur exactly once) in the body: a mutation that fails loudly
    when the article changes under it, so the corpus stays in step with the article."""
    count = doc["body"].count(old)
    assert count == 1, f"{old!r} occurs {count} times in the body"
    doc["body"] = doc["body"].replace(old, new)


def verify_mutant(tmp_path: Path, mutation: Mutation, *, recount: bool = True,
                  source: Path = SEED) -> tuple[dict[str, Any], FileResult]:
    doc = copy.deepcopy(load(source))
    mutation(doc)
    if recount:  # keep the word count honest unless the mutation is about it
        doc["editorial_word_count"] = word_count(doc["body"])
    path = tmp_path / "mutant.json"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return doc, verify_file(path)


def span(body: str, text: str, nth: int = 0) -> tuple[int, int, int]:
    """(line, column, end_column) of the ``nth`` occurrence of ``text`` in ``body``."""
    start = -1
    for _ in range(nth + 1):
        start = body.index(text, start + 1)
    line = body.count("\n", 0, start) + 1
    column = start - (body.rfind("\n", 0, start) + 1) + 1
    return line, column, column + len(text)


def at(result: FileResult, rule: str, where: tuple[int, int, int] | str) -> list[Finding]:
    """Findings of ``rule`` at a body span (line, column, end) or at a JSON pointer."""
    if isinstance(where, str):
        return [f for f in result.findings if f.rule == rule and f.pointer == where]
    line, column, end = where
    # a guardrail finding spans the protected figure and the word that breaks it, a conflation
    # the stretch from one experiment's figure to the other's: each holds the figure's span;
    # every other finding sits exactly on it
    return [f for f in result.findings if f.rule == rule and f.pointer == "/body"
            and f.line == line and f.column is not None and f.end_column is not None
            and ((f.column, f.end_column) == (column, end) or (
                rule in ("guardrail", "conflated-experiments") and f.column <= column
                and end <= f.end_column))]


def errors(result: FileResult) -> list[Finding]:
    return [f for f in result.findings if f.severity.value == "error"]
