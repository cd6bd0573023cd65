"""A real cluster whose node offers its arena over Mooncake's Transfer Engine (``te``).

A master and a node run as processes (``--te-metadata``, protocol "tcp"); Mooncake's own master
serves the engines' HTTP metadata. Mooncake 0.3.13 can crash a process at close and at
interpreter exit, so no engine is ever started in this test process: the te client runs in a
child, as this file, and reports one JSON line before leaving with ``os._exit(0)``:

``python tests/test_te_cluster.py client MASTER METADATA HOSTNAME``
    reads one JSON line of arguments (``data_path``, ``register``, ``put``, ``get``: lists of
    ``[key, size, seed]``), puts and reads them with a ``StoreClient`` that runs an engine, and
    prints what it saw: per-key errors and digests, the kind of its segment for each node and
    the ``TePeer`` byte counters after the puts and after the gets.

Skipped, with the reason, where Mooncake cannot load or ``mooncake_master`` is not installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cluster_fixtures import Cluster, cluster
from mooncake_fixtures import CHILD_TIMEOUT_S, metadata_server
from mooncake_fixtures import data as _data
from mooncake_fixtures import sha as _sha

KiB, MiB = 1 << 10, 1 << 20
NODE_TE_HOST = "127.0.0.5"
pytestmark = [pytest.mark.mooncake]

# (size, seed) of the objects each scenario moves: 64 KiB to 4 MiB, some sizes unaligned.
OBJECTS = [(64 * KiB, 1), (200_003, 2), (MiB, 3), (MiB + 4097, 4), (4 * MiB, 5)]
TOTAL = sum(n for n, _s in OBJECTS)


def _specs(prefix: str, seed_base: int = 0) -> list[list[Any]]:
    return [[f"{prefix}/{i}", n, seed_base + s] for i, (n, s) in enumerate(OBJECTS)]


# --- fixtures: every process is real and is stopped at the end ----------------------------------


@pytest.fixture(scope="module")
def metadata() -> Iterator[str]:
    """The HTTP metadata URL of a ``mooncake_master`` started for this module."""
    with metadata_server() as url:
        yield url


@pytest.fixture(scope="module")
def te_cluster(metadata: str) -> Iterator[Cluster]:
    """A master and one node that offers its arena over the Transfer Engine (and shm)."""
    args = ("--te-metadata", metadata, "--te-hostname", NODE_TE_HOST, "--te-protocol", "tcp")
    with cluster(nodes=1, node_args=args) as c:
        c.wait_nodes(1)
        yield c


@pytest.fixture(scope="module")
def plain_cluster(metadata: str) -> Iterator[Cluster]:
    """A master and one node WITHOUT a Transfer Engine (it offers shm only)."""
    with cluster(nodes=1) as c:
        c.wait_nodes(1)
        yield c


_hosts = iter(f"127.0.0.{n}" for n in range(9, 60))


def _run_client(master: str, metadata: str, args: dict[str, Any]) -> dict[str, Any]:
    """Run the te client child (on a fresh engine hostname) and return its JSON report."""
    cmd = [sys.executable, __file__, "client", master, metadata, next(_hosts)]
    done = subprocess.run(cmd, input=json.dumps(args) + "\n", capture_output=True, text=True,
                          timeout=CHILD_TIMEOUT_S, cwd=Path(__file__).resolve().parents[1])
    lines = done.stdout.strip().splitlines()
    assert lines, f"te client printed nothing (rc {done.returncode}): {done.stderr[-2000:]}"
    result: dict[str, Any] = json.loads(lines[-1])
    assert "crash" not in result, f"te client failed: {result['crash']}\n{done.stderr[-2000:]}"
    return result


def _expected(specs: list[list[Any]]) -> list[str]:
    return [_sha(_data(n, seed)) for _k, n, seed in specs]


# --- tests --------------------------------------------------------------------------------------


def test_te_put_and_get_go_through_the_engine_staging(te_cluster: Cluster, metadata: str) -> None:
    specs = _specs("te/staged")
    out = _run_client(te_cluster.address, metadata,
                      {"data_path": "te", "register": False, "put": specs, "get": specs})
    assert out["put_errors"] == [None] * len(specs)
    assert out["get_sizes"] == [n for _k, n, _s in specs]
    assert out["get_sha"] == _expected(specs)
    assert list(out["segments"].values()) == ["te"]
    # the child's bytes are not in registered memory: all of them go through staging, both ways
    assert out["after_put"] == {"bytes_direct": 0, "bytes_staged": TOTAL}
    assert out["after_get"] == {"bytes_direct": 0, "bytes_staged": 2 * TOTAL}


def test_te_registered_buffers_move_without_staging(te_cluster: Cluster, metadata: str) -> None:
    specs = _specs("te/direct", seed_base=10)
    out = _run_client(te_cluster.address, metadata,
                      {"data_path": "te", "register": True, "put": specs, "get": specs})
    assert out["put_errors"] == [None] * len(specs)
    assert out["get_sizes"] == [n for _k, n, _s in specs]
    assert out["get_sha"] == _expected(specs)
    assert list(out["segments"].values()) == ["te"]
    assert out["after_put"] == {"bytes_direct": TOTAL, "bytes_staged": 0}
    assert out["after_get"] == {"bytes_direct": 2 * TOTAL, "bytes_staged": 0}


def test_te_and_tcp_clients_read_each_others_objects(te_cluster: Cluster, metadata: str) -> None:
    by_te, by_tcp = _specs("interop/te", seed_base=20), _specs("interop/tcp", seed_base=30)
    tcp = te_cluster.client(data_path="tcp")
    assert tcp.batch_put([k for k, _n, _s in by_tcp],
                         [_data(n, s) for _k, n, s in by_tcp]) == [None] * len(by_tcp)
    out = _run_client(te_cluster.address, metadata,
                      {"data_path": "te", "register": False, "put": by_te, "get": by_tcp})
    assert out["put_errors"] == [None] * len(by_te)
    assert out["get_sha"] == _expected(by_tcp)  # tcp-written bytes read through the engine
    assert out["after_get"]["bytes_staged"] == 2 * TOTAL
    dests = [bytearray(n) for _k, n, _s in by_te]
    sizes = tcp.batch_get_into([k for k, _n, _s in by_te], dests)
    assert sizes == [n for _k, n, _s in by_te]
    assert [_sha(d) for d in dests] == _expected(by_te)  # te-written bytes read over TCP


def test_node_without_te_fails_te_objects_and_auto_falls_back(plain_cluster: Cluster,
                                                              metadata: str) -> None:
    stored = _specs("plain/tcp", seed_base=40)
    tcp = plain_cluster.client(data_path="tcp")
    assert tcp.batch_put([k for k, _n, _s in stored],
                         [_data(n, s) for _k, n, s in stored]) == [None] * len(stored)
    specs = _specs("plain/te", seed_base=50)
    te = _run_client(plain_cluster.address, metadata,
                     {"data_path": "te", "register": False, "put": specs, "get": stored})
    assert all(e is not None and e.startswith("TransferError") and "offers no te segment" in e
               for e in te["put_errors"]), te["put_errors"]
    assert all(isinstance(s, str) and s.startswith("TransferError") for s in te["get_sizes"])
    assert te["segments"] == {}  # nothing attached
    assert not any(tcp.batch_exists([k for k, _n, _s in specs]))  # the failed puts were revoked
    auto = _run_client(plain_cluster.address, metadata,
                       {"data_path": "auto", "register": False, "put": specs, "get": stored})
    assert auto["put_errors"] == [None] * len(specs)
    assert auto["get_sha"] == _expected(stored)
    assert all(kind in ("shm", None) for kind in auto["segments"].values()), auto["segments"]
    assert auto["after_get"] is None  # no TePeer was ever attached
    dests = [bytearray(n) for _k, n, _s in specs]
    assert tcp.batch_get_into([k for k, _n, _s in specs], dests) == [n for _k, n, _s in specs]
    assert [_sha(d) for d in dests] == _expected(specs)


# --- the child: everything below runs only in the te client process -----------------------------


def test_mooncake_facade_setup_with_rdma_moves_bytes_through_the_engine(metadata: str) -> None:
    """``setup(protocol="rdma")`` gives the facade's local segment and its client engines, as
    in Mooncake, where every client contributes a segment (a master with no other node).
    With no HCA here, Mooncake 0.3.13 finds 0 devices and its engine carries the transfers
    over its TCP transport: this runs the rdma configuration path, not RDMA verbs."""
    specs = _specs("facade/rdma")
    args = {"hostname": next(_hosts), "segment": 64 * MiB, "put": specs}
    with cluster(nodes=0) as bare:
        cmd = [sys.executable, __file__, "facade", bare.address, metadata]
        done = subprocess.run(cmd, input=json.dumps(args) + "\n", capture_output=True,
                              text=True, timeout=CHILD_TIMEOUT_S,
                              cwd=Path(__file__).resolve().parents[1])
    lines = done.stdout.strip().splitlines()
    assert lines, f"facade child printed nothing (rc {done.returncode}): {done.stderr[-2000:]}"
    out = json.loads(lines[-1])
    assert "crash" not in out, f"facade child failed: {out['crash']}\n{done.stderr[-2000:]}"
    assert out["setup"] == 0
    assert out["bad_protocol"] < 0 and out["rdma_without_metadata"] < 0
    assert out["put"] == [0] * len(OBJECTS)
    assert out["sha"] == _expected(specs)
    assert "te" in out["segments"]


def _facade_main(master: str, metadata: str) -> None:
    try:
        from reference_store.compat.mooncake import MooncakeDistributedStore

        args = json.loads(sys.stdin.readline())
        out: dict[str, Any] = {}
        probe = MooncakeDistributedStore()
        out["bad_protocol"] = probe.setup(args["hostname"], metadata, 0, 0, "carrier-pigeon",
                                          "", master)
        out["rdma_without_metadata"] = probe.setup(args["hostname"], "", 0, 0, "rdma",
                                                   "mlx5_0", master)
        store = MooncakeDistributedStore()
        out["setup"] = store.setup(args["hostname"], metadata, args["segment"], 16 * MiB,
                                   "rdma", "mlx5_0", master)
        out["put"] = [store.put(k, _data(n, seed)) for k, n, seed in args["put"]]
        out["sha"] = [_sha(store.get(k)) for k, _n, _s in args["put"]]
        client = store._client
        assert client is not None
        out["segments"] = sorted({seg[1].kind for seg in client._links.segments.values() if seg})
        result = out
    except BaseException as exc:  # noqa: BLE001 - reported to the test instead of a crash
        traceback.print_exc()
        result = {"crash": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(result), flush=True)


def _counters(client: Any) -> dict[str, int] | None:
    """The summed byte counters of the client's TePeers, or None when it attached none."""
    peers = [seg[1] for seg in client._links.segments.values() if seg is not None
             and getattr(seg[1], "kind", "") == "te"]
    if not peers:
        return None
    return {"bytes_direct": sum(p.bytes_direct for p in peers),
            "bytes_staged": sum(p.bytes_staged for p in peers)}


def _packed(client: Any, sizes: list[int], register: bool) -> tuple[np.ndarray, list[np.ndarray]]:
    """One buffer holding objects of ``sizes`` back to back (registered when asked), and the
    views of it, one per object."""
    whole = np.zeros(max(1, sum(sizes)), dtype=np.uint8)
    if register:
        client.register_buffer(whole)
    views, pos = [], 0
    for n in sizes:
        views.append(whole[pos:pos + n])
        pos += n
    return whole, views


def _run_scenario(master: str, metadata: str, hostname: str, args: dict[str, Any]
                  ) -> dict[str, Any]:
    from reference_store.client import StoreClient
    from reference_store.transport.transfer_engine import EngineConfig

    engine = EngineConfig(local_hostname=hostname, metadata_server=metadata, protocol="tcp")
    client = StoreClient(master, timeout=10.0, data_path=args["data_path"],
                         transfer_engine=engine)
    put, get, register = args["put"], args["get"], bool(args["register"])
    _src_owner, src = _packed(client, [n for _k, n, _s in put], register)
    for view, (_k, n, seed) in zip(src, put):
        view[:] = np.frombuffer(_data(n, seed), dtype=np.uint8)
    start = time.perf_counter()
    put_errors = client.batch_put([k for k, _n, _s in put], src)
    put_s = time.perf_counter() - start
    out: dict[str, Any] = {"put_errors": [None if e is None else f"{type(e).__name__}: {e}"
                                          for e in put_errors], "after_put": _counters(client)}
    _dst_owner, dst = _packed(client, [n for _k, n, _s in get], register)
    start = time.perf_counter()
    sizes = client.batch_get_into([k for k, _n, _s in get], dst)
    out["get_s"], out["put_s"] = time.perf_counter() - start, put_s
    out["get_sizes"] = [s if isinstance(s, int) else f"{type(s).__name__}: {s}" for s in sizes]
    out["get_sha"] = [_sha(v.tobytes()) for v in dst]
    out["after_get"] = _counters(client)
    out["segments"] = {addr: (None if seg is None else seg[1].kind)
                       for addr, seg in client._links.segments.items()}
    return out


def _client_main(master: str, metadata: str, hostname: str) -> None:
    try:
        result = _run_scenario(master, metadata, hostname, json.loads(sys.stdin.readline()))
    except BaseException as exc:  # noqa: BLE001 - reported to the test instead of a crash
        traceback.print_exc()
        result = {"crash": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(result), flush=True)


if __name__ == "__main__" and len(sys.argv) >= 4 and sys.argv[1] in ("client", "facade"):
    try:
        if sys.argv[1] == "client":
            _client_main(*sys.argv[2:5])
        else:
            _facade_main(*sys.argv[2:4])
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)  # skip Mooncake's teardown, which can crash the interpreter
