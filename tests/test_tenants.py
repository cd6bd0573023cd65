"""Tenants: the policy file, tokens, isolation and quotas (unit and on a real cluster)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster_fixtures import Cluster, cluster, wait_until

from reference_store.client import StoreClient
from reference_store.errors import (
    AuthenticationFailed,
    InvalidParams,
    ObjectNotFound,
    TenantNotRegistered,
    TenantQuotaExceeded,
)
from reference_store.tenants import TenantPolicy, format_size, parse_size

MiB = 1 << 20
TOKENS = {"ALICE_TOKEN": "alice-secret-7f3a", "BOB_TOKEN": "bob-secret-99c1",
          "ADMIN_TOKEN": "admin-secret-0b2e"}


def _key_file(tmp: Path) -> Path:
    path = tmp / "cluster.key"
    path.write_text("k" * 32)
    return path


def _policy_file(tmp: Path, isolation: str = "strict") -> Path:
    path = tmp / "tenants.yaml"
    path.write_text(f"""version: 1
isolation: {isolation}
admin_token_env: ADMIN_TOKEN
cluster_key_file: {_key_file(tmp)}
tenants:
  - name: alice
    quota: 3MiB
    token_env: ALICE_TOKEN
  - name: bob
    quota: 200GB
    token_env: BOB_TOKEN
""")
    return path


# ------------------------------------------------------------------------------ unit


@pytest.mark.parametrize("text, expected", [
    (1024, 1024), ("200GB", 200 * 10**9), ("2GiB", 2 << 30), ("1.5MiB", 3 << 19), ("7", 7),
    ("64 KiB", 64 << 10),
])
def test_parse_size(text: int | str, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["lots", "-1GB", "1.5XB", -3, True, "3M"])
def test_parse_size_rejects_with_the_field_name(bad: object) -> None:
    with pytest.raises(InvalidParams, match="quota"):
        parse_size(bad, field="quota")  # type: ignore[arg-type]


def test_format_size() -> None:
    assert format_size(3 << 30) == "3GiB" and format_size(12) == "12B"


@pytest.mark.parametrize("doc, where", [
    ({"version": 2, "tenants": []}, "/version"),
    ({"version": 1, "tenants": []}, "/tenants"),
    ({"version": 1, "isolation": "maybe", "tenants": [{}]}, "/isolation"),
    ({"version": 1, "tenants": [{"name": "a", "token": "t", "quota": "x"}]}, "/tenants/0/quota"),
    ({"version": 1, "tenants": [{"name": "a"}]}, "/tenants/0"),
    ({"version": 1, "tenants": [{"name": "a", "token_env": "NOPE_UNSET"}]}, "token_env"),
    ({"version": 1, "tenants": [{"name": "a", "token": "t"}, {"name": "a", "token": "u"}]},
     "repeated"),
])
def test_bad_policy_names_the_field(doc: dict[str, object], where: str) -> None:
    with pytest.raises(InvalidParams, match=where):
        TenantPolicy.from_dict(doc, env={})


def test_tokens_from_env_file_and_literal(tmp_path: Path) -> None:
    token_file = tmp_path / "c.token"
    token_file.write_text("carol-token\n")
    policy = TenantPolicy.from_dict({"version": 1, "tenants": [
        {"name": "a", "token_env": "A_TOK"}, {"name": "b", "token": "bee"},
        {"name": "c", "token_file": str(token_file), "quota": "1GB"}]}, env={"A_TOK": "ay"})
    assert policy.authenticate("a", "ay").name == "a"
    assert policy.authenticate("b", "bee").name == "b"
    assert policy.authenticate("c", "carol-token").quota == 10**9
    with pytest.raises(AuthenticationFailed):
        policy.authenticate("a", "wrong")
    with pytest.raises(AuthenticationFailed):
        policy.authenticate("a", None)
    with pytest.raises(TenantNotRegistered):
        policy.authenticate("zed", "ay")
    assert "ay" not in repr(policy.get("a")) and "bee" not in repr(policy.get("b"))


def test_open_policy_is_one_namespace_without_tokens() -> None:
    policy = TenantPolicy.open_policy()
    assert policy.authenticate("anyone", None).name == "default"
    assert policy.namespace("default") == "" and policy.room("default") is None


# ------------------------------------------------------------------------------ cluster


@pytest.fixture(scope="module")
def tc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    tmp = tmp_path_factory.mktemp("tenants")
    with cluster(nodes=2, memory="16MiB", env=TOKENS, log_level="DEBUG", master_args=(
            "--lease-ttl", "1", "--tenants", str(_policy_file(tmp)), "--state-dir", str(tmp / "state")),
            node_args=("--cluster-key-file", str(_key_file(tmp)))) as c:
        c.wait_nodes(2, c.client(tenant="bob", token=TOKENS["BOB_TOKEN"]))
        yield c


@pytest.fixture
def alice(tc: Cluster) -> Iterator[StoreClient]:
    c = tc.client(tenant="alice", token=TOKENS["ALICE_TOKEN"])
    c.remove_all(force=True)
    yield c


@pytest.fixture
def bob(tc: Cluster) -> Iterator[StoreClient]:
    c = tc.client(tenant="bob", token=TOKENS["BOB_TOKEN"])
    c.remove_all(force=True)
    yield c


def _admin_put(port: int, query: str, token: str | None,
               method: str = "PUT") -> tuple[int, dict[str, object]]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/tenant_quotas?{query}",
                                 method=method)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_connect_refuses_wrong_missing_and_unregistered(tc: Cluster) -> None:
    with pytest.raises(AuthenticationFailed):
        StoreClient(tc.address, tenant="alice", token="wrong")
    with pytest.raises(AuthenticationFailed):
        StoreClient(tc.address, tenant="alice")
    with pytest.raises(TenantNotRegistered):  # at connect, not at the first put
        StoreClient(tc.address, tenant="mallory", token="x")


def test_same_key_in_two_tenants_is_two_objects(alice: StoreClient, bob: StoreClient) -> None:
    alice.put("shared-name", b"alice's")
    bob.put("shared-name", b"bob's value")
    assert alice.get("shared-name") == b"alice's" and bob.get("shared-name") == b"bob's value"
    alice.put("only-alice", b"a")
    assert not bob.exists("only-alice")
    with pytest.raises(ObjectNotFound):
        bob.get("only-alice")
    with pytest.raises(ObjectNotFound):
        bob.remove("only-alice")
    assert alice.keys() == ["only-alice", "shared-name"] and bob.keys() == ["shared-name"]
    wait_until(lambda: bob.remove_all() == 1, what="bob's lease end")
    assert alice.keys() == ["only-alice", "shared-name"]


def test_quota_evicts_own_objects_first_then_refuses(alice: StoreClient, bob: StoreClient) -> None:
    bob.put("bob-1", b"b" * MiB)
    value = b"a" * MiB
    for i in range(3):
        alice.put(f"q{i}", value)
    alice.put("q3", value)  # over 3 MiB: alice's oldest goes, never bob's
    assert alice.batch_exists(["q0", "q1", "q2", "q3"]) == [False, True, True, True]
    assert bob.exists("bob-1")
    buf = bytearray(MiB)
    assert alice.batch_get_into(["q1", "q2", "q3"], [buf, bytearray(MiB), bytearray(MiB)]) == [MiB] * 3
    with pytest.raises(TenantQuotaExceeded):  # everything of alice's is leased now
        alice.put("q4", value)
    with pytest.raises(TenantQuotaExceeded):
        alice.put("huge", b"h" * (4 * MiB))
    assert alice.stats()["tenants"]["alice"]["usage"] == 3 * MiB


def test_revoked_put_refunds_the_quota(tc: Cluster, alice: StoreClient) -> None:
    from reference_store.transport.protocol import Op
    from reference_store.transport.tcp import Connection

    raw = Connection(tc.address, timeout=5.0)
    try:
        raw.call(Op.HELLO, {"tenant": "alice", "token": TOKENS["ALICE_TOKEN"]})
        raw.call(Op.PUT_START, {"keys": ["rv"], "sizes": [2 * MiB]})
        assert alice.stats()["tenants"]["alice"]["usage"] == 2 * MiB
        assert raw.call(Op.PUT_REVOKE, {"keys": ["rv"]}).meta["codes"] == [0]
        assert alice.stats()["tenants"]["alice"]["usage"] == 0
    finally:
        raw.close()


def test_quota_changes_at_run_time_and_survive_a_master_restart(tc: Cluster) -> None:
    status, _ = _admin_put(tc.metrics_port, "tenant_id=alice&quota=5MiB", None)
    assert status == 403
    status, body = _admin_put(tc.metrics_port, "tenant_id=alice&quota=lots", TOKENS["ADMIN_TOKEN"])
    assert status == 400 and "quota" in str(body["error"])
    status, body = _admin_put(tc.metrics_port, "tenant_id=alice&quota=5MiB", TOKENS["ADMIN_TOKEN"])
    assert status == 200 and body["quota"] == 5 * MiB
    alice = tc.client(tenant="alice", token=TOKENS["ALICE_TOKEN"])
    alice.remove_all(force=True)
    alice.put("big", b"x" * (4 * MiB))  # over the old 3 MiB quota, under the new one
    tc.restart_master()
    alice = tc.client(tenant="alice", token=TOKENS["ALICE_TOKEN"])
    assert alice.stats()["tenants"]["alice"]["quota"] == 5 * MiB
    _admin_put(tc.metrics_port, "tenant_id=alice&quota=3MiB", TOKENS["ADMIN_TOKEN"])
    wait_until(lambda: alice.exists("big"), what="node re-registered after restart")
    tc.wait_nodes(len(tc.nodes), alice)  # every node, so later tests see every object
    alice.remove("big", force=True)


def test_non_empty_tenant_quota_cannot_be_deleted(tc: Cluster, bob: StoreClient) -> None:
    admin = TOKENS["ADMIN_TOKEN"]
    bob.put("held", b"v")
    status, body = _admin_put(tc.metrics_port, "tenant_id=bob", admin, "DELETE")
    assert status == 409 and body["code"] == -1702
    bob.remove("held", force=True)
    status, body = _admin_put(tc.metrics_port, "tenant_id=bob", admin, "DELETE")
    assert status == 200 and body["quota"] is None
    assert _admin_put(tc.metrics_port, "tenant_id=nobody", admin, "DELETE")[0] == 400
    assert _admin_put(tc.metrics_port, "tenant_id=bob&quota=200GB", admin)[0] == 200


def test_tokens_are_never_logged(tc: Cluster) -> None:
    with pytest.raises(AuthenticationFailed):
        StoreClient(tc.address, tenant="bob", token="bob-wrong-token-x")
    tc.client(tenant="bob", token=TOKENS["BOB_TOKEN"]).ping()
    log = "".join(tc.master.lines)
    assert "DEBUG" in log  # the master logs at DEBUG here, so silence is meaningful
    for secret in [*TOKENS.values(), "bob-wrong-token-x"]:
        assert secret not in log


def test_isolation_off_is_one_shared_namespace(tmp_path: Path) -> None:
    with cluster(nodes=1, memory="8MiB", env=TOKENS, master_args=(
            "--tenants", str(_policy_file(tmp_path, isolation="off"))),
            node_args=("--cluster-key-file", str(_key_file(tmp_path)))) as c:
        alice = c.client(tenant="alice", token=TOKENS["ALICE_TOKEN"])
        bob = c.client(tenant="bob", token=TOKENS["BOB_TOKEN"])
        c.wait_nodes(1, alice)
        alice.put("common", b"from alice")
        assert bob.get("common") == b"from alice" and bob.keys() == ["common"]
        # usage is still charged to the tenant that wrote it, and only it sees its usage
        assert alice.stats()["tenants"] == {"alice": {"quota": 3 * MiB,
                                                      "usage": len(b"from alice")}}
        assert bob.stats()["tenants"] == {"bob": {"quota": 200 * 10**9, "usage": 0}}


def test_cluster_key_stops_reads_writes_and_registration_without_grants(tmp_path: Path) -> None:
    from reference_store.errors import AuthenticationFailed as Refused
    from reference_store.tenants import ClusterKey
    from reference_store.transport.protocol import Op
    from reference_store.transport.tcp import Connection

    key_file = tmp_path / "cluster.key"
    key_file.write_text("k" * 32)
    with cluster(nodes=1, memory="8MiB", env=TOKENS, master_args=(
            "--tenants", str(_policy_file(tmp_path)), "--cluster-key-file", str(key_file)),
            node_args=("--cluster-key-file", str(key_file))) as c:
        alice = c.client(tenant="alice", token=TOKENS["ALICE_TOKEN"])
        c.wait_nodes(1, alice)
        alice.put("secret", b"alice's data")
        assert alice.get("secret") == b"alice's data"  # granted clients work as usual
        loc = alice._reads.locate(["secret"], lease=False)[0]
        assert not isinstance(loc, Exception)
        oid, size = loc.object_id, loc.size
        node = Connection(c.nodes[0].address, timeout=5.0)
        master = Connection(c.address, timeout=5.0)
        try:
            for grant in (None, "0" * 32):  # a bob-like client guessing ids gets nothing
                reply = node.call(Op.NODE_READ, {"ids": [oid], "sizes": [size], "grants": [grant]},
                                  into=[memoryview(bytearray(size))])
                assert reply.meta["sizes"] == [Refused.code]
            forged = node.call(Op.NODE_WRITE, {"objects": [{
                "object_id": oid, "ns": "alice", "tenant": "alice", "key": "secret",
                "size": 3, "grant": "0" * 32}]}, [b"bad"])
            assert forged.meta["codes"] == [Refused.code]
            # even with the right grant a stored id cannot be overwritten
            replay = node.call(Op.NODE_WRITE, {"objects": [{
                "object_id": oid, "ns": "alice", "tenant": "alice", "key": "secret", "size": 3,
                "grant": ClusterKey(b"k" * 32).grant(oid, size=3, purpose="write", ttl_s=30)}]},
                [b"bad"])
            assert replay.meta["codes"] == [-705]
            with pytest.raises(Refused):
                node.call(Op.NODE_DELETE, {"ids": [oid]})
            with pytest.raises(Refused):
                node.call(Op.NODE_LIST, {})
            with pytest.raises(Refused):
                master.call(Op.NODE_REGISTER, {"node_id": "rogue", "address": "127.0.0.1:1",
                                               "capacity": 1 << 30})
        finally:
            node.close()
            master.close()
        assert alice.get("secret") == b"alice's data"
