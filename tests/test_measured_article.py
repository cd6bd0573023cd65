"""Acceptance of issue 15: the desk's corrected measured article holds when its run is rerun,
also while a CPU-bound process keeps one core busy (each rerun takes about a minute)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.cli import main

ROOT = Path(__file__).resolve().parent.parent
ARTICLE = ROOT / "claims" / "pct-2026-11-29-replay-shared-kv-cache.json"
BUSY = "import time\nend = time.time() + 600\nwhile time.time() < end:\n    pass\n"


@pytest.mark.slow
def test_reproduce_article_holds_again_and_under_load(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "l.db")
    runs = sorted(str(p) for p in (ROOT / "examples" / "runs").glob("*.json"))
    assert main(["runs", "import", *runs, "--db", db]) == 0
    assert main(["ingest", str(ARTICLE), "--db", db]) == 0
    article = json.loads(ARTICLE.read_text())["id"]

    def reproduce(out: str) -> dict:
        capsys.readouterr()
        code = main(["reproduce", "--article", article, "--db", db, "--out",
                     str(tmp_path / out), "--format", "json"])
        result = json.loads(capsys.readouterr().out)
        assert code == 0, [f for f in result["figures"] if not f["ok"]]
        return result

    first = reproduce("again")
    assert len(first["figures"]) >= 7 and all(f["ok"] for f in first["figures"])
    busy = subprocess.Popen([sys.executable, "-c", BUSY])
    try:
        reproduce("loaded")
    finally:
        busy.kill()
        busy.wait()
    capsys.readouterr()
    assert main(["show", article, "--db", db, "--format", "json"]) == 0
    levels = json.loads(capsys.readouterr().out)["levels"]
    assert levels["M2"]["level"] == "reproduced"
