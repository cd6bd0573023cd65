"""A storage node on its own (no master): in-place writes, reads from the arena, and what a
failed or broken write leaves behind (nothing)."""

from __future__ import annotations

import ctypes
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from reference_store.errors import ChecksumMismatch
from reference_store.node import Node, NodeConfig
from reference_store.node_objects import ObjectState
from reference_store.transport import protocol as p
from reference_store.transport.tcp import Connection, ServerContext, recv_exact_into

MiB = 1 << 20


@pytest.fixture
def node() -> Iterator[Node]:
    # Nothing listens on the master's port: the node keeps retrying in the background, which
    # does not matter to its data server.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    n = Node(NodeConfig(master=f"127.0.0.1:{dead}", memory_bytes=8 * MiB, prefault=False,
                        heartbeat_s=5.0, frame_timeout_s=2.0))
    n.serve()
    try:
        yield n
    finally:
        n.stop()


def _objects(*sizes: int, first: int = 1) -> list[dict[str, object]]:
    return [{"object_id": first + i, "size": size, "tenant": "t", "ns": "n", "key": f"k{i}",
             "grant": ""} for i, size in enumerate(sizes)]


def _host(node: Node) -> tuple[int, int, int]:
    t = node._store.stats().tier("host")
    return t.used_bytes, t.payload_bytes, t.objects


def _wait_clean(node: Node, deadline_s: float = 10.0) -> None:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if _host(node) == (0, 0, 0) and not node.objects.count(ObjectState.RECEIVING):
            return
        time.sleep(0.02)
    raise AssertionError(f"node not clean: {_host(node)}, "
                         f"{node.objects.count(ObjectState.RECEIVING)} being received")


def _conn(node: Node) -> Connection:
    return Connection(node.address, timeout=10.0)


def test_write_is_received_into_reservations_then_read_from_the_arena(node: Node) -> None:
    a, b = b"a" * 300_000, b"b" * 70_000
    conn = _conn(node)
    try:
        reply = conn.call(p.Op.NODE_WRITE, {"objects": _objects(len(a), len(b))}, [a, b])
        assert reply.meta["codes"] == [0, 0]
        assert _host(node)[1:] == (len(a) + len(b), 2)
        assert node._store.reserve("probe", 1).direct  # the arena path is really in use
        out_a, out_b = bytearray(len(a)), bytearray(len(b))
        got = conn.call(p.Op.NODE_READ, {"ids": [1, 2], "sizes": [len(a), len(b)]},
                        into=[memoryview(out_a), memoryview(out_b)])
        assert got.meta["sizes"] == [len(a), len(b)]
        assert bytes(out_a) == a and bytes(out_b) == b
        again = conn.call(p.Op.NODE_WRITE, {"objects": _objects(5)}, [b"again"])
        assert again.meta["codes"] == [-705]  # ObjectAlreadyExists: ids are never reused
    finally:
        conn.close()


def test_a_read_sends_the_hash_checked_on_arrival_so_bytes_changed_at_rest_are_caught(
        node: Node) -> None:
    """The node keeps each object's hash from its write and answers reads with it (it does not
    read the object once more to hash it): bytes that changed in the node's memory since then
    fail the read with ChecksumMismatch instead of reaching the reader."""
    a, b = b"a" * 300_000, b"b" * 70_000
    conn = _conn(node)
    try:
        assert conn.call(p.Op.NODE_WRITE, {"objects": _objects(len(a), len(b))},
                         [a, b]).meta["codes"] == [0, 0]
        assert node.objects.digest(1) == p.payload_hash([a])
        borrow = node._store.borrow("2")
        try:
            at = np.frombuffer(borrow.buffer, dtype=np.uint8).ctypes.data
            ctypes.memset(at + 5, ord("X"), 1)  # bytes changed at rest (the view is read-only)
        finally:
            borrow.release()
        out_a, out_b = bytearray(len(a)), bytearray(len(b))
        with pytest.raises(ChecksumMismatch):
            conn.call(p.Op.NODE_READ, {"ids": [1, 2], "sizes": [len(a), len(b)]},
                      into=[memoryview(out_a), memoryview(out_b)])
        got = conn.call(p.Op.NODE_READ, {"ids": [1], "sizes": [len(a)]},
                        into=[memoryview(out_a)])  # the connection goes on
        assert got.meta["sizes"] == [len(a)] and bytes(out_a) == a
    finally:
        conn.close()


def test_many_small_objects_in_one_frame_are_received_and_checked_in_groups(node: Node) -> None:
    """More small objects than one recvmsg call takes (IOV_MAX) round-trip with their hashes."""
    blobs = [bytes([i % 251]) * (100 + i % 7) for i in range(1500)]
    conn = _conn(node)
    try:
        reply = conn.call(p.Op.NODE_WRITE, {"objects": _objects(*map(len, blobs))}, blobs)
        assert reply.meta["codes"] == [0] * len(blobs)
        assert node.objects.digest(1500) == p.payload_hash([blobs[-1]])
        outs = [bytearray(len(b)) for b in blobs]
        got = conn.call(p.Op.NODE_READ, {"ids": list(range(1, 1501)),
                                         "sizes": list(map(len, blobs))},
                        into=[memoryview(o) for o in outs])
        assert got.meta["sizes"] == list(map(len, blobs))
        assert [bytes(o) for o in outs] == blobs
    finally:
        conn.close()


def _raw_write(node: Node, payload: bytes, *, send: bytes | None = None) -> socket.socket:
    meta = p.encode_meta({"objects": _objects(len(payload))})
    head, _ = p.encode_header(opcode=p.Op.NODE_WRITE, request_id=7, meta=meta, payload=[payload])
    s = socket.create_connection(("127.0.0.1", int(node.address.rsplit(":", 1)[1])))
    s.sendall(head + meta + (payload if send is None else send))
    return s


def test_corrupt_write_leaves_no_trace_and_the_id_stays_usable(node: Node) -> None:
    good = b"g" * 200_000
    s = _raw_write(node, good, send=b"e" * len(good))
    try:
        head = bytearray(p.HEADER_SIZE)
        recv_exact_into(s, memoryview(head))
        h = p.decode_header(head)
        assert h.request_id == 7 and h.status == ChecksumMismatch.code
    finally:
        s.close()
    _wait_clean(node)
    conn = _conn(node)
    try:
        assert conn.call(p.Op.NODE_WRITE, {"objects": _objects(len(good))}, [good]).meta["codes"] == [0]
    finally:
        conn.close()


def test_connection_dropped_mid_payload_leaves_no_trace(node: Node) -> None:
    s = _raw_write(node, b"x" * 1_000_000, send=b"x" * 100_000)
    s.close()
    _wait_clean(node)


def test_delete_while_a_response_is_sending_is_deferred(node: Node) -> None:
    conn = _conn(node)
    try:
        conn.call(p.Op.NODE_WRITE, {"objects": _objects(1000)}, [b"z" * 1000])
    finally:
        conn.close()
    ctx = ServerContext(peer="test")
    read = {"ids": [1], "sizes": [1000]}
    reply, buffers = node.handle(ctx, p.Op.NODE_READ, read, memoryview(b""))
    assert reply.sizes == [1000]
    view = memoryview(buffers[0])
    assert node._remove_ids([1]) == 1
    assert node._store.exists("1")  # still being sent from: its room is not reused yet
    assert bytes(view) == b"z" * 1000
    for callback in ctx.after_send:
        callback()
    assert not node._store.exists("1")
    again, _ = node.handle(ServerContext(peer="test"), p.Op.NODE_READ, read, memoryview(b""))
    assert again.sizes == [-704]  # ObjectNotFound


def test_a_pin_leaves_objects_on_disk_unread(tmp_path: Path) -> None:
    """NODE_PIN asks where objects lie in the arena: one on the disk tier answers offset -1
    (the client streams it instead) without being read or promoted, so a pin costs no disk
    traffic however much lies on disk, and the arena keeps what it held."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    n = Node(NodeConfig(master=f"127.0.0.1:{dead}", memory_bytes=8 * MiB, prefault=False,
                        heartbeat_s=5.0, disk_dir=str(tmp_path), disk_bytes=64 * MiB))
    n.serve()
    conn = _conn(n)
    try:
        for first in range(1, 17, 4):  # 16 objects of 1 MiB: the oldest go down to the disk
            reply = conn.call(p.Op.NODE_WRITE, {"objects": _objects(*[MiB] * 4, first=first)},
                              [bytes([first]) * MiB] * 4)
            assert reply.meta["codes"] == [0] * 4
        before = n._store.stats()
        ids = list(range(1, 17))
        pinned = conn.call(p.Op.NODE_PIN, {"ids": ids, "sizes": [MiB] * 16}).meta
        assert pinned["sizes"] == [MiB] * 16
        held = [i for i, off in zip(ids, pinned["offsets"]) if off >= 0]
        assert held and len(held) < len(ids)  # some in the arena, some on disk
        after = n._store.stats()
        assert after.promotions == before.promotions
        assert after.hits_per_tier["disk"] == before.hits_per_tier["disk"]
        assert after.tier("disk").objects == before.tier("disk").objects
        conn.call(p.Op.NODE_UNPIN, {"ids": held})
    finally:
        conn.close()
        n.stop()
