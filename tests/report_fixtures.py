"""Articles for the report tests: the desk's two, and a broken copy of the seed with a planted
mislabel and an untraced figure."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from verify_fixtures import ROOT, SEED, load, replace_body

from ledger.verify.consistency import word_count

#: version 1 of the desk's measured article (claims/history/), which cites the example run below
MEASURED = ROOT / "claims" / "history" / "pct-2026-11-29-replay-shared-kv-cache.v1.json"
RUNS = ROOT / "examples" / "runs"
RUN_ID = "run-20261129T205820Z-6ad7c66b"
MISLABEL = "a 46-fold increase in throughput"
UNTRACED = "reached 64 GPUs"


def write_article(tmp_path: Path, doc: dict[str, Any], name: str = "article.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def broken_article(tmp_path: Path) -> Path:
    """The seed with '46-fold' called throughput and '60 GPUs' typed as '64 GPUs'."""
    doc = copy.deepcopy(load(SEED))
    replace_body(doc, "a 46-fold reduction in median time to first token", MISLABEL)
    replace_body(doc, "reached 60 GPUs", UNTRACED)
    doc["editorial_word_count"] = word_count(doc["body"])
    return write_article(tmp_path, doc, "broken.json")
