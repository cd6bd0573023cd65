"""EmbeddedStore: the contract's calls and Mooncake's semantics, on real tiers (host, disk)."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
import torch

import reference_store
from reference_store import (
    BufferTooSmall,
    EmbeddedStore,
    InvalidKey,
    InvalidParams,
    NotReady,
    ObjectHasLease,
    ObjectKey,
    ObjectNotFound,
    PinnedObject,
    StoreConfig,
    StoreError,
    StoreFull,
    block_hashes,
    longest_cached_prefix,
)

MB = 1 << 20


class FakeClock:
    """A clock the test advances, so lease expiry needs no sleeping."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(clock: FakeClock):
    s = EmbeddedStore(StoreConfig(host_bytes=4 * MB, lease_ttl_s=10.0), clock=clock)
    try:
        yield s
    finally:
        s.close()


def test_public_names_exported() -> None:
    for name in ("EmbeddedStore", "StoreConfig", "StoreStats", "ObjectKey", "block_hashes",
                 "longest_cached_prefix", "StoreError"):
        assert name in reference_store.__all__
        assert getattr(reference_store, name) is not None


@pytest.mark.parametrize("value", [
    b"bytes-value", bytearray(b"bytearray"), memoryview(b"memoryview"),
    np.arange(100, dtype=np.float32), torch.arange(64, dtype=torch.bfloat16), torch.zeros(0), b"",
])
def test_put_get_round_trip_every_value_type(store: EmbeddedStore, value) -> None:
    raw = bytes(memoryview(value.numpy() if isinstance(value, torch.Tensor) and value.dtype != torch.bfloat16
                           else (value.view(torch.int16).numpy() if isinstance(value, torch.Tensor) else value)).cast("B"))
    store.put("k", value)
    assert store.get("k") == raw
    assert store.size_of("k") == len(raw)
    for dest in (bytearray(len(raw) + 3), np.zeros(len(raw) + 3, np.uint8), torch.zeros(len(raw) + 3, dtype=torch.uint8)):
        assert store.get_into("k", dest) == len(raw)
        assert bytes(memoryview(dest.numpy() if isinstance(dest, torch.Tensor) else dest)[: len(raw)]) == raw


def test_tensor_into_tensor_of_other_dtype(store: EmbeddedStore) -> None:
    src = torch.randn(4, 8)
    store.put("t", src)
    out = torch.empty(4, 8)
    assert store.get_into("t", out) == 128
    assert torch.equal(out, src)


def test_duplicate_put_keeps_first_and_upsert_replaces(store: EmbeddedStore) -> None:
    store.put("k", b"first")
    store.put("k", b"second")
    assert store.get("k") == b"first"
    store.upsert("k", b"replaced-longer")
    assert store.get("k") == b"replaced-longer"
    store.upsert("new", b"n")
    assert store.get("new") == b"n"
    assert store.stats().tier("host").payload_bytes == len(b"replaced-longer") + 1


def test_missing_key_in_every_call(store: EmbeddedStore) -> None:
    with pytest.raises(ObjectNotFound):
        store.get("nope")
    with pytest.raises(ObjectNotFound):
        store.get_into("nope", bytearray(4))
    with pytest.raises(ObjectNotFound):
        store.size_of("nope")
    with pytest.raises(ObjectNotFound):
        store.remove("nope")
    assert store.exists("nope") is False
    assert isinstance(store.batch_get_into(["nope"], [bytearray(1)])[0], ObjectNotFound)
    assert store.stats().misses == 3  # the three reads; exists/size_of/remove are not reads


def test_bad_inputs_give_clear_errors(store: EmbeddedStore) -> None:
    store.put("k", b"12345678")
    with pytest.raises(BufferTooSmall, match="dest"):
        store.get_into("k", bytearray(4))
    with pytest.raises(InvalidParams, match="read-only"):
        store.get_into("k", b"immutable-buffer")
    with pytest.raises(InvalidParams, match="value"):
        store.put("x", "a str is not a buffer")  # type: ignore[arg-type]
    with pytest.raises(InvalidParams, match="contiguous"):
        store.put("x", torch.zeros(4, 4).t())
    with pytest.raises(InvalidKey, match="key"):
        store.put("", b"v")
    with pytest.raises(InvalidKey, match="key"):
        store.put(7, b"v")  # type: ignore[arg-type]
    with pytest.raises(InvalidParams, match="values"):
        store.batch_put(["a", "b"], [b"1"])


def test_lease_blocks_remove_until_it_expires(store: EmbeddedStore, clock: FakeClock) -> None:
    store.put("k", b"v")
    store.remove("k")  # a write takes no lease
    store.put("k", b"v")
    store.get("k")
    with pytest.raises(ObjectHasLease):
        store.remove("k")
    assert store.exists("k")  # exists takes no lease (probes must not starve eviction)
    clock.now += 10.5
    store.remove("k")
    assert not store.exists("k")
    store.put("f", b"v")
    store.get("f")
    store.remove("f", force=True)


def test_pinned_needs_force_and_remove_all_skips_protected(store: EmbeddedStore, clock: FakeClock) -> None:
    store.put("pinned", b"p", pin=True)
    store.put("leased", b"l")
    store.get("leased")
    for i in range(5):
        store.put(f"free{i}", b"f")
    with pytest.raises(PinnedObject):
        store.remove("pinned")
    assert store.remove_all() == 5
    assert sorted(store.keys()) == ["leased", "pinned"]
    clock.now += 11
    assert store.remove_all() == 1
    store.remove("pinned", force=True)
    assert store.keys() == []


def test_overfill_evicts_oldest_first_and_every_put_succeeds(clock: FakeClock) -> None:
    # Mooncake fails 61 of 100 such puts; here eviction makes room synchronously.
    with EmbeddedStore(StoreConfig(host_bytes=32 * MB), clock=clock) as s:
        payloads = {f"obj{i}": bytes([i]) * MB for i in range(100)}
        for key, value in payloads.items():
            s.put(key, value)
        stats = s.stats()
        assert stats.objects == 32 and stats.evictions == 68 and stats.drops == 68
        assert sorted(s.keys()) == sorted(f"obj{i}" for i in range(68, 100))
        assert stats.tier("host").used_bytes <= stats.tier("host").capacity_bytes
        assert s.get("obj99") == payloads["obj99"]


def test_leased_and_pinned_never_evicted_and_full_when_nothing_can_go(clock: FakeClock) -> None:
    with EmbeddedStore(StoreConfig(host_bytes=4 * MB), clock=clock) as s:
        s.put("pin", b"p" * MB, pin=True)
        s.put("lease", b"l" * MB)
        s.get("lease")
        for i in range(6):
            s.put(f"x{i}", bytes([i]) * MB)
        assert s.exists("pin") and s.exists("lease")
        s.get("x5")
        s.get("x4")
        with pytest.raises(StoreFull, match="no room"):
            s.put("big", b"b" * MB)
        clock.now += 11
        s.put("big", b"b" * MB)  # leases ran out: now something can go
        assert s.exists("pin")


def test_object_larger_than_every_tier_is_store_full(store: EmbeddedStore) -> None:
    with pytest.raises(StoreFull):
        store.put("huge", bytes(5 * MB))
    assert store.stats().evictions == 0


def test_batch_calls_and_lookup_prefix(store: EmbeddedStore) -> None:
    keys = [f"b{i}" for i in range(5)]
    results = store.batch_put(keys, [bytes([i]) * 10 for i in range(5)] )
    assert results == [None] * 5
    assert isinstance(store.batch_put(["", "ok"], [b"1", b"2"])[0], InvalidKey)
    dests = [bytearray(10) for _ in keys] + [bytearray(1)]
    got = store.batch_get_into(keys + ["b0"], dests)
    assert got[:5] == [10] * 5 and isinstance(got[5], BufferTooSmall)
    assert all(bytes(d) == bytes([i]) * 10 for i, d in enumerate(dests[:5]))
    assert store.lookup_prefix(["b0", "b1", "missing", "b3"]) == 2
    assert store.batch_exists(["b0", "missing", "b4"]) == [True, False, True]
    assert store.stats().hit_rate == 1.0
    assert store.lookup_prefix([]) == 0


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_batch_get_into_kv_shaped_tensors_takes_leases_and_refreshes_lru(
        store: EmbeddedStore, clock: FakeClock, dtype: torch.dtype) -> None:
    blocks = [torch.randn(2, 4, 16, 8).to(dtype) for _ in range(3)]
    keys = [f"kv{i}" for i in range(3)]
    assert store.batch_put(keys, blocks) == [None, None, None]
    dests = [torch.empty(2, 4, 16, 8, dtype=dtype) for _ in keys]
    assert store.batch_get_into(keys, dests) == [blocks[0].nbytes] * 3
    assert all(torch.equal(d, b) for d, b in zip(dests, blocks))
    for key in keys:  # every key of the batch got a lease from the batch's clock reading
        with pytest.raises(ObjectHasLease):
            store.remove(key)
    stats = store.stats()
    assert (stats.hits, stats.leased_objects) == (3, 3)
    clock.now += 10.5
    assert store.remove_all() == 3


def test_batch_get_into_reports_each_failure_in_place(store: EmbeddedStore) -> None:
    store.put("a", np.arange(8, dtype=np.uint8))
    dests = [bytearray(8), b"readonly", bytearray(8), bytearray(2), torch.zeros(4, 4).t(), np.zeros(8, np.uint8)]
    got = store.batch_get_into(["a", "a", "", "a", "a", "missing"], dests)
    assert got[0] == 8 and bytes(dests[0]) == bytes(range(8))
    assert [type(r) for r in got[1:]] == [InvalidParams, InvalidKey, BufferTooSmall, InvalidParams, ObjectNotFound]
    assert store.stats().misses == 1


def test_batch_calls_on_a_closed_store_fail_per_key(store: EmbeddedStore) -> None:
    store.close()
    assert all(isinstance(r, NotReady) for r in store.batch_get_into(["a", "b"], [bytearray(1)] * 2))
    assert all(isinstance(r, NotReady) for r in store.batch_put(["a", "b"], [b"1", b"2"]))
    with pytest.raises(NotReady):
        store.get_into("a", bytearray(1))


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
def test_get_into_writes_through_grad_and_rejects_byte_unsafe_tensors(store: EmbeddedStore) -> None:
    src = torch.arange(16, dtype=torch.float32)
    store.put("f", src)
    leaf = torch.zeros(16, requires_grad=True)
    assert store.get_into("f", leaf) == 64 and torch.equal(leaf.detach(), src)
    negated = torch._neg_view(torch.zeros(16))  # contiguous, with the negative bit set
    with pytest.raises(InvalidParams, match="dest"):
        store.get_into("f", negated)
    with pytest.raises(InvalidParams, match="dense"):
        store.get_into("f", torch.zeros(4, 4).to_sparse_csr())


def test_kv_block_keys_and_prefix_lookup(store: EmbeddedStore) -> None:
    ns = ObjectKey(model="llama", block_hash=b"\x00", tenant="acme", tp_rank=1)
    tokens = list(range(64))
    for h in block_hashes(tokens[:48], 16, cache_salt="acme-salt"):
        store.put(str(ns.with_hash(h)), b"kv")
    res = longest_cached_prefix(tokens, store, cache_salt="acme-salt", key_fn=lambda h: str(ns.with_hash(h)))
    assert (res.cached_blocks, res.miss_block) == (3, 3)
    other = longest_cached_prefix(tokens, store, cache_salt="other", key_fn=lambda h: str(ns.with_hash(h)))
    assert other.cached_blocks == 0


def test_closed_store_raises_not_ready(clock: FakeClock) -> None:
    s = EmbeddedStore(StoreConfig(host_bytes=MB), clock=clock)
    s.put("k", b"v")
    s.close()
    s.close()
    for call in (lambda: s.get("k"), lambda: s.put("k", b"v"), s.stats, s.keys):
        with pytest.raises(NotReady):
            call()


def test_threads_put_then_get_all_correct() -> None:
    with EmbeddedStore(StoreConfig(host_bytes=64 * MB)) as s:
        errors: list[BaseException] = []

        def worker(t: int) -> None:
            try:
                for i in range(50):
                    value = bytes([t, i % 256]) * 2048
                    s.put(f"t{t}-{i}", value)
                    out = bytearray(len(value))
                    assert s.get_into(f"t{t}-{i}", out) == len(value) and bytes(out) == value
            except BaseException as exc:  # noqa: BLE001 - surfaced below
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert errors == []
        assert s.stats().objects == 400


def test_disk_backed_store_survives_reopen(tmp_path: Path, clock: FakeClock) -> None:
    cfg = StoreConfig(host_bytes=MB, disk_dir=str(tmp_path), disk_bytes=8 * MB)
    with EmbeddedStore(cfg, clock=clock) as s:
        for i in range(4):
            s.put(f"k{i}", bytes([i]) * (MB // 2))
        assert s.stats().demotions >= 2  # host held only two of them
    with EmbeddedStore(cfg, clock=clock) as s:
        # host content is gone with the process; what was demoted to disk is still there
        reopened = s.keys()
        assert reopened and all(s.tier_of(k) == "disk" for k in reopened)
        for key in reopened:
            assert s.get(key) == bytes([int(key[1:])]) * (MB // 2)


def test_batch_get_into_reads_and_promotes_disk_objects(tmp_path: Path, clock: FakeClock) -> None:
    cfg = StoreConfig(host_bytes=MB, disk_dir=str(tmp_path), disk_bytes=8 * MB, lease_ttl_s=0.0)
    with EmbeddedStore(cfg, clock=clock) as s:
        keys = [f"k{i}" for i in range(4)]
        assert s.batch_put(keys, [np.full(MB // 2, i, np.uint8) for i in range(4)]) == [None] * 4
        on_disk = [k for k in keys if s.tier_of(k) == "disk"]
        assert on_disk
        dests = [torch.empty(MB // 4, dtype=torch.float16) for _ in on_disk]
        assert s.batch_get_into(on_disk, dests) == [MB // 2] * len(on_disk)
        for key, dest in zip(on_disk, dests):
            assert bytes(dest.view(torch.uint8).numpy()) == bytes([int(key[1:])]) * (MB // 2)
        stats = s.stats()
        assert stats.promotions >= 1 and stats.hits_per_tier["disk"] == len(on_disk)
        assert s.tier_of(on_disk[-1]) == "host"  # the last one read was promoted


def test_config_validation_and_sources(tmp_path: Path) -> None:
    with pytest.raises(InvalidParams, match="host_bytes"):
        StoreConfig(host_bytes=-1)
    with pytest.raises(InvalidParams, match="disk_dir"):
        StoreConfig(disk_bytes=10)
    with pytest.raises(InvalidParams, match="eviction"):
        EmbeddedStore(StoreConfig(host_bytes=MB, eviction="random"))
    env = {"REFSTORE_HOST_BYTES": "1048576", "REFSTORE_EVICTION": "fifo", "REFSTORE_DISK_FSYNC": "false"}
    cfg = StoreConfig.from_env(env)
    assert (cfg.host_bytes, cfg.eviction, cfg.disk_fsync) == (MB, "fifo", False)
    with pytest.raises(InvalidParams, match="REFSTORE_HOST_BYTES"):
        StoreConfig.from_env({"REFSTORE_HOST_BYTES": "lots"})
    path = tmp_path / "store.yaml"
    path.write_text("host_bytes: 2048\nlease_ttl_s: 1.5\n")
    assert StoreConfig.from_file(path).lease_ttl_s == 1.5
    path.write_text("host_bytez: 1\n")
    with pytest.raises(InvalidParams, match="host_bytez"):
        StoreConfig.from_file(path)


def test_errors_are_one_tree() -> None:
    for cls in (BufferTooSmall, InvalidKey, InvalidParams, NotReady, ObjectHasLease, ObjectNotFound,
                PinnedObject, StoreFull):
        assert issubclass(cls, StoreError)
