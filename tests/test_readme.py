"""The README runs top to bottom on a copy of the repository, as a new user would run it.

See ``tests/readme_blocks.py`` for the rules (skips, set-up block, expected outputs).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from readme_blocks import output_matches, parse_blocks, run_blocks

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def _copy_checkout(dest: Path) -> Path:
    """The files a fresh clone would have (tracked, plus new files not ignored), and the venv."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    # Installing takes minutes and CI has just done it: the copy shares the installed venv.
    (dest / ".venv").symlink_to(Path(sys.prefix))
    return dest


def _user_env() -> dict[str, str]:
    """The environment without the virtualenv on PATH: the README must put it there itself."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(sys.prefix)
    )
    return env


def _describe(result) -> str:
    tail = "\n".join(result.output.splitlines()[-40:])
    return (
        f"README.md line {result.block.line} ({result.block.lang} block): "
        f"{'; '.join(result.problems)}\n--- block ---\n{result.block.text}--- output (tail) ---\n"
        f"{tail}\n--- expected ---\n{result.block.expected_output}"
    )


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_readme_runs_top_to_bottom(tmp_path: Path) -> None:
    clone = _copy_checkout(tmp_path / "clone")
    blocks = parse_blocks(README.read_text())
    results = run_blocks(blocks, cwd=clone, state=tmp_path / "state", env=_user_env())
    failed = [r for r in results if r.problems]
    assert not failed, _describe(failed[0])
    assert len(results) == sum(b.runnable for b in blocks)


def test_every_skipped_block_says_why() -> None:
    for block in parse_blocks(README.read_text()):
        if "skip-readme-test" in block.info:
            assert block.skip_reason and block.skip_reason != "no reason given", block.line


def test_setup_is_two_commands_and_ci_runs_them() -> None:
    setup = [b for b in parse_blocks(README.read_text()) if b.is_setup]
    assert len(setup) == 1, "exactly one block marked `readme-test: setup`"
    commands = [
        line.split("#")[0].strip() for line in setup[0].text.splitlines() if line.split("#")[0].strip()
    ]
    assert len(commands) == 2, commands
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    for command in commands:
        assert command in ci, f"{command!r} is in the README's set-up but not in .ci/run"


# The runner itself: a README that is wrong must fail.

_GOOD = """
```bash
export GREETING=hello
mkdir -p sub && cd sub
```

```bash
echo "$GREETING from $(basename "$PWD")"
```

```text
hello from sub
```

```python
import os
print(os.environ["GREETING"].upper())
```

```text
HEL...
```

```bash skip-readme-test: needs an RDMA NIC
this-command-does-not-exist
```
"""


def _run(markdown: str, tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    env = dict(os.environ)
    return run_blocks(parse_blocks(markdown), cwd=work, state=tmp_path / "state", env=env)


def test_runner_passes_a_good_readme_and_keeps_state(tmp_path: Path) -> None:
    results = _run(_GOOD, tmp_path)
    assert [r.problems for r in results] == [[], [], []]
    assert results[1].output.strip() == "hello from sub"


def test_runner_fails_on_a_renamed_flag(tmp_path: Path) -> None:
    broken = "```bash\npython -m json.tool --no-such-flag /dev/null\n```\n"
    (result,) = _run(broken, tmp_path)
    assert result.problems and result.exit_code == 2


def test_runner_fails_on_a_missing_file(tmp_path: Path) -> None:
    broken = "```bash\ncat claims/no-such-article.json\n```\n```bash\necho never\n```\n"
    results = _run(broken, tmp_path)
    assert len(results) == 1 and results[0].problems


def test_runner_fails_on_a_changed_output(tmp_path: Path) -> None:
    broken = "```bash\necho 'OK: 2 file(s)'\n```\n\n```text\nOK: 1 file(s)\n```\n"
    (result,) = _run(broken, tmp_path)
    assert result.problems == ["output differs from the README"]


def test_runner_kills_what_a_block_left_running(tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    _run(f"```bash\nsleep 313 &\necho $! > {marker}\n```\n", tmp_path)
    pid = int(marker.read_text())
    deadline = time.monotonic() + 5
    while _is_sleeper(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _is_sleeper(pid)


def _is_sleeper(pid: int) -> bool:
    """Whether ``pid`` is still the block's ``sleep 313`` (and not a zombie or a reused pid)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return cmdline[:2] == [b"sleep", b"313"] and state != "Z"


def test_ellipsis_matching() -> None:
    assert output_matches("run ... sealed\n", "run run-2026 sealed")
    assert output_matches("a\n...\nz\n", "a\nb\nc\nz\n")
    assert not output_matches("a\nz\n", "a\nb\nz\n")
