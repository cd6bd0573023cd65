"""Helpers shared by command modules: a sub-parser with an example, and output to a file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UsageError

__all__ = ["add_command", "write_output"]


def add_command(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]", name: str,
                help: str, example: str) -> argparse.ArgumentParser:
    """A sub-command whose help ends with an example (every command has one)."""
    return subparsers.add_parser(
        name, help=help, description=help, epilog=f"example:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def write_output(text: str, output: str | None) -> None:
    if output is None or output == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    try:
        Path(output).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror}") from None
