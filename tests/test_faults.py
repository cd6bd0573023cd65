"""Faults on a real cluster: kill -9 a node or the master, broken and hung connections."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster_fixtures import (
    Cluster,
    cluster,
    expected_value,
    spawn_worker,
    start_node,
    wait_until,
    worker_result,
)

from reference_store.errors import ObjectNotFound
from reference_store.transport import protocol as p
from reference_store.transport.tcp import Connection

KiB = 1 << 10


@pytest.fixture(scope="module")
def shared() -> Iterator[Cluster]:
    with cluster(nodes=2, memory="32MiB", master_args=("--frame-timeout", "1"),
                 node_args=("--frame-timeout", "1")) as c:
        yield c


@pytest.fixture
def c(shared: Cluster) -> Iterator[Cluster]:
    """The shared cluster with two live nodes (killed ones replaced) and no objects."""
    for i, node in enumerate(shared.nodes):
        if node.popen.poll() is not None:
            shared.nodes[i] = start_node(shared.address, "32MiB", "--frame-timeout", "1")
    probe = shared.client()
    shared.wait_nodes(2, probe)
    probe.remove_all(force=True)
    yield shared


def _node_objects(addr: str) -> set[tuple[str, int]]:
    conn = Connection(addr, timeout=5.0)
    try:
        return {(o["key"], o["size"]) for o in conn.call(p.Op.NODE_LIST, {}).meta["objects"]}
    finally:
        conn.close()


@pytest.mark.slow
def test_kill_9_a_node_mid_workload(c: Cluster, tmp_path: Path) -> None:
    probe = c.client()
    names = ["w0", "w1", "w2"]
    stop_file = str(tmp_path / "stop")
    workers = [spawn_worker(c.address, n, 100_000, 16 * KiB, [x for x in names if x != n],
                            stop_file) for n in names]
    try:
        wait_until(lambda: probe.stats()["objects"] >= 30, timeout=60, what="workload running")
        victim = c.nodes[0]
        lost = {k for k, _ in _node_objects(victim.address)}
        victim.kill9()
        wait_until(lambda: len(probe.stats()["nodes"]) == 1, what="dead node dropped")
        before = probe.stats()["objects"]
        wait_until(lambda: probe.stats()["objects"] >= before + 15, timeout=60,
                   what="workload continuing after the kill")
    finally:
        Path(stop_file).touch()
        results = [worker_result(w) for w in workers]
    assert all(r["wrong"] == 0 for r in results), results  # never wrong bytes
    assert all(r["read_errors"] == 0 for r in results), results  # lost objects are misses
    assert sum(r["puts"] for r in results) > 45
    for key in list(lost)[:20]:
        with pytest.raises(ObjectNotFound):
            probe.get(key)
    probe.put("after-kill", b"still serving")
    assert probe.get("after-kill") == b"still serving"


def test_replicated_key_survives_one_holder_dying(c: Cluster) -> None:
    client = c.client()
    value = expected_value("dup", 100 * KiB)
    client.put("dup", value, replicas=2)
    client.put("single", value)
    holder = next(n for n in c.nodes if ("single", len(value)) in _node_objects(n.address))
    holder.kill9()
    assert client.get("dup") == value  # at once, from the other replica
    wait_until(lambda: not client.exists("single"), what="lost object becomes a miss")
    assert client.get("dup") == value


def test_kill_9_and_restart_the_master_keeps_objects_on_live_nodes(c: Cluster) -> None:
    client = c.client()
    keys = [f"m{i}" for i in range(20)]
    assert client.batch_put(keys, [expected_value(k, 50 * KiB) for k in keys]) == [None] * 20
    client.put("pinned", b"p", pin=2)
    c.restart_master()
    # the same client object reconnects by itself; nodes re-register and report
    wait_until(lambda: len(client.stats()["nodes"]) == 2, what="nodes re-registered")
    bufs = [bytearray(50 * KiB) for _ in keys]
    assert client.batch_get_into(keys, bufs) == [50 * KiB] * 20
    assert all(bytes(b) == expected_value(k, 50 * KiB) for k, b in zip(keys, bufs))
    assert sorted(client.keys()) == sorted([*keys, "pinned"])
    client.upsert("m0", b"new")  # ids stay unique after the restart: no stale reads
    assert client.get("m0") == b"new"
    assert client.stats()["bytes"] == 19 * 50 * KiB + 3 + 1


def test_dropped_and_hung_connections_leave_master_and_nodes_serving(c: Cluster) -> None:
    client = c.client()
    for addr in (c.address, c.nodes[0].address):
        host, port = addr.rsplit(":", 1)
        raw, _ = p.encode_header(opcode=p.Op.PING, request_id=1, meta=b"{}",
                                 payload=[b"x" * 4096])
        dropped = socket.create_connection((host, int(port)))
        dropped.sendall(raw + b"{}" + b"x" * 100)  # mid-payload, then gone
        dropped.close()
        hung = socket.create_connection((host, int(port)))
        hung.sendall(raw[:10])  # half a header, then nothing
        client.put(f"ok-{port}", b"v")  # others keep working meanwhile
        assert client.get(f"ok-{port}") == b"v"
        hung.settimeout(15)
        assert hung.recv(1) == b""  # cut after the frame timeout
        hung.close()
        conn = Connection(addr, timeout=5.0)
        assert conn.call(p.Op.PING, {}).meta["ok"] is True
        conn.close()
