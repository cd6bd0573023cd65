"""Metrics in Prometheus text format, and the master's HTTP side door.

``GET /metrics``  Prometheus text (counters, gauges, latency histograms, per-tenant usage).
``GET /health``   ``{"status": "ok", ...}`` with 200 while the master serves.
``GET /api/v1/tenant_quotas[?tenant_id=T]``  quotas and usage.
``PUT /api/v1/tenant_quotas?tenant_id=T&quota=10GiB``  change a quota at run time
(``quota=none`` removes it).
``GET /api/v1/fsck``  compare the master's object table with every node's objects
(``reference-store fsck`` prints it).
``DELETE /api/v1/tenant_quotas?tenant_id=T``  remove a tenant's quota; refused with 409 and
``TENANT_NOT_EMPTY`` (-1702) while the tenant holds objects.
The ``/api/v1`` admin calls, reads included, need ``Authorization: Bearer <admin token>``
(compared in constant time); without an admin token in the tenants file they are off.
Every request must arrive within :data:`HTTP_TIMEOUT_S`.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from reference_store.errors import StoreError, TenantNotEmpty

__all__ = ["COUNTERS", "HTTP_TIMEOUT_S", "LATENCY_BUCKETS_S", "GaugeSample", "Metrics", "MetricsServer"]

logger = logging.getLogger(__name__)

HTTP_TIMEOUT_S = 10.0
LATENCY_BUCKETS_S = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                     0.25, 0.5, 1.0, 2.5)

#: every counter: name -> (help, label names); all are exported from start-up, at 0
COUNTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "hits_total": ("Objects found by LOCATE", ("tenant",)),
    "misses_total": ("Keys LOCATE did not find", ("tenant",)),
    "puts_total": ("Puts completed", ()),
    "put_bytes_total": ("Bytes of completed puts, one replica", ()),
    "get_bytes_total": ("Bytes of objects located for reading", ()),
    "put_takeovers_total": ("Unfinished puts taken over after the put timeout", ()),
    "puts_reclaimed_total": ("Unfinished puts dropped: client gone or put timeout passed", ()),
    "evictions_total": ("Objects evicted by the master", ()),
    "evicted_bytes_total": ("Bytes evicted by the master, one replica", ()),
    "nodes_lost_total": ("Nodes dropped after missing heartbeats", ()),
    "nodes_departed_total": ("Nodes that said goodbye before stopping", ()),
}

#: a gauge reading: (name, labels, value)
GaugeSample = tuple[str, Mapping[str, str], float]


def _prometheus() -> Any:
    try:
        import prometheus_client
    except ImportError:
        raise StoreError("metrics need prometheus-client: "
                         "pip install 'kv-evidence-ledger[store]'") from None
    return prometheus_client


class _Gauges:
    """A collector reading gauges from callbacks at scrape time."""

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self._specs: dict[str, tuple[str, tuple[str, ...]]] = {}
        self._sources: list[Callable[[], Iterable[GaugeSample]]] = []

    def add(self, specs: Mapping[str, tuple[str, tuple[str, ...]]],
            source: Callable[[], Iterable[GaugeSample]]) -> None:
        self._specs.update(specs)
        self._sources.append(source)

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        families = {name: GaugeMetricFamily(f"{self._prefix}_{name}", doc, labels=list(labels))
                    for name, (doc, labels) in self._specs.items()}
        for source in self._sources:
            for name, labels, value in source():
                family = families[name]
                family.add_metric([labels[k] for k in self._specs[name][1]], value)
        yield from families.values()


class Metrics:
    """The master's counters, latency histograms and gauges, in a registry of its own.

    Counters are the ones in :data:`COUNTERS`, present at 0 from start-up (per tenant for
    ``tenants``); label values are escaped by prometheus-client.

    Raises (constructor):
        StoreError: prometheus-client is not installed (the message names the extra).
    """

    def __init__(self, prefix: str = "refstore", *, tenants: Iterable[str] = ()) -> None:
        prom = _prometheus()
        self.prefix = prefix
        self.registry = prom.CollectorRegistry(auto_describe=True)
        self._counters = {
            name: prom.Counter(f"{prefix}_{name}", doc, list(labels), registry=self.registry)
            for name, (doc, labels) in COUNTERS.items()}
        for name, (_, labels) in COUNTERS.items():
            if labels == ("tenant",):
                for tenant in tenants:
                    self._counters[name].labels(tenant=tenant)  # exported at 0 from now on
        self._latency = prom.Histogram(f"{prefix}_op_latency_seconds",
                                       "Master request handling time by operation", ["op"],
                                       buckets=LATENCY_BUCKETS_S, registry=self.registry)
        self._gauges = _Gauges(prefix)
        self.registry.register(self._gauges)

    def inc(self, name: str, value: float = 1, **labels: str) -> None:
        """Add ``value`` to a counter of :data:`COUNTERS`."""
        counter = self._counters[name]
        (counter.labels(**labels) if labels else counter).inc(value)

    def observe(self, name: str, value: float, **labels: str) -> None:
        """Record one latency (``name`` must be ``op_latency_seconds``)."""
        if name != "op_latency_seconds":
            raise KeyError(name)
        self._latency.labels(**labels).observe(value)

    def add_gauges(self, specs: Mapping[str, tuple[str, tuple[str, ...]]],
                   source: Callable[[], Iterable[GaugeSample]]) -> None:
        """Declare gauges (name -> (help, label names)) read from ``source`` at scrape time."""
        self._gauges.add(specs, source)

    def counter(self, name: str, **labels: str) -> float:
        """A counter's current value (0 when never incremented)."""
        value = self.registry.get_sample_value(f"{self.prefix}_{name}", labels)
        return float(value or 0.0)

    def render(self) -> str:
        """The Prometheus text exposition (with HELP and TYPE lines)."""
        generate_latest = _prometheus().generate_latest
        text: str = generate_latest(self.registry).decode()
        return text


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    timeout = HTTP_TIMEOUT_S  # a client that stops sending mid-request is dropped

    def log_message(self, format: str, *args: Any) -> None:  # keep tokens out of logs
        logger.debug("http %s", self.path.split("?")[0])

    def _send(self, code: int, body: str, ctype: str = "application/json") -> None:
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        url = urlparse(self.path)
        owner = self.server.owner
        if url.path == "/metrics":
            self._send(200, owner.metrics.render(), "text/plain; version=0.0.4; charset=utf-8")
        elif url.path == "/health":
            self._send(200, json.dumps(owner.health()))
        elif url.path == "/api/v1/tenant_quotas":
            if not self._authorized():
                return None
            quotas = owner.tenants.quotas()
            tenant = parse_qs(url.query).get("tenant_id", [None])[0]
            if tenant is not None:
                if tenant not in quotas:
                    return self._send(404, json.dumps({"error": f"no tenant {tenant!r}"}))
                quotas = {tenant: quotas[tenant]}
            self._send(200, json.dumps(quotas))
        elif url.path == "/api/v1/fsck":
            if not self._authorized():
                return None
            self._send(200, json.dumps(owner.fsck()))
        else:
            self._send(404, json.dumps({"error": f"no such path {url.path}"}))

    def _authorized(self) -> bool:
        """Whether this admin call carries the admin token; answers 403 when not (and when no
        admin token is configured: the endpoint is then off)."""
        tenants = self.server.owner.tenants
        if not tenants.admin_enabled:
            self._send(403, json.dumps({"error": "the admin endpoint is off: no admin token is "
                                                 "configured (admin_token_env in the tenants file)"}))
            return False
        auth = self.headers.get("Authorization", "")
        token = auth[7:] if auth.startswith("Bearer ") else None
        if not tenants.check_admin(token):
            self._send(403, json.dumps({"error": "admin token missing or wrong"}))
            return False
        return True

    def do_PUT(self) -> None:
        self._admin(delete=False)

    def do_DELETE(self) -> None:
        self._admin(delete=True)

    def _admin(self, *, delete: bool) -> None:
        url = urlparse(self.path)
        if url.path != "/api/v1/tenant_quotas":
            return self._send(404, json.dumps({"error": f"no such path {url.path}"}))
        if not self._authorized():
            return None
        owner = self.server.owner
        query = parse_qs(url.query)
        tenant = query.get("tenant_id", [""])[0]
        try:
            if delete:
                owner.delete_quota(tenant)
            else:
                owner.set_quota(tenant, query.get("quota", [""])[0])
        except TenantNotEmpty as exc:
            return self._send(409, json.dumps({"error": str(exc), "code": exc.code}))
        except StoreError as exc:
            return self._send(400, json.dumps({"error": str(exc), "code": exc.code}))
        self._send(200, json.dumps(owner.tenants.quotas().get(tenant, {})))


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: Any


class MetricsServer:
    """Serve ``owner.metrics``, ``owner.health()``, ``owner.tenants``, ``owner.set_quota`` and
    ``owner.delete_quota``."""

    def __init__(self, owner: Any, *, host: str = "127.0.0.1", port: int = 0,
                 timeout: float = HTTP_TIMEOUT_S) -> None:
        handler = type("_TimedHandler", (_Handler,), {"timeout": timeout})
        self._httpd = _HTTPServer((host, port), handler)
        self._httpd.owner = owner
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True,
                                        name="metrics-http")

    def start(self) -> MetricsServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
