"""A frame fuzzer against a real master and node: truncated, oversized, garbage and wrong-version
frames, and well-formed frames with random opcodes and metadata. The servers must stay up, and
whatever they answer must be a well-formed response frame (an error for anything malformed)."""

from __future__ import annotations

import json
import socket
import zlib
from collections.abc import Iterator

import pytest
from cluster_fixtures import Cluster, cluster
from hypothesis import given
from hypothesis import strategies as st

from reference_store.transport import protocol as p
from reference_store.transport.tcp import Connection

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)
meta_objects = st.dictionaries(
    st.sampled_from(["keys", "sizes", "ids", "objects", "tenant", "token", "node_id", "address",
                     "capacity", "force", "lease", "replicas", "pin", "grants", "abort", "x"]),
    json_values, max_size=5)


@st.composite
def well_formed(draw: st.DrawFn) -> bytes:
    meta = json.dumps(draw(meta_objects)).encode()
    payload = draw(st.binary(max_size=64))
    op = draw(st.sampled_from([int(o) for o in p.Op]) | st.integers(0, 0xFFFF))
    raw, _ = p.encode_header(opcode=op, request_id=draw(st.integers(0, 2**64 - 1)), meta=meta,
                             payload=[payload], response=draw(st.booleans()))
    return raw + meta + payload


@st.composite
def broken(draw: st.DrawFn) -> bytes:
    frame = draw(well_formed())
    kind = draw(st.sampled_from(["truncate", "version", "magic", "oversize", "garbage",
                                 "flip", "meta_crc"]))
    if kind == "truncate":
        return frame[:draw(st.integers(0, len(frame) - 1))]
    if kind == "version":
        return frame[:2] + bytes([draw(st.integers(2, 255))]) + frame[3:]
    if kind == "magic":
        return b"XY" + frame[2:]
    if kind == "oversize":
        return p.HEADER.pack(p.MAGIC, p.VERSION, 0, 1, 0, 1, p.MAX_META_BYTES + 1, 1 << 40, 0, 0)
    if kind == "garbage":
        return draw(st.binary(min_size=1, max_size=200))
    if kind == "meta_crc":
        meta = b"not json at all"
        return p.HEADER.pack(p.MAGIC, p.VERSION, 0, 1, 0, 5, len(meta), 0, zlib.crc32(meta), 0) + meta
    i = draw(st.integers(p.HEADER_SIZE, len(frame) - 1)) if len(frame) > p.HEADER_SIZE else 0
    return frame[:i] + bytes([frame[i] ^ 0xFF]) + frame[i + 1:]


@pytest.fixture(scope="module")
def target() -> Iterator[Cluster]:
    with cluster(nodes=1, memory="8MiB", master_args=("--frame-timeout", "2"),
                 node_args=("--frame-timeout", "2")) as c:
        c.wait_nodes(1)
        yield c


def _read_responses(sock: socket.socket) -> list[tuple[p.Header, dict[str, object]]]:
    """Read frames until the server closes the connection; each must be a valid response."""
    data = b""
    sock.settimeout(10)
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    frames = []
    while data:
        header = p.decode_header(data[:p.HEADER_SIZE])
        assert header.is_response
        meta_end = p.HEADER_SIZE + header.meta_len
        meta = p.decode_meta(data[p.HEADER_SIZE:meta_end], header.meta_crc)
        data = data[meta_end + header.payload_len:]
        if header.has_trailer:
            count = p.trailer_count(data[:4], header.payload_len)
            p.decode_parts(data[4:4 + 16 * count], header.payload_len)
            data = data[4 + 16 * count:]
        frames.append((header, meta))
    return frames


def _send(address: str, blob: bytes) -> list[tuple[p.Header, dict[str, object]]]:
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(blob)
        sock.shutdown(socket.SHUT_WR)  # EOF: a truncated frame cannot keep the server waiting
        return _read_responses(sock)


def _still_up(address: str) -> None:
    conn = Connection(address, timeout=10.0)
    try:
        assert conn.call(p.Op.PING, {}).meta["ok"] is True
    finally:
        conn.close()


@given(blob=broken())
def test_malformed_frames_get_errors_and_servers_stay_up(target: Cluster, blob: bytes) -> None:
    for address in (target.address, target.nodes[0].address):
        for header, meta in _send(address, blob):
            if header.status == 0:  # only a frame that happened to stay valid may succeed
                assert "error" not in meta
            else:
                assert isinstance(meta.get("error"), str)
        _still_up(address)


@given(blob=well_formed())
def test_random_well_formed_requests_are_answered(target: Cluster, blob: bytes) -> None:
    for address in (target.address, target.nodes[0].address):
        answers = _send(address, blob)
        assert len(answers) == 1  # exactly one answer, success or a named error
        header, meta = answers[0]
        assert header.status == 0 or isinstance(meta.get("error"), str)
        _still_up(address)


# the one-sided node operations with metadata of the right shape and random contents
_records = st.lists(st.fixed_dictionaries(
    {"object_id": st.integers(-5, 2**40) | st.text(max_size=4) | st.none(),
     "size": st.integers(-5, 1 << 22) | st.text(max_size=4),
     "grant": st.text(max_size=8) | st.none()},
    optional={"tenant": st.text(max_size=4), "ns": st.text(max_size=4),
              "key": st.text(max_size=8), "pin": json_values}), max_size=4)
_ids = st.lists(st.integers(-5, 2**40) | st.text(max_size=4), max_size=4) | json_values
one_sided = st.one_of(
    st.tuples(st.just(p.Op.NODE_RESERVE), st.fixed_dictionaries({"objects": _records})),
    st.tuples(st.just(p.Op.NODE_COMMIT), st.fixed_dictionaries({"ids": _ids, "abort": _ids})),
    st.tuples(st.just(p.Op.NODE_PIN), st.fixed_dictionaries(
        {"ids": _ids, "sizes": _ids, "grants": st.lists(st.text(max_size=8), max_size=4)})),
    st.tuples(st.just(p.Op.NODE_UNPIN), st.fixed_dictionaries({"ids": _ids})),
    st.tuples(st.just(p.Op.NODE_SEGMENTS), meta_objects))


@given(requests=st.lists(one_sided, min_size=1, max_size=6))
def test_one_sided_node_ops_answer_anything(target: Cluster,
                                            requests: list[tuple[p.Op, dict[str, object]]]) -> None:
    """Random reserve/commit/pin/unpin sequences on one connection: every call is answered
    (a result or a named error), and closing the connection leaves the node serving."""
    conn = Connection(target.nodes[0].address, timeout=10.0)
    try:
        for op, meta in requests:
            try:
                reply = conn.call(op, meta).meta
            except p.StoreError as exc:
                assert str(exc)
            else:
                assert isinstance(reply, dict)
    finally:
        conn.close()
    _still_up(target.nodes[0].address)
