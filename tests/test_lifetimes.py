"""A node's lifetime as processes: READY only once registered, a missing master retried with
backoff up to ``--master-timeout`` then exit 1 with one line, and a node stopped on purpose
recorded by the master as departed, not lost."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cluster_fixtures import ROOT, Proc, start_master, wait_until
from prometheus_client.parser import text_string_to_metric_families

from reference_store.client import StoreClient

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _node(master: str, *extra: str, wait: bool = True) -> Proc:
    proc = Proc("reference_store", ["--log-level", "WARNING", "node", "--master", master,
                                    "--memory", "8MiB", "--no-prefault", "--heartbeat", "0.2",
                                    *extra], cwd=ROOT, wait=False)
    if wait:
        proc.wait_ready()
    return proc


def test_missing_master_exits_1_with_one_line_after_the_timeout() -> None:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "reference_store", "node", "--master",
         f"127.0.0.1:{_free_port()}", "--memory", "8MiB", "--no-prefault",
         "--master-timeout", "1.5"],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    took = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    assert "READY" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("reference-store node: error: master 127.0.0.1:")
    assert "did not answer within 1.5 s" in lines[-1]
    assert len([ln for ln in lines if "unreachable" in ln]) <= 1  # retries are not a wall of text
    assert took < 30


def test_ready_means_registered_and_a_late_master_is_waited_for() -> None:
    port = _free_port()
    node = _node(f"127.0.0.1:{port}", "--master-timeout", "30", wait=False)
    master = None
    try:
        wait_until(lambda: any("unreachable" in line for line in node.lines),
                   what="the node's first failed try")  # retrying with backoff now
        assert node.popen.poll() is None and not node.ready
        master = start_master("--node-ttl", "30", port=port)
        node.wait_ready()
        with StoreClient(master.address, timeout=10.0) as client:
            nodes = client.stats()["nodes"]  # READY: already listed, no waiting
        assert list(nodes) == [node.ready[4]]
    finally:
        node.stop()
        if master is not None:
            master.stop()


def test_a_node_stopped_on_purpose_departs_and_is_not_lost() -> None:
    master = start_master("--node-ttl", "30", log_level="INFO")
    node = _node(master.address)
    try:
        client = StoreClient(master.address, timeout=10.0)
        node_id = node.ready[4]
        assert list(client.stats()["nodes"]) == [node_id]
        node.popen.send_signal(signal.SIGTERM)
        assert node.popen.wait(timeout=20) == 0, node.lines
        # gone at once: the node TTL (30 s) did not have to run out
        wait_until(lambda: client.stats()["nodes"] == {}, timeout=5, what="node departed")
        # the master's output is collected by a thread of this process, and the master logs
        # the departure just after its table changes: wait for the line, never read it once
        departed = f"node {node_id} at "
        wait_until(lambda: any(departed in line and "departed" in line for line in master.lines),
                   timeout=5, what="the departure in the master's log")
        assert not [line for line in master.lines if "stopped answering" in line], master.lines
        port = int(master.ready[4])
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
            samples = {s.name: s.value for f in text_string_to_metric_families(resp.read().decode())
                       for s in f.samples}
        assert samples["refstore_nodes_departed_total"] == 1
        assert samples["refstore_nodes_lost_total"] == 0
        client.close()
    finally:
        node.stop()
        master.stop()


def test_a_node_stopped_while_the_master_is_slow_still_departs() -> None:
    """A stop that arrives while a heartbeat waits on a slow master (frozen here for 3.5 s,
    under both the heartbeat's and the goodbye's deadlines) still ends with the goodbye: the
    node waits for its link to finish instead of exiting and being recorded as lost."""
    master = start_master("--node-ttl", "30", log_level="INFO")
    node = _node(master.address)
    try:
        node_id = node.ready[4]
        master.popen.send_signal(signal.SIGSTOP)
        frozen = time.monotonic()
        try:
            time.sleep(0.5)  # the fault itself: the master frozen, heartbeats (0.2 s) waiting
            node.popen.send_signal(signal.SIGTERM)
            time.sleep(max(0.0, 3.5 - (time.monotonic() - frozen)))
        finally:
            master.popen.send_signal(signal.SIGCONT)
        assert node.popen.wait(timeout=20) == 0, node.lines
        assert not [line for line in node.lines if "could not say goodbye" in line], node.lines
        with StoreClient(master.address, timeout=10.0) as client:
            wait_until(lambda: client.stats()["nodes"] == {}, timeout=5, what="node departed")
        wait_until(lambda: any(f"node {node_id} at " in line and "departed" in line
                               for line in master.lines), timeout=5, what="the departure logged")
    finally:
        node.stop()
        master.stop()


def test_cli_refuses_a_master_without_a_port(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "reference_store", "node", "--master",
                           "localhost", "--memory", "8MiB"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "reference-store node: error: NodeConfig: /master: 'localhost' is not HOST:PORT "
        "(e.g. 127.0.0.1:50051)"]
