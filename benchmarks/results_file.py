"""Where a benchmark writes its results, and the ratio lines it prints.

Every script under ``benchmarks/`` writes one JSON document (the command, the date, its
parameters, its rows and the ratios the README quotes) to ``benchmarks/out/NAME.json``, a folder
git ignores, unless ``--output PATH`` is given: running a README command never overwrites a
tracked file. Each README-quoted ratio is also printed as ``ratio: LABEL = VALUE``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["OUT_DIR", "Results", "add_output_option"]

OUT_DIR = Path(__file__).resolve().parent / "out"


def add_output_option(parser: argparse.ArgumentParser, *aliases: str) -> None:
    """``--output PATH`` (and ``aliases``, e.g. an older ``--json``)."""
    parser.add_argument("--output", *aliases, dest="output", type=Path, metavar="PATH",
                        help="write the results as JSON here (default: benchmarks/out/NAME.json, "
                             "which git ignores)")


def _plain(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, type(None))) else str(value)


class Results:
    """The results of one benchmark run: rows, ratios, then :meth:`save`."""

    def __init__(self, name: str, args: argparse.Namespace):
        self.path: Path = getattr(args, "output", None) or OUT_DIR / f"{name}.json"
        self.doc: dict[str, Any] = {
            "benchmark": name,
            "command": ["python", *sys.argv],
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "params": {k: _plain(v) for k, v in sorted(vars(args).items()) if k != "output"},
            "rows": [],
            "ratios": {},
        }

    def row(self, **values: Any) -> None:
        """One measured row (plain values)."""
        self.doc["rows"].append({k: _plain(v) for k, v in values.items()})

    def ratio(self, label: str, value: float) -> float:
        """Keep and print a ratio the README quotes (against the baseline of the same run)."""
        value = round(float(value), 4)
        self.doc["ratios"][label] = value
        print(f"ratio: {label} = {value:.2f}")
        return value

    def save(self, **extra: Any) -> Path:
        """Write the document (``extra`` adds top-level keys); prints and returns the path."""
        self.doc.update(extra)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.doc, indent=1) + "\n", encoding="utf-8")
        print(f"results: {self.path}")
        return self.path
