"""The code stays lint-clean (ruff) and type-clean (mypy) as the house style asks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_ruff_is_clean() -> None:
    done = _run("ruff", "check", "ledger", "reference_store", "replay", "tests", "benchmarks",
                "scripts")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_mypy_is_clean() -> None:
    done = _run("mypy", "ledger", "reference_store", "replay")
    assert done.returncode == 0, done.stdout + done.stderr
