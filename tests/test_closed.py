"""Closed by default (issue 17, findings 1, 2 and 7): nodes prove the cluster key to join, a
live node's id cannot be taken over, grants bind id, size, purpose and expiry, a tenant's
STATS shows only its own usage, and the admin endpoint refuses every call without its token.

A real in-process master and node over loopback; the attacks are raw frames on real sockets.
"""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cluster_fixtures import ROOT
from pydantic import SecretStr

from reference_store.client import StoreClient
from reference_store.errors import AuthenticationFailed, InvalidParams, ObjectAlreadyExists
from reference_store.master import Master, MasterConfig
from reference_store.metrics import MetricsServer
from reference_store.node import Node, NodeConfig
from reference_store.tenants import ClusterKey, TenantPolicy
from reference_store.transport.protocol import Op
from reference_store.transport.tcp import Connection

KEY = "cluster-key-for-tests-0123456789"
MiB = 1 << 20


def _policy(admin: str | None = "admin-token") -> TenantPolicy:
    doc: dict[str, object] = {"version": 1, "tenants": [
        {"name": "alice", "token": "alice-token", "quota": "3MiB"},
        {"name": "bob", "token": "bob-token"}]}
    if admin:
        doc["admin_token"] = admin
    return TenantPolicy.from_dict(doc, env={})


@dataclass
class Closed:
    master: Master
    address: str
    node: Node
    http: MetricsServer

    def client(self, tenant: str) -> StoreClient:
        return StoreClient(self.address, tenant=tenant, token=f"{tenant}-token", timeout=10.0,
                           data_path="tcp")


@pytest.fixture
def closed() -> Iterator[Closed]:
    master = Master(MasterConfig(node_ttl_s=30.0), _policy(), ClusterKey(KEY.encode()))
    server = master.serve()
    node = Node(NodeConfig(master=server.address, memory_bytes=8 * MiB, prefault=False,
                           heartbeat_s=0.2, freeze_gc=False, cluster_key=SecretStr(KEY)))
    node.serve()
    http = MetricsServer(master).start()
    try:
        node.wait_registered(10.0)
        yield Closed(master, server.address, node, http)
    finally:
        http.stop()
        node.stop()
        master.stop()


def _register(conn: Connection, node_id: str, key: ClusterKey, *, address: str) -> None:
    nonce = conn.call(Op.NODE_CHALLENGE, {}).meta["nonce"]
    conn.call(Op.NODE_REGISTER, {"node_id": node_id, "address": address, "capacity": 1 << 40,
                                 "objects": [], "proof": key.proof(f"register:{nonce}:{node_id}")})


# ------------------------------------------------------------------------------ membership


def test_tenants_without_a_cluster_key_refuse_to_start(tmp_path: Path) -> None:
    with pytest.raises(InvalidParams, match="no cluster key"):
        Master(MasterConfig(), _policy())
    path = tmp_path / "tenants.yaml"
    path.write_text("version: 1\ntenants:\n  - name: alice\n    token: a\n")
    done = subprocess.run([sys.executable, "-m", "reference_store", "master", "--port", "0",
                           "--tenants", str(path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "reference-store master: error: tenants are configured but no cluster key: without one "
        "any process could join as a storage node; set cluster_key_env in the tenants file "
        "(or --cluster-key-file)"]


def test_open_mode_warns_loudly(caplog: pytest.LogCaptureFixture) -> None:
    master = Master(MasterConfig())
    with caplog.at_level(logging.WARNING, logger="reference_store.master"):
        master.serve()
    master.stop()
    assert any("OPEN MODE" in r.getMessage() and r.levelno == logging.WARNING
               for r in caplog.records)


def test_a_fake_node_cannot_register_nor_be_given_objects(closed: Closed) -> None:
    fake = Connection(closed.address, timeout=5.0)
    try:
        with pytest.raises(AuthenticationFailed):  # no challenge, no proof
            fake.call(Op.NODE_REGISTER, {"node_id": "fake", "address": closed.node.address,
                                         "capacity": 1 << 40, "objects": []})
        with pytest.raises(AuthenticationFailed):  # a proof made with another key
            _register(fake, "fake", ClusterKey(b"not-the-cluster-key-000"),
                      address=closed.node.address)
        nonce = fake.call(Op.NODE_CHALLENGE, {}).meta["nonce"]
        good_for_old = ClusterKey(KEY.encode()).proof(f"register:{nonce}:fake")
        fake.call(Op.NODE_CHALLENGE, {})  # a new nonce: the old proof is spent
        with pytest.raises(AuthenticationFailed):
            fake.call(Op.NODE_REGISTER, {"node_id": "fake", "address": closed.node.address,
                                         "capacity": 1 << 40, "objects": [],
                                         "proof": good_for_old})
    finally:
        fake.close()
    with closed.client("alice") as alice:
        assert alice.stats()["node_count"] == 1
        for i in range(5):  # every put lands on the real node
            alice.put(f"k{i}", b"alice|%d" % i)
        assert [alice.get(f"k{i}") for i in range(5)] == [b"alice|%d" % i for i in range(5)]
    assert len(closed.node._report()) == 5


def test_a_live_node_id_cannot_be_taken_over(closed: Closed) -> None:
    with closed.client("bob") as bob:
        bob.put("precious", b"bob's bytes")
        # even a holder of the key (a misconfigured second node) cannot take the live id
        thief = Connection(closed.address, timeout=5.0)
        try:
            with pytest.raises(ObjectAlreadyExists, match="registered and alive"):
                _register(thief, closed.node.node_id, ClusterKey(KEY.encode()),
                          address=closed.node.address)
            # nor keep it alive from another connection
            beat = thief.call(Op.NODE_HEARTBEAT, {"node_id": closed.node.node_id})
            assert beat.meta["known"] is False
            with pytest.raises(AuthenticationFailed):
                thief.call(Op.NODE_LEAVE, {"node_id": closed.node.node_id})
        finally:
            thief.close()
        assert bob.get("precious") == b"bob's bytes"
        assert bob.stats()["node_count"] == 1


# ------------------------------------------------------------------------------ grants


def test_a_grant_binds_id_size_purpose_and_expiry() -> None:
    key = ClusterKey(KEY.encode())
    now = 1_000_000.0
    grant = key.grant(7, size=100, purpose="write", ttl_s=30, now=now)
    assert key.check(7, grant, size=100, purpose="write", now=now + 29)
    assert not key.check(8, grant, size=100, purpose="write", now=now)        # another id
    assert not key.check(7, grant, size=101, purpose="write", now=now)        # another size
    assert not key.check(7, grant, size=100, purpose="read", now=now)         # another purpose
    assert not key.check(7, grant, size=100, purpose="write", now=now + 60)   # expired
    assert not key.check(7, grant.replace(".", ".0", 1)[:-1], size=100, purpose="write", now=now)
    assert not key.check(7, "9" * 13 + grant[13:], size=100, purpose="write", now=now)
    for junk in (None, "", "x.y", 5, "1.2.3"):
        assert not key.check(7, junk, size=100, purpose="write", now=now)
    assert ClusterKey(None).check(7, None, size=1, purpose="write")  # the open mode


def test_an_oversized_write_under_a_grant_is_refused(closed: Closed) -> None:
    master = Connection(closed.address, timeout=5.0)
    node = Connection(closed.node.address, timeout=5.0)
    try:
        master.call(Op.HELLO, {"tenant": "alice", "token": "alice-token"})
        start = master.call(Op.PUT_START, {"keys": ["tiny"], "sizes": [1]}).meta["results"][0]
        rec = {"object_id": start["object_id"], "ns": start["ns"], "tenant": "alice",
               "key": "tiny", "grant": start["grant"]}
        big = 4 * MiB  # more than alice's whole quota
        streamed = node.call(Op.NODE_WRITE, {"objects": [{**rec, "size": big}]},
                             [bytes(big)])
        assert streamed.meta["codes"] == [AuthenticationFailed.code]
        reserved = node.call(Op.NODE_RESERVE, {"objects": [{**rec, "size": big}]})
        assert reserved.meta["codes"] == [AuthenticationFailed.code]
        # a read grant is no write grant either
        assert node.call(Op.NODE_WRITE, {"objects": [{**rec, "size": 1, "grant": ClusterKey(
            KEY.encode()).grant(start["object_id"], size=1, purpose="read", ttl_s=30)}]},
            [b"x"]).meta["codes"] == [AuthenticationFailed.code]
        # the granted size goes through
        assert node.call(Op.NODE_WRITE, {"objects": [{**rec, "size": 1}]},
                         [b"x"]).meta["codes"] == [0]
        assert master.call(Op.PUT_END, {"keys": ["tiny"]}).meta["codes"] == [0]
    finally:
        node.close()
        master.close()
    with closed.client("alice") as alice:
        assert alice.get("tiny") == b"x"
        assert alice.stats()["tenants"]["alice"]["usage"] == 1


def test_node_reads_lists_and_deletes_need_a_grant_or_the_key(closed: Closed) -> None:
    with closed.client("alice") as alice:
        alice.put("mine", b"alice's")
        oid = alice._reads.locate(["mine"], lease=False)[0].object_id  # type: ignore[union-attr]
    node = Connection(closed.node.address, timeout=5.0)
    try:
        reply = node.call(Op.NODE_READ, {"ids": [oid], "sizes": [7], "grants": [""]},
                          into=[memoryview(bytearray(7))])
        assert reply.meta["sizes"] == [AuthenticationFailed.code]
        with pytest.raises(AuthenticationFailed):
            node.call(Op.NODE_LIST, {})
        with pytest.raises(AuthenticationFailed):
            node.call(Op.NODE_DELETE, {"ids": [oid], "grants": [""]})
    finally:
        node.close()


def test_stats_shows_a_tenant_only_its_own_usage(closed: Closed) -> None:
    with closed.client("alice") as alice, closed.client("bob") as bob:
        alice.put("a", b"12345")
        stats = bob.stats()
        assert stats["tenants"] == {"bob": {"quota": None, "usage": 0}}
        assert "nodes" not in stats and stats["node_count"] == 1
        assert closed.node.node_id not in json.dumps(stats)
        assert alice.stats()["tenants"] == {"alice": {"quota": 3 * MiB, "usage": 5}}


# ------------------------------------------------------------------------------ admin


def _http(port: int, method: str, path: str, token: str | None) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    if token is not None:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


CALLS = [("GET", "/api/v1/tenant_quotas"), ("GET", "/api/v1/tenant_quotas?tenant_id=alice"),
         ("PUT", "/api/v1/tenant_quotas?tenant_id=alice&quota=1"),
         ("DELETE", "/api/v1/tenant_quotas?tenant_id=bob")]


def test_admin_endpoint_without_a_token_refuses_every_call() -> None:
    master = Master(MasterConfig(), _policy(admin=None), ClusterKey(KEY.encode()))
    http = MetricsServer(master).start()
    try:
        for method, path in CALLS:
            for token in (None, "", "anything"):
                assert _http(http.port, method, path, token) == 403, (method, path, token)
        assert master.tenants.quota_of("alice")["quota"] == 3 * MiB  # nothing changed
        assert _http(http.port, "GET", "/metrics", None) == 200  # read-only metrics stay
    finally:
        http.stop()
        master.stop()


def test_every_admin_call_needs_the_token_reads_included(closed: Closed) -> None:
    for method, path in CALLS:
        assert _http(closed.http.port, method, path, None) == 403, (method, path)
        assert _http(closed.http.port, method, path, "admin-tokeN") == 403, (method, path)
    assert closed.master.tenants.quota_of("alice")["quota"] == 3 * MiB
    assert _http(closed.http.port, "GET", CALLS[0][1], "admin-token") == 200
    assert _http(closed.http.port, "PUT", CALLS[2][1], "admin-token") == 200
    assert closed.master.tenants.quota_of("alice")["quota"] == 1


def test_the_http_server_drops_a_request_that_never_finishes() -> None:
    master = Master(MasterConfig())
    http = MetricsServer(master, timeout=0.5).start()
    try:
        with socket.create_connection(("127.0.0.1", http.port), timeout=10) as sock:
            sock.sendall(b"GET /metr")  # and nothing more
            started = time.monotonic()
            assert sock.recv(1024) == b""  # closed by the server
            assert time.monotonic() - started < 5
        assert _http(http.port, "GET", "/health", None) == 200
    finally:
        http.stop()
        master.stop()


def test_listeners_bind_loopback_unless_told_otherwise() -> None:
    from reference_store.cli import build_parser

    parser = build_parser()
    for command in (["master", "--port", "0"], ["node", "--master", "h:1", "--memory", "1MiB"]):
        assert parser.parse_args(command).host == "127.0.0.1"
    assert MasterConfig().host == "127.0.0.1" and NodeConfig(
        master="h:1", memory_bytes=1).host == "127.0.0.1"


def test_batch_errors_keep_their_class_code_and_key(closed: Closed) -> None:
    from reference_store.errors import ObjectNotFound, TenantQuotaExceeded

    with closed.client("alice") as alice:
        alice.put("here", b"1")
        got = alice.batch_get_into(["here", "gone"], [bytearray(1), bytearray(1)])
        assert got[0] == 1 and isinstance(got[1], ObjectNotFound)
        assert got[1].code == -704 and "'gone'" in str(got[1])
        errors = alice.batch_put(["fits", "huge"], [b"1", bytes(4 * MiB)])  # quota: 3 MiB
        assert errors[0] is None and isinstance(errors[1], TenantQuotaExceeded)
        assert errors[1].code == -1700 and "'huge'" in str(errors[1])


def test_the_admin_endpoint_stays_on_loopback_when_the_master_listens_elsewhere() -> None:
    """``--host`` moves the master's RPC port; the metrics/admin HTTP server stays on 127.0.0.1
    unless ``--metrics-host`` says otherwise."""
    from cluster_fixtures import start_master

    master = start_master("--host", "127.0.0.2")
    try:
        port = int(master.ready[4])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as reply:
            assert reply.status == 200
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.2", port), timeout=2).close()
    finally:
        master.stop()
