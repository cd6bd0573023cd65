"""The ledger and the store are joined only by the run record: nothing under ledger/ imports
reference_store or replay (checked on the source, so a lazy import inside a function counts)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = ("reference_store", "replay")


def forbidden_imports(source: str, filename: str = "<source>") -> list[str]:
    """``module:line name`` for every import of a forbidden package in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [f"{filename}:{node.lineno} {name}" for name in names
                  if name.split(".")[0] in FORBIDDEN]
    return found


def test_the_checker_finds_every_form_of_import() -> None:
    source = ("import replay\nimport os, reference_store.keys as k\n"
              "def f():\n    from replay.cli import main\n"
              "from reference_store import EmbeddedStore\nfrom .replay import x\n"
              "import replayed\n")
    assert sorted(hit.split(" ")[1] for hit in forbidden_imports(source)) == [
        "reference_store", "reference_store.keys", "replay", "replay.cli"]


def test_nothing_under_ledger_imports_the_store_or_the_harness() -> None:
    modules = sorted((ROOT / "ledger").rglob("*.py"))
    assert len(modules) > 20
    hits = [hit for path in modules
            for hit in forbidden_imports(path.read_text(encoding="utf-8"),
                                         str(path.relative_to(ROOT)))]
    assert hits == []
