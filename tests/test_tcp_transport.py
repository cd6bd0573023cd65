"""The TCP transport over real loopback sockets: zero-copy receive, pipelining, timeouts, faults."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from reference_store.errors import (
    BufferTooSmall,
    ChecksumMismatch,
    ConnectionLost,
    ObjectNotFound,
    ProtocolError,
    RpcTimeout,
)
from reference_store.transport import protocol as p
from reference_store.transport.tcp import Connection, Server, ServerContext, recv_exact_into


class EchoHandler:
    """PING echoes its payload; NODE_READ returns ``blobs`` with a sizes list; LOCATE blocks."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.disconnects = 0
        self.blobs: list[bytes] = []

    def handle(self, ctx: ServerContext, op: int, meta: dict[str, Any],
               payload: memoryview) -> tuple[dict[str, Any], Sequence[p.Buffer]]:
        if op == p.Op.PING:
            return {"n": payload.nbytes, **meta}, [bytes(payload)]
        if op == p.Op.NODE_READ:
            return {"sizes": [len(b) if b else -704 for b in self.blobs]}, [b for b in self.blobs if b]
        if op == p.Op.LOCATE:
            self.release.wait(10)
            return {"late": True}, []
        if op == p.Op.REMOVE:
            raise ObjectNotFound("no such key")
        raise ProtocolError(f"unknown opcode {op}")

    def disconnected(self, ctx: ServerContext) -> None:
        self.disconnects += 1


@pytest.fixture(params=[False, True], ids=["sequential", "pipelined"])
def server(request: pytest.FixtureRequest) -> Iterator[tuple[Server, EchoHandler]]:
    handler = EchoHandler()
    srv = Server(handler, frame_timeout=1.0, pipeline=request.param).start()
    try:
        yield srv, handler
    finally:
        handler.release.set()
        srv.stop()


@pytest.fixture
def conn(server: tuple[Server, EchoHandler]) -> Iterator[Connection]:
    c = Connection(server[0].address, timeout=5.0)
    try:
        yield c
    finally:
        c.close()


def test_round_trip_scatter_gather_send(conn: Connection) -> None:
    parts = [bytes([i % 256]) * (i % 7 + 1) for i in range(2000)]  # more buffers than IOV_MAX
    frame = conn.call(p.Op.PING, {"hi": 1}, parts)
    assert frame.meta == {"n": sum(len(x) for x in parts), "hi": 1}
    assert bytes(frame.payload) == b"".join(parts)


def test_payload_lands_in_the_callers_buffers(server: tuple[Server, EchoHandler],
                                              conn: Connection) -> None:
    server[1].blobs = [b"a" * 1000, b"", b"b" * 300_000]
    dests = [memoryview(bytearray(1000)), memoryview(bytearray(8)), memoryview(bytearray(300_000))]
    frame = conn.call(p.Op.NODE_READ, {}, into=dests)
    assert frame.meta["sizes"] == [1000, -704, 300_000]
    assert bytes(dests[0]) == b"a" * 1000 and bytes(dests[2]) == b"b" * 300_000
    assert bytes(dests[1]) == bytes(8)
    assert frame.payload.nbytes == 0  # nothing was staged in a separate buffer


def test_too_small_destination_is_a_per_item_error(server: tuple[Server, EchoHandler],
                                                   conn: Connection) -> None:
    server[1].blobs = [b"x" * 50, b"y" * 10]
    dests = [memoryview(bytearray(10)), memoryview(bytearray(10))]
    frame = conn.call(p.Op.NODE_READ, {}, into=dests)
    assert isinstance(frame.item_errors[0], BufferTooSmall)
    assert bytes(dests[1]) == b"y" * 10 and bytes(dests[0]) == bytes(10)


def test_many_requests_in_flight_from_many_threads(conn: Connection) -> None:
    pending = [conn.submit(p.Op.PING, {"i": i}, [str(i).encode()]) for i in range(200)]
    answers = [conn.wait(rid, pend) for rid, pend in pending]
    assert [a.meta["i"] for a in answers] == list(range(200))
    assert all(bytes(a.payload) == str(a.meta["i"]).encode() for a in answers)

    failures: list[BaseException] = []

    def worker(t: int) -> None:
        try:
            for i in range(50):
                f = conn.call(p.Op.PING, {"t": t, "i": i}, [bytes([t]) * (i * 97)])
                assert f.meta["t"] == t and bytes(f.payload) == bytes([t]) * (i * 97)
        except BaseException as exc:  # noqa: BLE001
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_server_error_arrives_as_the_same_class(conn: Connection) -> None:
    with pytest.raises(ObjectNotFound, match="no such key"):
        conn.call(p.Op.REMOVE, {})
    with pytest.raises(ProtocolError):
        conn.call(p.Op.STATS, {})
    assert conn.call(p.Op.PING, {}).meta["n"] == 0  # the connection survives both


def test_every_call_times_out(server: tuple[Server, EchoHandler], conn: Connection) -> None:
    with pytest.raises(RpcTimeout):
        conn.call(p.Op.LOCATE, {}, timeout=0.2)
    server[1].release.set()
    # the late answer is dropped; the next call on the same connection works
    assert conn.call(p.Op.PING, {"after": 1}).meta["after"] == 1


def test_peer_closing_mid_frame_fails_waiting_calls() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def half_answer() -> None:
        s, _ = listener.accept()
        head = bytearray(p.HEADER_SIZE)
        recv_exact_into(s, memoryview(head))
        h = p.decode_header(head)
        recv_exact_into(s, memoryview(bytearray(h.meta_len + h.payload_len)))
        raw, _ = p.encode_header(opcode=1, request_id=h.request_id, meta=b"", payload=[b"x" * 100],
                                 response=True)
        s.sendall(raw + b"x" * 10)  # promise 100 payload bytes, send 10, vanish
        s.close()

    t = threading.Thread(target=half_answer)
    t.start()
    c = Connection(f"127.0.0.1:{port}", timeout=5.0)
    try:
        with pytest.raises(ConnectionLost):
            c.call(p.Op.PING, {})
        with pytest.raises(ConnectionLost):
            c.call(p.Op.PING, {})
    finally:
        c.close()
        t.join()
        listener.close()


def test_client_dropping_mid_frame_leaves_the_server_serving(
        server: tuple[Server, EchoHandler], conn: Connection) -> None:
    raw, _ = p.encode_header(opcode=p.Op.PING, request_id=1, meta=b"", payload=[b"z" * 1000])
    s = socket.create_connection(("127.0.0.1", server[0].port))
    s.sendall(raw + b"z" * 10)
    s.close()
    assert conn.call(p.Op.PING, {"still": True}).meta["still"] is True


def test_hung_client_is_cut_after_the_frame_timeout(server: tuple[Server, EchoHandler],
                                                    conn: Connection) -> None:
    s = socket.create_connection(("127.0.0.1", server[0].port))
    s.sendall(b"RS\x01")  # starts a frame, never finishes it
    assert conn.call(p.Op.PING, {"other": 1}).meta["other"] == 1  # others are not blocked
    s.settimeout(10)
    assert s.recv(1) == b""  # the server closed the hung connection (frame_timeout=1 s)
    s.close()


def test_corrupt_payload_is_answered_with_checksum_mismatch(
        server: tuple[Server, EchoHandler]) -> None:
    raw, _ = p.encode_header(opcode=p.Op.PING, request_id=9, meta=b"", payload=[b"good"])
    s = socket.create_connection(("127.0.0.1", server[0].port))
    s.sendall(raw + b"evil")
    head = bytearray(p.HEADER_SIZE)
    recv_exact_into(s, memoryview(head))
    h = p.decode_header(head)
    meta = bytearray(h.meta_len)
    recv_exact_into(s, memoryview(meta))
    assert h.request_id == 9 and h.status == ChecksumMismatch.code
    with pytest.raises(ChecksumMismatch):
        p.raise_for_status(h.status, p.decode_meta(meta, h.meta_crc))
    s.close()


def _read_request(listener: socket.socket, got: dict[str, Any]) -> None:
    """Accept one connection and keep its first frame: header, metadata, payload, trailer."""
    s, _ = listener.accept()
    head = bytearray(p.HEADER_SIZE)
    recv_exact_into(s, memoryview(head))
    h = p.decode_header(head)
    body = bytearray(h.meta_len + h.payload_len + 4)
    recv_exact_into(s, memoryview(body))
    parts = bytearray(16 * p.trailer_count(body[-4:], h.payload_len))
    recv_exact_into(s, memoryview(parts))
    got.update(header=h, payload=bytes(body[h.meta_len:-4]),
               parts=p.decode_parts(parts, h.payload_len))
    s.close()


def test_senders_hash_each_part_after_the_payload(server: tuple[Server, EchoHandler]) -> None:
    """A request's payload is followed by each buffer's size and xxh3_64 (FLAG_TRAILER), and
    so is the answer's: the sender hashes each piece as it sends it."""
    body = bytes(range(256)) * 3000  # more than one 256 KiB piece
    listener = socket.create_server(("127.0.0.1", 0))
    got: dict[str, Any] = {}
    t = threading.Thread(target=_read_request, args=(listener, got))
    t.start()
    c = Connection(f"127.0.0.1:{listener.getsockname()[1]}", timeout=5.0)
    try:
        with pytest.raises(ConnectionLost):
            c.call(p.Op.PING, {}, [body[:100_000], b"", memoryview(body)[100_000:]])
    finally:
        c.close()
        t.join()
        listener.close()
    h = got["header"]
    assert h.has_trailer and h.payload_hash == 0 and got["payload"] == body
    assert got["parts"] == [(100_000, p.payload_hash([body[:100_000]])),
                            (len(body) - 100_000, p.payload_hash([body[100_000:]]))]
    echo = Connection(server[0].address, timeout=5.0)  # parts laid out otherwise: still checked
    try:
        assert bytes(echo.call(p.Op.PING, {}, [body[:7], body[7:]]).payload) == body
    finally:
        echo.close()


def test_a_corrupt_part_fails_that_frame_only(server: tuple[Server, EchoHandler]) -> None:
    raw, _ = p.encode_header(opcode=p.Op.PING, request_id=5, meta=b"", payload=[b"good"],
                             trailer=True)
    s = socket.create_connection(("127.0.0.1", server[0].port))
    try:
        s.sendall(raw + b"good" + p.encode_trailer([(4, p.payload_hash([b"evil"]))]))
        head = bytearray(p.HEADER_SIZE)
        recv_exact_into(s, memoryview(head))
        h = p.decode_header(head)
        assert h.request_id == 5 and h.status == ChecksumMismatch.code
        recv_exact_into(s, memoryview(bytearray(h.meta_len)))
        raw, _ = p.encode_header(opcode=p.Op.PING, request_id=6, meta=b"", payload=[b"fine"],
                                 trailer=True)
        s.sendall(raw + b"fine" + p.encode_trailer([(4, p.payload_hash([b"fine"]))]))
        recv_exact_into(s, memoryview(head))  # the connection goes on
        h = p.decode_header(head)
        assert (h.request_id, h.status, h.payload_len) == (6, 0, 4)
    finally:
        s.close()


def test_a_trailer_that_does_not_add_up_ends_the_connection(
        server: tuple[Server, EchoHandler]) -> None:
    raw, _ = p.encode_header(opcode=p.Op.PING, request_id=5, meta=b"", payload=[b"good"],
                             trailer=True)
    s = socket.create_connection(("127.0.0.1", server[0].port))
    try:
        s.sendall(raw + b"good" + p.encode_trailer([(3, p.payload_hash([b"goo"]))]))
        head = bytearray(p.HEADER_SIZE)
        recv_exact_into(s, memoryview(head))
        h = p.decode_header(head)
        meta = bytearray(h.meta_len)
        recv_exact_into(s, memoryview(meta))
        assert h.status == ProtocolError.code
        assert "trailer" in p.decode_meta(meta, h.meta_crc)["error"]
        s.settimeout(5)
        assert s.recv(1) == b""  # the stream cannot be trusted any more
    finally:
        s.close()


def test_unreachable_server_is_connection_lost() -> None:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(ConnectionLost):
        Connection(f"127.0.0.1:{port}", timeout=2.0)


def test_corrupt_scattered_response_fails_only_that_call() -> None:
    """The client hashes a response while receiving it into the caller's buffers; a mismatch
    fails that call with ChecksumMismatch and the connection keeps working."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def answer_twice() -> None:
        s, _ = listener.accept()
        for corrupt in (True, False):
            head = bytearray(p.HEADER_SIZE)
            recv_exact_into(s, memoryview(head))
            h = p.decode_header(head)
            recv_exact_into(s, memoryview(bytearray(h.meta_len + h.payload_len)))
            meta = p.encode_meta({"sizes": [300_000]})
            body = b"q" * 300_000
            raw, _ = p.encode_header(opcode=h.opcode, request_id=h.request_id, meta=meta,
                                     payload=[body], response=True)
            s.sendall(raw + meta + (b"Q" + body[1:] if corrupt else body))
        s.close()

    t = threading.Thread(target=answer_twice)
    t.start()
    c = Connection(f"127.0.0.1:{port}", timeout=5.0)
    try:
        dest = bytearray(300_000)
        with pytest.raises(ChecksumMismatch):
            c.call(p.Op.NODE_READ, {}, into=[memoryview(dest)])
        assert c.call(p.Op.NODE_READ, {}, into=[memoryview(dest)]).meta["sizes"] == [300_000]
        assert bytes(dest) == b"q" * 300_000
    finally:
        c.close()
        t.join()
        listener.close()
