"""Placement: the master's authority over space, on the nodes and under the tenants' quotas.

Every byte an object takes is charged here when it is placed (each node's ``used`` counts the
arena extent it takes there, alignment included, so the master's accounting and the nodes'
arenas agree) and given back here when it is dropped. When a put needs room, the victim is the
first unleased object in the object table's eviction order (:mod:`reference_store.eviction`:
unpinned before soft-pinned, least recently used first; hard-pinned never). A dropped object's
node deletes are queued on the :class:`~reference_store.master.deletes.DeleteFanout`.

Room also comes back from puts that will never end (taken over after the put timeout, or
abandoned by a client that disconnected), and is taken by the objects a registering node
reports (adopted into the table after a master restart).

The caller holds the master's lock for every method.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from reference_store.errors import StoreFull, TenantQuotaExceeded
from reference_store.master.deletes import DeleteFanout
from reference_store.master.membership import NodeInfo
from reference_store.master.objects import Ident, ObjectMeta, Objects
from reference_store.metrics import Metrics
from reference_store.tenants import TenantPolicy
from reference_store.transport import messages as m

__all__ = ["Placement"]

logger = logging.getLogger(__name__)


class Placement:
    """Room for new objects, evictions, and the accounting of every replica."""

    def __init__(self, nodes: dict[str, NodeInfo], objects: Objects, tenants: TenantPolicy,
                 metrics: Metrics, deletes: DeleteFanout) -> None:
        self._nodes = nodes
        self._tables = objects
        self._objects = objects.readable
        self._tenants = tenants
        self._metrics = metrics
        self._deletes = deletes

    def place(self, size: int, count: int) -> list[NodeInfo]:
        """``count`` distinct nodes with room for ``size`` bytes, evicting if needed; fewer when
        fewer fit and nothing can be evicted (best effort). Suspect nodes go last, whatever
        their room. Raises: StoreFull when no node fits."""
        while True:
            fits = [n for n in self._nodes.values() if n.capacity - n.used >= n.footprint(size)]
            now = time.monotonic()
            fits.sort(key=lambda n: (n.suspect_until <= now, n.capacity - n.used), reverse=True)
            if len(fits) >= count:
                return fits[:count]
            victim = self._objects.victim(None, now)
            if victim is None:
                if fits:
                    return fits
                raise StoreFull(f"no node has {size} free bytes and nothing can be evicted")
            self.evict(victim)

    def make_quota_room(self, tenant: str, need: int) -> None:
        """Evict ``tenant``'s own objects until ``need`` bytes fit its quota.

        Raises:
            TenantQuotaExceeded: they cannot be made to fit.
        """
        room = self._tenants.room(tenant)
        while room is not None and room < need:
            victim = self._objects.victim(tenant, time.monotonic())
            if victim is None:
                raise TenantQuotaExceeded(
                    f"tenant {tenant!r} needs {need} bytes, {max(room, 0)} left under its quota")
            self.evict(victim)
            room = self._tenants.room(tenant)

    def charge(self, obj: ObjectMeta, nodes: list[NodeInfo]) -> None:
        """Take ``obj``'s room on ``nodes`` and charge its tenant for every replica."""
        for node in nodes:
            node.used += node.footprint(obj.size)
        self._tenants.charge(obj.tenant, obj.size * len(nodes))

    def evict(self, obj: ObjectMeta) -> None:
        """Drop a readable object to make room, and count it as an eviction."""
        del self._objects[obj.ident]
        self._metrics.inc("evictions_total")
        self._metrics.inc("evicted_bytes_total", obj.size)
        self.drop(obj)

    def evict_to_watermark(self, high: float, low: float) -> None:
        """Above ``high`` of the nodes' capacity in use, evict down to ``low``."""
        capacity = sum(n.capacity for n in self._nodes.values())
        used = sum(n.used for n in self._nodes.values())
        if not capacity or used <= high * capacity:
            return
        while used > low * capacity:
            victim = self._objects.victim(None, time.monotonic())
            if victim is None:
                return
            used -= victim.charged
            self.evict(victim)

    def drop(self, obj: ObjectMeta) -> None:
        """Give back an object's room on its nodes and refund its tenant (already out of the
        tables); its node deletes are queued for the fan-out."""
        self._tenants.refund(obj.tenant, obj.charged)
        for node_id in obj.replicas:
            node = self._nodes.get(node_id)
            if node is None:
                continue
            node.used = max(0, node.used - node.footprint(obj.size))
            self._deletes.queue(node_id, obj.object_id)

    def take_over(self, ident: Ident, put_timeout_s: float) -> None:
        """Drop the put of ``ident`` left unfinished past the put timeout, if any.

        Raises:
            ObjectAlreadyExists: another client's put of it is still under way.
        """
        old = self._tables.stalled_put(ident, put_timeout_s)
        if old is not None:
            logger.info("taking over a stalled put (object id %d)", old.object_id)
            self._metrics.inc("put_takeovers_total")
            self.drop(old)

    def reclaim(self, abandoned: Callable[[ObjectMeta], bool], why: str) -> None:
        """Drop the unfinished puts that match: their room and quota come back."""
        gone = self._tables.abandoned(abandoned)
        for obj in gone:
            self.drop(obj)
            self._metrics.inc("puts_reclaimed_total")
        if gone:
            logger.info("reclaimed %d unfinished put(s): %s", len(gone), why)

    def adopt(self, node: NodeInfo, rec: m.ObjectRecord) -> bool:
        """Take an object a (re-)registering node reports into the tables, charged; False
        when the node should drop it (an unknown tenant, or an older object of the key)."""
        if rec.tenant not in self._tenants.names() or rec.ns != self._tenants.namespace(rec.tenant):
            return False
        ident = (rec.ns, rec.key)
        pending = self._tables.pending.get(ident)
        if pending is not None and pending.object_id == rec.object_id:
            return True
        cur = self._objects.get(ident)
        if cur is not None and cur.object_id > rec.object_id:
            return False
        if cur is not None and cur.object_id == rec.object_id:
            if node.node_id not in cur.replicas:
                cur.replicas.append(node.node_id)
                self.charge(cur, [node])
            return True
        if cur is not None:
            self.drop(cur)
        obj = ObjectMeta(rec.tenant, rec.ns, rec.key, rec.size, rec.object_id, [node.node_id],
                         pin=rec.pin)
        self._objects[ident] = obj
        self.charge(obj, [node])
        self._tables.saw_id(rec.object_id)
        return True

    def forget_node(self, node: NodeInfo) -> None:
        """Remove every replica on ``node`` (gone, or replaced by a new registration) from the
        tables and refund them; an object left without a replica is gone."""
        for table in (self._objects, self._tables.pending):
            for ident, obj in list(table.items()):
                if node.node_id in obj.replicas:
                    obj.replicas.remove(node.node_id)
                    self._tenants.refund(obj.tenant, obj.size)
                    if not obj.replicas:
                        del table[ident]
