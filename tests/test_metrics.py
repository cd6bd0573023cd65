"""``/metrics`` through prometheus-client: HELP and TYPE lines, escaped labels, and every
counter present at 0 from start-up. Parsed with prometheus-client's own text parser."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from reference_store.master import Master, MasterConfig
from reference_store.metrics import COUNTERS, MetricsServer
from reference_store.tenants import ClusterKey, TenantPolicy

ODD = 'quote"back\\slash'


@pytest.fixture
def scrape() -> Iterator[MetricsServer]:
    policy = TenantPolicy.from_dict({"version": 1, "tenants": [
        {"name": "alice", "token": "a", "quota": "1MiB"}, {"name": ODD, "token": "o"}]}, env={})
    master = Master(MasterConfig(), policy, ClusterKey(b"metrics-test-cluster-key"))
    http = MetricsServer(master).start()
    try:
        yield http
    finally:
        http.stop()
        master.stop()


def _families(port: int) -> dict[str, object]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        assert resp.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = resp.read().decode()
    assert "# HELP refstore_hits_total " in text and "# TYPE refstore_hits_total counter" in text
    return {f.name: f for f in text_string_to_metric_families(text)}


def test_metrics_parse_with_help_type_and_counters_at_zero(scrape: MetricsServer) -> None:
    families = _families(scrape.port)
    for name, (_, labels) in COUNTERS.items():
        family = families[f"refstore_{name.removesuffix('_total')}"]
        assert family.type == "counter" and family.documentation  # type: ignore[attr-defined]
        totals = [s for s in family.samples if s.name.endswith("_total")]  # type: ignore[attr-defined]
        expected = 2 if labels else 1  # one per tenant, or one
        assert len(totals) == expected and all(s.value == 0 for s in totals), name
    assert families["refstore_op_latency_seconds"].type == "histogram"  # type: ignore[attr-defined]
    assert families["refstore_nodes"].type == "gauge"  # type: ignore[attr-defined]


def test_odd_tenant_names_are_escaped_and_round_trip(scrape: MetricsServer) -> None:
    families = _families(scrape.port)
    hits = {s.labels["tenant"] for s in families["refstore_hits"].samples}  # type: ignore[attr-defined]
    assert hits >= {"alice", ODD}
    usage = {s.labels["tenant"]: s.value
             for s in families["refstore_tenant_usage_bytes"].samples}  # type: ignore[attr-defined]
    assert usage == {"alice": 0.0, ODD: 0.0}
    quota = {s.labels["tenant"]: s.value
             for s in families["refstore_tenant_quota_bytes"].samples}  # type: ignore[attr-defined]
    assert quota == {"alice": float(1 << 20)}  # no quota: no sample
