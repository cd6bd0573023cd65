"""A real cluster on loopback (master + 2 nodes as processes): what needs processes and
sockets, with clients in this and other processes, the metrics endpoint, and the CLI's options."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster_fixtures import (
    Cluster,
    cluster,
    expected_value,
    spawn_worker,
    wait_until,
    worker_result,
)
from prometheus_client.parser import text_string_to_metric_families

from reference_store.client import StoreClient
from reference_store.errors import ObjectNotFound

MiB = 1 << 20


@pytest.fixture(scope="module")
def cl() -> Iterator[Cluster]:
    with cluster(nodes=2, memory="8MiB", master_args=(
            "--lease-ttl", "1", "--put-timeout", "1", "--high-watermark", "1.0")) as c:
        c.wait_nodes(2)
        yield c


@pytest.fixture
def client(cl: Cluster) -> Iterator[StoreClient]:
    c = cl.client()
    wait_until(lambda: c.remove_all(force=True) >= 0 and not c.keys(), what="empty store")
    yield c
    c.close()


def _http(port: int, path: str) -> tuple[int, str]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as resp:
        return resp.status, resp.read().decode()


@pytest.mark.slow
def test_three_client_processes_share_the_store(cl: Cluster, client: StoreClient) -> None:
    names = ["p0", "p1", "p2"]
    procs = [spawn_worker(cl.address, n, 30, 32 << 10, [x for x in names if x != n])
             for n in names]
    results = [worker_result(p) for p in procs]
    assert all(r["wrong"] == 0 and r["put_errors"] == 0 and r["read_errors"] == 0
               for r in results), results
    assert all(r["hits"] >= 30 for r in results), results  # own keys always hit
    # cross-instance reuse: this process reads what the three children wrote
    assert client.get("p1/29") == expected_value("p1/29", 32 << 10)


def test_health_and_metrics(cl: Cluster, client: StoreClient) -> None:
    client.put("m", b"v")
    client.get("m")
    with pytest.raises(ObjectNotFound):
        client.get("m-missing")
    status, body = _http(cl.metrics_port, "/health")
    assert status == 200 and json.loads(body)["nodes"] == 2
    status, text = _http(cl.metrics_port, "/metrics")
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for f in text_string_to_metric_families(text) for s in f.samples}
    tenant = (("tenant", "default"),)
    assert samples[("refstore_hits_total", tenant)] >= 1
    assert samples[("refstore_misses_total", tenant)] >= 1
    assert samples[("refstore_op_latency_seconds_count", (("op", "put_start"),))] >= 1
    assert samples[("refstore_tenant_usage_bytes", tenant)] >= 1
    assert client.ping()


def test_node_with_a_disk_tier_holds_more_than_its_memory(tmp_path: Path) -> None:
    with cluster(nodes=1, memory="4MiB", node_args=("--disk", str(tmp_path / "disk"),
                                                    "--disk-size", "16MiB")) as c:
        client = c.client()
        c.wait_nodes(1, client)
        assert client.stats()["nodes"].popitem()[1]["capacity"] == 20 * MiB
        keys = [f"d{i}" for i in range(12)]  # 12 MiB into 4 MiB of memory + 16 MiB of disk
        assert client.batch_put(keys, [expected_value(k, MiB) for k in keys]) == [None] * 12
        assert client.stats()["evictions"] == 0
        for k in keys:
            assert client.get(k) == expected_value(k, MiB)
