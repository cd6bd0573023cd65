"""Tamper evidence: every kind of rewrite is caught by ``ledger audit`` (exit 3, entry named)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from db_fixtures import drop_guards, execute, ledger_url, make_article, run_cli  # noqa: F401

from ledger.cli import main
from ledger.db import Ledger
from ledger.log import GENESIS, chain_hash, leaf_hash, verify_consistency
from ledger.models import Article
from ledger.runs import RunRecorder

PARTS = ["sources", "facts", "inferences", "guardrails", "measurements", "figures", "dependencies"]


def _build(url: str, n: int = 6) -> None:
    with Ledger.open(url) as ledger:
        for i in range(n):
            ledger.ingest(Article.model_validate_json(json.dumps(make_article(i))))


def _audit(url: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["audit", "--db", url, "--format", "json", *extra])
    return code, json.loads(capsys.readouterr().out)


@pytest.fixture
def built(ledger_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, Path]:
    _build(ledger_url)
    checkpoint = tmp_path / "checkpoint.json"
    assert main(["checkpoint", str(checkpoint), "--db", ledger_url]) == 0
    drop_guards(ledger_url)
    return ledger_url, checkpoint


def test_guards_refuse_update_and_delete_of_log_entries(ledger_url: str) -> None:
    _build(ledger_url, 2)
    for sql in ("UPDATE log_entries SET kind = 'x' WHERE seq = 0",
                "DELETE FROM log_entries WHERE seq = 1"):
        with pytest.raises(sa.exc.DBAPIError, match="append-only"):
            execute(ledger_url, sql)
    with Ledger.open(ledger_url) as ledger:
        assert ledger.audit().ok


def test_untouched_ledger_passes(built: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    url, checkpoint = built
    code, data = _audit(url, capsys, "--checkpoint", str(checkpoint))
    assert code == 0 and data["ok"] and data["size"] == 6
    assert data["checkpoint"]["size"] == 6


def test_changed_byte_is_named(built: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    url, _ = built
    execute(url, "UPDATE log_entries SET payload = replace(payload, 'Test article 2', "
                 "'Test article 9') WHERE seq = 2")
    code, data = _audit(url, capsys)
    assert code == 3 and data["bad_entry"] == 2
    assert "entry 2" in data["problem"] and "leaf hash" in data["problem"]


def test_deleted_row_is_named(built: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    url, _ = built
    execute(url, "DELETE FROM log_entries WHERE seq = 3")
    code, data = _audit(url, capsys)
    assert code == 3 and data["bad_entry"] == 3 and "entry 3 is missing" in data["problem"]


def test_swapped_rows_are_named(built: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    url, _ = built
    rows = {r.seq: r for r in execute(url, "SELECT seq, payload, leaf_hash, chain_hash "
                                           "FROM log_entries WHERE seq IN (1, 4)")}
    for seq, other in ((1, 4), (4, 1)):
        execute(url, "UPDATE log_entries SET payload = :p, leaf_hash = :l, chain_hash = :c "
                     "WHERE seq = :s", p=rows[other].payload, l=rows[other].leaf_hash,
                c=rows[other].chain_hash, s=seq)
    code, data = _audit(url, capsys)
    assert code == 3 and data["bad_entry"] == 1 and "entry 1" in data["problem"]


def test_truncation_is_named(built: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    url, _ = built
    execute(url, "DELETE FROM log_entries WHERE seq >= 4")
    code, data = _audit(url, capsys)
    assert code == 3 and data["bad_entry"] == 4 and "truncated" in data["problem"]


def test_truncation_that_rewinds_the_head_needs_the_checkpoint(
        built: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    url, checkpoint = built
    (chain,) = execute(url, "SELECT chain_hash FROM log_entries WHERE seq = 3")[0]
    execute(url, "DELETE FROM log_entries WHERE seq >= 4")
    execute(url, "UPDATE log_head SET size = 4, chain_hash = :c", c=chain)
    for table in PARTS:
        execute(url, f"DELETE FROM {table} WHERE article_pk IN "
                     "(SELECT pk FROM articles WHERE entry_seq >= 4)")
    execute(url, "DELETE FROM articles WHERE entry_seq >= 4")
    assert _audit(url, capsys)[0] == 0  # consistent on its own: only the checkpoint knows
    code, data = _audit(url, capsys, "--checkpoint", str(checkpoint))
    assert code == 3 and data["bad_entry"] == 4 and "checkpoint" in data["problem"]


def test_rewritten_history_with_recomputed_hashes_fails_against_the_checkpoint(
        built: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    url, checkpoint = built
    execute(url, "UPDATE log_entries SET payload = replace(payload, 'Test article 1', "
                 "'Test article 7') WHERE seq = 1")
    chain = GENESIS
    for row in execute(url, "SELECT seq, payload FROM log_entries ORDER BY seq"):
        leaf = leaf_hash(row.payload.encode())
        chain = chain_hash(chain, leaf)
        execute(url, "UPDATE log_entries SET leaf_hash = :l, chain_hash = :c WHERE seq = :s",
                l=leaf.hex(), c=chain.hex(), s=row.seq)
    execute(url, "UPDATE log_head SET chain_hash = :c", c=chain.hex())
    code, data = _audit(url, capsys)  # the hashes agree, but the document's digest does not
    assert code == 3 and data["bad_entry"] == 1 and "digest" in data["problem"]
    code, data = _audit(url, capsys, "--checkpoint", str(checkpoint))
    assert code == 3 and "does not extend the checkpoint" in data["problem"]


def test_edited_query_tables_are_named(built: tuple[str, Path],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    url, _ = built
    execute(url, "UPDATE articles SET version = 7 WHERE entry_seq = 2")
    code, data = _audit(url, capsys)
    assert code == 3 and data["bad_entry"] == 2 and "table articles" in data["problem"]


def test_edited_run_metric_is_named(ledger_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger.open(ledger_url) as ledger, RunRecorder(ledger, command=["x"]) as rec:
        rec.metric("ttft", 10.0, unit="ms", aggregation="p50", sample_count=5)
    assert _audit(ledger_url, capsys)[0] == 0
    execute(ledger_url, "UPDATE run_metrics SET value = 5.0")  # a table without guards
    code, data = _audit(ledger_url, capsys)
    assert code == 3 and data["bad_entry"] == 1 and "run_metrics" in data["problem"]


def test_checkpoint_refuses_to_vouch_for_a_broken_log(
        built: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    url, checkpoint = built
    before = checkpoint.read_text()
    execute(url, "DELETE FROM log_entries WHERE seq = 0")
    assert main(["checkpoint", str(checkpoint), "--db", url]) == 3
    assert "entry 0" in capsys.readouterr().err
    assert checkpoint.read_text() == before


def test_audit_cli_process_exit_codes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'l.db'}"
    _build(url, 3)
    drop_guards(url)
    ok = run_cli("audit", "--db", url)
    assert ok.returncode == 0, ok.stderr
    assert "OK: 3 entries verify" in ok.stdout
    execute(url, "UPDATE log_entries SET payload = payload || ' ' WHERE seq = 1")
    bad = run_cli("audit", "--db", url)
    assert bad.returncode == 3 and "FAILED at entry 1" in bad.stdout


def test_malformed_checkpoint_is_a_usage_error(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"size": 1}')
    assert main(["audit", "--db", str(tmp_path / "l.db"), "--checkpoint", str(broken)]) == 2
    assert "field 'root'" in capsys.readouterr().err


def test_checkpoint_advances_when_the_log_extends_it(
        built: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    url, checkpoint = built
    old = json.loads(checkpoint.read_text())
    with Ledger.open(url) as ledger:
        ledger.ingest(Article.model_validate_json(json.dumps(make_article(50))))
    code, data = _audit(url, capsys, "--checkpoint", str(checkpoint))
    proof = [bytes.fromhex(p) for p in data["consistency_proof"]]
    assert code == 0 and proof  # what a third party holding only the two heads can check
    assert verify_consistency(6, 7, bytes.fromhex(old["root"]), bytes.fromhex(data["root"]), proof)
    assert main(["checkpoint", str(checkpoint), "--db", url, "--format", "json"]) == 0
    new = json.loads(checkpoint.read_text())
    assert (old["size"], new["size"]) == (6, 7) and old["root"] != new["root"]
    code, data = _audit(url, capsys, "--checkpoint", str(checkpoint))
    assert code == 0 and data["consistency_proof"] == []
