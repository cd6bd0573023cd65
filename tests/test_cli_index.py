"""The CLI's command index names every command its modules register, and only those."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

from ledger.cli import COMMAND_INDEX, COMMAND_MODULES, build_parser, main


def _registered(module: str) -> set[str]:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    importlib.import_module(module).register(sub)
    return set(sub.choices)


def test_index_matches_what_each_module_registers():
    for module in COMMAND_MODULES:
        indexed = {name for name, (mod, _) in COMMAND_INDEX.items() if mod == module}
        assert _registered(module) == indexed, module


def test_full_parser_and_single_command_parser_agree_on_names():
    full = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    single = build_parser("verify")._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(full) == set(single) == set(COMMAND_INDEX)


def test_verify_does_not_import_the_database_layer():
    code = ("import sys; from ledger.cli import main; "
            "rc = main(['verify', 'claims/pct-2026-11-04-spotlight-mooncake-store.json']); "
            "assert 'sqlalchemy' not in sys.modules and 'torch' not in sys.modules, 'heavy import'; "
            "sys.exit(rc)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr + done.stdout


def test_top_level_help_lists_every_command(capsys):
    try:
        main(["--help"])
    except SystemExit as exc:
        assert exc.code == 0
    out = capsys.readouterr().out
    for name in COMMAND_INDEX:
        assert name in out
