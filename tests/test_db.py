"""ledger.db and ledger.articles: storage, round trip, versions, projections, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from db_fixtures import execute, ledger_url, make_article, write_articles  # noqa: F401

from ledger import cli
from ledger.cli import build_parser, main
from ledger.db import DEFAULT_URL, Ledger, normalise_url, resolve_url
from ledger.errors import DatabaseError, LedgerError, NotFound, UsageError
from ledger.models import Article
from ledger.schema import load_article

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "claims" / "pct-2026-11-04-spotlight-mooncake-store.json"
MY_COMMANDS = ["ingest", "show", "history", "checkpoint", "audit", "runs", "impact", "export",
               "sources"]


def _article(n: int, **kw: object) -> Article:
    return Article.model_validate_json(json.dumps(make_article(n, **kw)))  # type: ignore[arg-type]


def test_seed_article_round_trips_identically(ledger_url: str) -> None:
    article, findings = load_article(SEED)
    assert article is not None and not findings
    with Ledger.open(ledger_url) as ledger:
        result = ledger.ingest(article)
        back = ledger.get_article(article.id)
    assert result.version == 1 and not result.unchanged
    assert back == article
    assert back.to_json_dict() == json.loads(SEED.read_text())


def test_versions_history_and_unchanged_reingest(ledger_url: str) -> None:
    with Ledger.open(ledger_url) as ledger:
        v1 = ledger.ingest(_article(1))
        assert ledger.ingest(_article(1)).unchanged
        v2 = ledger.ingest(_article(1, title="Test article one, corrected"))
        history = ledger.history(v1.article_id)
        assert ledger.get_article(v1.article_id, 1).title == "Test article 1"
        assert ledger.get_article(v1.article_id).title == "Test article one, corrected"
    assert (v1.version, v2.version) == (1, 2)
    assert [v.version for v in history] == [1, 2]
    assert history[1].changes == [{"op": "replace", "path": "/title", "old": "Test article 1",
                                   "value": "Test article one, corrected"}]


def test_projection_rows_for_the_seed(ledger_url: str) -> None:
    article, _ = load_article(SEED)
    assert article is not None
    with Ledger.open(ledger_url) as ledger:
        ledger.ingest(article)
    count = lambda table: execute(ledger_url, f"SELECT count(*) FROM {table}")[0][0]
    assert count("sources") == len(article.sources) and count("facts") == len(article.facts)
    assert count("inferences") == len(article.inferences)
    assert count("guardrails") == len(article.corrections)
    assert count("figures") > 10
    f4 = execute(ledger_url, "SELECT depends_on FROM dependencies WHERE node = 'F4'")
    assert [r[0] for r in f4] == ["S4"]
    fig = execute(ledger_url, "SELECT text, line_no, col_no, fact_id FROM figures "
                              "WHERE text = '46-fold'")[0]
    assert fig.fact_id == "F4" and fig.line_no >= 1 and fig.col_no >= 1


def test_unknown_ids_are_not_found(ledger_url: str) -> None:
    with Ledger.open(ledger_url) as ledger:
        with pytest.raises(NotFound, match="no article 'nope'"):
            ledger.get_article("nope")
        with pytest.raises(NotFound):
            ledger.history("nope")
        with pytest.raises(NotFound, match="no log entry 5"):
            ledger.entry(5)


def test_read_commands_never_create_a_ledger(ledger_url: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(NotFound, match="no ledger at"):
        Ledger.open(ledger_url, create=False)
    missing = tmp_path / "typo.db"
    assert main(["audit", "--db", str(missing)]) == 2
    assert "no ledger at" in capsys.readouterr().err and not missing.exists()
    Ledger.open(ledger_url).close()
    Ledger.open(ledger_url, create=False).close()


def test_url_resolution() -> None:
    assert resolve_url(None, {}) == DEFAULT_URL
    assert resolve_url(None, {"LEDGER_DB_URL": "x.db"}) == "sqlite:///x.db"
    assert resolve_url("postgresql://u@h/db", {"LEDGER_DB_URL": "x.db"}) == "postgresql+psycopg://u@h/db"
    with pytest.raises(UsageError, match="not a database URL"):
        normalise_url("://x")
    with pytest.raises(UsageError, match="cannot use database URL bogus://x"):
        Ledger.open("bogus://x")


def test_database_errors_do_not_leak_sqlalchemy(tmp_path: Path) -> None:
    with pytest.raises(DatabaseError, match="opening the ledger failed") as info:
        Ledger.open(f"sqlite:///{tmp_path}/missing-dir/ledger.db")
    assert not isinstance(info.value, sa.exc.SQLAlchemyError)
    with pytest.raises(DatabaseError, match="opening the ledger failed"):
        Ledger.open("postgresql+psycopg://postgres@127.0.0.1:1/none?connect_timeout=2")
    with Ledger.open(f"sqlite:///{tmp_path}/l.db") as ledger:
        execute(ledger.url, "DROP TABLE runs")
        with pytest.raises(DatabaseError, match="reading the ledger failed"):
            ledger.list_runs()


def test_ingest_cli_refuses_articles_with_errors_and_says_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = make_article(1)
    bad = make_article(2) | {"publication_date": "2026-11-05"}
    paths = write_articles(tmp_path / "a", [good, bad])
    db = str(tmp_path / "l.db")
    assert main(["ingest", *map(str, paths), "--db", db]) == 1
    out = capsys.readouterr().out
    assert "stored t1-2026-11-04 version 1" in out
    assert "refused" in out and "/id: [date-order]" in out
    assert main(["ingest", str(paths[1]), "--db", db, "--allow-errors", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["outcome"] == "stored"
    (tmp_path / "broken.json").write_text("{")
    assert main(["ingest", str(tmp_path / "broken.json"), "--db", db]) == 2
    assert "unreadable" in capsys.readouterr().out


def test_show_and_history_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "l.db")
    with Ledger.open(db) as ledger:
        ledger.ingest(_article(1))
        ledger.ingest(_article(1, title="Renamed"))
        ledger.ingest(_article(1, title="Renamed", body="The store keeps attention state. "
                                                         "It also offloads to disk. [S1]"))
    capsys.readouterr()
    assert main(["show", "t1-2026-11-04", "--db", db, "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["version"] == 3 and shown["document"]["title"] == "Renamed"
    assert main(["history", "t1-2026-11-04", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "replace /title" in out and "+It also offloads to disk." in out
    assert main(["show", "t9-2026-11-04", "--db", db]) == 2
    assert "no run 't9-2026-11-04'" in capsys.readouterr().err
    assert main(["show", "t1-2026-11-04:S1", "--db", db, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["url"] == "https://example.org/page/1"
    assert main(["show", "t1-2026-11-04:F1", "--db", db, "--version", "1"]) == 0
    assert '"evidence_type": "primary_documentation"' in capsys.readouterr().out
    assert main(["show", "#1", "--db", db, "--format", "json"]) == 0
    entry = json.loads(capsys.readouterr().out)
    assert (entry["seq"], entry["kind"], entry["data"]["version"]) == (1, "article", 2)
    assert main(["show", "t1-2026-11-04:S7", "--db", db]) == 2
    assert "has no S7" in capsys.readouterr().err


@pytest.mark.parametrize("command", MY_COMMANDS)
def test_every_command_has_help_with_an_example(command: str) -> None:
    names = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    if command not in names:
        pytest.fail(f"command {command} is not registered in {cli.COMMAND_MODULES}")
    assert "example:" in names[command].format_help()


def test_errors_are_ledger_errors() -> None:
    assert issubclass(DatabaseError, LedgerError) and issubclass(NotFound, KeyError)
