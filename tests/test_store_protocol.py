"""The ``Store`` protocol: EmbeddedStore and StoreClient both satisfy it, and keep its rules the
same way (the client here on an in-process cluster: no processes, public API only)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reference_store.client import StoreClient
from reference_store.embedded import EmbeddedStore, StoreConfig
from reference_store.errors import BufferTooSmall, ObjectNotFound, StoreError
from reference_store.local_cluster import LocalCluster
from reference_store.store import Store

MiB = 1 << 20


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(nodes=2, memory_bytes=8 * MiB) as c:
        yield c


@pytest.fixture(params=["embedded", "client"])
def store(request: pytest.FixtureRequest, cluster: LocalCluster) -> Iterator[Store]:
    if request.param == "embedded":
        s: Store = EmbeddedStore(StoreConfig(device_bytes=0, host_bytes=8 * MiB, lease_ttl_s=0.0))
    else:
        s = StoreClient(cluster.address, timeout=5.0)
        for key in s.keys():
            s.remove(key, force=True)
    try:
        yield s
    finally:
        s.close()


def test_both_stores_satisfy_the_protocol() -> None:
    # mypy checks the signatures (an assignment to ``Store`` must type-check); at run time
    # every method must be there
    embedded: Store = EmbeddedStore(StoreConfig(device_bytes=0, host_bytes=MiB))
    with LocalCluster(nodes=1) as c:
        client: Store = c.client()
        for s in (embedded, client):
            assert isinstance(s, Store)
    embedded.close()
    assert not isinstance(object(), Store)


def test_put_keeps_the_first_value_and_upsert_replaces_it(store: Store) -> None:
    store.put("k", b"first")
    store.put("k", b"second")
    assert store.get("k") == b"first"
    store.upsert("k", b"third!")
    assert store.get("k") == b"third!" and store.size_of("k") == 6
    assert store.exists("k") and store.keys() == ["k"]


def test_batches_answer_per_key_and_name_it(store: Store) -> None:
    assert store.batch_put(["a", "b"], [b"aa", b"bbb"]) == [None, None]
    dests = [bytearray(2), bytearray(1), bytearray(4)]
    got = store.batch_get_into(["a", "b", "missing"], dests)
    assert got[0] == 2 and bytes(dests[0]) == b"aa"
    assert isinstance(got[1], BufferTooSmall)
    assert isinstance(got[2], ObjectNotFound) and "'missing'" in str(got[2])
    assert store.batch_exists(["a", "missing"]) == [True, False]


def test_remove_and_missing_keys(store: Store) -> None:
    store.put("gone", b"x")
    store.remove("gone", force=True)
    assert not store.exists("gone")
    with pytest.raises(ObjectNotFound):
        store.get("gone")
    with pytest.raises(ObjectNotFound):
        store.remove("gone")
    buf = bytearray(8)
    with pytest.raises(StoreError):
        store.get_into("gone", buf)
