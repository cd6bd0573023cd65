"""The master: object metadata, placement, leases, eviction, tenants. No object bytes pass here.

A put is two-phase. ``PUT_START`` places each object on ``replicas`` distinct nodes (best effort)
and returns where to write; the client writes the bytes straight to the nodes and then sends
``PUT_END`` (the object becomes readable) or ``PUT_REVOKE``. Only the starting client may end a
put; a put left unfinished for ``put_timeout_s`` is taken over by the next client that puts the key.

``LOCATE`` grants a read lease (``lease_ttl_s``): a leased object is never evicted and cannot be
removed without ``force``. ``EXISTS`` does NOT take a lease, so existence probes cannot starve
eviction (a complaint about Mooncake). When a put needs room the master evicts synchronously,
least recently used first, skipping leased and hard-pinned objects, soft-pinned ones last; a
background pass also keeps usage under the high watermark.

Nodes heartbeat; a node silent for ``node_ttl_s`` is dropped and objects with no replica left
become misses. Object ids grow across restarts (start time in the high 32 bits), and after a
restart nodes re-register and report what they hold: the object table is rebuilt from those
reports, so objects on surviving nodes stay readable. ``state_dir`` keeps quota changes.

Dropping an object under the lock only updates the tables; the node deletes are queued per
thread and sent once the lock is released (one ``NODE_DELETE`` per node, before the request is
answered), so a slow node never holds up other clients. Ids are never reused, so a late delete
cannot touch another object.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import secrets
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field, model_validator

from reference_store.config import (
    DEFAULT_FRAME_TIMEOUT_S,
    DEFAULT_HIGH_WATERMARK,
    DEFAULT_LEASE_TTL_S,
    DEFAULT_LOW_WATERMARK,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_NODE_TTL_S,
    DEFAULT_PUT_TIMEOUT_S,
    StrictModel,
    parse_size,
)
from reference_store.errors import (
    AuthenticationFailed,
    InvalidKey,
    InvalidParams,
    NotReady,
    ObjectAlreadyExists,
    ObjectHasLease,
    ObjectNotFound,
    PinnedObject,
    StoreError,
    StoreFull,
    TenantNotEmpty,
    TenantQuotaExceeded,
)
from reference_store.metrics import GaugeSample, Metrics
from reference_store.tenants import ClusterKey, TenantPolicy
from reference_store.transport import messages as m
from reference_store.transport.local import LocalConnection, LocalServer, connect, serve_local
from reference_store.transport.protocol import Buffer, Op
from reference_store.transport.tcp import Connection, Server, ServerContext

__all__ = ["PIN_HARD", "PIN_NONE", "PIN_SOFT", "Master", "MasterConfig", "ObjectTable"]

logger = logging.getLogger(__name__)

PIN_NONE, PIN_SOFT, PIN_HARD = 0, 1, 2
MAX_KEY_BYTES = 4096
MAX_OBJECT_BYTES = 1 << 40  # one object; far above any node, far below float trouble
DELETE_BATCH = 10_000       # ids per NODE_DELETE frame: keeps its metadata far below the cap
DELETE_TIMEOUT_S = 2.0      # per NODE_DELETE frame
READ_GRANT_MIN_S = 30.0     # a read grant lasts the lease, and at least this long
RECOVERY_MAX_S = 3.0        # after a start, misses say "retry" for up to this (or the node TTL)
DELETE_GRANT_S = 60.0

#: the master's gauges: name -> (help, label names)
GAUGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "nodes": ("Storage nodes registered", ()),
    "objects": ("Objects in the master's table", ()),
    "capacity_bytes": ("Bytes the registered nodes offer", ()),
    "used_bytes": ("Bytes the registered nodes report in use", ()),
    "tenant_usage_bytes": ("Bytes a tenant holds, replicas included", ("tenant",)),
    "tenant_quota_bytes": ("A tenant's quota in bytes (absent: unlimited)", ("tenant",)),
}


class MasterConfig(StrictModel):
    """Master settings (all times in seconds).

    Raises (on construction):
        InvalidParams: an unknown field or a value out of range, named.
    """

    label: ClassVar[str] = "master config"

    host: str = "127.0.0.1"
    port: int = Field(default=0, ge=0, le=65535)
    lease_ttl_s: float = Field(default=DEFAULT_LEASE_TTL_S, ge=0)
    put_timeout_s: float = Field(default=DEFAULT_PUT_TIMEOUT_S, gt=0)
    node_ttl_s: float = Field(default=DEFAULT_NODE_TTL_S, gt=0)
    high_watermark: float = Field(default=DEFAULT_HIGH_WATERMARK, gt=0, le=1)
    low_watermark: float = Field(default=DEFAULT_LOW_WATERMARK, gt=0, le=1)
    frame_timeout_s: float = Field(default=DEFAULT_FRAME_TIMEOUT_S, gt=0)
    max_connections: int = Field(default=DEFAULT_MAX_CONNECTIONS, gt=0)
    state_dir: str | None = None

    @model_validator(mode="after")
    def _watermarks(self) -> MasterConfig:
        if self.low_watermark > self.high_watermark:
            raise ValueError("low_watermark: must not exceed high_watermark")
        return self


@dataclass
class NodeInfo:
    node_id: str
    address: str
    capacity: int
    last_seen: float
    used: int = 0
    conn: Connection | LocalConnection | None = None
    link: ServerContext | None = None  # the connection it registered on, while open
    alignment: int = 1                 # the node's arena allocates in units of this
    suspect_until: float = 0.0         # a client saw it fail: placed on only as a last resort

    def footprint(self, size: int) -> int:
        """Bytes of the node's capacity an object of ``size`` takes (its arena's extent)."""
        return -(-max(size, 1) // self.alignment) * self.alignment


@dataclass
class ObjectMeta:
    tenant: str            # the tenant charged for it
    ns: str                # namespace ('' when isolation is off)
    key: str
    size: int
    object_id: int
    replicas: list[str]    # node ids
    owner: str | None = None
    started: float = 0.0
    pin: int = PIN_NONE
    lease_until: float = 0.0
    last_access: float = field(default_factory=time.monotonic)

    @property
    def charged(self) -> int:
        return self.size * len(self.replicas)


def _object_size(key: str, size: int) -> int:
    """A put's size: positive and no larger than :data:`MAX_OBJECT_BYTES` (the message type
    already made it an integer).

    Raises:
        InvalidParams: anything else, with the key named.
    """
    if size <= 0:
        raise InvalidParams(f"object {key!r}: size must be positive, got {size}")
    if size > MAX_OBJECT_BYTES:
        raise InvalidParams(f"object {key!r}: size {size} is larger than the largest allowed "
                            f"({MAX_OBJECT_BYTES})")
    return size


class ObjectTable(dict[tuple[str, str], ObjectMeta]):
    """The object table. It keeps each evictable pin class in recency order, least recently
    used first, so that choosing an eviction victim walks from the old end instead of scanning
    every object (which made a full store's puts quadratic)."""

    def __init__(self) -> None:
        super().__init__()
        self._recency: dict[int, OrderedDict[tuple[str, str], None]] = {
            PIN_NONE: OrderedDict(), PIN_SOFT: OrderedDict()}

    def __setitem__(self, ident: tuple[str, str], obj: ObjectMeta) -> None:
        if ident in self:
            self._untrack(ident, self[ident])
        super().__setitem__(ident, obj)
        self.touch(ident, obj)

    def __delitem__(self, ident: tuple[str, str]) -> None:
        self._untrack(ident, self[ident])
        super().__delitem__(ident)

    def _untrack(self, ident: tuple[str, str], obj: ObjectMeta) -> None:
        order = self._recency.get(obj.pin)
        if order is not None:
            order.pop(ident, None)

    def touch(self, ident: tuple[str, str], obj: ObjectMeta) -> None:
        """``obj`` was just used: it is now the last to be evicted in its pin class."""
        order = self._recency.get(obj.pin)
        if order is not None:
            order[ident] = None
            order.move_to_end(ident)

    def victim(self, tenant: str | None, now: float) -> ObjectMeta | None:
        """The least recently used object that is not leased (unpinned before soft-pinned;
        hard-pinned never), of ``tenant`` when given."""
        for order in self._recency.values():
            for ident in order:
                obj = self[ident]
                if obj.lease_until <= now and (tenant is None or obj.tenant == tenant):
                    return obj
        return None


class Master:
    """The master's state and request handler; :meth:`serve` starts its TCP server."""

    def __init__(self, config: MasterConfig, tenants: TenantPolicy | None = None,
                 cluster_key: ClusterKey | None = None) -> None:
        self.config = config
        self.tenants = tenants or TenantPolicy.open_policy()
        self.key = cluster_key or ClusterKey(None)
        if not self.tenants.open and not self.key.enabled:
            raise InvalidParams(
                "tenants are configured but no cluster key: without one any process could "
                "join as a storage node; set cluster_key_env in the tenants file "
                "(or --cluster-key-file)")
        self.metrics = Metrics(tenants=self.tenants.names())
        self._lock = threading.RLock()
        self._nodes: dict[str, NodeInfo] = {}
        self._objects = ObjectTable()
        self._pending: dict[tuple[str, str], ObjectMeta] = {}
        self._unsent = threading.local()  # .deletes: this thread's (node id, object id) to send
        self._ids = itertools.count((int(time.time()) << 32) + 1)
        self._stop = threading.Event()
        self._server: Server | LocalServer | None = None
        self._started = time.time()
        self._recovering_until = 0.0  # set by serve(): nodes re-register after a restart
        self._load_state()
        self.metrics.add_gauges(GAUGES, self._gauges)
        self._ops = self._handlers()

    # ---------------------------------------------------------------- lifecycle

    def serve(self, *, local: bool = False) -> Server | LocalServer:
        """Start the server (TCP, or with ``local`` the in-process transport) and the
        background monitor; returns the server."""
        if local:
            self._server = serve_local(self)
        else:  # max_payload=0: no master operation carries a payload, so none is received
            self._server = Server(self, host=self.config.host, port=self.config.port,
                                  frame_timeout=self.config.frame_timeout_s, max_payload=0,
                                  max_connections=self.config.max_connections).start()
        self._recovering_until = time.monotonic() + min(self.config.node_ttl_s, RECOVERY_MAX_S)
        threading.Thread(target=self._monitor, name="master-monitor", daemon=True).start()
        logger.info("master listening on %s", self._server.address)
        if not self.key.enabled:
            logger.warning(
                "OPEN MODE: no cluster key, so any process that can reach %s can join as a "
                "storage node, and nodes serve any object to anyone who connects; use it on a "
                "private network only (set cluster_key_env in a tenants file, or "
                "--cluster-key-file, to close it)", self._server.address)
        return self._server

    @property
    def address(self) -> str:
        """Where clients and nodes reach the master (once :meth:`serve` was called)."""
        if self._server is None:
            raise NotReady("the master is not serving yet")
        return self._server.address

    def stop(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.stop()
        with self._lock:
            for node in self._nodes.values():
                if node.conn is not None:
                    node.conn.close()

    def health(self) -> dict[str, Any]:
        with self._lock:
            return {"status": "ok", "role": "master", "nodes": len(self._nodes),
                    "objects": len(self._objects), "uptime_s": time.time() - self._started}

    def fsck(self) -> dict[str, Any]:
        """Compare the object table with what every node holds (NODE_LIST, proven with the
        cluster key). ``missing``: listed here, absent on the node (a read would fail);
        ``orphans``: held by a node, unknown here (room nobody can use). Unfinished puts
        count as known. ``unreachable``: nodes that did not answer.
        """
        with self._lock:
            nodes = {n.node_id: n.conn for n in self._nodes.values() if n.conn is not None}
            expected: dict[str, dict[int, str]] = {n: {} for n in nodes}
            known: set[int] = set()
            for table in (self._objects, self._pending):
                for obj in table.values():
                    known.add(obj.object_id)
                    if table is self._objects:
                        for node_id in obj.replicas:
                            expected.setdefault(node_id, {})[obj.object_id] = obj.key
        report: dict[str, Any] = {"nodes": len(nodes), "objects": len(known), "missing": [],
                                  "orphans": [], "unreachable": []}
        for node_id, conn in nodes.items():
            try:
                listed = m.call(conn, m.NodeList(proof=self.key.proof("list")), m.NodeListReply,
                                timeout=10.0)
                held = {o.object_id for o in listed.objects}
            except StoreError as exc:
                report["unreachable"].append({"node": node_id, "error": str(exc)})
                continue
            report["missing"] += [{"node": node_id, "object_id": oid, "key": key}
                                  for oid, key in sorted(expected[node_id].items())
                                  if oid not in held]
            report["orphans"] += [{"node": node_id, "object_id": oid}
                                  for oid in sorted(held - known)]
        report["ok"] = not (report["missing"] or report["orphans"] or report["unreachable"])
        return report

    def set_quota(self, tenant: str, quota: str) -> None:
        """Change a quota at run time and persist it in ``state_dir``.

        Raises:
            TenantNotRegistered: unknown tenant.  InvalidParams: bad quota.
        """
        value = None if quota.lower() in ("none", "") else parse_size(quota, field="quota")
        self.tenants.set_quota(tenant, value)
        self._save_state()

    def delete_quota(self, tenant: str) -> None:
        """Remove a tenant's quota (Mooncake's DELETE of a tenant quota).

        Raises:
            TenantNotRegistered: unknown tenant.  TenantNotEmpty: it still holds objects.
        """
        if self.tenants.get(tenant).usage > 0:
            raise TenantNotEmpty(f"tenant {tenant!r} still holds objects")
        self.tenants.set_quota(tenant, None)
        self._save_state()

    # ---------------------------------------------------------------- request handler

    def _handlers(self) -> dict[int, Callable[[ServerContext, Any], m.Message]]:
        """Each operation the master serves, by opcode (its request type is in
        :data:`~reference_store.transport.messages.REQUESTS`)."""
        return {
            Op.PING: self._op_ping, Op.HELLO: self._op_hello, Op.STATS: self._op_stats,
            Op.PUT_START: self._op_put_start, Op.PUT_END: self._op_put_end,
            Op.PUT_REVOKE: self._op_put_revoke, Op.LOCATE: self._op_locate,
            Op.EXISTS: self._op_exists, Op.LIST: self._op_list, Op.REMOVE: self._op_remove,
            Op.REMOVE_ALL: self._op_remove_all, Op.NODE_REGISTER: self._op_node_register,
            Op.NODE_CHALLENGE: self._op_node_challenge,
            Op.NODE_HEARTBEAT: self._op_node_heartbeat, Op.NODE_LEAVE: self._op_node_leave,
        }

    def handle(self, ctx: ServerContext, op: int, meta: dict[str, Any],
               payload: memoryview) -> tuple[m.Message, list[Buffer]]:
        """Decode the request (InvalidParams naming a bad field), answer it. A handler's own
        exception other than a StoreError reaches the server as what it is: an internal error,
        never blamed on the request."""
        started = time.perf_counter()
        request = m.decode_request(op, meta, self._ops)
        if op not in (Op.PING, Op.HELLO) and op < Op.NODE_REGISTER and "tenant" not in ctx.state:
            raise NotReady("send HELLO with a tenant and token first")
        try:
            out = self._ops[op](ctx, request)
            self._not_yet(op, out)
        finally:
            self._send_deletes()  # before the reply: a caller told "removed" can rely on it
        self.metrics.observe("op_latency_seconds", time.perf_counter() - started,
                             op=Op(op).name.lower())
        return out, []

    def _not_yet(self, op: int, out: m.Message) -> None:
        """Right after a start, nodes are still re-registering and reporting their objects: a
        miss or "no node" then means "not known yet", so the caller is told to retry.

        Raises:
            NotReady: a LOCATE, EXISTS or PUT_START answer with a miss or no node, while
                recovering.
        """
        if time.monotonic() >= self._recovering_until:
            return
        codes = [r.code for r in getattr(out, "results", [])]
        missing = (op == Op.LOCATE and ObjectNotFound.code in codes) or (
            isinstance(out, m.ExistsReply) and not all(out.exists)) or (
            op == Op.PUT_START and StoreFull.code in codes and not self._nodes)
        if missing:
            raise NotReady("the master has just started and nodes are still registering; "
                           "retry")

    def disconnected(self, ctx: ServerContext) -> None:
        """A node's registering connection closed: its id may be registered again. A client's
        connection closed: its unfinished puts are dropped and their room and quota freed (the
        monitor also reclaims any put left unfinished for ``put_timeout_s``)."""
        node_id = ctx.state.get("node_id")
        client_id = ctx.state.get("client_id")
        with self._lock:
            node = self._nodes.get(node_id) if node_id is not None else None
            if node is not None and node.link is ctx:
                node.link = None
            if client_id is not None:
                self._reclaim(lambda obj: obj.owner == client_id, "its client disconnected")
        self._send_deletes()

    def _reclaim_stale(self, started_before: float) -> None:
        self._reclaim(lambda obj: obj.started < started_before, "older than the put timeout")

    def _reclaim(self, abandoned: Callable[[ObjectMeta], bool], why: str) -> None:
        """Drop unfinished puts that match (lock held): their room and quota come back."""
        gone = [ident for ident, obj in self._pending.items() if abandoned(obj)]
        for ident in gone:
            obj = self._pending.pop(ident)
            self._drop(obj)
            self.metrics.inc("puts_reclaimed_total")
        if gone:
            logger.info("reclaimed %d unfinished put(s): %s", len(gone), why)

    def _op_ping(self, ctx: ServerContext, req: m.Ping) -> m.PingReply:
        return m.PingReply(ok=True, role="master")

    def _op_hello(self, ctx: ServerContext, req: m.Hello) -> m.HelloReply:
        tenant = self.tenants.authenticate(req.tenant, req.token)
        ctx.state["tenant"] = tenant.name
        ctx.state["ns"] = self.tenants.namespace(tenant.name)
        ctx.state["client_id"] = uuid.uuid4().hex
        return m.HelloReply(client_id=ctx.state["client_id"], tenant=tenant.name,
                            isolation=self.tenants.isolation, lease_ttl_s=self.config.lease_ttl_s)

    def _op_stats(self, ctx: ServerContext, req: m.Stats) -> m.StatsReply:
        """The caller's own objects, bytes and quota, and how many nodes serve. Node ids and
        addresses, and other tenants, only in the open mode (one tenant, no secrets)."""
        tenant = ctx.state["tenant"]
        with self._lock:
            mine = [o for o in self._objects.values() if o.tenant == tenant]
            usage = self.tenants.quota_of(tenant)
            nodes = {n.node_id: m.NodeUsage(address=n.address, capacity=n.capacity, used=n.used)
                     for n in self._nodes.values()} if self.tenants.open else None
            return m.StatsReply(
                node_count=len(self._nodes), objects=len(mine),
                bytes=sum(o.charged for o in mine),
                tenants={tenant: m.TenantUsage(quota=usage["quota"], usage=usage["usage"] or 0)},
                evictions=int(self.metrics.counter("evictions_total")), nodes=nodes)

    # ---------------------------------------------------------------- puts

    def _op_put_start(self, ctx: ServerContext, req: m.PutStart) -> m.PutStartReply:
        keys = _checked_keys(req.keys)
        if len(req.sizes) != len(keys):
            raise InvalidParams("sizes must be a list as long as keys (field sizes)")
        if req.replicas < 1 or req.pin not in (PIN_NONE, PIN_SOFT, PIN_HARD):
            raise InvalidParams("replicas must be >= 1 and pin 0, 1 or 2")
        results = []
        with self._lock:
            for key, size in zip(keys, req.sizes):
                try:
                    results.append(self._start_one(ctx, key, _object_size(key, size),
                                                   req.replicas, req.pin, req.upsert))
                except StoreError as exc:
                    results.append(m.PutSlot(code=exc.code, error=str(exc)))
        return m.PutStartReply(results=results)

    def _start_one(self, ctx: ServerContext, key: str, size: int, replicas: int, pin: int,
                   upsert: bool) -> m.PutSlot:
        ident = (ctx.state["ns"], key)
        if ident in self._objects and not upsert:
            return m.PutSlot(exists=True)
        self._take_over_stalled(ctx, ident)
        if not self._nodes:
            raise StoreFull("no storage node is registered")
        now = time.monotonic()
        healthy = sum(1 for n in self._nodes.values() if n.suspect_until <= now)
        count = min(replicas, healthy or len(self._nodes))  # fewer replicas than a dead node
        self._make_quota_room(ctx.state["tenant"], size * count)
        chosen = self._place(size, count)
        obj = ObjectMeta(ctx.state["tenant"], ctx.state["ns"], key, size, next(self._ids),
                         [n.node_id for n in chosen], owner=ctx.state["client_id"],
                         started=time.monotonic(), pin=pin)
        for node in chosen:
            node.used += node.footprint(size)
        self.tenants.charge(obj.tenant, obj.charged)
        self._pending[ident] = obj
        return m.PutSlot(object_id=obj.object_id, ns=obj.ns, tenant=obj.tenant,
                         nodes=[n.address for n in chosen],
                         grant=self.key.grant(obj.object_id, size=size, purpose="write",
                                              ttl_s=self.config.put_timeout_s))

    def _take_over_stalled(self, ctx: ServerContext, ident: tuple[str, str]) -> None:
        old = self._pending.get(ident)
        if old is None:
            return
        if time.monotonic() - old.started < self.config.put_timeout_s:
            raise ObjectAlreadyExists(f"object {ident[1]!r} is being put by another client")
        logger.info("taking over a stalled put (object id %d)", old.object_id)
        self.metrics.inc("put_takeovers_total")
        del self._pending[ident]
        self._drop(old)

    def _claim_pending(self, ctx: ServerContext,
                       key: str) -> tuple[tuple[str, str], ObjectMeta] | None:
        """Remove and return ``(ident, obj)`` of this client's unfinished put of ``key``; None
        when there is none (never started, not this client's, or taken over). Lock held."""
        ident = (ctx.state["ns"], key)
        obj = self._pending.get(ident)
        if obj is None or obj.owner != ctx.state["client_id"]:
            return None
        del self._pending[ident]
        return ident, obj

    def _op_put_end(self, ctx: ServerContext, req: m.PutEnd) -> m.CodesReply:
        codes: list[int] = []
        errors: list[str] = []
        with self._lock:
            for key in _checked_keys(req.keys):
                claimed = self._claim_pending(ctx, key)
                if claimed is None:
                    m.failure(codes, errors, _not_yours(key))
                    continue
                ident, obj = claimed
                obj.owner, obj.last_access = None, time.monotonic()
                old = self._objects.get(ident)
                self._objects[ident] = obj
                if old is not None:
                    self._drop(old)
                self.metrics.inc("put_bytes_total", obj.size)
                self.metrics.inc("puts_total")
                m.success(codes, errors)
        return m.CodesReply(codes=codes, errors=errors)

    def _op_put_revoke(self, ctx: ServerContext, req: m.PutRevoke) -> m.CodesReply:
        codes: list[int] = []
        errors: list[str] = []
        with self._lock:
            for key in _checked_keys(req.keys):
                claimed = self._claim_pending(ctx, key)
                if claimed is None:
                    m.failure(codes, errors, _not_yours(key))
                    continue
                self._drop(claimed[1])
                m.success(codes, errors)
            self._suspect(req.failed_nodes)
        return m.CodesReply(codes=codes, errors=errors)

    def _suspect(self, addresses: list[str]) -> None:
        """Nodes a client could not write to: placement avoids them until they prove alive
        again by heartbeat for a node TTL, or are dropped (lock held)."""
        until = time.monotonic() + self.config.node_ttl_s
        for node in self._nodes.values():
            if node.address in addresses:
                node.suspect_until = until
                logger.info("node %s at %s failed a client's call; placing elsewhere",
                            node.node_id, node.address)

    # ---------------------------------------------------------------- reads

    def _op_locate(self, ctx: ServerContext, req: m.Locate) -> m.LocateReply:
        now = time.monotonic()
        ttl = self.config.lease_ttl_s
        results: list[m.Location] = []
        hits = misses = nbytes = 0
        with self._lock:
            for key in _checked_keys(req.keys):
                obj = self._objects.get((ctx.state["ns"], key))
                if obj is None:
                    misses += 1
                    results.append(m.Location(code=ObjectNotFound.code,
                                              error=f"object {key!r}: not found"))
                    continue
                if req.lease:
                    obj.lease_until = now + ttl
                    obj.last_access = now
                    self._objects.touch((obj.ns, obj.key), obj)
                    hits += 1
                    nbytes += obj.size
                live = [self._nodes[n] for n in obj.replicas if n in self._nodes]
                live.sort(key=lambda n: n.suspect_until > now)  # a suspect replica last
                addrs = [n.address for n in live]
                results.append(m.Location(
                    object_id=obj.object_id, size=obj.size, nodes=addrs, lease_s=ttl,
                    grant=self.key.grant(obj.object_id, size=obj.size, purpose="read",
                                         ttl_s=max(ttl, READ_GRANT_MIN_S))))
        if hits:
            self.metrics.inc("hits_total", hits, tenant=ctx.state["tenant"])
            self.metrics.inc("get_bytes_total", nbytes)
        if misses:
            self.metrics.inc("misses_total", misses, tenant=ctx.state["tenant"])
        return m.LocateReply(results=results)

    def _op_exists(self, ctx: ServerContext, req: m.Exists) -> m.ExistsReply:
        with self._lock:
            return m.ExistsReply(exists=[int((ctx.state["ns"], k) in self._objects)
                                         for k in _checked_keys(req.keys)])

    def _op_list(self, ctx: ServerContext, req: m.ListKeys) -> m.ListReply:
        ns = ctx.state["ns"]
        with self._lock:
            return m.ListReply(keys=sorted(k for (n, k) in self._objects if n == ns))

    # ---------------------------------------------------------------- removal

    def _op_remove(self, ctx: ServerContext, req: m.Remove) -> m.CodesReply:
        codes: list[int] = []
        errors: list[str] = []
        with self._lock:
            for key in _checked_keys(req.keys):
                try:
                    self._remove_one((ctx.state["ns"], key), req.force)
                    m.success(codes, errors)
                except StoreError as exc:
                    m.failure(codes, errors, exc)
        return m.CodesReply(codes=codes, errors=errors)

    def _remove_one(self, ident: tuple[str, str], force: bool) -> None:
        obj = self._objects.get(ident)
        if obj is None:
            raise ObjectNotFound(f"no object {ident[1]!r}")
        if not force and obj.lease_until > time.monotonic():
            raise ObjectHasLease(f"object {ident[1]!r} is leased")
        if not force and obj.pin == PIN_HARD:
            raise PinnedObject(f"object {ident[1]!r} is hard-pinned")
        del self._objects[ident]
        self._drop(obj)

    def _op_remove_all(self, ctx: ServerContext, req: m.RemoveAll) -> m.RemoveAllReply:
        removed = 0
        with self._lock:
            for ident in [i for i in self._objects if i[0] == ctx.state["ns"]]:
                try:
                    self._remove_one(ident, req.force)
                    removed += 1
                except StoreError:
                    continue
        return m.RemoveAllReply(removed=removed)

    # ---------------------------------------------------------------- nodes

    def _op_node_register(self, ctx: ServerContext, req: m.Register) -> m.RegisterReply:
        node_id, address = req.node_id, req.address
        nonce = ctx.state.pop("nonce", None)
        if self.key.enabled and (nonce is None or not self.key.check_proof(
                f"register:{nonce}:{node_id}", req.proof)):
            raise AuthenticationFailed("node registration without a valid cluster-key proof "
                                       "(NODE_CHALLENGE first)")
        self._refuse_takeover(ctx, node_id)
        try:
            conn = connect(address, timeout=5.0)
        except StoreError as exc:
            raise InvalidParams(f"cannot reach node data address {address}: {exc}") from exc
        drop: list[int] = []
        with self._lock:
            old = self._nodes.pop(node_id, None)
            if old is not None:
                self._forget_node(old)
            node = NodeInfo(node_id, address, req.capacity, time.monotonic(), conn=conn,
                            link=ctx, alignment=max(1, req.alignment))
            self._nodes[node_id] = node
            for rec in req.objects:
                if not self._adopt(node, rec):
                    drop.append(rec.object_id)
        ctx.state["node_id"] = node_id
        logger.info("node %s registered at %s with %d objects", node_id, address,
                    len(req.objects))
        return m.RegisterReply(drop=drop)

    def _op_node_challenge(self, ctx: ServerContext, req: m.Challenge) -> m.ChallengeReply:
        """A fresh nonce for this connection's next NODE_REGISTER proof."""
        ctx.state["nonce"] = secrets.token_hex(16)
        return m.ChallengeReply(nonce=ctx.state["nonce"])

    def _refuse_takeover(self, ctx: ServerContext, node_id: str) -> None:
        """A live node's id belongs to the connection it registered on.

        Raises:
            ObjectAlreadyExists: the id is registered on another open connection and has
                heartbeated within the node TTL.
        """
        with self._lock:
            live = self._nodes.get(node_id)
            if (live is not None and live.link is not None and live.link is not ctx
                    and time.monotonic() - live.last_seen <= self.config.node_ttl_s):
                raise ObjectAlreadyExists(f"node id {node_id} is registered and alive")

    def _adopt(self, node: NodeInfo, rec: m.ObjectRecord) -> bool:
        """Take a reported object into the table; False if the node should drop it."""
        tenant, ns, key, oid, size = rec.tenant, rec.ns, rec.key, rec.object_id, rec.size
        ident = (ns, key)
        if tenant not in self.tenants.names() or ns != self.tenants.namespace(tenant):
            return False
        pending = self._pending.get(ident)
        if pending is not None and pending.object_id == oid:
            return True
        cur = self._objects.get(ident)
        if cur is not None and cur.object_id > oid:
            return False
        if cur is not None and cur.object_id == oid:
            if node.node_id not in cur.replicas:
                cur.replicas.append(node.node_id)
                node.used += node.footprint(size)
                self.tenants.charge(tenant, size)
            return True
        if cur is not None:
            self._drop(cur)
        obj = ObjectMeta(tenant, ns, key, size, oid, [node.node_id], pin=rec.pin)
        self._objects[ident] = obj
        node.used += node.footprint(size)
        self.tenants.charge(tenant, size)
        self._ids = itertools.count(max(next(self._ids), oid + 1))
        return True

    def _op_node_heartbeat(self, ctx: ServerContext, req: m.Heartbeat) -> m.Known:
        with self._lock:
            node = self._nodes.get(req.node_id)
            if node is None or node.link is not ctx:  # only its registering connection counts
                return m.Known(known=False)
            node.last_seen = time.monotonic()
        return m.Known(known=True)

    def _op_node_leave(self, ctx: ServerContext, req: m.Leave) -> m.Known:
        """A node stopping on purpose: dropped at once, logged as departed (not lost)."""
        node_id = req.node_id
        if ctx.state.get("node_id") != node_id:
            raise AuthenticationFailed("only the connection that registered a node may end it")
        with self._lock:
            node = self._nodes.get(node_id)
            if node is None:
                return m.Known(known=False)
            del self._nodes[node_id]
            self._forget_node(node)
            self.metrics.inc("nodes_departed_total")
        logger.info("node %s at %s departed (stopped on purpose)", node_id, node.address)
        return m.Known(known=True)

    def _forget_node(self, node: NodeInfo) -> None:
        """Remove every replica on ``node`` from the tables (caller holds the lock)."""
        for table in (self._objects, self._pending):
            for ident, obj in list(table.items()):
                if node.node_id in obj.replicas:
                    obj.replicas.remove(node.node_id)
                    self.tenants.refund(obj.tenant, obj.size)
                    if not obj.replicas:
                        del table[ident]
        if node.conn is not None:
            node.conn.close()

    def _monitor(self) -> None:
        while not self._stop.wait(min(0.5, self.config.node_ttl_s / 4)):
            now = time.monotonic()
            with self._lock:
                for node in list(self._nodes.values()):
                    if now - node.last_seen > self.config.node_ttl_s:
                        logger.warning("node %s at %s stopped answering; dropping it",
                                       node.node_id, node.address)
                        self.metrics.inc("nodes_lost_total")
                        del self._nodes[node.node_id]
                        self._forget_node(node)
                self._reclaim_stale(now - self.config.put_timeout_s)
                self._evict_to_watermark()
            self._send_deletes()

    # ---------------------------------------------------------------- placement and eviction

    def _place(self, size: int, count: int) -> list[NodeInfo]:
        """Pick ``count`` distinct nodes with room, evicting if needed. Raises: StoreFull."""
        while True:
            fits = [n for n in self._nodes.values() if n.capacity - n.used >= n.footprint(size)]
            now = time.monotonic()  # nodes that just failed a call go last, whatever their room
            fits.sort(key=lambda n: (n.suspect_until <= now, n.capacity - n.used), reverse=True)
            if len(fits) >= count:
                return fits[:count]
            victim = self._next_victim(None)
            if victim is None:
                if fits:
                    return fits  # best effort: fewer replicas than asked
                raise StoreFull(f"no node has {size} free bytes and nothing can be evicted")
            self._evict(victim)

    def _make_quota_room(self, tenant: str, need: int) -> None:
        room = self.tenants.room(tenant)
        while room is not None and room < need:
            victim = self._next_victim(tenant)
            if victim is None:
                raise TenantQuotaExceeded(
                    f"tenant {tenant!r} needs {need} bytes, {max(room, 0)} left under its quota")
            self._evict(victim)
            room = self.tenants.room(tenant)

    def _next_victim(self, tenant: str | None) -> ObjectMeta | None:
        return self._objects.victim(tenant, time.monotonic())

    def _evict(self, obj: ObjectMeta) -> None:
        del self._objects[(obj.ns, obj.key)]
        self.metrics.inc("evictions_total")
        self.metrics.inc("evicted_bytes_total", obj.size)
        self._drop(obj)

    def _evict_to_watermark(self) -> None:
        capacity = sum(n.capacity for n in self._nodes.values())
        used = sum(n.used for n in self._nodes.values())
        if not capacity or used <= self.config.high_watermark * capacity:
            return
        while used > self.config.low_watermark * capacity:
            victim = self._next_victim(None)
            if victim is None:
                return
            used -= victim.charged
            self._evict(victim)

    def _drop(self, obj: ObjectMeta) -> None:
        """Free an object's room on its nodes and refund its tenant (lock held). The node
        deletes are only queued: :meth:`_send_deletes` sends them after the lock is released."""
        self.tenants.refund(obj.tenant, obj.charged)
        queue = self._queued_deletes()
        for node_id in obj.replicas:
            node = self._nodes.get(node_id)
            if node is None:
                continue
            node.used = max(0, node.used - node.footprint(obj.size))
            queue.append((node_id, obj.object_id))

    def _queued_deletes(self) -> list[tuple[str, int]]:
        queue: list[tuple[str, int]] | None = getattr(self._unsent, "deletes", None)
        if queue is None:
            queue = self._unsent.deletes = []
        return queue

    def _send_deletes(self) -> None:
        """Send the deletes this thread queued, to all nodes at once, each node's ids in as few
        frames as :data:`DELETE_BATCH` allows. Failures are logged, never raised. Call with
        the lock released: that is the point."""
        queue = self._queued_deletes()
        if not queue:
            return
        self._unsent.deletes = []
        by_node: dict[str, list[int]] = {}
        for node_id, oid in queue:
            by_node.setdefault(node_id, []).append(oid)
        now = time.monotonic()
        with self._lock:  # the current connection: a node may have re-registered meanwhile
            conns = {n: self._nodes[n].conn for n in by_node if n in self._nodes}
            suspect = {n for n in conns if self._nodes[n].suspect_until > now}
        in_flight = []
        for node_id, ids in by_node.items():
            conn = conns.get(node_id)
            if conn is None:
                continue
            calls = self._submit_deletes(conn, ids)
            if node_id not in suspect:  # a node that just failed a client is not waited for
                in_flight += [(node_id, conn, *call) for call in calls]
        for node_id, conn, rid, pending in in_flight:
            try:
                conn.wait(rid, pending, DELETE_TIMEOUT_S)
            except StoreError as exc:
                logger.warning("could not delete objects on node %s: %s", node_id, exc)

    def _submit_deletes(self, conn: Connection | LocalConnection,
                        ids: list[int]) -> list[tuple[int, Any]]:
        """Send ``NODE_DELETE`` frames for ``ids`` without waiting; ``(rid, pending)`` each."""
        calls = []
        for start in range(0, len(ids), DELETE_BATCH):
            chunk = ids[start:start + DELETE_BATCH]
            request = m.Delete(ids=chunk, grants=[
                self.key.grant(i, size=0, purpose="delete", ttl_s=DELETE_GRANT_S) for i in chunk])
            try:
                calls.append(conn.submit(Op.NODE_DELETE, request))
            except StoreError as exc:
                logger.warning("could not delete objects on node %s: %s", conn.address, exc)
                break
        return calls

    # ---------------------------------------------------------------- metrics and state

    def _gauges(self) -> list[GaugeSample]:
        with self._lock:
            out: list[GaugeSample] = [
                ("nodes", {}, float(len(self._nodes))),
                ("objects", {}, float(len(self._objects))),
                ("capacity_bytes", {}, float(sum(n.capacity for n in self._nodes.values()))),
                ("used_bytes", {}, float(sum(n.used for n in self._nodes.values())))]
        for name, q in self.tenants.quotas().items():
            out.append(("tenant_usage_bytes", {"tenant": name}, float(q["usage"] or 0)))
            if q["quota"] is not None:
                out.append(("tenant_quota_bytes", {"tenant": name}, float(q["quota"])))
        return out

    def _state_file(self) -> Path | None:
        if not self.config.state_dir:
            return None
        Path(self.config.state_dir).mkdir(parents=True, exist_ok=True)
        return Path(self.config.state_dir) / "quotas.json"

    def _save_state(self) -> None:
        path = self._state_file()
        if path is None:
            return
        tmp = path.with_suffix(".tmp")
        quotas = {n: q["quota"] for n, q in self.tenants.quotas().items()}
        with open(tmp, "w") as fh:
            json.dump(quotas, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)

    def _load_state(self) -> None:
        path = self._state_file()
        if path is None or not path.exists():
            return
        try:
            quotas = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            logger.error("ignoring unreadable state file %s: %s", path, exc)
            return
        for name, quota in quotas.items():
            if name in self.tenants.names():
                self.tenants.set_quota(name, quota)


def _checked_keys(keys: list[str]) -> list[str]:
    """Raises InvalidKey for an empty key or one over :data:`MAX_KEY_BYTES`."""
    for k in keys:
        if not k or len(k.encode()) > MAX_KEY_BYTES:
            raise InvalidKey(f"keys must be non-empty strings of at most {MAX_KEY_BYTES} bytes")
    return keys


def _not_yours(key: str) -> InvalidParams:
    return InvalidParams(f"object {key!r}: no unfinished put of this client (never started, "
                         "or taken over after the put timeout)")

