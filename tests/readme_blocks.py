"""Run a README's code blocks top to bottom, as a new user would, and compare shown outputs.

The README is the project's first-hour guide, so it is executed as a test. The rules:

- A fenced block whose info string starts with ``bash``, ``sh`` or ``console`` runs in bash; one
  starting with ``python`` runs with the virtualenv's Python. Blocks run in order, in one working
  directory, and share exported variables, the current directory and background processes, as one
  terminal would.
- ``skip-readme-test: <reason>`` in the info string leaves a block out. Use it only for blocks
  that need hardware or a network the test machine lacks, and give the reason.
- ``readme-test: setup`` marks the set-up block (install, and run the tests). CI runs exactly
  those commands itself (``.ci/run``), so the README test checks that they agree instead of
  running the test suite from inside itself.
- A ``text`` block right after a code block is that block's expected output. ``...`` on a line
  matches any text (across lines too), as doctest's ELLIPSIS does; trailing spaces are ignored.
- A block must exit 0 (bash runs it with ``set -eo pipefail``), unless its info string says
  ``exit=N``.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Block", "BlockResult", "output_matches", "parse_blocks", "run_blocks"]

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`\n]*)$")
_SHELLS = ("bash", "sh", "console", "shell")


@dataclass
class Block:
    """One fenced block: its language, info-string options, text and README line."""

    lang: str
    info: str
    text: str
    line: int
    expected_output: str | None = None

    @property
    def skip_reason(self) -> str | None:
        match = re.search(r"skip-readme-test:\s*(.*)", self.info)
        return match.group(1).strip() or "no reason given" if match else None

    @property
    def is_setup(self) -> bool:
        return "readme-test: setup" in self.info or "readme-test:setup" in self.info

    @property
    def expected_exit(self) -> int:
        match = re.search(r"\bexit=(\d+)", self.info)
        return int(match.group(1)) if match else 0

    @property
    def runnable(self) -> bool:
        return self.lang in (*_SHELLS, "python") and not self.skip_reason and not self.is_setup


@dataclass
class BlockResult:
    block: Block
    exit_code: int
    output: str
    problems: list[str] = field(default_factory=list)


def parse_blocks(markdown: str) -> list[Block]:
    """Every fenced block of ``markdown``, with ``text`` blocks attached as expected outputs."""
    blocks: list[Block] = []
    lines = markdown.splitlines()
    i = 0
    previous_end = -10
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, info = opening.group("fence"), opening.group("info").strip()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j])
            j += 1
        lang = info.split()[0] if info else ""
        text = textwrap.dedent("\n".join(body)) + "\n"
        only_blank_between = all(not line.strip() for line in lines[previous_end + 1 : i])
        if lang in ("text", "") and blocks and blocks[-1].runnable and only_blank_between:
            blocks[-1].expected_output = text
        else:
            blocks.append(Block(lang=lang, info=info, text=text, line=i + 1))
        previous_end = j
        i = j + 1
    return blocks


def output_matches(expected: str, actual: str) -> bool:
    """Whether ``actual`` matches ``expected``, where a ``...`` stands for any text."""

    def norm(text: str) -> str:
        return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())

    pattern = ".*?".join(re.escape(part) for part in norm(expected).split("..."))
    return re.fullmatch(pattern, norm(actual), flags=re.DOTALL) is not None


_DRIVER = """\
set -a
cd {cwd}
[ -f {state}/env ] && source {state}/env
[ -f {state}/cwd ] && cd "$(cat {state}/cwd)"
set -eo pipefail
{run}
"""

_SAVE = """\
__readme_save() {{
  pwd > {state}/cwd
  export -p | grep -v -E '^declare -[a-z]*r' | grep -v -E '^declare -x (SHLVL|OLDPWD|PWD|_)=' > {state}/env
}}
trap 'rc=$?; __readme_save; exit $rc' EXIT
"""


def _script(block: Block, index: int, state: Path, cwd: Path) -> Path:
    if block.lang == "python":
        source = state / f"block{index}.py"
        source.write_text(block.text)
        run = f"python {shlex.quote(str(source))}"
    else:
        run = block.text
    script = state / f"block{index}.sh"
    quoted = shlex.quote(str(state))
    # The state is saved by a trap, so a block that ends in `exit` or fails still saves it.
    save = _SAVE.format(state=quoted)
    script.write_text(save + _DRIVER.format(cwd=shlex.quote(str(cwd)), state=quoted, run=run))
    return script


def run_blocks(
    blocks: list[Block],
    cwd: Path,
    state: Path,
    env: dict[str, str],
    timeout: float = 300,
) -> list[BlockResult]:
    """Run the runnable blocks in order; stop at the first that fails. Kills what they left."""
    state.mkdir(parents=True, exist_ok=True)
    results: list[BlockResult] = []
    # Each block runs in a session of its own; what it starts in the background stays in that
    # process group, so every group is killed at the end and nothing outlives the test.
    groups: list[int] = []
    try:
        for index, block in enumerate(b for b in blocks if b.runnable):
            script = _script(block, index, state, cwd)
            # Output goes to a file, not a pipe: a server the block leaves running in the
            # background would hold a pipe open, and reading it would never end.
            log = state / f"block{index}.out"
            with log.open("w") as out:
                proc = subprocess.Popen(
                    ["bash", str(script)],
                    cwd=cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            groups.append(proc.pid)
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                output = log.read_text(errors="replace")
                results.append(BlockResult(block, -1, output, [f"timed out after {timeout} s"]))
                break
            output = log.read_text(errors="replace")
            result = BlockResult(block, proc.returncode, output)
            if proc.returncode != block.expected_exit:
                result.problems.append(f"exit {proc.returncode}, expected {block.expected_exit}")
            if block.expected_output is not None and not output_matches(
                block.expected_output, output
            ):
                result.problems.append("output differs from the README")
            results.append(result)
            if result.problems:
                break
    finally:
        for group in groups:
            try:
                os.killpg(group, signal.SIGKILL)
            except ProcessLookupError:
                pass
    return results
