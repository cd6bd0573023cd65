"""The store across hosts: master, two nodes and a client, each in its own network namespace.

Bytes cross real TCP over veth links (nodes run ``--no-shm``; the kernel's link counters are
checked). Skipped, with the reason, where network namespaces cannot be made (not root, or
``ip netns add`` refused).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster_fixtures import spawn_worker, wait_until, worker_result
from netns_fixtures import Hosts, MultiHost, hosts, multihost, netns_unavailable

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
KiB = 1 << 10
SIZE = 64 * KiB


@pytest.fixture(scope="module")
def net() -> Iterator[Hosts]:
    reason = netns_unavailable()
    if reason:
        pytest.skip(reason)
    with hosts() as h:
        yield h


def _all_readable(mh: MultiHost, prefix: str, count: int, size: int = SIZE, tag: str = "") -> None:
    got = mh.client("check", prefix=prefix, count=count, size=size, tag=tag)
    assert got == {"hits": count, "misses": 0, "wrong": 0, "errors": []}, got


def _consistent(mh: MultiHost) -> None:
    """The master's table and every live node agree (``reference-store fsck``)."""
    done = mh.fsck()
    assert done.returncode == 0, done.stdout + done.stderr


def test_node_killed_mid_workload_across_hosts(net: Hosts, tmp_path: Path) -> None:
    with multihost(net, tmp_path, nodes=("node1",), node_memory="256MiB") as mh:
        # written while node1 is the only node: all of them live on the node that survives
        assert mh.client("put", prefix="early", count=64, size=SIZE)["ok"] == 64
        mh.start_node("node2")
        mh.wait_nodes(2)
        assert mh.client("put", prefix="dup", count=32, size=SIZE, replicas=2)["ok"] == 32
        rx_before = net.rx_bytes("client")
        stop = tmp_path / "stop"
        names = ["w0", "w1"]
        workers = [spawn_worker(mh.address, n, 100_000, 16 * KiB, [x for x in names if x != n],
                                str(stop), prefix=mh.client_prefix()) for n in names]
        try:
            mh.client("wait_growth", by=30, timeout=60)  # the workload is running
            mh.nodes["node2"].kill9()
            mh.wait_nodes(1)
            mh.client("wait_growth", by=15, timeout=60)  # and goes on after the kill
        finally:
            stop.touch()
            results = [worker_result(w) for w in workers]
        assert all(r["wrong"] == 0 for r in results), results  # never wrong bytes
        assert all(r["read_errors"] == 0 for r in results), results  # lost objects are misses
        assert all(r["put_errors"] == 0 for r in results), results  # puts move to the live node
        assert sum(r["puts"] for r in results) > 45, results
        stats = mh.client("stats")
        assert stats["evictions"] == 0, (stats, results)  # else the checks below would not hold
        _all_readable(mh, "early", 64)  # everything on the surviving node
        _all_readable(mh, "dup", 32)  # a replica of each was there too
        # the workers' reads came over the client's link, not through shared memory
        read = sum(r["hits"] for r in results) * 16 * KiB
        assert net.rx_bytes("client") - rx_before >= read
        shm = mh.client("get", key="early/0", data_path="shm")
        assert shm["error"] == "TransferError", shm  # the node offers no shared memory
        _consistent(mh)


def test_master_restart_across_hosts(net: Hosts, tmp_path: Path) -> None:
    with multihost(net, tmp_path) as mh:
        assert mh.client("put", prefix="m", count=64, size=SIZE)["ok"] == 64
        mh.restart_master()
        mh.wait_nodes(2)  # nodes on other hosts re-register with the new master
        _all_readable(mh, "m", 64)
        assert mh.client("put", prefix="after", count=8, size=SIZE)["ok"] == 8
        _all_readable(mh, "after", 8)
        _consistent(mh)


def test_node_cut_off_and_back_serves_no_stale_bytes(net: Hosts, tmp_path: Path) -> None:
    """A partition, not a crash: node2's link goes down (no RST, no FIN), then up again."""
    with multihost(net, tmp_path, nodes=("node2",)) as mh:
        assert mh.client("put", prefix="p", count=32, size=SIZE, tag="v1")["ok"] == 32  # on node2
        mh.start_node("node1")
        link = ["ip", "-n", net.ns["node2"], "link", "set", "eth0"]
        subprocess.run([*link, "down"], check=True)
        mh.wait_nodes(1)  # dropped after its heartbeats stop arriving
        got = mh.client("put", prefix="p", count=32, size=SIZE, tag="v2", upsert=True)
        assert got["ok"] == 32, got
        subprocess.run([*link, "up"], check=True)
        mh.wait_nodes(2)  # it comes back, still holding the old values
        _all_readable(mh, "p", 32, tag="v2")  # never the values it held before the cut
        _consistent(mh)


def _scenario(mh: MultiHost, **env: str) -> None:
    """The compatibility script's reference-store side, run on the client host."""
    from test_compat_mooncake import EXPECTED

    proc = subprocess.run(
        [*mh.client_prefix(), sys.executable, str(ROOT / "tests/test_compat_mooncake.py"),
         "scenario", "reference", mh.address, ""],
        capture_output=True, text=True, timeout=180, cwd=ROOT, check=False,
        env={**os.environ, **env})
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    assert lines, f"scenario printed no result (rc {proc.returncode}): {proc.stderr[-3000:]}"
    got = json.loads(lines[-1])
    assert got.pop("close") == 0 and got.pop("health_after_close") == 1
    assert got == EXPECTED


def test_mooncake_compat_script_across_hosts(net: Hosts, tmp_path: Path) -> None:
    with multihost(net, tmp_path) as mh:
        # a pure client (no local segment): every object lives on another host
        _scenario(mh, COMPAT_SEGMENT_BYTES="0")
        # what it left behind is readable by another client process, from the nodes
        assert mh.client("get", key="up") == {"value": "cc"}


def test_mooncake_compat_script_with_a_segment_across_hosts(net: Hosts, tmp_path: Path) -> None:
    """As Mooncake clients usually run: each contributes a segment at its host's address, which
    the master on another host must reach. Open mode: the facade's segment has no way to prove a
    cluster key (objects it holds stay in the client's process; the nodes' cross TCP)."""
    with multihost(net, tmp_path, secure=False) as mh:
        _scenario(mh, COMPAT_LOCAL_HOSTNAME=net.addr["client"])


def test_master_cut_off_and_back_keeps_every_object(net: Hosts, tmp_path: Path) -> None:
    """The master's link goes down until it has dropped both nodes, then comes back."""
    with multihost(net, tmp_path) as mh:
        assert mh.client("put", prefix="k", count=64, size=SIZE)["ok"] == 64
        link = ["ip", "-n", net.ns["master"], "link", "set", "eth0"]
        subprocess.run([*link, "down"], check=True)
        try:  # seen from the master's own host, the only one that still reaches it
            mh.client("wait_nodes", host="master", count=0, timeout=30)
        finally:
            subprocess.run([*link, "up"], check=True)
        mh.wait_nodes(2)  # they re-register, with what they hold
        _all_readable(mh, "k", 64)
        _consistent(mh)

