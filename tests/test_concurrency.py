"""Several processes ingesting at once never fork or break the log."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from db_fixtures import ROOT, execute, ledger_url, make_article, write_articles  # noqa: F401

from ledger.db import Ledger

PROCESSES, PER_PROCESS = 4, 50


@pytest.mark.slow
def test_four_processes_ingest_fifty_articles_each(ledger_url: str, tmp_path: Path) -> None:
    Ledger.open(ledger_url).close()  # the schema exists before the race starts
    batches = [write_articles(tmp_path / f"p{p}",
                              [make_article(p * PER_PROCESS + i) for i in range(PER_PROCESS)])
               for p in range(PROCESSES)]
    procs = [subprocess.Popen([sys.executable, "-m", "ledger", "ingest", "--db", ledger_url,
                               *map(str, paths)], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=dict(os.environ))
             for paths in batches]
    try:
        results = [p.communicate(timeout=240) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for proc, (out, err) in zip(procs, results):
        assert proc.returncode == 0, err
        assert out.count(" stored ") == PER_PROCESS
    total = PROCESSES * PER_PROCESS
    assert execute(ledger_url, "SELECT count(DISTINCT article_id) FROM articles")[0][0] == total
    seqs = [r[0] for r in execute(ledger_url, "SELECT seq FROM log_entries ORDER BY seq")]
    assert seqs == list(range(total))
    with Ledger.open(ledger_url) as ledger:
        result = ledger.audit()
    assert result.ok and result.size == total, result.problem


def test_first_open_races_apply_each_migration_once(ledger_url: str) -> None:
    code = ("import sys; from ledger.db import Ledger; "
            "l = Ledger.open(sys.argv[1]); print(l.schema_version()); l.close()")
    procs = [subprocess.Popen([sys.executable, "-c", code, ledger_url], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e for _, e in outs]
    assert execute(ledger_url, "SELECT count(*) FROM ledger_schema_version")[0][0] == 1
    assert execute(ledger_url, "SELECT size FROM log_head")[0][0] == 0


@pytest.mark.slow
def test_audits_beside_a_writer_always_verify(ledger_url: str, tmp_path: Path) -> None:
    Ledger.open(ledger_url).close()
    paths = write_articles(tmp_path / "w", [make_article(900 + i) for i in range(30)])
    writer = subprocess.Popen([sys.executable, "-m", "ledger", "ingest", "--db", ledger_url,
                               *map(str, paths)], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    sizes = []
    try:
        with Ledger.open(ledger_url) as ledger:
            while writer.poll() is None:
                result = ledger.audit()
                assert result.ok, result.problem
                sizes.append(result.size)
        _, err = writer.communicate(timeout=120)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    assert writer.returncode == 0, err
    assert sizes == sorted(sizes)  # each audit saw a prefix of the growing log
    with Ledger.open(ledger_url) as ledger:
        assert ledger.audit().size == 30
