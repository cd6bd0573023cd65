"""``ledger run``, ``ledger reproduce`` and ``ledger ingest-bench`` on a real SQLite ledger."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from ledger.agent_fields import AGENT_FIELDS
from ledger.cli import main as ledger_main
from ledger.db import Ledger

CONFIG = """\
name: ledger-test
description: tiny replay for the ledger commands
trace: {generator: {kind: coding_agent, sessions: 2, turns: 2, vocab_size: 512,
                    system_prompt_tokens: 48, repo_context_tokens: 48}}
model: {layers: 1, heads: 2, width: 32, vocab_size: 512, torch_threads: 1}
instances: {count: 2, local_cache_blocks: 64}
delay_scale: 0
max_concurrency: 1
cost_model: {currency: USD, accelerator_per_hour: 2.0, operations_per_hour: 0.5,
             cpu_memory_gib_per_hour: 0.01}
arms:
  - {name: no_store}
  - {name: store, store: {mode: embedded, host_bytes: 16777216}}
compare: [no_store, store]
reproduce: {ratio_tolerance: 0.9, rate_tolerance: 0.05,
            metrics: [store_hit_rate, cost_ratio, decode_speedup]}
"""

BENCH = {
    "date": "20261120-101500", "backend": "vllm", "model_id": "meta-llama/Llama-3.1-8B-Instruct",
    "num_prompts": 200, "request_rate": 8.0, "max_concurrency": None, "duration": 31.5,
    "completed": 198, "failed": 2, "total_input_tokens": 204800, "total_output_tokens": 25344,
    "request_throughput": 6.29, "request_goodput": None, "output_throughput": 804.6,
    "total_token_throughput": 7306.2, "mean_ttft_ms": 45.1, "median_ttft_ms": 38.2,
    "std_ttft_ms": 12.0, "p99_ttft_ms": 120.4, "p99.9_ttft_ms": 180.0, "median_tpot_ms": 11.2,
    "median_e2el_ms": 1502.3, "p99_e2el_ms": 2210.7, "ttfts": [0.03, 0.04],
}


def cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    rc = ledger_main(argv)
    out = capsys.readouterr()
    return rc, out.out + out.err


@pytest.fixture()
def db(tmp_path: Path) -> str:
    return str(tmp_path / "ledger.db")


def test_run_records_a_sealed_run_with_every_agent_field(
        tmp_path: Path, db: str, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "replay.yaml"
    cfg.write_text(CONFIG)
    rc, out = cli(["run", str(cfg), "--db", db, "--out", str(tmp_path / "out"),
                   "--format", "json"], capsys)
    assert rc == 0, out
    run_id = json.loads(out)["run_id"]
    with Ledger.open(db, create=False) as ledger:
        run = ledger.get_run(run_id)
    assert run.status.value == "finished"
    assert set(AGENT_FIELDS) <= set(run.agent_fields)
    assert run.agent_fields["currency"] == "USD"
    assert run.agent_fields["routing_policy"] == {"no_store": "round_robin",
                                                  "store": "round_robin"}
    names = {m.name for m in run.metrics}
    assert {"no_store_p50_ttft", "store_hit_rate", "cost_ratio", "prefill_speedup"} <= names
    assert run.inputs["config"].startswith("sha256:")
    assert {"results.json", "ttft.png", "hit_rate.png", "cost.png"} <= set(run.outputs)
    assert run.parameters["config"]["name"] == "ledger-test"

    rc, out = cli(["reproduce", run_id, "--db", db, "--out", str(tmp_path / "again")], capsys)
    assert rc == 0, out
    assert out.startswith("REPRODUCED:")  # the verdict first
    assert "3 of 3 configured metric(s) within tolerance" in out
    assert "store_hit_rate" not in out  # only the rows that matter; -v for all
    rc, out = cli(["reproduce", run_id, "--db", db, "--out", str(tmp_path / "again2"), "-v"],
                  capsys)
    assert rc == 0 and "store_hit_rate" in out and "reported" in out
    with Ledger.open(db, create=False) as ledger:
        runs = ledger.list_runs()
    assert len(runs) == 3 and runs[1].parameters["reproduces"] == run_id


def test_reproduce_refuses_a_run_without_a_replay_config(
        tmp_path: Path, db: str, capsys: pytest.CaptureFixture[str]) -> None:
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps(BENCH))
    rc, out = cli(["ingest-bench", str(bench), "--db", db, "--format", "json"], capsys)
    assert rc == 0, out
    run_id = json.loads(out)["run_id"]
    rc, out = cli(["reproduce", run_id, "--db", db], capsys)
    assert rc == 2 and "no replay config" in out
    rc, out = cli(["reproduce", "run-missing", "--db", db], capsys)
    assert rc == 2


def test_ingest_bench_records_vllm_figures(tmp_path: Path, db: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    bench = tmp_path / "vllm-8.0qps-Llama.json"
    bench.write_text(json.dumps(BENCH))
    rc, out = cli(["ingest-bench", str(bench), "--db", db, "--format", "json",
                   "--source-url", "https://example.org/bench/1",
                   "--field", "hardware_and_gpu_count=1x H100 80GB",
                   "--field", "routing_policy=round_robin"], capsys)
    assert rc == 0, out
    with Ledger.open(db, create=False) as ledger:
        run = ledger.get_run(json.loads(out)["run_id"])
    metrics = {(m.name, m.aggregation): m for m in run.metrics}
    assert metrics[("p50_ttft", "p50")].value == 38.2
    assert metrics[("p50_ttft", "p50")].unit == "ms"
    assert metrics[("p99_9_ttft", "p99_9")].value == 180.0
    assert metrics[("request_throughput", "rate")].sample_count == 198
    assert ("request_goodput", "rate") not in metrics  # null in the file
    assert run.started_at.isoformat().startswith("2026-11-20T10:15:00")
    assert run.agent_fields["model_and_revision"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert run.agent_fields["hardware_and_gpu_count"] == "1x H100 80GB"
    assert run.agent_fields["source_url"] == "https://example.org/bench/1"
    assert run.parameters["request_rate"] == 8.0


@pytest.mark.parametrize("content, args, message", [
    ("{not json", [], "not JSON"),
    ('{"duration": 3}', [], "completed"),
    ('{"completed": "many"}', [], "completed: expected a number"),
    (json.dumps(BENCH), ["--field", "colour=blue"], "--field"),
])
def test_ingest_bench_errors_exit_2_and_say_why(
        tmp_path: Path, db: str, capsys: pytest.CaptureFixture[str], content: str,
        args: list[str], message: str) -> None:
    bench = tmp_path / "b.json"
    bench.write_text(content)
    rc, out = cli(["ingest-bench", str(bench), "--db", db, *args], capsys)
    assert rc == 2
    assert message in out


def test_run_with_a_bad_config_exits_2(tmp_path: Path, db: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("name: x\ntrace: {generator: {kind: coding_agent}}\nrouting: random\n")
    rc, out = cli(["run", str(cfg), "--db", db], capsys)
    assert rc == 2 and "routing" in out


@pytest.mark.slow
def test_harness_alone_writes_a_run_file_that_matches_the_schema_and_imports(
        tmp_path: Path, db: str, capsys: pytest.CaptureFixture[str]) -> None:
    import subprocess
    import sys

    import jsonschema

    cfg = tmp_path / "replay.yaml"
    cfg.write_text(CONFIG)
    run_file = tmp_path / "run.json"
    done = subprocess.run([sys.executable, "-m", "replay", "run", str(cfg), "--arm", "store",
                           "--out", str(tmp_path / "out"), "--run-file", str(run_file)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "store" in done.stdout  # the summary table
    data = json.loads(run_file.read_text())
    schema = json.loads((Path(__file__).parent.parent / "schemas" / "run.schema.json")
                        .read_text())
    jsonschema.validate(data, schema)
    assert data["status"] == "finished"
    assert data["command"][:3] == ["python", "-m", "replay"]
    rc, out = cli(["runs", "import", str(run_file), "--db", db], capsys)
    assert rc == 0 and f"{data['id']}: recorded" in out


def test_the_shipped_vllm_sample_ingests_as_the_readme_shows(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    sample = Path(__file__).parent.parent / "examples" / "vllm-bench-result.json"
    rc, out = cli(["ingest-bench", str(sample), "--db", db, "--format", "json",
                   "--field", "hardware_and_gpu_count=1x H100 80GB"], capsys)
    assert rc == 0, out
    with Ledger.open(db, create=False) as ledger:
        run = ledger.get_run(json.loads(out)["run_id"])
    metrics = {(m.name, m.aggregation): m.value for m in run.metrics}
    data = json.loads(sample.read_text())
    assert metrics[("p50_ttft", "p50")] == data["median_ttft_ms"]
    assert metrics[("request_throughput", "rate")] == data["request_throughput"]
    assert run.parameters["label"] == "illustrative-sample"
    assert run.agent_fields["model_and_revision"] == data["model_id"]


def test_run_with_an_unknown_arm_is_refused_and_records_nothing(
        tmp_path: Path, db: str, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "replay.yaml"
    cfg.write_text(CONFIG)
    rc, out = cli(["run", str(cfg), "--db", db, "--arm", "nosuch"], capsys)
    assert rc == 2
    assert "--arm nosuch: no such arm in ledger-test (its arms: no_store, store)" in out
    assert not Path(db).exists() or Ledger.open(db).list_runs() == []


def _listening_inodes() -> set[str]:
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for row in f.readlines()[1:]:
                cols = row.split()
                if cols[3] == "0A":  # LISTEN
                    inodes.add(cols[9])
    return inodes


def _listening_servers(marker: str) -> list[int]:
    """Pids of ``replay.server`` processes whose command line holds ``marker`` and that listen."""
    listening, found = _listening_inodes(), []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().decode(errors="replace")
            links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
        except OSError:
            continue  # gone, or not ours to read
        if "replay.server" in cmd and marker in cmd and any(
                link[8:-1] in listening for link in links if link.startswith("socket:[")):
            found.append(int(pid))
    return found


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="needs Linux /proc")
def test_run_whose_every_request_fails_exits_1_with_one_line(tmp_path: Path, db: str) -> None:
    """Both serving instances crash (SIGKILL, as the OOM killer does) before the first request:
    every request fails for real, and ``ledger run`` says so in one line, exits 1 and records
    the run as failed instead of sealing a run that measured nothing."""
    marker = f"allfail-{uuid.uuid4().hex[:8]}"  # the model name, on each server's command line
    trace = {"name": "late", "vocab_size": 512, "sessions": [
        {"id": f"s{i}", "start_s": 4.0, "turns": [{"carried_tokens": 0, "new_tokens": 40,
                                                    "output_tokens": 2}]} for i in range(2)]}
    (tmp_path / "trace.json").write_text(json.dumps(trace))
    cfg = tmp_path / "replay.yaml"
    cfg.write_text(f"name: all-fail\ntrace: {{file: trace.json}}\n"
                   f"model: {{name: {marker}, layers: 1, heads: 2, width: 32, vocab_size: 512,"
                   " torch_threads: 1}\ninstances: {count: 2, mode: processes}\ndelay_scale: 1\n")
    child = subprocess.Popen([sys.executable, "-m", "ledger", "run", str(cfg), "--db", db,
                              "--out", str(tmp_path / "out")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while len(pids := _listening_servers(marker)) < 2 and time.monotonic() < deadline:
            assert child.poll() is None, child.communicate()
            time.sleep(0.05)
        assert len(pids) == 2, "the serving instances never listened"
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        out, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 1, out + err
    assert "Traceback" not in err
    assert [ln for ln in err.splitlines() if ln.startswith("error:")] == [
        next(ln for ln in err.splitlines() if ln.startswith("error: every request failed "
                                                             "(2 of 2); the run measured"))]
    with Ledger.open(db, create=False) as ledger:
        (run,) = ledger.list_runs()
    assert run.status.value == "failed" and "every request failed" in (run.error or "")


def test_run_against_a_store_nothing_serves_exits_2_with_one_line(
        tmp_path: Path, db: str, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = tmp_path / "replay.yaml"
    cfg.write_text(CONFIG.replace("{mode: embedded, host_bytes: 16777216}",
                                  f'{{mode: distributed, address: "127.0.0.1:{port}"}}'))
    rc, out = cli(["run", str(cfg), "--db", db, "--arm", "store"], capsys)
    assert rc == 2 and "Traceback" not in out
    assert [ln for ln in out.splitlines() if ln.startswith("error:")] == [
        f"error: store: cannot connect to 127.0.0.1:{port}: [Errno 111] Connection refused"]
