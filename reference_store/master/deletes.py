"""Delete fan-out: the node deletes the master owes, sent after its lock is released.

Dropping an object under the master's lock only updates the tables and queues ``(node id,
object id)`` here, per thread; the thread that answers the request then :meth:`send`\\ s its
queue with the lock released (one ``NODE_DELETE`` frame per node and :data:`DELETE_BATCH` ids,
every node at once, before the request is answered), so a slow node never holds up other
clients. Ids are never reused, so a late delete cannot touch another object.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from reference_store.errors import StoreError
from reference_store.tenants import ClusterKey
from reference_store.transport import messages as m
from reference_store.transport.local import AnyConnection
from reference_store.transport.protocol import Op

__all__ = ["DELETE_BATCH", "DELETE_GRANT_S", "DELETE_TIMEOUT_S", "DeleteFanout"]

logger = logging.getLogger(__name__)

DELETE_BATCH = 10_000       # ids per NODE_DELETE frame: keeps its metadata far below the cap
DELETE_TIMEOUT_S = 2.0      # per NODE_DELETE frame
DELETE_GRANT_S = 60.0

#: node id -> (its current connection, whether it just failed a client) for the given node ids
Targets = Callable[[list[str]], dict[str, tuple[AnyConnection, bool]]]


class DeleteFanout:
    """Per-thread queues of node deletes, and their sending."""

    def __init__(self, key: ClusterKey, targets: Targets) -> None:
        self._key = key
        self._targets = targets
        self._unsent = threading.local()  # .deletes: this thread's (node id, object id)

    def queue(self, node_id: str, object_id: int) -> None:
        """Owe ``node_id`` the delete of ``object_id`` (sent by this thread's :meth:`send`)."""
        self._queued().append((node_id, object_id))

    def _queued(self) -> list[tuple[str, int]]:
        queue: list[tuple[str, int]] | None = getattr(self._unsent, "deletes", None)
        if queue is None:
            queue = self._unsent.deletes = []
        return queue

    def send(self) -> None:
        """Send the deletes this thread queued, to all nodes at once, each node's ids in as few
        frames as :data:`DELETE_BATCH` allows. Failures are logged, never raised. Call with
        the master's lock released: that is the point."""
        queue = self._queued()
        if not queue:
            return
        self._unsent.deletes = []
        by_node: dict[str, list[int]] = {}
        for node_id, oid in queue:
            by_node.setdefault(node_id, []).append(oid)
        targets = self._targets(list(by_node))  # a node may have re-registered meanwhile
        in_flight = []
        for node_id, ids in by_node.items():
            if node_id not in targets:
                continue
            conn, suspect = targets[node_id]
            calls = self._submit(conn, ids)
            if not suspect:  # a node that just failed a client is not waited for
                in_flight += [(node_id, conn, *call) for call in calls]
        for node_id, conn, rid, pending in in_flight:
            try:
                conn.wait(rid, pending, DELETE_TIMEOUT_S)
            except StoreError as exc:
                logger.warning("could not delete objects on node %s: %s", node_id, exc)

    def _submit(self, conn: AnyConnection, ids: list[int]) -> list[tuple[int, Any]]:
        """Send ``NODE_DELETE`` frames for ``ids`` without waiting; ``(rid, pending)`` each."""
        calls = []
        for start in range(0, len(ids), DELETE_BATCH):
            chunk = ids[start:start + DELETE_BATCH]
            request = m.Delete(ids=chunk, grants=[
                self._key.grant(i, size=0, purpose="delete", ttl_s=DELETE_GRANT_S)
                for i in chunk])
            try:
                calls.append(conn.submit(Op.NODE_DELETE, request))
            except StoreError as exc:
                logger.warning("could not delete objects on node %s: %s", conn.address, exc)
                break
        return calls
