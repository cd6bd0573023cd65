"""``reference-store fsck`` / ``GET /api/v1/fsck``: the master's object table against what every
node holds. A real in-process master and node; the inconsistencies are made over the wire with
valid grants, as a buggy node or a lost delete would leave them."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from cluster_fixtures import ROOT
from pydantic import SecretStr

from reference_store.client import StoreClient
from reference_store.master import Master, MasterConfig
from reference_store.metrics import MetricsServer
from reference_store.node import Node, NodeConfig
from reference_store.tenants import ClusterKey, TenantPolicy
from reference_store.transport.protocol import Op
from reference_store.transport.tcp import Connection

KEY = "fsck-test-cluster-key-0123456789"
ADMIN = "fsck-admin-token"


@pytest.fixture
def parts() -> Iterator[tuple[Master, Node, MetricsServer]]:
    policy = TenantPolicy.from_dict({"version": 1, "admin_token": ADMIN, "tenants": [
        {"name": "alice", "token": "alice-token"}]}, env={})
    master = Master(MasterConfig(node_ttl_s=30.0), policy, ClusterKey(KEY.encode()))
    server = master.serve()
    node = Node(NodeConfig(master=server.address, memory_bytes=8 << 20, prefault=False,
                           freeze_gc=False, heartbeat_s=0.2, cluster_key=SecretStr(KEY)))
    node.serve()
    http = MetricsServer(master).start()
    try:
        node.wait_registered(10.0)
        yield master, node, http
    finally:
        http.stop()
        node.stop()
        master.stop()


def _fsck_cli(port: int, token: str = ADMIN) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, STORE_ADMIN_TOKEN=token)
    return subprocess.run([sys.executable, "-m", "reference_store", "fsck", "--metrics",
                           f"127.0.0.1:{port}"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)


def test_fsck_finds_missing_and_orphaned_objects(
        parts: tuple[Master, Node, MetricsServer]) -> None:
    master, node, http = parts
    key = ClusterKey(KEY.encode())
    with StoreClient(master._server.address if master._server else "", tenant="alice",
                     token="alice-token", data_path="tcp") as alice:
        for i in range(5):
            alice.put(f"k{i}", b"v%d" % i)
        located = alice._reads.locate(["k2"], lease=False)[0]
    report = master.fsck()
    assert report["ok"] and report["objects"] == 5 and report["nodes"] == 1
    done = _fsck_cli(http.port)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == ("1 node(s), 5 object(s): 0 missing, 0 orphaned, "
                                           "0 node(s) unreachable")

    oid = located.object_id  # type: ignore[union-attr]
    conn = Connection(node.address, timeout=5.0)
    try:  # a delete the master never made, and a write it never granted through a put
        conn.call(Op.NODE_DELETE, {"ids": [oid], "grants": [
            key.grant(oid, size=0, purpose="delete", ttl_s=30)]})
        stray = 1 << 62
        assert conn.call(Op.NODE_WRITE, {"objects": [{
            "object_id": stray, "ns": "alice", "tenant": "alice", "key": "stray", "size": 3,
            "grant": key.grant(stray, size=3, purpose="write", ttl_s=30)}]},
            [b"abc"]).meta["codes"] == [0]
    finally:
        conn.close()
    report = master.fsck()
    assert not report["ok"]
    assert report["missing"] == [{"node": node.node_id, "object_id": oid, "key": "k2"}]
    assert report["orphans"] == [{"node": node.node_id, "object_id": stray}]
    done = _fsck_cli(http.port)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "1 node(s), 5 object(s): 1 missing, 1 orphaned, 0 node(s) unreachable",
        f"missing  node {node.node_id}  object {oid}  key 'k2'",
        f"orphan   node {node.node_id}  object {stray}"]


def test_fsck_needs_the_admin_token(parts: tuple[Master, Node, MetricsServer]) -> None:
    done = _fsck_cli(parts[2].port, token="wrong")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "reference-store fsck: error: the master refused fsck (403): admin token missing or "
        "wrong"]
