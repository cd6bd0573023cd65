"""One-sided data paths on a real cluster (reference_store.transport.segment): clients map a
node's ``shm`` segment and copy bytes themselves, with reservations and pins held by their node
connections. Master and nodes are real processes on loopback with a cluster key, so every
reservation and pin below carries a real grant."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest
import torch
from cluster_fixtures import ROOT, Cluster, cluster, expected_value, start_node, wait_until

from reference_store.client import StoreClient
from reference_store.errors import (
    InvalidParams,
    ObjectAlreadyExists,
    ObjectNotFound,
    StoreError,
    TransferError,
)
from reference_store.tenants import ClusterKey
from reference_store.transport.protocol import Op
from reference_store.transport.segment import SegmentPeer, ShmPeer, attach_shm, copy_pairs
from reference_store.transport.tcp import Connection

KiB = 1 << 10
MiB = 1 << 20
NODE_MEMORY = "32MiB"
BIG = 24 * MiB  # more than half a node: fits only if nothing else holds its arena


@pytest.fixture(scope="module")
def key_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("segments") / "cluster.key"
    path.write_bytes(b"segment-tests-cluster-key-0123456789")
    return str(path)


@pytest.fixture(scope="module")
def shared(key_file: str) -> Iterator[Cluster]:
    # put timeout 1 s (stalled puts are taken over quickly), no background eviction.
    with cluster(nodes=2, memory=NODE_MEMORY, node_args=("--cluster-key-file", key_file),
                 master_args=("--put-timeout", "1", "--high-watermark", "1.0",
                              "--cluster-key-file", key_file)) as c:
        c.wait_nodes(2)
        yield c


@pytest.fixture
def c(shared: Cluster, key_file: str) -> Iterator[Cluster]:
    """The shared cluster with two live nodes (killed ones replaced) and no objects."""
    for i, node in enumerate(shared.nodes):
        if node.popen.poll() is not None:
            shared.nodes[i] = start_node(shared.address, NODE_MEMORY,
                                         "--cluster-key-file", key_file)
    probe = shared.client()
    shared.wait_nodes(2, probe)
    wait_until(lambda: probe.remove_all(force=True) >= 0 and not probe.keys(), what="empty store")
    yield shared


def _random(size: int, seed: int) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, size, dtype=np.uint8).tobytes()


def _node_ids(client: StoreClient) -> dict[str, str]:
    """address -> node id, as the master lists them."""
    return {n["address"]: nid for nid, n in client.stats()["nodes"].items()}


def _node_keys(address: str, key_file: str) -> set[str]:
    conn = Connection(address, timeout=5.0)
    try:
        proof = ClusterKey.from_file(key_file).proof("list")
        return {o["key"] for o in conn.call(Op.NODE_LIST, {"proof": proof}).meta["objects"]}
    finally:
        conn.close()


class CountingPeer:
    """A real segment peer that also counts the bytes moved through it (the transfers still
    happen through the wrapped peer)."""

    def __init__(self, inner: SegmentPeer) -> None:
        self.inner = inner
        self.kind = inner.kind
        self.written = 0
        self.read_bytes = 0

    def write(self, offsets: Sequence[int], views: Sequence[memoryview]) -> None:
        self.inner.write(offsets, views)
        self.written += sum(v.nbytes for v in views)

    def read(self, offsets: Sequence[int], views: Sequence[memoryview]) -> None:
        self.inner.read(offsets, views)
        self.read_bytes += sum(v.nbytes for v in views)

    def close(self) -> None:
        self.inner.close()


def _count_transfers(client: StoreClient, addresses: Sequence[str]) -> dict[str, CountingPeer]:
    """Attach the client to each node's segment now and count what goes through it."""
    out = {}
    for address in addresses:
        seg = client._links.segment(address)
        assert seg is not None, f"no segment attached for {address}"
        out[address] = CountingPeer(seg[1])
        client._links.segments[address] = (seg[0], out[address])
    return out


# --------------------------------------------------------------------------------------------
# round trips


def _mixed_values(count: int) -> tuple[list[Any], list[bytes]]:
    """Values of 4 KiB .. 4 MiB as bytes, numpy arrays and torch tensors, with their bytes."""
    sizes = [4 * KiB, 16 * KiB + 3, 64 * KiB - 1, 64 * KiB, 100 * KiB + 7, MiB, 4 * MiB]
    values: list[Any] = []
    raw: list[bytes] = []
    for i in range(count):
        data = _random(sizes[i % len(sizes)], seed=i)
        if i % 3 == 0:
            values.append(data)
        elif i % 3 == 1:
            values.append(np.frombuffer(data, dtype=np.uint8).copy())
        else:
            values.append(torch.frombuffer(bytearray(data), dtype=torch.uint8))
        raw.append(data)
    return values, raw


@pytest.mark.parametrize(("data_path", "min_bytes", "one_sided_from"), [
    ("shm", 64 * KiB, 0),             # insists: every object one-sided
    ("auto", 64 * KiB, 64 * KiB),     # the default threshold: small ones streamed
    ("auto", 0, 0),
    ("auto", 1 << 62, 1 << 62),       # everything streamed, the segment attached regardless
])
def test_round_trip_of_mixed_sizes_and_sources(c: Cluster, data_path: str, min_bytes: int,
                                               one_sided_from: int) -> None:
    client = c.client(data_path=data_path, one_sided_min_bytes=min_bytes, replicas=2)
    ids = _node_ids(client)
    counters = _count_transfers(client, list(ids))
    values, raw = _mixed_values(14)
    keys = [f"{data_path}/{min_bytes}/{i}" for i in range(len(values))]
    assert client.batch_put(keys, values) == [None] * len(keys)

    bufs = [bytearray(len(r)) for r in raw]
    assert client.batch_get_into(keys, bufs) == [len(r) for r in raw]
    assert [bytes(b) for b in bufs] == raw
    assert client.get(keys[5]) == raw[5]
    dest = torch.zeros(len(raw[6]), dtype=torch.uint8)
    assert client.get_into(keys[6], dest) == len(raw[6])
    assert dest.numpy().tobytes() == raw[6]

    for address, (node_id, peer) in client._links.segments.items():  # type: ignore[misc]
        assert peer.kind == "shm" and node_id == ids[address]
    one_sided = sum(len(r) for r in raw if len(r) >= one_sided_from)
    read_back = one_sided + sum(len(raw[i]) for i in (5, 6) if len(raw[i]) >= one_sided_from)
    for address in ids:  # replicas=2: every object went to both nodes
        assert counters[address].written == one_sided, address
    assert sum(p.read_bytes for p in counters.values()) == read_back


@pytest.mark.parametrize(("writer", "reader"), [("shm", "tcp"), ("tcp", "shm"),
                                                ("auto", "tcp"), ("tcp", "auto")])
def test_one_sided_and_streamed_clients_interoperate(c: Cluster, writer: str, reader: str) -> None:
    w = c.client(data_path=writer, one_sided_min_bytes=0)
    r = c.client(data_path=reader, one_sided_min_bytes=0)
    keys = [f"interop-{writer}-{reader}-{i}" for i in range(6)]
    raw = [_random(n, seed=100 + i) for i, n in enumerate([1, 4 * KiB, 200 * KiB, MiB + 1,
                                                           3 * MiB, 64 * KiB])]
    assert w.batch_put(keys, raw, replicas=2) == [None] * len(keys)
    bufs = [bytearray(len(v)) for v in raw]
    assert r.batch_get_into(keys, bufs) == [len(v) for v in raw]
    assert [bytes(b) for b in bufs] == raw
    r.upsert(keys[3], raw[4])  # and back the other way, over an existing key
    assert w.get(keys[3]) == raw[4]
    assert all(seg is None for seg in r._links.segments.values()) == (reader == "tcp")


# --------------------------------------------------------------------------------------------
# a node that offers no shared segment


def test_node_without_shm_fails_insisting_clients_and_streams_for_auto() -> None:
    with cluster(nodes=1, memory="16MiB", node_args=("--no-shm",)) as c:
        c.wait_nodes(1)
        address = c.nodes[0].address
        insist = c.client(data_path="shm")
        keys = ["a", "b", "c"]
        values = [_random(n, seed=n) for n in (KiB, 128 * KiB, 2 * MiB)]
        errors = insist.batch_put(keys, values)
        assert all(isinstance(e, TransferError) for e in errors), errors
        for err in errors:
            assert address in str(err) and "offers []" in str(err), err
        assert not any(insist.batch_exists(keys))  # the failed puts were revoked

        auto = c.client(data_path="auto", one_sided_min_bytes=0)
        assert auto.batch_put(keys, values) == [None, None, None]
        assert auto._links.segments == {address: None}
        assert [auto.get(k) for k in keys] == values
        got = insist.batch_get_into(keys, [bytearray(len(v)) for v in values])
        assert all(isinstance(g, TransferError) and address in str(g) for g in got), got


# --------------------------------------------------------------------------------------------
# pins and reservations


def _raw_master(address: str) -> Connection:
    conn = Connection(address, timeout=5.0)
    conn.call(Op.HELLO, {"tenant": "default", "token": None})
    return conn


def _shm_peer(address: str) -> ShmPeer:
    conn = Connection(address, timeout=5.0)
    try:
        offers = conn.call(Op.NODE_SEGMENTS, {}).meta["segments"]
    finally:
        conn.close()
    peer = attach_shm(next(o for o in offers if o["kind"] == "shm"))
    assert peer is not None
    return peer


def test_pins_hold_bytes_past_a_forced_remove_and_end_with_their_connection(c: Cluster) -> None:
    client = c.client(data_path="shm", replicas=2)
    old = _random(BIG, seed=7)
    client.put("pinned", old)
    master = _raw_master(c.address)
    loc = master.call(Op.LOCATE, {"keys": ["pinned"], "lease": False}).meta["results"][0]
    master.close()
    pins: list[tuple[Connection, int, ShmPeer]] = []
    for address in loc["nodes"]:
        conn = Connection(address, timeout=5.0)
        reply = conn.call(Op.NODE_PIN, {"ids": [loc["object_id"]], "sizes": [BIG],
                                        "grants": [loc["grant"]]}).meta
        assert reply["sizes"] == [BIG] and reply["offsets"][0] >= 0
        pins.append((conn, reply["offsets"][0], _shm_peer(address)))

    client.remove("pinned", force=True)
    assert not client.exists("pinned")
    others = [f"other-{i}" for i in range(6)]
    assert client.batch_put(others, [_random(MiB, seed=i) for i in range(6)]) == [None] * 6
    for conn, offset, peer in pins:  # the pinned bytes are still there, untouched
        view = memoryview(bytearray(BIG))
        peer.read([offset], [view])
        assert view.tobytes() == old
        peer.close()
        conn.close()
    assert client.batch_remove(others) == [None] * 6

    # the connections are gone: the deferred deletes ran and the room is back on both nodes
    new = _random(BIG, seed=8)
    wait_until(lambda: client.batch_put(["after-pins"], [new])[0] is None, timeout=5,
               what="a big put after the pins ended")
    assert client.get("after-pins") == new
    with pytest.raises(ObjectNotFound):
        client.get("pinned")


def test_forced_removes_during_concurrent_shm_gets_never_yield_wrong_bytes(c: Cluster) -> None:
    size, keys = 512 * KiB, [f"hot-{i}" for i in range(6)]
    writer = c.client(data_path="shm", replicas=2)

    def value(key: str, gen: int) -> bytes:
        return expected_value(f"{key}#{gen}", size)

    assert writer.batch_put(keys, [value(k, 0) for k in keys]) == [None] * len(keys)
    stop = threading.Event()
    counts = {"hits": 0, "errors": 0, "wrong": 0, "removes": 0}
    gens = {k: 0 for k in keys}
    failures: list[BaseException] = []

    def read_loop() -> None:
        reader = c.client(data_path="shm")
        bufs = [bytearray(size) for _ in keys]
        try:
            while not stop.is_set():
                for k, got, buf in zip(keys, reader.batch_get_into(keys, bufs), bufs):
                    if isinstance(got, StoreError):
                        counts["errors"] += 1
                    elif bytes(buf) in {value(k, g) for g in range(gens[k] + 1)}:
                        counts["hits"] += 1
                    else:
                        counts["wrong"] += 1
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            failures.append(exc)
        finally:
            reader.close()

    def churn() -> None:
        try:
            while not stop.is_set():
                for k in keys:
                    writer.remove(k, force=True)
                    counts["removes"] += 1
                    gens[k] += 1  # before the put: readers accept the new value from now on
                    writer.put(k, value(k, gens[k]), replicas=2)
        except BaseException as exc:  # noqa: BLE001
            failures.append(exc)

    threads = [threading.Thread(target=read_loop) for _ in range(2)]
    threads.append(threading.Thread(target=churn))
    for t in threads:
        t.start()
    time.sleep(1.5)  # the workload's length, not a wait for readiness
    stop.set()
    for t in threads:
        t.join(timeout=20)
    assert not failures, failures
    assert counts["wrong"] == 0, counts
    assert counts["hits"] > 0 and counts["removes"] > 0, counts
    writer.close()
    _assert_nodes_fill_to_capacity(c)


def _assert_nodes_fill_to_capacity(c: Cluster) -> None:
    """Nothing holds arena room any more: 30 of each node's 32 MiB take objects again."""
    client = c.client(data_path="shm", replicas=2)
    client.remove_all(force=True)
    keys = [f"fill-{i}" for i in range(30)]
    values = [expected_value(k, MiB) for k in keys]
    assert client.batch_put(keys, values) == [None] * len(keys)
    bufs = [bytearray(MiB) for _ in keys]
    assert client.batch_get_into(keys, bufs) == [MiB] * len(keys)
    assert [bytes(b) for b in bufs] == values
    client.remove_all(force=True)


# --------------------------------------------------------------------------------------------
# a writer that goes away between NODE_RESERVE and NODE_COMMIT

_STALLED_WRITER = """
import sys, time
from reference_store.transport.protocol import Op
from reference_store.transport.segment import attach_shm
from reference_store.transport.tcp import Connection

master_addr, key, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
master = Connection(master_addr, timeout=5.0)
master.call(Op.HELLO, {"tenant": "default", "token": None})
res = master.call(Op.PUT_START, {"keys": [key], "sizes": [size], "replicas": 2}).meta
res = res["results"][0]
rec = {k: res[k] for k in ("object_id", "ns", "tenant", "grant")}
rec.update(key=key, size=size, pin=0)
held = []
for address in res["nodes"]:
    conn = Connection(address, timeout=5.0)
    reply = conn.call(Op.NODE_RESERVE, {"objects": [rec]}).meta
    offers = conn.call(Op.NODE_SEGMENTS, {}).meta["segments"]
    peer = attach_shm(next(o for o in offers if o["kind"] == "shm"))
    peer.write(reply["offsets"], [memoryview(b"x" * (size // 2))])  # half written
    held.append((conn, peer))
    print("RESERVED", address, reply["codes"][0], reply["offsets"][0], flush=True)
time.sleep(120)
"""


def _stall_in_child(c: Cluster, key: str) -> None:
    """A child process reserves room for ``key`` on both nodes, writes half, and is killed -9."""
    child = subprocess.Popen([sys.executable, "-c", _STALLED_WRITER, c.address, key, str(BIG)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert child.stdout is not None
        lines = [child.stdout.readline().split() for _ in range(2)]
    finally:
        child.kill()  # SIGKILL while it holds the reservations and the mapped arena
        _, err = child.communicate(timeout=10)
    assert all(line[:1] == ["RESERVED"] and line[2] == "0" and int(line[3]) >= 0
               for line in lines), (lines, err[-2000:])


def _stall_in_process(c: Cluster, key: str) -> None:
    """This process reserves room for ``key`` on both nodes, then closes without committing."""
    master = _raw_master(c.address)
    res = master.call(Op.PUT_START, {"keys": [key], "sizes": [BIG], "replicas": 2})
    start = res.meta["results"][0]
    rec = {k: start[k] for k in ("object_id", "ns", "tenant", "grant")}
    rec.update(key=key, size=BIG, pin=0)
    for address in start["nodes"]:
        conn = Connection(address, timeout=5.0)
        reply = conn.call(Op.NODE_RESERVE, {"objects": [rec]}).meta
        assert reply["codes"] == [0] and reply["offsets"][0] >= 0
        conn.close()
    master.close()


@pytest.mark.parametrize("stall", [_stall_in_process, _stall_in_child],
                         ids=["closed", "killed"])
def test_reservations_of_a_vanished_writer_are_reclaimed(c: Cluster, stall: Any) -> None:
    stall(c, "stalled")
    client = c.client(data_path="shm", replicas=2)
    value = _random(BIG, seed=11)
    # the writer's connection is gone: the master reclaims its put (test_no_loss shows it
    # does not wait for the put timeout) and the nodes end its reservations, so the key can
    # be put again and both arenas have the room
    wait_until(lambda: client.batch_put(["stalled"], [value])[0] is None, timeout=5,
               what="the vanished writer's put reclaimed")
    assert client.get("stalled") == value
    assert [n["used"] for n in client.stats()["nodes"].values()] == [BIG, BIG]


# --------------------------------------------------------------------------------------------
# a node restarted at the same port


def test_restarted_node_is_recognised_and_old_objects_are_misses(c: Cluster,
                                                                  key_file: str) -> None:
    client = c.client(data_path="shm", one_sided_min_bytes=0)
    before = _node_ids(client)
    keys = [f"pre-{i}" for i in range(10)]
    values = [expected_value(k, 256 * KiB) for k in keys]
    assert client.batch_put(keys, values) == [None] * len(keys)
    victim = c.nodes[0]
    address = victim.address
    lost = _node_keys(address, key_file)
    assert lost and client._links.segments[address] is not None
    old_id = client._links.segments[address][0]  # type: ignore[index]
    assert old_id == before[address]

    reader = c.client(data_path="shm", one_sided_min_bytes=0)  # only ever reads
    assert reader.batch_get_into(keys, [bytearray(256 * KiB) for _ in keys]) == [256 * KiB] * 10
    assert set(reader._links.segments) == set(before)

    victim.kill9()
    bufs = [bytearray(256 * KiB) for _ in keys]
    for k, got, buf, v in zip(keys, client.batch_get_into(keys, bufs), bufs, values):
        if k in lost:  # the node is gone but still listed: an error, never other bytes
            assert isinstance(got, StoreError), k
        else:
            assert got == len(v) and bytes(buf) == v, k
    port = address.rsplit(":", 1)[1]
    c.nodes[0] = wait_until(lambda: start_node(c.address, NODE_MEMORY, "--port", port,
                                               "--cluster-key-file", key_file),
                            what="node restart on the same port")
    wait_until(lambda: len(client.stats()["nodes"]) == 2 and old_id not in _node_ids(
        client).values(), what="the old node dropped and the new one registered")
    new_id = _node_ids(client)[address]
    assert new_id != old_id

    bufs = [bytearray(256 * KiB) for _ in keys]
    for k, got, buf, v in zip(keys, client.batch_get_into(keys, bufs), bufs, values):
        if k in lost:
            assert isinstance(got, StoreError), k  # a miss, never the old arena's bytes
        else:
            assert got == len(v) and bytes(buf) == v, k
    fresh = [f"post-{i}" for i in range(6)]
    fresh_values = [_random(n, seed=20 + i) for i, n in enumerate([KiB, 300 * KiB, MiB] * 2)]
    errors = client.batch_put(fresh, fresh_values, replicas=2)
    assert errors == [None] * len(fresh), errors
    assert [client.get(k) for k in fresh] == fresh_values
    fresh_bufs = [bytearray(len(v)) for v in fresh_values]
    for _ in range(2):  # the stale segment is noticed on the first read, re-attached after
        assert reader.batch_get_into(fresh, fresh_bufs) == [len(v) for v in fresh_values]
        assert [bytes(b) for b in fresh_bufs] == fresh_values
        fresh_bufs = [bytearray(len(v)) for v in fresh_values]
    assert reader._links.segments[address] is not None
    assert reader._links.segments[address][0] == new_id  # type: ignore[index]
    seg = client._links.segments[address]
    assert seg is not None and seg[0] == new_id and seg[1].kind == "shm"
    assert _node_keys(address, key_file) == set(fresh)


# --------------------------------------------------------------------------------------------
# configuration


def test_unknown_data_path_and_te_without_an_engine_are_invalid(shared: Cluster) -> None:
    with pytest.raises(InvalidParams, match="data_path") as info:
        StoreClient(shared.address, data_path="rdma")
    assert "'rdma'" in str(info.value)
    with pytest.raises(InvalidParams, match="transfer_engine"):
        StoreClient(shared.address, data_path="te")


def test_a_late_commit_of_a_taken_over_put_leaves_no_orphan() -> None:
    # its own one-node cluster: the orphan it provokes would hold arena room in the shared one
    with cluster(nodes=1, memory=NODE_MEMORY,
                 master_args=("--put-timeout", "1", "--high-watermark", "1.0")) as c:
        c.wait_nodes(1)
        _late_commit_after_takeover(c)


def _late_commit_after_takeover(c: Cluster) -> None:
    master = _raw_master(c.address)
    start = master.call(Op.PUT_START, {"keys": ["late"], "sizes": [BIG]}).meta["results"][0]
    rec = {k: start[k] for k in ("object_id", "ns", "tenant", "grant")}
    rec.update(key="late", size=BIG, pin=0)
    conn = Connection(start["nodes"][0], timeout=5.0)
    reply = conn.call(Op.NODE_RESERVE, {"objects": [rec]}).meta
    assert reply["codes"] == [0] and reply["offsets"][0] >= 0
    client = c.client(data_path="shm")
    value = _random(MiB, seed=5)
    wait_until(lambda: client.batch_put(["late"], [value])[0] is None, timeout=5,
               what="the stalled put taken over")  # the master deletes object_id on the node
    conn.call(Op.NODE_COMMIT, {"ids": [rec["object_id"]], "abort": []})  # the stalled writer
    conn.close()
    assert master.call(Op.PUT_END, {"keys": ["late"]}).meta["codes"] != [0]  # taken over
    master.close()
    assert client.get("late") == value
    conn = Connection(c.nodes[0].address, timeout=5.0)
    objects = conn.call(Op.NODE_LIST, {}).meta["objects"]
    conn.close()
    assert sorted(o["size"] for o in objects if o["key"] == "late") == [MiB]


@pytest.mark.parametrize("sizes", [
    [3 * MiB + 7, 1, 2 * MiB + 3],      # large pieces: two threads, pairs split between them
    [4096] * 600,                        # many small pieces: one thread
    [5 * MiB],                           # one piece cut in two
    [],
])
def test_copy_pairs_copies_every_byte_once(sizes: list[int]) -> None:
    rng = np.random.default_rng(len(sizes))
    src = [rng.integers(0, 256, n, dtype=np.uint8) for n in sizes]
    dst = [np.zeros(n, dtype=np.uint8) for n in sizes]
    copy_pairs([(memoryview(d).cast("B"), memoryview(s).cast("B").toreadonly())
                for d, s in zip(dst, src)])
    for d, s in zip(dst, src):
        assert np.array_equal(d, s)


def test_shm_peer_refuses_ranges_outside_the_arena() -> None:
    import mmap

    peer = ShmPeer(mmap.mmap(-1, 8192), 8192)
    with pytest.raises(TransferError, match="outside"):
        peer.write([8000], [memoryview(bytes(200))])
    with pytest.raises(TransferError, match="outside"):
        peer.read([-1], [memoryview(bytearray(10))])
    peer.write([100], [memoryview(b"abc")])
    out = bytearray(3)
    peer.read([100], [memoryview(out)])
    assert out == b"abc"
    peer.close()
    with pytest.raises(TransferError, match="closed"):
        peer.read([0], [memoryview(bytearray(1))])



def test_objects_demoted_to_the_node_disk_are_streamed_and_read_back(tmp_path: Any) -> None:
    """A node whose arena overflows to its disk tier: reads of objects still in the arena go
    one-sided, those on disk stream (their pin answers no offset), and every byte is right."""
    with cluster(nodes=1, memory="8MiB",
                 node_args=("--disk", str(tmp_path), "--disk-size", "64MiB")) as dc:
        dc.wait_nodes(1)
        client = dc.client(data_path="auto", one_sided_min_bytes=0)
        address = dc.nodes[0].address
        counted = _count_transfers(client, [address])[address]
        keys = [f"disk/{i}" for i in range(24)]
        values = [_random(MiB, 500 + i) for i in range(24)]
        for start in range(0, len(keys), 4):  # batches that fit the arena: older ones demote
            assert client.batch_put(keys[start:start + 4], values[start:start + 4]) == [None] * 4
        assert counted.written == 24 * MiB  # every put went into the arena...
        recent = [bytearray(MiB) for _ in range(4)]  # the newest are still in the arena
        assert client.batch_get_into(keys[-4:], recent) == [MiB] * 4
        assert [bytes(d) for d in recent] == values[-4:]
        assert counted.read_bytes == 4 * MiB
        # the oldest are on disk: their pins answer no offset and they stream (reading them
        # promotes them, which demotes others: whatever the mix, every byte must be right)
        dests = [bytearray(MiB) for _ in keys]
        assert client.batch_get_into(keys, dests) == [MiB] * len(keys)
        assert [bytes(d) for d in dests] == values
        assert counted.read_bytes < 4 * MiB + 24 * MiB
