"""The master tells nodes to delete dropped objects after releasing its lock, one NODE_DELETE
per node per request: a real in-process master and two real nodes over loopback, the nodes
counting (and, when asked, slowing down) the deletes they receive."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from cluster_fixtures import wait_until

from reference_store.client import StoreClient
from reference_store.master import Master, MasterConfig
from reference_store.node import Node, NodeConfig
from reference_store.transport.protocol import Buffer, Op
from reference_store.transport.tcp import Connection, ServerContext

KiB, MiB = 1 << 10, 1 << 20


class CountingNode(Node):
    """A real node that records each NODE_DELETE frame's ids and can take its time over one."""

    def __init__(self, config: NodeConfig) -> None:
        super().__init__(config)
        self.delete_frames: list[list[int]] = []
        self.delete_delay_s = 0.0
        self.delete_arrived = threading.Event()

    def handle(self, ctx: ServerContext, op: int, meta: dict[str, Any],
               payload: memoryview) -> tuple[dict[str, Any], list[Buffer]]:
        if op == Op.NODE_DELETE:
            self.delete_frames.append([int(i) for i in meta["ids"]])
            self.delete_arrived.set()
            time.sleep(self.delete_delay_s)
        return super().handle(ctx, op, meta, payload)

    def listed_ids(self) -> set[int]:
        """The object ids the node itself reports holding (NODE_LIST over the wire)."""
        conn = Connection(self.address, timeout=5.0)
        try:
            reply = conn.call(Op.NODE_LIST, {"proof": self.key.proof("list")})
            return {int(o["object_id"]) for o in reply.meta["objects"]}
        finally:
            conn.close()


@contextmanager
def small_cluster(memory: int = 8 * MiB,
                  **master: Any) -> Iterator[tuple[Master, list[CountingNode]]]:
    """An in-process master and two counting nodes, registered; everything stopped on exit."""
    settings: dict[str, Any] = {"lease_ttl_s": 0.5, "high_watermark": 1.0, **master}
    m = Master(MasterConfig(**settings))
    server = m.serve()
    nodes: list[CountingNode] = []
    try:
        for _ in range(2):
            nodes.append(CountingNode(NodeConfig(
                master=server.address, memory_bytes=memory, prefault=False, heartbeat_s=0.2,
                freeze_gc=False)))
            nodes[-1].serve()
        wait_until(lambda: all(n.registered.is_set() for n in nodes) and len(m._nodes) == 2,
                   what="two nodes registered")
        yield m, nodes
    finally:
        for n in nodes:
            n.stop()
        m.stop()


@pytest.fixture
def two_nodes() -> Iterator[tuple[Master, list[CountingNode], StoreClient]]:
    with small_cluster() as (m, nodes):
        client = _client(m, replicas=2)
        try:
            yield m, nodes, client
        finally:
            client.close()


def _client(m: Master, **kwargs: Any) -> StoreClient:
    assert m._server is not None
    return StoreClient(m._server.address, timeout=10.0, **kwargs)


def _object_ids(m: Master) -> set[int]:
    with m._lock:
        return {o.object_id for o in m._objects.values()}


def _put_many(client: StoreClient, count: int, size: int = 4 * KiB, prefix: str = "k") -> list[str]:
    keys = [f"{prefix}{i}" for i in range(count)]
    assert client.batch_put(keys, [bytes([i % 251]) * size for i in range(count)]) == [None] * count
    return keys


def test_batch_remove_sends_one_delete_per_node_and_nodes_forget_the_objects(
        two_nodes: tuple[Master, list[CountingNode], StoreClient]) -> None:
    m, nodes, client = two_nodes
    keys = _put_many(client, 20)
    ids = _object_ids(m)
    assert len(ids) == 20 and all(n.listed_ids() == ids for n in nodes)  # 2 replicas each

    assert client.batch_remove(keys) == [None] * 20
    # the reply came after the nodes were told: no waiting needed
    for n in nodes:
        assert n.listed_ids() == set()
        assert len(n.delete_frames) == 1 and set(n.delete_frames[0]) == ids
    assert client.stats()["objects"] == 0
    assert all(v["used"] == 0 for v in client.stats()["nodes"].values())


def test_remove_all_and_single_removes_reach_the_nodes(
        two_nodes: tuple[Master, list[CountingNode], StoreClient]) -> None:
    m, nodes, client = two_nodes
    keys = _put_many(client, 12)
    ids = _object_ids(m)
    client.remove(keys[0])
    assert all(n.delete_frames == [[min(ids)]] for n in nodes)
    assert client.remove_all() == 11
    for n in nodes:
        assert n.listed_ids() == set()
        assert len(n.delete_frames) == 2 and set(n.delete_frames[1]) == ids - {min(ids)}
    # the same keys can be put again straight away, and read back
    _put_many(client, 12)
    assert client.get(keys[3]) == bytes([3]) * 4 * KiB


def test_eviction_on_put_frees_room_on_the_nodes_before_the_put_goes_on() -> None:
    with small_cluster(memory=4 * MiB) as (m, nodes):
        client = _client(m)
        try:
            # 8 MiB in all, 1 MiB objects: from the ninth on, each put evicts the oldest; the
            # node must have freed the victim's bytes before the client writes the new ones
            for i in range(16):
                client.put(f"e{i}", bytes([i]) * MiB)
            assert client.stats()["evictions"] >= 8
            held = set().union(*(n.listed_ids() for n in nodes))
            assert held == _object_ids(m) and len(held) <= 8
            assert client.get("e15") == bytes([15]) * MiB
            assert sum(len(f) for n in nodes for f in n.delete_frames) >= 8
        finally:
            client.close()


def test_background_eviction_deletes_on_the_nodes_too() -> None:
    with small_cluster(memory=4 * MiB, high_watermark=0.5, low_watermark=0.25,
                       node_ttl_s=2.0) as (m, nodes):
        client = _client(m)
        try:
            assert client.batch_put([f"b{i}" for i in range(6)],
                                    [bytes([i]) * MiB for i in range(6)]) == [None] * 6
            # the monitor evicts down to 2 MiB of the 8, and the nodes drop what it evicted
            wait_until(lambda: client.stats()["evictions"] >= 4, timeout=10.0,
                       what="background eviction")
            wait_until(lambda: set().union(*(n.listed_ids() for n in nodes)) == _object_ids(m),
                       timeout=10.0, what="nodes agreeing with the master")
            assert len(_object_ids(m)) <= 2
        finally:
            client.close()


def test_a_slow_node_delete_does_not_hold_up_other_clients(
        two_nodes: tuple[Master, list[CountingNode], StoreClient]) -> None:
    m, nodes, client = two_nodes
    keys = _put_many(client, 5)
    other = StoreClient(client.master_address, timeout=10.0)
    try:
        assert other.ping() and not other.exists("nothing")  # connected and said HELLO
        for n in nodes:
            n.delete_delay_s = 1.0
        done: list[float] = []

        def remove() -> None:
            client.batch_remove(keys)
            done.append(time.monotonic())

        remover = threading.Thread(target=remove)
        started = time.monotonic()
        remover.start()
        assert all(n.delete_arrived.wait(5.0) for n in nodes)

        t0 = time.perf_counter()
        assert other.ping()
        assert not other.exists(keys[0])     # the master's tables already say removed
        other.put("meanwhile", b"x" * 100)   # a put needs the lock too
        quick = time.perf_counter() - t0
        assert quick < 0.5, f"master blocked for {quick:.2f} s behind a node delete"
        assert not done                      # the remove itself still waits for the nodes

        remover.join(5.0)
        assert done and done[0] - started >= 0.9
        assert set().union(*(n.listed_ids() for n in nodes)) == _object_ids(m)
        assert other.get("meanwhile") == b"x" * 100
    finally:
        other.close()
