"""Edits to the tables commands show are caught by ``ledger audit``, as are forged versions.

Issue 15's probes: an article's status, title or date edited in its table; dependency rows
deleted; figure and measurement values and ``recorded_at`` edited; a version whose document
was swapped while it kept version 1's digest; a NUL in a title (both back ends refuse it).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from db_fixtures import execute, ledger_url, make_article, run_cli, write_articles  # noqa: F401

from ledger.articles import document_digest, projection_rows
from ledger.cli import main
from ledger.db import Ledger
from ledger.models import Article

BODY = ("The store made each request 64 times faster in the desk's run, with a median of "
        "0.37 seconds. [S1]")


def _doc(n: int = 1) -> dict:
    doc = make_article(n, body=BODY)
    doc["status"] = "published"
    doc["measurements"] = [{"id": "M1", "metric": "p50_ttft", "value": 0.37, "unit": "s",
                            "run_id": "run-20261129T205820Z-6ad7c66b",
                            "measured_at": "2026-11-04"}]
    return doc


def _store(url: str, *docs: dict) -> None:
    with Ledger.open(url) as ledger:
        for doc in docs:
            ledger.ingest(Article.model_validate_json(json.dumps(doc)))


def _audit(url: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["audit", "--db", url, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.fixture
def stored(ledger_url: str, capsys: pytest.CaptureFixture[str]) -> str:
    _store(ledger_url, make_article(0), _doc(1))
    assert _audit(ledger_url, capsys)[0] == 0
    return ledger_url


@pytest.mark.parametrize(("column", "value"), [
    ("status", "'retracted'"), ("title", "'A forged title'"), ("as_of_date", "'1999-01-01'"),
    ("publication_date", "'1999-01-01'"), ("recorded_at", "'1999-01-01T00:00:00.000000Z'"),
    ("digest", "'00'")])
def test_edited_article_row_is_named(stored: str, column: str, value: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    execute(stored, f"UPDATE articles SET {column} = {value} WHERE entry_seq = 1")
    code, data = _audit(stored, capsys)
    assert code == 3 and data["bad_entry"] == 1
    assert "table articles" in data["problem"] and column in data["problem"]


def test_history_shows_the_logged_status_not_an_edited_row(
        stored: str, capsys: pytest.CaptureFixture[str]) -> None:
    execute(stored, "UPDATE articles SET status = 'retracted', title = 'Forged', "
                    "recorded_at = '1999-01-01T00:00:00Z' WHERE entry_seq = 1")
    capsys.readouterr()
    assert main(["history", "t1-2026-11-04", "--db", stored, "--format", "json"]) == 0
    (version,) = json.loads(capsys.readouterr().out)
    assert (version["status"], version["title"]) == ("published", "Test article 1")
    assert not version["recorded_at"].startswith("1999")


def test_deleted_dependencies_are_named(stored: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = execute(stored, "SELECT count(*) FROM dependencies WHERE article_id = 't1-2026-11-04'")
    assert before[0][0] > 2
    execute(stored, "DELETE FROM dependencies WHERE article_id = 't1-2026-11-04'")
    code, data = _audit(stored, capsys)
    assert code == 3 and data["bad_entry"] == 1
    assert "dependencies" in data["problem"] and "deleted" in data["problem"]


@pytest.mark.parametrize(("table", "column", "where"), [
    ("figures", "value", "ordinal = 1"),
    ("measurements", "value", "measurement_id = 'M1'"),
    ("facts", "claim", "fact_id = 'F1'"),
    ("sources", "url", "source_id = 'S1'")])
def test_edited_values_are_named(stored: str, table: str, column: str, where: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    new = "6.4" if column == "value" else "'forged'"
    changed = execute(stored, f"UPDATE {table} SET {column} = {new} WHERE {where} "
                              "AND article_id = 't1-2026-11-04'")
    assert changed == []  # (UPDATE returns no rows; the next audit shows it took effect)
    code, data = _audit(stored, capsys)
    assert code == 3 and data["bad_entry"] == 1
    assert f"table {table}" in data["problem"] and column in data["problem"]


def test_invented_row_is_named(stored: str, capsys: pytest.CaptureFixture[str]) -> None:
    pk = execute(stored, "SELECT pk FROM articles WHERE entry_seq = 1")[0][0]
    execute(stored, "INSERT INTO dependencies (article_pk, article_id, version, node, depends_on) "
                    "VALUES (:pk, 't1-2026-11-04', 1, 'fig:1', 'S9')", pk=pk)
    code, data = _audit(stored, capsys)
    assert code == 3 and "invented" in data["problem"] and "S9" in data["problem"]


def test_edited_log_recorded_at_is_named(stored: str, capsys: pytest.CaptureFixture[str]) -> None:
    from db_fixtures import drop_guards
    drop_guards(stored)
    execute(stored, "UPDATE log_entries SET recorded_at = '1999-01-01T00:00:00.000000Z' "
                    "WHERE seq = 1")
    code, data = _audit(stored, capsys)
    assert code == 3 and data["bad_entry"] == 1 and "recorded_at" in data["problem"]


def test_forged_version_with_an_old_digest_is_caught(
        stored: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A writer with database access appends a correctly chained entry whose document says
    "64-fold" but which carries version 1's digest (so ingest's "unchanged" check and a reader
    comparing digests would take it for version 1)."""
    original = _doc(1)
    digest = document_digest(Article.model_validate_json(json.dumps(original)).to_json_dict())
    forged = copy.deepcopy(original)
    forged["body"] = forged["body"].replace("64 times faster", "64-fold faster")
    article = Article.model_validate_json(json.dumps(forged))
    with Ledger.open(stored) as ledger, ledger.write() as app:
        seq = app.append("article", article.id,
                         {"version": 2, "digest": digest, "document": article.to_json_dict()})
        import sqlalchemy as sa
        when = app.conn.execute(sa.text("SELECT recorded_at FROM log_entries WHERE seq = :s"),
                                {"s": seq}).scalar_one()
        rows = projection_rows(article, 2, seq, digest, when)
        first = next(iter(rows))
        key = app.conn.execute(sa.insert(first).values(**rows.pop(first)[0])
                               ).inserted_primary_key[0]  # type: ignore[index]
        for table, values in rows.items():
            if values:
                app.conn.execute(sa.insert(table), [{"article_pk": key} | v for v in values])
    code, data = _audit(stored, capsys)
    assert code == 3 and data["bad_entry"] == seq, data
    assert "does not hash to the digest" in data["problem"]


def test_nul_in_a_title_is_refused_on_every_back_end(ledger_url: str, tmp_path: Path) -> None:
    doc = make_article(3, title="Title with a \x00 NUL")
    (path,) = write_articles(tmp_path / "claims", [doc])
    done = run_cli("ingest", str(path), "--db", ledger_url)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if "NUL" in line]
    assert len(lines) == 1 and "/title" in lines[0]
    assert "Traceback" not in done.stderr
    assert run_cli("history", "t3-2026-11-04", "--db", ledger_url).returncode != 0


def test_rows_rebuilt_from_the_log_match_whatever_the_key_order(
        ledger_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The log stores canonical JSON (keys sorted); a document whose keys are not in that order
    must still project exactly the rows an audit rebuilds from the log."""
    doc = make_article(7, body="The two reported figures were 12% and 40% in the test. [S1]")
    doc["benchmark_scope"] = {
        "reported_by": "Someone", "publication_date": "2026-11-04", "model": "m", "hardware": "h",
        "independent_reproduction": False,
        "reported_metrics": {"zeta_gain_pct": 40, "alpha_cut_pct": 12, "mid_pct": 40}}
    _store(ledger_url, doc)
    code, data = _audit(ledger_url, capsys)
    assert code == 0, data
