"""ledger.migrations: older ledgers upgrade on open, newer ones are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from db_fixtures import execute, ledger_url, make_article, run_cli  # noqa: F401

from ledger.db import Ledger, create_ledger_engine
from ledger.errors import MigrationError
from ledger.migrations import LATEST, MIGRATIONS
from ledger.models import Article
from ledger.schema import load_article
from ledger.tables import metadata

SEED = Path(__file__).resolve().parent.parent / "claims" / "pct-2026-11-04-spotlight-mooncake-store.json"


def _tables(url: str) -> set[str]:
    engine = create_ledger_engine(url)
    try:
        with engine.connect() as conn:
            return set(sa.inspect(conn).get_table_names())
    finally:
        engine.dispose()


def test_versions_are_consecutive() -> None:
    assert [m.VERSION for m in MIGRATIONS] == list(range(1, LATEST + 1))
    assert all(m.DESCRIPTION for m in MIGRATIONS)


def test_older_ledger_is_upgraded_on_open(ledger_url: str) -> None:
    with Ledger.open(ledger_url, migrate_to=1) as old:
        assert old.schema_version() == 1
        old.ingest(Article.model_validate_json(json.dumps(make_article(1))))
    assert "source_snapshots" not in _tables(ledger_url)
    with Ledger.open(ledger_url) as ledger:
        assert ledger.schema_version() == LATEST
        assert ledger.get_article("t1-2026-11-04").title == "Test article 1"
        article, _ = load_article(SEED)
        assert article is not None
        ledger.ingest(article)
        assert ledger.audit().ok
    assert "source_snapshots" in _tables(ledger_url)
    (traces,) = execute(ledger_url, "SELECT traces FROM figures WHERE text = '46-fold'")[0]
    assert {"origin": "fact", "fact_id": "F4"}.items() <= json.loads(traces)[0].items()


def test_newer_ledger_is_refused(ledger_url: str) -> None:
    Ledger.open(ledger_url).close()
    execute(ledger_url, "UPDATE ledger_schema_version SET version = :v", v=LATEST + 1)
    with pytest.raises(MigrationError, match=f"schema version {LATEST + 1}, newer than"):
        Ledger.open(ledger_url)


def test_newer_ledger_cli_exit_code(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'l.db'}"
    Ledger.open(url).close()
    execute(url, "UPDATE ledger_schema_version SET version = 99")
    done = run_cli("runs", "list", "--db", url)
    assert done.returncode == 2
    assert "newer than this kv-evidence-ledger supports" in done.stderr
    assert "Traceback" not in done.stderr


def test_migrated_schema_matches_the_table_models(ledger_url: str) -> None:
    Ledger.open(ledger_url).close()
    engine = create_ledger_engine(ledger_url)
    try:
        with engine.connect() as conn:
            inspector = sa.inspect(conn)
            for table in metadata.sorted_tables:
                columns = {c["name"]: c for c in inspector.get_columns(table.name)}
                assert set(columns) == set(table.columns.keys()), table.name
                for column in table.columns:
                    assert columns[column.name]["nullable"] == column.nullable, \
                        f"{table.name}.{column.name}"
    finally:
        engine.dispose()
