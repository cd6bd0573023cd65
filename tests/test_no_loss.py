"""No silent loss and no leaked room (issue 17, findings 3 and 6): a node never drops an object
on its own (the master accounts for the node's aligned extents and evicts through its table,
counting it), and puts that were started and abandoned give their room back on disconnect and
after the put timeout. Real master and node processes."""

from __future__ import annotations

import urllib.request

import pytest
from cluster_fixtures import cluster, wait_until
from prometheus_client.parser import text_string_to_metric_families

from reference_store.transport.protocol import Op
from reference_store.transport.tcp import Connection

pytestmark = pytest.mark.slow

MiB = 1 << 20
# The monitor's eviction down to the low watermark runs between any two calls of a test; off here.
_NO_WATERMARK = ("--high-watermark", "1.0", "--low-watermark", "1.0")


def _usage(client: object) -> int:
    return int(client.stats()["tenants"]["default"]["usage"])  # type: ignore[attr-defined]


def _counter(port: int, name: str) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        for family in text_string_to_metric_families(resp.read().decode()):
            for sample in family.samples:
                if sample.name == name:
                    return float(sample.value)
    raise AssertionError(f"no metric {name}")


def test_abandoned_puts_free_their_room_when_the_client_disconnects() -> None:
    with cluster(nodes=1, memory="64MiB") as c:
        client = c.client()
        c.wait_nodes(1, client)
        raw = Connection(c.address, timeout=5.0)
        raw.call(Op.HELLO, {"tenant": "default"})
        started = raw.call(Op.PUT_START, {"keys": [f"big{i}" for i in range(6)],
                                          "sizes": [8 * MiB] * 6}).meta["results"]
        assert all(r["code"] == 0 for r in started)
        assert _usage(client) == 48 * MiB
        raw.close()  # gone without PUT_END or PUT_REVOKE
        wait_until(lambda: _usage(client) == 0, timeout=5, what="room given back")
        client.put("after", bytes(60 * MiB))  # fits only if the abandoned room came back
        assert client.size_of("after") == 60 * MiB
        assert _counter(c.metrics_port, "refstore_puts_reclaimed_total") == 6


def test_unfinished_puts_are_reclaimed_after_the_put_timeout() -> None:
    with cluster(nodes=1, memory="16MiB", master_args=("--put-timeout", "1")) as c:
        client = c.client()
        c.wait_nodes(1, client)
        raw = Connection(c.address, timeout=5.0)
        try:
            raw.call(Op.HELLO, {"tenant": "default"})
            raw.call(Op.PUT_START, {"keys": ["stalled"], "sizes": [4 * MiB]})
            assert _usage(client) == 4 * MiB
            # the connection stays open: only the put timeout can free it
            wait_until(lambda: _usage(client) == 0, timeout=10, what="stalled put reclaimed")
            codes = raw.call(Op.PUT_END, {"keys": ["stalled"]}).meta["codes"]
            assert codes[0] != 0  # too late: it was reclaimed
        finally:
            raw.close()


def test_every_listed_object_is_readable_after_100000_small_puts() -> None:
    """The finding's workload: 100,000 acknowledged 8-byte puts on two 2 MiB nodes. Each takes
    a 64-byte extent on a node, so the two hold at most 65,536 of them, not the 524,288 that
    counting object sizes would allow (before the fix 65,536 were readable and all 100,000
    listed). Every listed object must be readable, the rest evicted by the master and counted.
    Batches of 1,000 keep it to seconds. The watermarks are off (both 1.0): with the defaults the
    master's monitor may evict down to the low watermark between the listing and the reads, which
    is counted eviction, not loss, and made this test flaky."""
    total, batch = 100_000, 1_000
    with cluster(nodes=2, memory="2MiB", master_args=_NO_WATERMARK) as c:
        client = c.client()
        c.wait_nodes(2, client)
        for start in range(0, total, batch):
            keys = [f"s{i}" for i in range(start, start + batch)]
            errors = client.batch_put(keys, [b"%07d|" % i for i in range(start, start + batch)])
            assert not any(errors), next(e for e in errors if e)
        listed = client.keys()
        evictions = int(client.stats()["evictions"])
        assert evictions > 0 and len(listed) + evictions == total
        dests = [bytearray(8) for _ in listed]
        for start in range(0, len(listed), batch):
            got = client.batch_get_into(listed[start:start + batch], dests[start:start + batch])
            bad = [(k, g) for k, g in zip(listed[start:start + batch], got) if g != 8]
            assert not bad, f"{len(bad)} listed objects unreadable, e.g. {bad[:3]}"
        for key, dest in zip(listed, dests):
            assert bytes(dest) == b"%07d|" % int(key[1:])


def test_mixed_size_upserts_never_leave_a_listed_key_unreadable() -> None:
    """64 KiB - 4 MiB upserts on two 32 MiB nodes fragment the arenas. A put that finds no
    room fails loudly; a key the master lists is always readable (watermarks off, as above)."""
    import random

    rng = random.Random(7)
    keys = [f"u{i}" for i in range(40)]
    with cluster(nodes=2, memory="32MiB", master_args=_NO_WATERMARK) as c:
        client = c.client()
        c.wait_nodes(2, client)
        latest: dict[str, bytes] = {}
        for step in range(300):
            key = rng.choice(keys)
            value = bytes([step % 251]) * rng.randint(64 << 10, 4 << 20)
            try:
                client.upsert(key, value)
                latest[key] = value
            except Exception as exc:  # noqa: BLE001 - a refused put is allowed, loss is not
                assert type(exc).__name__ in ("StoreFull", "TransferError"), exc
        listed = client.keys()
        unreadable = []
        for key in listed:
            try:
                got = client.get(key)
            except Exception as exc:  # noqa: BLE001 - collected and reported below
                unreadable.append((key, exc))
                continue
            if key in latest:
                assert got == latest[key], key
        assert not unreadable, f"{len(unreadable)} listed keys unreadable: {unreadable[:3]}"
