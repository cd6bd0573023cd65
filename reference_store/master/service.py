"""The master's request handler and lifecycle: each operation decoded, checked and answered
with the roles it composes (:mod:`~reference_store.master.objects`,
:mod:`~reference_store.master.membership`, :mod:`~reference_store.master.placement`,
:mod:`~reference_store.master.deletes`). The package docstring tells the protocol.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from reference_store.config import parse_size
from reference_store.errors import (
    InvalidParams,
    NotReady,
    ObjectNotFound,
    StoreError,
    StoreFull,
    TenantNotEmpty,
)
from reference_store.master import fsck
from reference_store.master.config import MasterConfig
from reference_store.master.deletes import DeleteFanout
from reference_store.master.membership import Membership, NodeInfo
from reference_store.master.objects import (
    PIN_HARD,
    PIN_NONE,
    PIN_SOFT,
    ObjectMeta,
    Objects,
    checked_keys,
    object_size,
)
from reference_store.master.placement import Placement
from reference_store.master.state import QuotaFile
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
        self.objects = Objects()
        self._objects = self.objects.readable
        self.deletes = DeleteFanout(self.key, self.membership.delete_targets)
        self.placement = Placement(self._nodes, self.objects, self.tenants, self.metrics,
                                   self.deletes)
        self._stop = threading.Event()
        self._server: Server | LocalServer | None = None
        self._started = time.time()
        self._recovering_until = 0.0  # set by serve(): nodes re-register after a restart
        self._quotas = QuotaFile(config.state_dir)
        self._quotas.load(self.tenants)
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
        """Compare the object table with what every node holds (see
        :func:`~reference_store.master.fsck.compare` for the report)."""
        with self._lock:
            nodes = self.membership.connections()
            expected = self.objects.expected_on(list(nodes))
            known = self.objects.known_ids()
        return fsck.compare(nodes, expected, known, self.key)

    def set_quota(self, tenant: str, quota: str) -> None:
        """Change a quota at run time and persist it in ``state_dir``.

        Raises:
            TenantNotRegistered: unknown tenant.  InvalidParams: bad quota.
        """
        value = None if quota.lower() in ("none", "") else parse_size(quota, field="quota")
        self.tenants.set_quota(tenant, value)
        self._quotas.save(self.tenants)

    def delete_quota(self, tenant: str) -> None:
        """Remove a tenant's quota (Mooncake's DELETE of a tenant quota).

        Raises:
            TenantNotRegistered: unknown tenant.  TenantNotEmpty: it still holds objects.
        """
        if self.tenants.get(tenant).usage > 0:
            raise TenantNotEmpty(f"tenant {tenant!r} still holds objects")
        self.tenants.set_quota(tenant, None)
        self._quotas.save(self.tenants)

    # ---------------------------------------------------------------- dispatch

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
                self.placement.reclaim(lambda obj: obj.owner == client_id,
                                       "its client disconnected")
        self.deletes.send()

    # ---------------------------------------------------------------- session

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
            mine = self.objects.of_tenant(tenant)
            usage = self.tenants.quota_of(tenant)
            return m.StatsReply(
                node_count=len(self._nodes), objects=len(mine),
                bytes=sum(o.charged for o in mine),
                tenants={tenant: m.TenantUsage(quota=usage["quota"], usage=usage["usage"] or 0)},
                evictions=int(self.metrics.counter("evictions_total")),
                nodes=self.membership.usage() if self.tenants.open else None)

    # ---------------------------------------------------------------- puts

    def _op_put_start(self, ctx: ServerContext, req: m.PutStart) -> m.PutStartReply:
        keys = checked_keys(req.keys)
        if len(req.sizes) != len(keys):
            raise InvalidParams("sizes must be a list as long as keys (field sizes)")
        if req.replicas < 1 or req.pin not in (PIN_NONE, PIN_SOFT, PIN_HARD):
            raise InvalidParams("replicas must be >= 1 and pin 0, 1 or 2")
        results = []
        with self._lock:
            # fewer replicas than a dead node: the nodes' health, once for the whole call
            count = min(req.replicas, self.membership.healthy(time.monotonic()) or len(self._nodes))
            for key, size in zip(keys, req.sizes):
                try:
                    results.append(self._start_one(ctx, key, object_size(key, size),
                                                   count, req.pin, req.upsert))
                except StoreError as exc:
                    results.append(m.PutSlot(code=exc.code, error=str(exc)))
        return m.PutStartReply(results=results)

    def _start_one(self, ctx: ServerContext, key: str, size: int, count: int, pin: int,
                   upsert: bool) -> m.PutSlot:
        ident = (ctx.state["ns"], key)
        if ident in self._objects and not upsert:
            return m.PutSlot(exists=True)
        self.placement.take_over(ident, self.config.put_timeout_s)
        if not self._nodes:
            raise StoreFull("no storage node is registered")
        self.placement.make_quota_room(ctx.state["tenant"], size * count)
        chosen = self.placement.place(size, count)
        obj = ObjectMeta(ctx.state["tenant"], ctx.state["ns"], key, size, self.objects.new_id(),
                         [n.node_id for n in chosen], owner=ctx.state["client_id"],
                         started=time.monotonic(), pin=pin)
        self.placement.charge(obj, chosen)
        self.objects.pending[ident] = obj
        return m.PutSlot(object_id=obj.object_id, ns=obj.ns, tenant=obj.tenant,
                         nodes=[n.address for n in chosen],
                         grant=self.key.grant(obj.object_id, size=size, purpose="write",
                                              ttl_s=self.config.put_timeout_s))

    def _op_put_end(self, ctx: ServerContext, req: m.PutEnd) -> m.CodesReply:
        """This client's puts become readable (an object they replace is dropped); the put
        metrics are counted once for the call, not per object."""
        published: list[ObjectMeta] = []

        def publish(obj: ObjectMeta) -> None:
            old = self.objects.publish(obj)
            if old is not None:
                self.placement.drop(old)
            published.append(obj)

        reply = self._each_claimed(ctx, req.keys, publish)
        if published:
            self.metrics.inc("put_bytes_total", sum(obj.size for obj in published))
            self.metrics.inc("puts_total", len(published))
        return reply

    def _op_put_revoke(self, ctx: ServerContext, req: m.PutRevoke) -> m.CodesReply:
        """This client's puts are dropped; the nodes it could not reach are suspected."""
        with self._lock:
            reply = self._each_claimed(ctx, req.keys, self.placement.drop)
            self.membership.suspect(req.failed_nodes)
        return reply

    def _each_claimed(self, ctx: ServerContext, keys: list[str],
                      then: Callable[[ObjectMeta], None]) -> m.CodesReply:
        """``then(obj)`` for each key's unfinished put of this client; an error for a key
        without one."""
        codes: list[int] = []
        errors: list[str] = []
        with self._lock:
            for key, obj in self.objects.claimed(ctx.state["ns"], checked_keys(keys),
                                                 ctx.state["client_id"]):
                if obj is None:
                    m.failure(codes, errors, _not_yours(key))
                else:
                    then(obj)
                    m.success(codes, errors)
        return m.CodesReply(codes=codes, errors=errors)

    # ---------------------------------------------------------------- reads

    def _op_locate(self, ctx: ServerContext, req: m.Locate) -> m.LocateReply:
        now = time.monotonic()
        with self._lock:
            results = [self._locate_one(ctx.state["ns"], key, req.lease, now)
                       for key in checked_keys(req.keys)]
        found = [r for r in results if not r.code]
        tenant = ctx.state["tenant"]
        if found and req.lease:
            self.metrics.inc("hits_total", len(found), tenant=tenant)
            self.metrics.inc("get_bytes_total", sum(r.size for r in found))
        if len(found) < len(results):
            self.metrics.inc("misses_total", len(results) - len(found), tenant=tenant)
        return m.LocateReply(results=results)

    def _locate_one(self, ns: str, key: str, lease: bool, now: float) -> m.Location:
        """Where an object is (a suspect replica last), with a read grant; leased when asked."""
        obj = self._objects.get((ns, key))
        if obj is None:
            return m.Location(code=ObjectNotFound.code, error=f"object {key!r}: not found")
        ttl = self.config.lease_ttl_s
        if lease:
            self.objects.lease(obj, now, ttl)
        return m.Location(
            object_id=obj.object_id, size=obj.size, lease_s=ttl,
            nodes=self.membership.replica_addresses(obj.replicas, now),
            grant=self.key.grant(obj.object_id, size=obj.size, purpose="read",
                                 ttl_s=max(ttl, READ_GRANT_MIN_S)))

    def _op_exists(self, ctx: ServerContext, req: m.Exists) -> m.ExistsReply:
        with self._lock:
            return m.ExistsReply(exists=[int((ctx.state["ns"], k) in self._objects)
                                         for k in checked_keys(req.keys)])

    def _op_list(self, ctx: ServerContext, req: m.ListKeys) -> m.ListReply:
        with self._lock:
            return m.ListReply(keys=self.objects.keys_in(ctx.state["ns"]))

    # ---------------------------------------------------------------- removal

    def _op_remove(self, ctx: ServerContext, req: m.Remove) -> m.CodesReply:
        codes: list[int] = []
        errors: list[str] = []
        with self._lock:
            for key in checked_keys(req.keys):
                try:
                    self.placement.drop(self.objects.remove((ctx.state["ns"], key),
                                                            force=req.force))
                    m.success(codes, errors)
                except StoreError as exc:
                    m.failure(codes, errors, exc)
        return m.CodesReply(codes=codes, errors=errors)

    def _op_remove_all(self, ctx: ServerContext, req: m.RemoveAll) -> m.RemovedReply:
        removed = 0
        with self._lock:
            for ident in [i for i in self._objects if i[0] == ctx.state["ns"]]:
                try:
                    self.placement.drop(self.objects.remove(ident, force=req.force))
                    removed += 1
                except StoreError:
                    continue
        return m.RemovedReply(removed=removed)

    # ---------------------------------------------------------------- nodes

    def _op_node_register(self, ctx: ServerContext, req: m.Register) -> m.RegisterReply:
        def admitted(node: NodeInfo, replaced: NodeInfo | None) -> list[int]:
            if replaced is not None:
                self._forget_node(replaced)
            return [rec.object_id for rec in req.objects if not self.placement.adopt(node, rec)]

        drop = self.membership.register(ctx, req, admitted)
        logger.info("node %s registered at %s with %d objects", req.node_id, req.address,
                    len(req.objects))
        return m.RegisterReply(drop=drop)

    def _op_node_challenge(self, ctx: ServerContext, req: m.Challenge) -> m.ChallengeReply:
        """A fresh nonce for this connection's next NODE_REGISTER proof."""
        return m.ChallengeReply(nonce=self.membership.challenge(ctx))

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
        """Expire silent nodes, reclaim stalled puts, keep usage under the high watermark."""
        while not self._stop.wait(min(0.5, self.config.node_ttl_s / 4)):
            now = time.monotonic()
            with self._lock:
                for node in self.membership.expire(now):
                    self.metrics.inc("nodes_lost_total")
                    self._forget_node(node)
                self._reclaim_older_than(now - self.config.put_timeout_s)
                self.placement.evict_to_watermark(self.config.high_watermark,
                                                  self.config.low_watermark)
            self.deletes.send()

    def _reclaim_older_than(self, started_before: float) -> None:
        self.placement.reclaim(lambda obj: obj.started < started_before,
                               "older than the put timeout")

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


def _not_yours(key: str) -> InvalidParams:
    return InvalidParams(f"object {key!r}: no unfinished put of this client (never started, "
                         "or taken over after the put timeout)")
