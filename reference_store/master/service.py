"""The master's request handler and lifecycle: each operation decoded, checked and answered
with the roles it composes (:mod:`~reference_store.master.objects`,
:mod:`~reference_store.master.membership`, :mod:`~reference_store.master.placement`,
:mod:`~reference_store.master.deletes`). The package docstring tells the protocol.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reference_store.config import parse_size
from reference_store.errors import (
    InvalidParams,
    NotReady,
    ObjectAlreadyExists,
    ObjectHasLease,
    ObjectNotFound,
    PinnedObject,
    StoreError,
    StoreFull,
    TenantNotEmpty,
)
from reference_store.master.config import MasterConfig
from reference_store.master.deletes import DeleteFanout
from reference_store.master.membership import Membership, NodeInfo
from reference_store.master.objects import (
    PIN_HARD,
    PIN_NONE,
    PIN_SOFT,
    Ident,
    ObjectMeta,
    ObjectTable,
    checked_keys,
    object_size,
)
from reference_store.master.placement import Placement
from reference_store.metrics import GaugeSample, Metrics
from reference_store.tenants import ClusterKey, TenantPolicy
from reference_store.transport import messages as m
from reference_store.transport.local import LocalServer, serve_local
from reference_store.transport.protocol import Buffer, Op
from reference_store.transport.tcp import Server, ServerContext

__all__ = ["Master"]

logger = logging.getLogger(__name__)

READ_GRANT_MIN_S = 30.0     # a read grant lasts the lease, and at least this long
RECOVERY_MAX_S = 3.0        # after a start, misses say "retry" for up to this (or the node TTL)

#: the master's gauges: name -> (help, label names)
GAUGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "nodes": ("Storage nodes registered", ()),
    "objects": ("Objects in the master's table", ()),
    "capacity_bytes": ("Bytes the registered nodes offer", ()),
    "used_bytes": ("Bytes the registered nodes report in use", ()),
    "tenant_usage_bytes": ("Bytes a tenant holds, replicas included", ("tenant",)),
    "tenant_quota_bytes": ("A tenant's quota in bytes (absent: unlimited)", ("tenant",)),
}


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
        self.membership = Membership(self.key, config.node_ttl_s, self._lock)
        self._nodes = self.membership.nodes
        self._objects = ObjectTable()
        self._pending: dict[Ident, ObjectMeta] = {}  # puts started, not yet ended
        self.deletes = DeleteFanout(self.key, self.membership.delete_targets)
        self.placement = Placement(self._nodes, self._objects, self._pending, self.tenants,
                                   self.metrics, self.deletes)
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
        if not self.key.enabled and not local:  # in-process, no other process can reach it
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
            self.membership.close()

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
            self.deletes.send()  # before the reply: a caller told "removed" can rely on it
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
        client_id = ctx.state.get("client_id")
        with self._lock:
            self.membership.link_closed(ctx)
            if client_id is not None:
                self._reclaim(lambda obj: obj.owner == client_id, "its client disconnected")
        self.deletes.send()

    def _reclaim_stale(self, started_before: float) -> None:
        self._reclaim(lambda obj: obj.started < started_before, "older than the put timeout")

    def _reclaim(self, abandoned: Callable[[ObjectMeta], bool], why: str) -> None:
        """Drop unfinished puts that match (lock held): their room and quota come back."""
        gone = [ident for ident, obj in self._pending.items() if abandoned(obj)]
        for ident in gone:
            obj = self._pending.pop(ident)
            self.placement.drop(obj)
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
        keys = checked_keys(req.keys)
        if len(req.sizes) != len(keys):
            raise InvalidParams("sizes must be a list as long as keys (field sizes)")
        if req.replicas < 1 or req.pin not in (PIN_NONE, PIN_SOFT, PIN_HARD):
            raise InvalidParams("replicas must be >= 1 and pin 0, 1 or 2")
        results = []
        with self._lock:
            for key, size in zip(keys, req.sizes):
                try:
                    results.append(self._start_one(ctx, key, object_size(key, size),
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
        healthy = self.membership.healthy(time.monotonic())
        count = min(replicas, healthy or len(self._nodes))  # fewer replicas than a dead node
        self.placement.make_quota_room(ctx.state["tenant"], size * count)
        chosen = self.placement.place(size, count)
        obj = ObjectMeta(ctx.state["tenant"], ctx.state["ns"], key, size, next(self._ids),
                         [n.node_id for n in chosen], owner=ctx.state["client_id"],
                         started=time.monotonic(), pin=pin)
        self.placement.charge(obj, chosen)
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
        self.placement.drop(old)

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
            for key in checked_keys(req.keys):
                claimed = self._claim_pending(ctx, key)
                if claimed is None:
                    m.failure(codes, errors, _not_yours(key))
                    continue
                ident, obj = claimed
                obj.owner, obj.last_access = None, time.monotonic()
                old = self._objects.get(ident)
                self._objects[ident] = obj
                if old is not None:
                    self.placement.drop(old)
                self.metrics.inc("put_bytes_total", obj.size)
                self.metrics.inc("puts_total")
                m.success(codes, errors)
        return m.CodesReply(codes=codes, errors=errors)

    def _op_put_revoke(self, ctx: ServerContext, req: m.PutRevoke) -> m.CodesReply:
        codes: list[int] = []
        errors: list[str] = []
        with self._lock:
            for key in checked_keys(req.keys):
                claimed = self._claim_pending(ctx, key)
                if claimed is None:
                    m.failure(codes, errors, _not_yours(key))
                    continue
                self.placement.drop(claimed[1])
                m.success(codes, errors)
            self.membership.suspect(req.failed_nodes)
        return m.CodesReply(codes=codes, errors=errors)

    # ---------------------------------------------------------------- reads

    def _op_locate(self, ctx: ServerContext, req: m.Locate) -> m.LocateReply:
        now = time.monotonic()
        ttl = self.config.lease_ttl_s
        results: list[m.Location] = []
        hits = misses = nbytes = 0
        with self._lock:
            for key in checked_keys(req.keys):
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
                                         for k in checked_keys(req.keys)])

    def _op_list(self, ctx: ServerContext, req: m.ListKeys) -> m.ListReply:
        ns = ctx.state["ns"]
        with self._lock:
            return m.ListReply(keys=sorted(k for (n, k) in self._objects if n == ns))

    # ---------------------------------------------------------------- removal

    def _op_remove(self, ctx: ServerContext, req: m.Remove) -> m.CodesReply:
        codes: list[int] = []
        errors: list[str] = []
        with self._lock:
            for key in checked_keys(req.keys):
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
        self.placement.drop(obj)

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
        def admitted(node: NodeInfo, replaced: NodeInfo | None) -> list[int]:
            if replaced is not None:
                self._forget_node(replaced)
            return [rec.object_id for rec in req.objects if not self._adopt(node, rec)]

        drop = self.membership.register(ctx, req, admitted)
        logger.info("node %s registered at %s with %d objects", req.node_id, req.address,
                    len(req.objects))
        return m.RegisterReply(drop=drop)

    def _op_node_challenge(self, ctx: ServerContext, req: m.Challenge) -> m.ChallengeReply:
        """A fresh nonce for this connection's next NODE_REGISTER proof."""
        return m.ChallengeReply(nonce=self.membership.challenge(ctx))

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
                self.placement.charge(cur, [node])
            return True
        if cur is not None:
            self.placement.drop(cur)
        obj = ObjectMeta(tenant, ns, key, size, oid, [node.node_id], pin=rec.pin)
        self._objects[ident] = obj
        self.placement.charge(obj, [node])
        self._ids = itertools.count(max(next(self._ids), oid + 1))
        return True

    def _op_node_heartbeat(self, ctx: ServerContext, req: m.Heartbeat) -> m.Known:
        with self._lock:
            return m.Known(known=self.membership.heartbeat(ctx, req.node_id))

    def _op_node_leave(self, ctx: ServerContext, req: m.Leave) -> m.Known:
        """A node stopping on purpose: dropped at once, logged as departed (not lost)."""
        with self._lock:
            node = self.membership.leave(ctx, req.node_id)
            if node is None:
                return m.Known(known=False)
            self._forget_node(node)
            self.metrics.inc("nodes_departed_total")
        logger.info("node %s at %s departed (stopped on purpose)", node.node_id, node.address)
        return m.Known(known=True)

    def _forget_node(self, node: NodeInfo) -> None:
        """A member gone (or replaced): its replicas leave the tables (lock held)."""
        self.placement.forget_node(node)
        node.close()

    def _monitor(self) -> None:
        while not self._stop.wait(min(0.5, self.config.node_ttl_s / 4)):
            now = time.monotonic()
            with self._lock:
                for node in self.membership.expire(now):
                    self.metrics.inc("nodes_lost_total")
                    self._forget_node(node)
                self._reclaim_stale(now - self.config.put_timeout_s)
                self.placement.evict_to_watermark(self.config.high_watermark,
                                                  self.config.low_watermark)
            self.deletes.send()

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


def _not_yours(key: str) -> InvalidParams:
    return InvalidParams(f"object {key!r}: no unfinished put of this client (never started, "
                         "or taken over after the put timeout)")

