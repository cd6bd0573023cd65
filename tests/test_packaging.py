"""Packaging: the base install is light and enough for verify/figures/schema; every other part is
an extra, and a command whose extra is missing names the pip line to run."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from ledger.errors import MissingExtra
from ledger.extras import EXTRA_OF_MODULE, missing_extra, require

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
BASE_LIMIT_MB = 60


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0].lower() for r in requirements}


def test_base_dependencies_are_only_what_verify_figures_and_schema_import() -> None:
    assert _names(PYPROJECT["project"]["dependencies"]) == {"pydantic", "rich"}
    assert PYPROJECT["project"]["requires-python"] == ">=3.11"


def test_every_extra_named_in_the_table_exists_and_torch_has_a_floor() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert set(EXTRA_OF_MODULE.values()) <= set(extras)
    assert {"db", "postgres", "store", "replay", "mooncake", "dev"} <= set(extras)
    torch = [r for r in extras["store"] if r.startswith("torch")]
    assert torch == ["torch>=2.4"]
    assert all("python_version" in r for r in extras["mooncake"])


def test_missing_module_maps_to_its_extra_and_unknown_ones_are_not_hidden() -> None:
    found = missing_extra(ModuleNotFoundError("x", name="sqlalchemy.orm"))
    assert isinstance(found, MissingExtra) and found.extra == "db"
    assert "pip install 'kv-evidence-ledger[db]'" in str(found)
    assert missing_extra(ModuleNotFoundError("x", name="sqlalchemy"), "replay").extra == "replay"
    assert missing_extra(ModuleNotFoundError("x", name="ledger.nosuch")) is None
    with pytest.raises(MissingExtra, match=r"\[store\]"):
        require("store", "no_such_module_for_this_test")


def _python312() -> list[str]:
    """Python 3.12 through pyenv where this machine has it (CI does), else this interpreter."""
    found = shutil.which("python3.12")
    return [found] if found else [sys.executable]


@pytest.fixture(scope="module")
def base_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv holding the base package alone (``pip install .``), built from a copy
    of the sources so the checkout gets no build/ or egg-info."""
    tmp = tmp_path_factory.mktemp("base")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for package in ("ledger", "reference_store", "replay"):
        shutil.copytree(ROOT / package, src / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    venv = tmp / "venv"
    env = {**os.environ, "PYENV_VERSION": "3.12.1"}
    subprocess.run([*_python312(), "-m", "venv", str(venv)], check=True, env=env, timeout=300)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(src)],
                   check=True, timeout=600)
    return venv


def _run(venv: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(venv / "bin" / args[0]), *args[1:]], cwd=ROOT, text=True,
                          capture_output=True, timeout=300)


@pytest.mark.slow
def test_base_install_pulls_no_torch_and_stays_small(base_venv: Path) -> None:
    listed = _run(base_venv, "python", "-m", "pip", "list", "--format", "freeze").stdout.lower()
    for heavy in ("torch", "numpy", "sqlalchemy", "matplotlib"):
        assert f"\n{heavy}==" not in "\n" + listed, listed
    done = _run(base_venv, "python", str(ROOT / "scripts" / "installed_size.py"))
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    print(last)
    size = float(re.match(r"installed size: ([\d.]+) MB", last).group(1))  # type: ignore[union-attr]
    assert 1 < size < BASE_LIMIT_MB


@pytest.mark.slow
def test_base_install_verifies_articles_and_runs_every_hook_entry(base_venv: Path) -> None:
    done = _run(base_venv, "ledger", "verify", "claims/")
    assert done.returncode == 0, done.stdout + done.stderr
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    articles = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "claims").glob("*.json"))
    for hook in hooks:
        files = articles if hook.get("pass_filenames", True) else []
        done = _run(base_venv, *shlex.split(hook["entry"]), *files)
        assert done.returncode == 0, (hook["id"], done.stdout + done.stderr)


@pytest.mark.slow
def test_base_install_names_the_extra_a_command_needs(base_venv: Path) -> None:
    for args, extra in ((["ingest", "claims/x.json"], "db"),
                        (["run", "examples/replay-coding-agent.yaml"], "replay")):
        done = _run(base_venv, "ledger", *args)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and f"pip install 'kv-evidence-ledger[{extra}]'" in lines[0], lines
    for args, extra in ((["reference-store", "master"], "store"),
                        (["python", "-m", "replay", "run", "examples/replay-coding-agent.yaml"],
                         "replay")):
        done = _run(base_venv, *args)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and f"pip install 'kv-evidence-ledger[{extra}]'" in lines[0], lines


def test_schema_check_reads_schemas_from_the_working_directory_or_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from ledger.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["schema", "check"]) == 2
    assert "pass --dir" in capsys.readouterr().err
    assert main(["schema", "check", "--dir", str(ROOT / "schemas")]) == 0
    monkeypatch.chdir(ROOT)
    assert main(["schema", "check"]) == 0
