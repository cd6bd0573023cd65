"""In-place writes and reads of the embedded store: EmbeddedStore.reserve and .borrow."""

from __future__ import annotations

import numpy as np
import pytest

from reference_store import EmbeddedStore, StoreConfig
from reference_store.errors import (
    InvalidKey,
    InvalidParams,
    NotReady,
    ObjectHasLease,
    ObjectNotFound,
)
from reference_store.reservation import Borrow, abort_all, commit_all, release_all

KiB = 1 << 10


@pytest.fixture
def store() -> EmbeddedStore:
    s = EmbeddedStore(StoreConfig(device_bytes=0, host_bytes=256 * KiB, lease_ttl_s=0.0))
    yield s
    s.close()


def _host(s: EmbeddedStore) -> tuple[int, int, int]:
    t = s.stats().tier("host")
    return t.used_bytes, t.payload_bytes, t.objects


def _arena(s: EmbeddedStore) -> np.ndarray:
    return s._store().tiers[0].arena.numpy()


def test_reserved_buffer_is_the_arena_and_the_object_appears_only_on_commit(
        store: EmbeddedStore) -> None:
    res = store.reserve("k", 1000)
    assert res.direct
    assert np.shares_memory(np.frombuffer(res.buffer, np.uint8), _arena(store))
    res.buffer[:] = b"\x07" * 1000
    assert not store.exists("k") and store.keys() == []
    assert _host(store)[1:] == (0, 0)  # room held, no payload, no object yet
    assert res.commit() is True
    assert store.get("k") == b"\x07" * 1000
    assert _host(store)[1:] == (1000, 1)


def test_abort_leaves_no_trace(store: EmbeddedStore) -> None:
    store.put("other", b"x" * 100)
    before = _host(store)
    res = store.reserve("k", 5000)
    assert _host(store)[0] > before[0]
    res.buffer[:10] = b"0123456789"
    res.abort()
    res.abort()  # idempotent
    assert _host(store) == before
    assert not store.exists("k")
    with pytest.raises(InvalidParams):
        res.commit()


def test_context_manager_aborts_when_the_block_raises(store: EmbeddedStore) -> None:
    before = _host(store)
    with pytest.raises(RuntimeError), store.reserve("k", 4 * KiB):
        raise RuntimeError("hash mismatch")
    assert _host(store) == before and not store.exists("k")


def test_commit_without_upsert_keeps_the_first_value(store: EmbeddedStore) -> None:
    store.put("k", b"first")
    res = store.reserve("k", 6)
    res.buffer[:] = b"second"
    assert res.commit() is False
    assert store.get("k") == b"first"
    assert _host(store)[1:] == (5, 1)


def test_upsert_replaces_only_at_commit(store: EmbeddedStore) -> None:
    store.put("k", b"old")
    res = store.reserve("k", 3, upsert=True)
    res.buffer[:] = b"new"
    assert store.get("k") == b"old"  # still the old value until commit
    assert res.commit() is True
    assert store.get("k") == b"new"
    assert _host(store)[1:] == (3, 1)


def test_double_commit_is_refused(store: EmbeddedStore) -> None:
    res = store.reserve("k", 8)
    res.commit()
    with pytest.raises(InvalidParams):
        res.commit()


def test_reservations_make_room_by_eviction_and_are_never_evicted(store: EmbeddedStore) -> None:
    for i in range(4):
        store.put(f"old{i}", bytes([i]) * (60 * KiB))
    a = store.reserve("a", 100 * KiB)
    assert a.direct
    b = store.reserve("b", 100 * KiB)  # evicts old objects, never the reservation a
    assert b.direct
    a.buffer[:] = b"a" * (100 * KiB)
    b.buffer[:] = b"b" * (100 * KiB)
    assert a.commit() and b.commit()
    assert store.get("a") == b"a" * (100 * KiB) and store.get("b") == b"b" * (100 * KiB)


def test_without_room_in_the_arena_the_reservation_copies_at_commit(store: EmbeddedStore) -> None:
    store.put("pinned", b"p" * (200 * KiB), pin=True)
    res = store.reserve("k", 100 * KiB)
    assert not res.direct
    res.buffer[:] = b"z" * (100 * KiB)
    with pytest.raises(Exception) as info:  # no tier can take it: StoreFull at commit
        res.commit()
    assert type(info.value).__name__ == "StoreFull"
    assert not store.exists("k")


def test_zero_bytes_and_bad_arguments(store: EmbeddedStore) -> None:
    res = store.reserve("empty", 0)
    assert res.commit() and store.get("empty") == b""
    with pytest.raises(InvalidParams):
        store.reserve("k", -1)
    with pytest.raises(InvalidParams):
        store.reserve("k", 1.5)  # type: ignore[arg-type]
    with pytest.raises(InvalidKey):
        store.reserve("", 10)


def test_closed_store(store: EmbeddedStore) -> None:
    res = store.reserve("k", 10)
    store.close()
    with pytest.raises(NotReady):
        res.commit()
    res.abort()  # nothing to give back, no error
    with pytest.raises(NotReady):
        store.reserve("k", 10)


def test_borrow_is_a_view_of_the_arena_protected_from_removal(store: EmbeddedStore) -> None:
    store.put("k", b"abc" * 100)
    with store.borrow("k") as b:
        assert b.direct and bytes(b.buffer) == b"abc" * 100
        assert b.buffer.readonly
        assert np.shares_memory(np.frombuffer(b.buffer, np.uint8), _arena(store))
        with pytest.raises(ObjectHasLease):
            store.remove("k")
        assert store.remove_all() == 0
    store.remove("k")  # the lease went back to what it was (none)
    assert _host(store) == (0, 0, 0)


def test_borrowed_objects_are_not_evicted(store: EmbeddedStore) -> None:
    store.put("k", b"k" * (100 * KiB))
    with store.borrow("k"):
        store.put("big1", b"1" * (100 * KiB))
        store.put("big2", b"2" * (100 * KiB))  # must evict big1, not k
        assert store.exists("k") and not store.exists("big1")


def test_nested_borrows_release_in_any_order(store: EmbeddedStore) -> None:
    store.put("k", b"v")
    first, second = store.borrow("k"), store.borrow("k")
    first.release()
    with pytest.raises(ObjectHasLease):
        store.remove("k")
    second.release()
    second.release()  # idempotent
    store.remove("k")


def test_borrow_of_a_missing_key(store: EmbeddedStore) -> None:
    with pytest.raises(ObjectNotFound):
        store.borrow("missing")


def test_reserve_many_claims_each_like_reserve_and_commits_together(
        store: EmbeddedStore) -> None:
    store.put("other", b"x" * 100)
    before = _host(store)
    many = store.reserve_many([("a", 1000), ("b", 0), ("c", 3000)], upsert=True)
    assert [r.direct for r in many] == [True, False, True]  # no room for 0 bytes
    offsets = [r.offset for r in many if r.direct]
    assert len(set(offsets)) == 2
    for r, byte in zip(many, b"abc", strict=True):
        r.buffer[:] = bytes([byte]) * r.nbytes
    assert not store.exists("a")
    assert commit_all(many) == [True, True, True]
    assert [store.get(k) for k in "abc"] == [b"a" * 1000, b"", b"c" * 3000]
    abort_all(many)  # no-ops once committed
    assert _host(store)[1:] == (before[1] + 4000, before[2] + 3)


def test_abort_all_and_a_second_commit_leave_no_trace(store: EmbeddedStore) -> None:
    before = _host(store)
    many = store.reserve_many([("a", 1000), ("b", 2000)])
    abort_all(many)
    abort_all(many)  # idempotent
    assert _host(store) == before
    outcomes = commit_all(many)
    assert all(isinstance(o, InvalidParams) for o in outcomes)
    assert _host(store) == before and store.keys() == []


def test_reserve_many_refuses_a_bad_item_and_reserves_nothing(store: EmbeddedStore) -> None:
    before = _host(store)
    with pytest.raises(InvalidKey):
        store.reserve_many([("a", 1000), ("", 10)])
    with pytest.raises(InvalidParams):
        store.reserve_many([("a", 1000), ("b", -1)])
    assert _host(store) == before


def test_borrow_many_lends_each_and_release_all_gives_them_back(store: EmbeddedStore) -> None:
    store.put("a", b"a" * 100)
    store.put("b", b"b" * 200)
    lent = store.borrow_many(["a", "missing", "b", ""])
    assert isinstance(lent[1], ObjectNotFound) and isinstance(lent[3], InvalidKey)
    a, b = lent[0], lent[2]
    assert isinstance(a, Borrow) and isinstance(b, Borrow)
    assert a.direct and bytes(a.buffer) == b"a" * 100 and bytes(b.buffer) == b"b" * 200
    with pytest.raises(ObjectHasLease):
        store.remove("a")
    release_all([a, b])
    release_all([a, b])  # idempotent
    store.remove("a")  # the leases went back to what they were (none)
    store.remove("b")


def test_borrow_from_the_disk_tier_copies(tmp_path) -> None:  # type: ignore[no-untyped-def]
    s = EmbeddedStore(StoreConfig(device_bytes=0, host_bytes=64 * KiB, disk_dir=str(tmp_path),
                                  disk_bytes=1 << 20, lease_ttl_s=0.0))
    try:
        s.put("a", b"a" * (60 * KiB))
        s.put("b", b"b" * (60 * KiB))  # demotes a to disk
        assert s.tier_of("a") == "disk"
        with s.borrow("a") as b:
            assert bytes(b.buffer) == b"a" * (60 * KiB)
    finally:
        s.close()


def test_arena_lending_api_keeps_exact_accounting() -> None:
    from reference_store.errors import InvalidParams as _InvalidParams
    from reference_store.tiers.host import ArenaTier

    tier = ArenaTier(1 << 16, name="host")
    before = tier.stats().used_bytes
    claimed = tier.claim(1000)
    assert claimed is not None
    offset, buf = claimed
    assert buf.nbytes == 1000 and "k" not in tier
    buf[:] = b"x" * 1000
    tier.unclaim(offset)
    assert tier.stats().used_bytes == before
    offset, buf = tier.claim(1000) or (0, memoryview(b""))
    buf[:] = b"y" * 1000
    tier.adopt("k", offset, 1000)
    assert tier.read("k") == b"y" * 1000 and tier.stats().payload_bytes == 1000
    with pytest.raises(_InvalidParams, match="already in the host tier"):
        tier.adopt("k", offset, 1000)
    assert tier.claim(1 << 20) is None  # no extent fits: None, not an exception
