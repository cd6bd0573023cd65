"""Run records travel as files: export, import into a fresh ledger, and the article that cites
them verifies against that ledger from a clean checkout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from db_fixtures import ledger_url  # noqa: F401

from ledger.cli import main

ROOT = Path(__file__).resolve().parent.parent
RUN_FILES = sorted((ROOT / "examples" / "runs").glob("*.json"))
REPLAY_ARTICLE = ROOT / "claims" / "pct-2026-11-29-replay-shared-kv-cache.json"
REPLAY_ARTICLE_V1 = ROOT / "claims" / "history" / "pct-2026-11-29-replay-shared-kv-cache.v1.json"


@pytest.mark.parametrize("article", [REPLAY_ARTICLE, REPLAY_ARTICLE_V1], ids=["v2", "v1"])
def test_the_replay_article_verifies_against_its_committed_runs(ledger_url, capsys,  # noqa: F811
                                                                article):
    assert RUN_FILES, "examples/runs/ holds the runs the worked example article cites"
    assert main(["runs", "import", *map(str, RUN_FILES), "--db", ledger_url]) == 0
    capsys.readouterr()
    assert main(["verify", str(article), "--db", ledger_url, "--format", "json"]) == 0
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert findings == []  # with --db: overprecise-figure and derived-figure included
    cited = {m["run_id"] for m in json.loads(article.read_text())["measurements"]}
    assert cited <= {json.loads(p.read_text())["id"] for p in RUN_FILES}


def test_the_corrected_article_is_a_second_version_with_its_correction(tmp_path, capsys):
    db = str(tmp_path / "l.db")
    assert main(["runs", "import", *map(str, RUN_FILES), "--db", db]) == 0
    assert main(["ingest", str(REPLAY_ARTICLE_V1), str(REPLAY_ARTICLE), "--db", db]) == 0
    capsys.readouterr()
    assert main(["history", "pct-2026-11-29-replay-shared-kv-cache", "--db", db,
                 "--format", "json"]) == 0
    v1, v2 = json.loads(capsys.readouterr().out)
    assert (v1["version"], v2["version"]) == (1, 2)
    paths = {c["path"] for c in v2["changes"]}
    assert "/body" in paths and any(p.startswith("/corrections") for p in paths)
    correction = json.loads(REPLAY_ARTICLE.read_text())["corrections"][-1]
    assert correction["status"] == "correction" and "78%" in correction["text"]
    body = json.loads(REPLAY_ARTICLE.read_text())["body"]
    assert "78%" not in body and "4.7 times" not in body and "1.1-23 times" in body


def test_export_then_import_is_identity_and_idempotent(tmp_path, capsys):
    db = str(tmp_path / "a.db")
    assert main(["runs", "import", str(RUN_FILES[0]), "--db", db]) == 0
    run_id = json.loads(RUN_FILES[0].read_text())["id"]
    out = tmp_path / "run.json"
    assert main(["runs", "export", run_id, "--db", db, "--output", str(out)]) == 0
    assert json.loads(out.read_text()) == json.loads(RUN_FILES[0].read_text())
    capsys.readouterr()
    assert main(["runs", "import", str(out), "--db", db, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"run_id": run_id, "result": "unchanged"}]


def test_a_different_run_under_a_sealed_id_is_refused(tmp_path, capsys):
    db = str(tmp_path / "a.db")
    assert main(["runs", "import", str(RUN_FILES[0]), "--db", db]) == 0
    forged = json.loads(RUN_FILES[0].read_text())
    forged["metrics"][0]["value"] += 1
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    assert main(["runs", "import", str(path), "--db", db]) == 2
    assert "sealed run cannot be replaced" in capsys.readouterr().err


@pytest.mark.parametrize("content", ['{"id": "x"', '{"id": "run-1"}', "[]"])
def test_a_bad_run_file_is_a_located_input_error(tmp_path, capsys, content):
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert main(["runs", "import", str(path), "--db", str(tmp_path / "a.db")]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "Traceback" not in err
