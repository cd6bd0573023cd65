"""Metrics in Prometheus text format, and the master's HTTP side door.

``GET /metrics``  Prometheus text (counters, gauges, latency histograms, per-tenant usage).
``GET /health``   ``{"status": "ok", ...}`` with 200 while the master serves.
``GET /api/v1/tenant_quotas[?tenant_id=T]``  quotas and usage.
``PUT /api/v1/tenant_quotas?tenant_id=T&quota=10GiB``  change a quota at run time
(``quota=none`` removes it).
``DELETE /api/v1/tenant_quotas?tenant_id=T``  remove a tenant's quota; refused with 409 and
``TENANT_NOT_EMPTY`` (-1702) while the tenant holds objects.
When the policy names an admin token, PUT and DELETE need ``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import bisect
import json
import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from reference_store.errors import StoreError, TenantNotEmpty

__all__ = ["LATENCY_BUCKETS_S", "Histogram", "Metrics", "MetricsServer"]

logger = logging.getLogger(__name__)

LATENCY_BUCKETS_S = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                     0.25, 0.5, 1.0, 2.5)


class Histogram:
    """A cumulative-bucket histogram (Prometheus semantics)."""

    def __init__(self, buckets: tuple[float, ...] = LATENCY_BUCKETS_S) -> None:
        self.buckets = buckets
        self.counts = [0] * (len(buckets) + 1)
        self.total = 0.0
        self.n = 0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.buckets, value)] += 1
        self.total += value
        self.n += 1

    def lines(self, name: str, labels: str) -> list[str]:
        out, running = [], 0
        sep = "," if labels else ""
        for bound, count in zip(self.buckets, self.counts):
            running += count
            out.append(f'{name}_bucket{{{labels}{sep}le="{bound}"}} {running}')
        out.append(f'{name}_bucket{{{labels}{sep}le="+Inf"}} {self.n}')
        out.append(f"{name}_sum{{{labels}}} {self.total}")
        out.append(f"{name}_count{{{labels}}} {self.n}")
        return out


class Metrics:
    """Counters and histograms, thread-safe; gauges are read from callbacks at render time."""

    def __init__(self, prefix: str = "refstore") -> None:
        self.prefix = prefix
        self._lock = threading.Lock()
        self._counters: dict[tuple[str, str], float] = {}
        self._hist: dict[tuple[str, str], Histogram] = {}
        self._gauges: list[Callable[[], list[tuple[str, str, float]]]] = []

    def inc(self, name: str, value: float = 1, labels: str = "") -> None:
        with self._lock:
            self._counters[(name, labels)] = self._counters.get((name, labels), 0) + value

    def observe(self, name: str, value: float, labels: str = "") -> None:
        with self._lock:
            self._hist.setdefault((name, labels), Histogram()).observe(value)

    def add_gauges(self, source: Callable[[], list[tuple[str, str, float]]]) -> None:
        """Register a callback returning (name, labels, value) triples."""
        self._gauges.append(source)

    def counter(self, name: str, labels: str = "") -> float:
        with self._lock:
            return self._counters.get((name, labels), 0)

    def render(self) -> str:
        """The Prometheus text exposition."""
        p = self.prefix
        lines: list[str] = []
        with self._lock:
            for (name, labels), value in sorted(self._counters.items()):
                lines.append(f"{p}_{name}{{{labels}}} {value}")
            for (name, labels), hist in sorted(self._hist.items()):
                lines.extend(hist.lines(f"{p}_{name}", labels))
        for source in self._gauges:
            for name, labels, value in source():
                lines.append(f"{p}_{name}{{{labels}}} {value}")
        return "\n".join(lines) + "\n"


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer

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
            self._send(200, owner.metrics.render(), "text/plain; version=0.0.4")
        elif url.path == "/health":
            self._send(200, json.dumps(owner.health()))
        elif url.path == "/api/v1/tenant_quotas":
            quotas = owner.tenants.quotas()
            tenant = parse_qs(url.query).get("tenant_id", [None])[0]
            if tenant is not None:
                if tenant not in quotas:
                    return self._send(404, json.dumps({"error": f"no tenant {tenant!r}"}))
                quotas = {tenant: quotas[tenant]}
            self._send(200, json.dumps(quotas))
        else:
            self._send(404, json.dumps({"error": f"no such path {url.path}"}))

    def do_PUT(self) -> None:
        self._admin(delete=False)

    def do_DELETE(self) -> None:
        self._admin(delete=True)

    def _admin(self, *, delete: bool) -> None:
        url = urlparse(self.path)
        if url.path != "/api/v1/tenant_quotas":
            return self._send(404, json.dumps({"error": f"no such path {url.path}"}))
        auth = self.headers.get("Authorization", "")
        token = auth[7:] if auth.startswith("Bearer ") else None
        owner = self.server.owner
        if not owner.tenants.check_admin(token):
            return self._send(403, json.dumps({"error": "admin token missing or wrong"}))
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

    def __init__(self, owner: Any, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self._httpd = _HTTPServer((host, port), _Handler)
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
