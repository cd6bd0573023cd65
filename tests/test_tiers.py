"""Tiers and the tiered store: exact accounting, eviction/demotion/promotion, property tests."""

from __future__ import annotations

import tempfile

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference_store import EmbeddedStore, StoreConfig, StoreFull
from reference_store.errors import BufferTooSmall, ObjectNotFound
from reference_store.eviction import FIFOPolicy, LRUPolicy, make_policy
from reference_store.tiers import DeviceTier, HostTier, TieredStore, byte_view, default_device
from reference_store.tiers.base import borrowed_view
from reference_store.tiers.disk import DiskTier

KB = 1024


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# ----- single tiers ---------------------------------------------------------------------------

@pytest.mark.parametrize("make", [lambda: HostTier(64 * KB, pin_memory=False), lambda: DeviceTier(64 * KB)])
def test_arena_tier_round_trip_and_accounting(make) -> None:
    tier = make()
    tier.write("a", byte_view(b"x" * 1000))
    tier.write("b", byte_view(np.arange(10, dtype=np.int64)))
    assert tier.read("a") == b"x" * 1000
    out = torch.zeros(80, dtype=torch.uint8, device=tier.device)
    assert tier.read_into("b", byte_view(out, writable=True)) == 80
    assert np.array_equal(out.cpu().numpy().view(np.int64), np.arange(10))
    stats = tier.stats()
    assert stats.payload_bytes == 1080 and stats.objects == 2
    assert stats.used_bytes == tier.footprint("a", 1000) + tier.footprint("b", 80)
    tier.write("a", byte_view(b"y" * 10))  # replace: old extent freed after the new one is in
    assert tier.read("a") == b"y" * 10 and tier.stats().payload_bytes == 90
    with pytest.raises(BufferTooSmall):
        tier.read_into("a", byte_view(bytearray(5), writable=True))
    tier.delete("a")
    with pytest.raises(ObjectNotFound):
        tier.read("a")
    with pytest.raises(StoreFull, match="no free extent"):
        tier.write("huge", byte_view(bytes(65 * KB)))


def _view_outcome(fn, value) -> object:
    try:
        view = fn(value, writable=True, field="dest")
    except Exception as exc:  # noqa: BLE001 - the outcome being compared is the error class
        return type(exc)
    return bytes(view) if isinstance(view, memoryview) else view.cpu().numpy().tobytes()


@pytest.mark.parametrize("make", [
    lambda: torch.arange(24, dtype=torch.float16).reshape(2, 3, 4),
    lambda: torch.arange(8, dtype=torch.bfloat16),
    lambda: torch.ones(3, requires_grad=True),
    lambda: torch.zeros(0),
    lambda: torch.arange(16.0)[4:],                      # a view with a storage offset
    lambda: torch.zeros(4, 4)[:, :2],                    # not contiguous
    lambda: torch.zeros(2, dtype=torch.complex64).conj(),
    lambda: torch._neg_view(torch.arange(4.0)),  # negative bit
    lambda: torch.zeros(3, 3).to_sparse(),
    lambda: np.arange(12, dtype=np.float32).reshape(3, 4),
    lambda: np.zeros((4, 4))[:, :2],
    lambda: np.frombuffer(b"read-only", dtype=np.uint8),
    lambda: bytearray(b"abc"),
    lambda: memoryview(bytearray(8)).cast("I"),
    lambda: b"bytes",
    lambda: "not a buffer",
])
def test_borrowed_view_matches_byte_view(make) -> None:
    """The fast view and the general one agree on bytes or on the error, for every kind of input."""
    value = make()
    assert _view_outcome(borrowed_view, value) == _view_outcome(byte_view, value)


def test_device_tier_uses_cuda_when_present() -> None:
    tier = DeviceTier(4 * KB)
    assert tier.device.type == default_device().type
    src = torch.arange(256, dtype=torch.float32, device=tier.device)
    tier.write("t", byte_view(src))
    dest = torch.empty_like(src)
    tier.read_into("t", byte_view(dest, writable=True))
    assert torch.equal(dest, src)


def test_policies_order() -> None:
    lru, fifo = LRUPolicy(), FIFOPolicy()
    for p in (lru, fifo):
        for k in "abc":
            p.inserted(k)
        p.accessed("a")
    assert list(lru.candidates()) == ["b", "c", "a"]
    assert list(fifo.candidates()) == ["a", "b", "c"]
    assert isinstance(make_policy("fifo"), FIFOPolicy)


# ----- tiered store ---------------------------------------------------------------------------

def _three_tiers(tmp: str, clock: FakeClock) -> TieredStore:
    tiers = [DeviceTier(8 * KB, device="cpu", alignment=64), HostTier(16 * KB, pin_memory=False),
             DiskTier(tmp, 64 * KB, fsync=False)]
    return TieredStore(tiers, lease_ttl_s=5.0, clock=clock)


def test_eviction_demotes_then_drops(tmp_path) -> None:
    clock = FakeClock()
    ts = _three_tiers(str(tmp_path), clock)
    for i in range(12):
        ts.put(f"k{i}", byte_view(bytes([i]) * 4 * KB))
    where = {k: ts.tiers[e.tier].name for k, e in ts.entries.items()}
    assert [where[f"k{i}"] for i in (10, 11)] == ["device", "device"]
    assert [where[f"k{i}"] for i in range(6, 10)] == ["host"] * 4
    assert all(where[f"k{i}"] == "disk" for i in range(6))
    assert ts.counters.drops == 0 and ts.counters.demotions == 10 + 6  # k0..k9 left device; k0..k5 left host
    # a disk hit is promoted to the device tier
    assert ts.read("k0") == bytes([0]) * 4 * KB
    assert ts.tiers[ts.entries["k0"].tier].name == "device" and ts.counters.promotions == 1


def test_pinned_object_goes_lower_when_top_is_pinned_full(tmp_path) -> None:
    clock = FakeClock()
    ts = _three_tiers(str(tmp_path), clock)
    ts.put("p0", byte_view(bytes(4 * KB)), pin=True)
    ts.put("p1", byte_view(bytes(4 * KB)), pin=True)
    ts.put("x", byte_view(bytes(4 * KB)))
    assert ts.entries["x"].tier == 1  # device holds only pinned objects: the put lands in host
    assert ts.entries["p0"].tier == ts.entries["p1"].tier == 0


# ----- property tests -------------------------------------------------------------------------

op = st.one_of(
    st.tuples(st.just("put"), st.integers(0, 11), st.integers(512, 6 * KB), st.booleans()),
    st.tuples(st.just("upsert"), st.integers(0, 11), st.integers(512, 6 * KB), st.just(False)),
    st.tuples(st.just("get"), st.integers(0, 11), st.just(0), st.just(False)),
    st.tuples(st.just("remove"), st.integers(0, 11), st.just(0), st.just(False)),
    st.tuples(st.just("tick"), st.just(0), st.integers(1, 4), st.just(False)),
)


def _value(key: int, version: int, size: int) -> bytes:
    rng = np.random.default_rng(key * 1000 + version)
    return rng.integers(0, 256, size, dtype=np.uint8).tobytes()


def _check_accounting(store: EmbeddedStore) -> None:
    ts = store._tiered
    assert ts is not None
    for index, tier in enumerate(ts.tiers):
        stats = tier.stats()
        mine = [k for k, e in ts.entries.items() if e.tier == index]
        assert sorted(tier.keys()) == sorted(mine)  # each object in exactly one tier
        assert stats.used_bytes == sum(tier.footprint(k, ts.entries[k].size) for k in mine)
        assert stats.payload_bytes == sum(ts.entries[k].size for k in mine)
        assert stats.used_bytes <= stats.capacity_bytes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(op, max_size=40), policy=st.sampled_from(["lru", "fifo"]))
def test_tiered_store_properties(ops, policy: str) -> None:
    clock = FakeClock()
    with tempfile.TemporaryDirectory() as tmp:
        cfg = StoreConfig(device_bytes=8 * KB, device="cpu", host_bytes=12 * KB, disk_dir=tmp,
                          disk_bytes=24 * KB, disk_fsync=False, lease_ttl_s=3.0, eviction=policy)
        with EmbeddedStore(cfg, clock=clock) as store:
            expected: dict[str, bytes] = {}
            pinned: set[str] = set()
            leased_until: dict[str, float] = {}
            for step, (kind, k, n, pin) in enumerate(ops):
                key = f"k{k}"
                protected = pinned | {x for x, t in leased_until.items() if t > clock.now}
                tier_before = {x: store._tiered.entries[x].tier for x in protected if store.exists(x)}
                if kind in ("put", "upsert"):
                    value = _value(k, step, n)
                    try:
                        if kind == "put":
                            store.put(key, value, pin=pin)
                        else:
                            store.upsert(key, value)
                    except StoreFull:
                        if kind == "upsert":
                            expected.pop(key, None)
                            pinned.discard(key)
                    else:
                        if kind == "upsert" or key not in expected:
                            expected[key] = value
                            if kind == "upsert":
                                pinned.discard(key)
                            if pin and kind == "put" and key not in pinned and store.exists(key):
                                pinned.add(key)
                elif kind == "get" and key in expected and store.exists(key):
                    assert store.get(key) == expected[key]
                    leased_until[key] = clock.now + 3.0
                elif kind == "remove" and store.exists(key):
                    if key in protected:
                        with pytest.raises((Exception,)):
                            store.remove(key)
                    else:
                        store.remove(key)
                        expected.pop(key)
                elif kind == "tick":
                    clock.now += n
                for gone in [x for x in expected if not store.exists(x)]:
                    assert gone not in protected, f"{gone} was evicted while pinned or leased"
                    expected.pop(gone)
                for x, tier in tier_before.items():  # protected objects are never demoted either
                    if store.exists(x) and kind != "upsert":
                        assert store._tiered.entries[x].tier <= tier, f"{x} was demoted while protected"
                _check_accounting(store)
            for key, value in expected.items():  # get after put: identical bytes, whatever the tier
                out = bytearray(len(value))
                assert store.get_into(key, out) == len(value) and bytes(out) == value


@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=20 * KB), tier_name=st.sampled_from(["device", "host", "disk"]),
       dest_kind=st.sampled_from(["bytearray", "numpy", "torch"]))
def test_get_after_put_identical_bytes_in_every_tier(data: bytes, tier_name: str, dest_kind: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tiers = {"device": lambda: DeviceTier(32 * KB), "host": lambda: HostTier(32 * KB),
                 "disk": lambda: DiskTier(tmp, 64 * KB, fsync=False)}
        tier = tiers[tier_name]()
        try:
            tier.write("k", byte_view(data))
            assert tier.read("k") == data
            dest: object = {"bytearray": lambda: bytearray(len(data) + 1),
                            "numpy": lambda: np.zeros(len(data) + 1, np.uint8),
                            "torch": lambda: torch.zeros(len(data) + 1, dtype=torch.uint8)}[dest_kind]()
            assert tier.read_into("k", byte_view(dest, writable=True)) == len(data)
            raw = dest.numpy() if isinstance(dest, torch.Tensor) else dest
            assert bytes(memoryview(raw)[: len(data)]) == data  # type: ignore[arg-type]
        finally:
            tier.close()
