"""Fixtures for ledger database tests: ``ledger_url`` runs each test on SQLite and PostgreSQL.

The PostgreSQL case uses a fresh schema per test (``search_path`` set in the URL), dropped in
teardown, so parallel or overlapping test runs never see each other's tables. Import the
fixture into a test module with ``from db_fixtures import ledger_url  # noqa: F401``.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa

from ledger.db import create_ledger_engine

__all__ = [
    "PG_CONNINFO",
    "drop_guards",
    "execute",
    "ledger_url",
    "make_article",
    "pg_available",
    "run_cli",
    "write_articles",
]

PG_CONNINFO = os.environ.get("LEDGER_TEST_PG", "host=127.0.0.1 port=5432 dbname=test user=postgres")
ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def pg_available() -> bool:
    try:
        with psycopg.connect(PG_CONNINFO, connect_timeout=3):
            return True
    except psycopg.Error:
        return False


def _pg_url(schema: str) -> str:
    params = dict(p.split("=", 1) for p in PG_CONNINFO.split())
    return (f"postgresql+psycopg://{params.get('user', 'postgres')}@{params.get('host')}:"
            f"{params.get('port', '5432')}/{params.get('dbname')}"
            f"?options=-csearch_path%3D{schema}")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.db'}"
        return
    if not pg_available():
        pytest.skip(f"PostgreSQL not reachable at {PG_CONNINFO}")
    schema = f"ledger_test_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_CONNINFO, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield _pg_url(schema)
    finally:
        with psycopg.connect(PG_CONNINFO, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def make_article(n: int, *, body: str | None = None, url: str | None = None,
                 title: str | None = None) -> dict[str, Any]:
    """A small article that verifies cleanly; ``n`` makes its id unique."""
    body = body or "The store keeps attention state that other instances reuse. [S1]"
    words = [w for w in body.split() if not re.fullmatch(r"(\[S[0-9]+\][.,;:]?)+", w)]
    return {
        "id": f"t{n}-2026-11-04",
        "title": title or f"Test article {n}",
        "section": "Tests",
        "publisher": "Test desk",
        "as_of_date": "2026-11-04",
        "status": "draft",
        "subject": "ledger tests",
        "editorial_word_count": len(words),
        "facts": [{"id": "F1", "claim": "The page describes the store.", "source_ids": ["S1"],
                   "evidence_type": "primary_documentation"}],
        "license": {"editorial_text": "CC BY 4.0"},
        "sources": [{"id": "S1", "title": "A page", "publisher": "Someone",
                     "published_at": None, "retrieved_at": "2026-11-04",
                     "url": url or f"https://example.org/page/{n}", "primary": True}],
        "body": body,
        "content_type": "news",
        "publication_date": "2026-11-04",
        "observation_date": "2026-11-04",
    }


def write_articles(directory: Path, documents: list[dict[str, Any]]) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for doc in documents:
        path = directory / f"{doc['id']}.json"
        path.write_text(json.dumps(copy.deepcopy(doc), indent=2), encoding="utf-8")
        paths.append(path)
    return paths


def execute(url: str, sql: str, **params: Any) -> list[Any]:
    """Run raw SQL against the ledger (tests use it to tamper with rows)."""
    engine = create_ledger_engine(url)
    try:
        with engine.begin() as conn:
            result = conn.execute(sa.text(sql), params)
            return list(result.all()) if result.returns_rows else []
    finally:
        engine.dispose()


def drop_guards(url: str) -> None:
    """Drop the append-only triggers, as someone set on rewriting the log would."""
    if url.startswith("sqlite"):
        execute(url, "DROP TRIGGER IF EXISTS log_entries_no_update")
        execute(url, "DROP TRIGGER IF EXISTS log_entries_no_delete")
    else:
        execute(url, "DROP TRIGGER IF EXISTS log_entries_append_only ON log_entries")


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``python -m ledger ARGS`` as a real process."""
    return subprocess.run([sys.executable, "-m", "ledger", *args], cwd=cwd or ROOT,
                          capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, **(env or {})})
