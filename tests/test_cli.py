"""The ``ledger`` command line: exit codes, formats, malformed input, help with an example."""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from verify_fixtures import SECOND, SEED, load

from ledger.cli import build_parser, main


def write(tmp_path: Path, doc: Any, name: str = "article.json") -> Path:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc, indent=2), encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_seed_verifies_with_exit_0(capsys) -> None:
    code, out, _ = run(capsys, "verify", str(SEED), str(SECOND))
    assert code == 0 and out.strip() == "OK: 2 file(s), 0 error(s), 0 warning(s)"


def test_directory_expands_to_its_articles(capsys) -> None:
    count = len(list(SEED.parent.glob("*.json")))
    code, out, _ = run(capsys, "verify", str(SEED.parent), "--format", "json")
    assert code == 0 and json.loads(out)["summary"].startswith(f"OK: {count} file(s)")


def test_findings_exit_1_and_json_lists_them(tmp_path, capsys) -> None:
    doc = copy.deepcopy(load())
    doc["body"] = doc["body"].replace("to 92.2%", "to 95.2%")
    code, out, _ = run(capsys, "verify", str(write(tmp_path, doc)), "--format", "json")
    report = json.loads(out)
    assert code == 1 and report["exit_code"] == 1
    (finding,) = [f for f in report["findings"] if f["rule"] == "untraced-figure"]
    assert finding["severity"] == "error" and finding["pointer"] == "/body"
    assert {"line", "column", "end_column", "file_line", "file_column"} <= set(finding)


def test_strict_turns_warnings_into_failures(tmp_path, capsys) -> None:
    doc = copy.deepcopy(load())
    doc["corrections"][3].pop("rule")
    path = str(write(tmp_path, doc))
    assert run(capsys, "verify", path)[0] == 0
    code, out, _ = run(capsys, "verify", path, "--strict")
    assert code == 1 and "--strict" in out


@pytest.mark.parametrize("fmt, marker", [
    ("sarif", '"version": "2.1.0"'), ("junit", "<testsuites"), ("github", "OK: 1 file(s)"),
    ("json", '"exit_code": 0'), ("text", "OK: 1 file(s)"),
])
def test_every_format_and_output_file(fmt: str, marker: str, tmp_path, capsys) -> None:
    out_file = tmp_path / f"report.{fmt}"
    code, _, _ = run(capsys, "verify", str(SEED), "--format", fmt, "--output", str(out_file))
    assert code == 0 and marker in out_file.read_text(encoding="utf-8")


@pytest.mark.parametrize("content, needle", [
    ('{"id": "x", "title": ', "malformed JSON"),                    # truncated
    ("{'id': 1}", "malformed JSON"),                                 # not JSON
    ('{"id": "a", "id": "b"}', "duplicate key"),
    (b"\xff\xfe".decode("latin-1"), "malformed JSON"),
])
def test_malformed_files_exit_2_with_location(content: str, needle: str, tmp_path,
                                              capsys) -> None:
    code, out, _ = run(capsys, "verify", str(write(tmp_path, content)))
    assert code == 2 and needle in out and "Traceback" not in out


def test_truncated_json_reports_line_and_column(tmp_path, capsys) -> None:
    text = SEED.read_text(encoding="utf-8")[:500]
    path = write(tmp_path, text)
    code, out, _ = run(capsys, "verify", str(path), "--format", "json")
    (finding,) = json.loads(out)["findings"]
    assert code == 2 and finding["rule"] == "unreadable" and finding["file_line"] >= 1


def test_missing_file_exits_2(tmp_path, capsys) -> None:
    code, out, _ = run(capsys, "verify", str(tmp_path / "absent.json"))
    assert code == 2 and "no such file" in out


@pytest.mark.parametrize("change, rule, pointer", [
    (lambda d: d.update(editorial_word_count="558"), "schema", "/editorial_word_count"),
    (lambda d: d["sources"][0].pop("url"), "schema", "/sources/0/url"),
    (lambda d: d["facts"].append(copy.deepcopy(d["facts"][0])), "duplicate-id", "/facts/6/id"),
    (lambda d: d["facts"][0].update(source_ids=["S7"]), "dangling-reference",
     "/facts/0/source_ids/0"),
    (lambda d: d.update(publication_date="2026-11-05", observation_date="2026-11-04"),
     "date-order", "/id"),
])
def test_invalid_articles_exit_1_with_pointer(change, rule: str, pointer: str, tmp_path,
                                              capsys) -> None:
    doc = copy.deepcopy(load())
    change(doc)
    code, out, _ = run(capsys, "verify", str(write(tmp_path, doc)), "--format", "json")
    findings = json.loads(out)["findings"]
    assert code == 1 and (rule, pointer) in [(f["rule"], f["pointer"]) for f in findings]


def test_figures_command_table_and_json(capsys) -> None:
    code, out, _ = run(capsys, "figures", str(SEED))
    assert code == 0 and "46-fold" in out and "benchmark metric median_ttft_speedup" in out
    code, out, _ = run(capsys, "figures", str(SEED), "--format", "json")
    rows = json.loads(out)["figures"]
    assert code == 0 and len(rows) == 16 and all(r["traces"] for r in rows)


def test_figures_command_exit_1_on_untraced_and_2_on_bad_file(tmp_path, capsys) -> None:
    doc = copy.deepcopy(load())
    doc["body"] = doc["body"].replace("reached 60 GPUs", "reached 64 GPUs")
    code, out, _ = run(capsys, "figures", str(write(tmp_path, doc)))
    assert code == 1 and "'64'" in out and "UNTRACED" in out
    code, _, err = run(capsys, "figures", str(write(tmp_path, "[1, 2", "bad.json")))
    assert code == 2 and "malformed JSON" in err


def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name, sub
                yield from _subparsers(sub)


def test_every_command_has_help_with_an_example() -> None:
    parser = build_parser()
    commands = dict(_subparsers(parser))
    assert {"verify", "figures", "schema"} <= set(commands)
    for name, sub in commands.items():
        assert "example:" in sub.format_help() and "ledger " in sub.format_help(), name
    assert "examples:" in parser.format_help()


def test_usage_error_exits_2(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["verify", "--format", "yaml", str(SEED)])
    assert info.value.code == 2


def test_console_script_runs_as_a_process() -> None:
    proc = subprocess.run([sys.executable, "-m", "ledger", "verify", str(SEED)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0 and "OK: 1 file(s)" in proc.stdout


# --- CI integration: the composite action's script and the pre-commit manifest ---------------

def _action_script() -> str:
    import yaml

    action = yaml.safe_load((SEED.parents[1] / "action.yml").read_text(encoding="utf-8"))
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == "verify"]
    return step["run"]


@pytest.mark.parametrize("mutate, code", [(False, 0), (True, 1)])
def test_action_verify_step_runs_and_sets_output(mutate: bool, code: int, tmp_path) -> None:
    venv = Path(sys.executable).resolve().parent.parent
    runner = tmp_path / "runner"
    runner.mkdir()
    (runner / "ledger-venv").symlink_to(Path(sys.executable).parent.parent)
    assert (runner / "ledger-venv" / "bin" / "ledger").exists(), venv
    doc = copy.deepcopy(load())
    if mutate:
        doc["body"] = doc["body"].replace("reached 60 GPUs", "reached 64 GPUs")
    article = write(tmp_path, doc)
    output = tmp_path / "github_output"
    env = {"PATH": "/usr/bin:/bin", "RUNNER_TEMP": str(runner), "GITHUB_OUTPUT": str(output),
           "LEDGER_PATHS": str(article), "LEDGER_STRICT": "false",
           "LEDGER_SARIF": str(tmp_path / "out.sarif")}
    proc = subprocess.run(["bash", "-e", "-c", _action_script()], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == code, proc.stderr
    assert output.read_text().strip() == f"exit-code={code}"
    assert json.loads((tmp_path / "out.sarif").read_text())["version"] == "2.1.0"
    assert ("::error file=" in proc.stdout) is mutate


def test_pre_commit_manifest_entries_run() -> None:
    import yaml

    hooks = yaml.safe_load((SEED.parents[1] / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"] for h in hooks} >= {"ledger-verify", "ledger-schema-check"}
    for hook in hooks:
        assert {"id", "name", "entry", "language"} <= set(hook)
        argv = hook["entry"].split()[1:]
        if hook.get("pass_filenames", True):
            argv.append(str(SEED))
        assert main(argv) == 0, hook["id"]
