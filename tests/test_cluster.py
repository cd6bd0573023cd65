"""A cluster in one process (master + 2 nodes joined by the in-process transport, the real
handlers and messages): the Mooncake Store test-suite scenarios that concern a single namespace.
What needs processes and sockets (client processes, the metrics endpoint, the CLI's node) is in
test_cluster_processes.py; faults are in test_faults.py and test_failover.py."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
from cluster_fixtures import expected_value, wait_until

from reference_store.client import PIN_HARD, PIN_SOFT, StoreClient
from reference_store.errors import (
    BufferTooSmall,
    InvalidKey,
    LeaseExpired,
    NotReady,
    ObjectAlreadyExists,
    ObjectHasLease,
    ObjectNotFound,
    PinnedObject,
)
from reference_store.local_cluster import LocalCluster
from reference_store.master import MasterConfig
from reference_store.transport.local import connect
from reference_store.transport.protocol import Op

MiB = 1 << 20


@pytest.fixture(scope="module")
def cl() -> Iterator[LocalCluster]:
    # 2 x 8 MiB nodes, 1 s leases and put timeout, no background eviction (exact counts).
    with LocalCluster(nodes=2, memory_bytes=8 * MiB, master=MasterConfig(
            lease_ttl_s=1.0, put_timeout_s=1.0, high_watermark=1.0, node_ttl_s=1.5)) as c:
        yield c


@pytest.fixture
def client(cl: LocalCluster) -> Iterator[StoreClient]:
    c = cl.client(timeout=10.0)
    wait_until(lambda: c.remove_all(force=True) >= 0 and not c.keys(), what="empty store")
    yield c
    c.close()


def test_round_trip_and_duplicate_put_keeps_first_value(client: StoreClient) -> None:
    client.put("k", b"first")
    client.put("k", b"second value")
    assert client.get("k") == b"first"
    assert client.exists("k") and client.size_of("k") == 5
    assert client.keys() == ["k"]
    buf = bytearray(16)
    assert client.get_into("k", buf) == 5 and bytes(buf[:5]) == b"first"
    client.remove("k", force=True)
    assert not client.exists("k")


def test_upsert_new_same_size_and_new_size(client: StoreClient) -> None:
    client.upsert("u", b"aaaa")
    assert client.get("u") == b"aaaa"
    client.upsert("u", b"bbbb")
    assert client.get("u") == b"bbbb"
    client.upsert("u", b"c" * 100_000)
    assert client.get("u") == b"c" * 100_000
    assert client.size_of("u") == 100_000


def test_missing_key_in_every_call(client: StoreClient) -> None:
    with pytest.raises(ObjectNotFound):
        client.get("nope")
    with pytest.raises(ObjectNotFound):
        client.get_into("nope", bytearray(4))
    with pytest.raises(ObjectNotFound):
        client.size_of("nope")
    with pytest.raises(ObjectNotFound):
        client.remove("nope")
    assert client.exists("nope") is False
    assert client.batch_exists(["nope", "nope2"]) == [False, False]
    assert isinstance(client.batch_get_into(["nope"], [bytearray(1)])[0], ObjectNotFound)


def test_bad_input_is_a_clear_error(client: StoreClient) -> None:
    with pytest.raises(InvalidKey):
        client.put("", b"x")
    client.put("big", b"x" * 100)
    with pytest.raises(BufferTooSmall):
        client.get_into("big", bytearray(10))


def test_numpy_and_torch_buffers(client: StoreClient) -> None:
    arr = np.arange(1000, dtype=np.float32)
    client.put("np", arr)
    out = np.zeros_like(arr)
    assert client.get_into("np", out) == arr.nbytes and np.array_equal(arr, out)
    t = torch.arange(256, dtype=torch.int64)
    client.put("t", t)
    dest = torch.zeros(256, dtype=torch.int64)
    client.get_into("t", dest)
    assert torch.equal(t, dest)


def test_leased_object_cannot_be_removed_until_the_lease_ends(client: StoreClient) -> None:
    client.put("leased", b"v")
    client.get("leased")
    with pytest.raises(ObjectHasLease):
        client.remove("leased")
    wait_until(lambda: client.batch_remove(["leased"])[0] is None, timeout=10,
               what="lease end then remove")
    assert not client.exists("leased")


def test_exists_takes_no_lease(client: StoreClient) -> None:
    client.put("probe", b"v")
    assert client.exists("probe")
    client.remove("probe")  # would raise ObjectHasLease if exists() had leased it


def test_remove_all_skips_leased_objects(client: StoreClient) -> None:
    for i in range(5):
        client.put(f"r{i}", b"v")
    client.get("r0")
    assert client.remove_all() == 4
    assert client.keys() == ["r0"]


def test_batch_remove_with_duplicates_and_missing(client: StoreClient) -> None:
    client.put("d", b"v")
    results = client.batch_remove(["d", "d", "missing"])
    assert results[0] is None
    assert isinstance(results[1], ObjectNotFound) and isinstance(results[2], ObjectNotFound)


def test_overfilling_memory_succeeds_through_eviction_oldest_first(client: StoreClient) -> None:
    value = b"x" * MiB
    keys = [f"e{i}" for i in range(16)]  # exactly fills 2 x 8 MiB
    assert client.batch_put(keys, [value] * 16) == [None] * 16
    before = client.stats()["evictions"]
    client.put("e16", value)
    assert client.stats()["evictions"] - before == 1
    assert client.batch_exists(keys + ["e16"]) == [False] + [True] * 16
    for b in range(6):  # 24 more MiB into 16 MiB: evicts as it goes, none fails
        errs = client.batch_put([f"f{b}/{i}" for i in range(4)], [value] * 4)
        assert errs == [None] * 4


def test_leased_and_hard_pinned_objects_are_never_evicted(client: StoreClient) -> None:
    value = b"p" * MiB
    client.put("hard", value, pin=PIN_HARD)
    client.put("soft", value, pin=PIN_SOFT)
    client.put("plain", value)
    client.put("leased", value)
    client.get("leased")
    assert client.batch_put([f"fill{i}" for i in range(13)], [value] * 13) == [None] * 13
    assert client.batch_exists(["hard", "soft", "plain", "leased"]) == [True, True, False, True]
    assert client.batch_put([f"more{i}" for i in range(8)], [value] * 8) == [None] * 8
    assert client.exists("hard")
    with pytest.raises(PinnedObject):
        client.remove("hard")
    assert client.stats()["evictions"] > 0


def test_replicas_land_on_distinct_nodes(cl: LocalCluster, client: StoreClient) -> None:
    used = {n: v["used"] for n, v in client.stats()["nodes"].items()}
    client.put("rep", b"r" * 1000, replicas=2)
    after = client.stats()["nodes"]
    # the nodes' room is counted in their arenas' 64-byte extents: 1000 bytes take 1024
    assert sorted(after[n]["used"] - used[n] for n in after) == [1024, 1024]
    # asking for more replicas than nodes is best effort
    client.put("rep3", b"r" * 500, replicas=3)
    assert client.stats()["bytes"] == 2000 + 1000


def test_stalled_put_is_taken_over_after_the_put_timeout(cl: LocalCluster, client: StoreClient) -> None:
    stalled = connect(cl.address, timeout=5.0)
    try:
        stalled.call(Op.HELLO, {"tenant": "default"})
        started = stalled.call(Op.PUT_START, {"keys": ["stall"], "sizes": [10]}).meta["results"]
        assert started[0]["code"] == 0
        with pytest.raises(ObjectAlreadyExists):
            client.put("stall", b"0123456789")
        wait_until(lambda: client.batch_put(["stall"], [b"9876543210"])[0] is None, timeout=10,
                   what="stalled put taken over")
        assert client.get("stall") == b"9876543210"
        # the first writer can no longer finish its put
        assert stalled.call(Op.PUT_END, {"keys": ["stall"]}).meta["codes"] != [0]
    finally:
        stalled.close()


def test_a_read_that_outlives_its_lease_stands_only_while_the_object_does(
        client: StoreClient) -> None:
    """Past its lease the client asks the master again: the same object still listed was never
    evicted (its bytes stand, the lease is renewed); a removed one fails the read."""
    client.put("slow", b"s" * 1000)
    client.put("gone", b"g" * 1000)
    locs = client._reads.locate(["slow", "gone"], lease=True)
    assert not any(isinstance(loc, Exception) for loc in locs)
    wait_until(lambda: time.monotonic() > locs[0].deadline,  # type: ignore[union-attr]
               what="lease end")
    buf = bytearray(1000)
    assert client._reads.read_located([locs[0]], [memoryview(buf)]) == [1000]
    assert buf == b"s" * 1000
    client.remove("gone", force=True)
    result = client._reads.read_located([locs[1]], [memoryview(bytearray(1000))])[0]
    assert isinstance(result, (LeaseExpired, ObjectNotFound))


def test_eight_threads_put_then_get_all_correct(client: StoreClient) -> None:
    failures: list[str] = []

    def worker(t: int) -> None:
        for i in range(20):
            key = f"t{t}/{i}"
            value = expected_value(key, 64 << 10)
            client.put(key, value)
            if client.get(key) != value:
                failures.append(key)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert failures == []


def test_remove_all_racing_with_reads_and_writes(client: StoreClient, cl: LocalCluster) -> None:
    stop = threading.Event()
    wrong: list[str] = []

    def churn() -> None:
        other = cl.client()
        buf = bytearray(4096)
        i = 0
        while not stop.is_set():
            key = f"race/{i % 50}"
            other.batch_put([key], [expected_value(key, 4096)])
            res = other.batch_get_into([key], [buf])[0]
            if isinstance(res, int) and bytes(buf) != expected_value(key, 4096):
                wrong.append(key)
            i += 1

    threads = [threading.Thread(target=churn) for _ in range(2)]
    for th in threads:
        th.start()
    try:
        for _ in range(20):
            client.remove_all(force=True)
    finally:
        stop.set()
        for th in threads:
            th.join()
    assert wrong == []


def test_close_then_use_and_reconnect(cl: LocalCluster) -> None:
    c = cl.client()
    c.put("closing", b"v")
    c.close()
    with pytest.raises(NotReady):
        c.get("closing")
    again = cl.client()
    assert again.get("closing") == b"v"


@pytest.mark.parametrize("command", ["master", "node"])
def test_cli_help_has_an_example(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    from reference_store.cli import main

    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "example:" in out and f"reference-store {command}" in out


def test_cli_bad_input_is_exit_2_with_the_field(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    from reference_store.cli import main

    assert main(["node", "--master", "127.0.0.1:1", "--memory", "lots"]) == 2
    assert "--memory" in capsys.readouterr().err
    assert main(["master", "--port", "0", "--tenants", str(tmp_path / "missing.yaml")]) == 2
    assert "tenants file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["master"])  # --port is required
    assert info.value.code == 2
