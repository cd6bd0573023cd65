"""Typed messages: every operation has one, bad frames are refused once at the boundary with the
field named, a handler's own bug is an internal error, and batch errors keep code, message and
key. Master and node run in this process on real loopback sockets."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from reference_store.client import StoreClient
from reference_store.errors import (
    InvalidParams,
    ObjectNotFound,
    ProtocolError,
    StoreError,
)
from reference_store.master import Master, MasterConfig
from reference_store.node import Node, NodeConfig
from reference_store.transport import messages as m
from reference_store.transport.protocol import Op, decode_meta, encode_meta
from reference_store.transport.tcp import Connection

MiB = 1 << 20


@pytest.fixture
def master() -> Iterator[Master]:
    mst = Master(MasterConfig(node_ttl_s=5.0))
    mst.serve()
    try:
        yield mst
    finally:
        mst.stop()


@pytest.fixture
def node(master: Master) -> Iterator[Node]:
    assert master._server is not None
    n = Node(NodeConfig(master=master._server.address, memory_bytes=8 * MiB, prefault=False,
                        heartbeat_s=0.2, freeze_gc=False))
    n.serve()
    try:
        n.wait_registered(10.0)
        yield n
    finally:
        n.stop()


def _address(server_owner: Master | Node) -> str:
    assert server_owner._server is not None
    return server_owner._server.address


def test_every_opcode_has_a_request_type() -> None:
    assert set(m.REQUESTS) == set(Op)
    for op, cls in m.REQUESTS.items():
        assert cls.op == op


def test_a_message_survives_the_wire_encoding() -> None:
    reply = m.PutStartReply(results=[m.PutSlot(object_id=7, nodes=["h:1"], grant="g"),
                                     m.PutSlot(code=-600, error="bad")])
    raw = encode_meta(reply)
    import zlib

    assert m.decode(m.PutStartReply, decode_meta(raw, zlib.crc32(raw))) == reply


@pytest.mark.parametrize(("op", "meta", "field"), [
    (Op.PUT_START, {"keys": ["k"], "sizes": ["5"]}, "sizes/0"),
    (Op.PUT_START, {"keys": ["k"], "sizes": [5], "replica": 2}, "replica"),
    (Op.LOCATE, {"keys": "k"}, "keys"),
    (Op.REMOVE, {"keys": ["k"], "force": 1}, "force"),
    (Op.HELLO, {"tenant": 3}, "tenant"),
])
def test_bad_master_frame_gets_one_error_naming_the_field(master: Master, op: Op,
                                                          meta: dict[str, Any],
                                                          field: str) -> None:
    conn = Connection(_address(master), timeout=5.0)
    try:
        if op != Op.HELLO:
            conn.call(Op.HELLO, {"tenant": "default"})
        with pytest.raises(InvalidParams, match=f"field {field}:"):
            conn.call(op, meta)
        assert conn.call(Op.PING, {}).meta["ok"]  # and the connection still serves
    finally:
        conn.close()


def test_bad_node_frame_gets_one_error_naming_the_field(node: Node) -> None:
    conn = Connection(_address(node), timeout=5.0)
    try:
        with pytest.raises(InvalidParams, match="field objects/0/object_id:"):
            conn.call(Op.NODE_RESERVE, {"objects": [{"object_id": "1", "tenant": "t", "ns": "",
                                                     "key": "k", "size": 1}]})
        with pytest.raises(InvalidParams, match="ids, sizes and grants"):
            conn.call(Op.NODE_READ, {"ids": [1, 2], "sizes": [3]})
    finally:
        conn.close()


def test_opcode_a_role_does_not_serve_is_a_protocol_error(master: Master, node: Node) -> None:
    for owner, op in ((master, Op.NODE_WRITE), (node, Op.PUT_START)):
        conn = Connection(_address(owner), timeout=5.0)
        try:
            with pytest.raises(ProtocolError, match="opcode"):
                conn.call(op, {})
        finally:
            conn.close()


def test_a_master_handler_bug_is_an_internal_error_not_the_callers_fault(
        master: Master, monkeypatch: pytest.MonkeyPatch) -> None:
    table: dict[str, Any] = {}

    def broken(name: str, token: object) -> Any:
        return table["no such entry"]  # a KeyError inside the handler: a bug, not bad input

    monkeypatch.setattr(master.tenants, "authenticate", broken)
    conn = Connection(_address(master), timeout=5.0)
    try:
        with pytest.raises(StoreError) as caught:
            conn.call(Op.HELLO, {"tenant": "default"})
        assert type(caught.value) is StoreError and caught.value.code == -1
        assert "internal error: KeyError" in str(caught.value)
    finally:
        conn.close()


def test_a_node_handler_bug_is_an_internal_error_not_the_callers_fault(
        node: Node, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> bool:
        raise TypeError("a bug in the grant check")

    monkeypatch.setattr(node.key, "check", broken)
    conn = Connection(_address(node), timeout=5.0)
    try:
        with pytest.raises(StoreError) as caught:
            conn.call(Op.NODE_READ, {"ids": [1], "sizes": [1], "grants": [""]})
        assert type(caught.value) is StoreError and "internal error: TypeError" in str(caught.value)
    finally:
        conn.close()


def test_batch_errors_keep_code_message_and_key(master: Master, node: Node) -> None:
    with StoreClient(_address(master), timeout=5.0) as client:
        client.put("here", b"x")
        got = client.batch_get_into(["here", "nowhere"], [bytearray(4), bytearray(4)])
        assert got[0] == 1
        assert isinstance(got[1], ObjectNotFound) and "'nowhere'" in str(got[1])
        errors = client.batch_remove(["gone", "here", "absent"], force=True)  # "here" is leased
        assert errors[1] is None
        for err, key in ((errors[0], "gone"), (errors[2], "absent")):
            assert isinstance(err, ObjectNotFound) and err.code == -704
            assert f"'{key}'" in str(err) and "no object" in str(err)


def test_stats_is_a_plain_dict_without_nodes_outside_the_open_mode(master: Master,
                                                                    node: Node) -> None:
    with StoreClient(_address(master), timeout=5.0) as client:
        stats = client.stats()
    assert stats["node_count"] == 1 and set(stats["nodes"]) == {node.node_id}
    assert stats["tenants"]["default"]["usage"] == 0
