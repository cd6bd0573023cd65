"""Membership: which storage nodes belong to the cluster, where they are, and whether they live.

A node proves the cluster secret before it registers (a fresh nonce from ``NODE_CHALLENGE``,
then a MAC over it and its id), cannot take over the id of a live node registered on another
connection, and stays a member while it heartbeats on the connection it registered on. A node
silent for ``node_ttl_s`` is expired; one that says goodbye leaves at once. A node a client
could not reach is *suspect* for a node TTL: placement puts it last.

The caller holds the master's lock for every method except :meth:`Membership.register`, which
connects to the node first (and takes the lock itself).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from reference_store.errors import (
    AuthenticationFailed,
    InvalidParams,
    ObjectAlreadyExists,
    StoreError,
)
from reference_store.tenants import ClusterKey
from reference_store.transport import messages as m
from reference_store.transport.local import AnyConnection, connect
from reference_store.transport.tcp import ServerContext

__all__ = ["Membership", "NodeInfo"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

CONNECT_TIMEOUT_S = 5.0  # the master's connection to a registering node's data address


@dataclass
class NodeInfo:
    node_id: str
    address: str
    capacity: int
    last_seen: float
    used: int = 0
    conn: AnyConnection | None = None
    link: ServerContext | None = None  # the connection it registered on, while open
    alignment: int = 1                 # the node's arena allocates in units of this
    suspect_until: float = 0.0         # a client saw it fail: placed on only as a last resort

    def footprint(self, size: int) -> int:
        """Bytes of the node's capacity an object of ``size`` takes (its arena's extent)."""
        return -(-max(size, 1) // self.alignment) * self.alignment

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


class Membership:
    """The registered nodes by id (``nodes``)."""

    def __init__(self, key: ClusterKey, node_ttl_s: float, lock: threading.RLock) -> None:
        self.nodes: dict[str, NodeInfo] = {}
        self._key = key
        self._ttl = node_ttl_s
        self._lock = lock

    def challenge(self, ctx: ServerContext) -> str:
        """A fresh nonce for this connection's next registration proof."""
        ctx.state["nonce"] = secrets.token_hex(16)
        return str(ctx.state["nonce"])

    def register(self, ctx: ServerContext, req: m.Register,
                 admitted: Callable[[NodeInfo, NodeInfo | None], T]) -> T:
        """Admit the node: connect to its data address (without the lock), then, under the
        lock, make it a member and call ``admitted(node, replaced)`` (``replaced``: the member
        of the same id it replaces, or None); returns what that returns.

        Raises:
            AuthenticationFailed: no valid proof of the cluster key for this connection's nonce.
            ObjectAlreadyExists: the id belongs to a live node on another connection.
            InvalidParams: the node's data address cannot be reached.
        """
        nonce = ctx.state.pop("nonce", None)
        if self._key.enabled and (nonce is None or not self._key.check_proof(
                f"register:{nonce}:{req.node_id}", req.proof)):
            raise AuthenticationFailed("node registration without a valid cluster-key proof "
                                       "(NODE_CHALLENGE first)")
        self._refuse_takeover(ctx, req.node_id)
        try:
            conn = connect(req.address, timeout=CONNECT_TIMEOUT_S)
        except StoreError as exc:
            raise InvalidParams(f"cannot reach node data address {req.address}: {exc}") from exc
        with self._lock:
            old = self.nodes.pop(req.node_id, None)
            node = NodeInfo(req.node_id, req.address, req.capacity, time.monotonic(), conn=conn,
                            link=ctx, alignment=max(1, req.alignment))
            self.nodes[req.node_id] = node
            ctx.state["node_id"] = req.node_id
            return admitted(node, old)

    def _refuse_takeover(self, ctx: ServerContext, node_id: str) -> None:
        """A live node's id belongs to the connection it registered on.

        Raises:
            ObjectAlreadyExists: the id is registered on another open connection and has
                heartbeated within the node TTL.
        """
        with self._lock:
            live = self.nodes.get(node_id)
            if (live is not None and live.link is not None and live.link is not ctx
                    and time.monotonic() - live.last_seen <= self._ttl):
                raise ObjectAlreadyExists(f"node id {node_id} is registered and alive")

    def heartbeat(self, ctx: ServerContext, node_id: str) -> bool:
        """Whether ``node_id`` is a member heartbeating on its registering connection."""
        node = self.nodes.get(node_id)
        if node is None or node.link is not ctx:  # only its registering connection counts
            return False
        node.last_seen = time.monotonic()
        return True

    def leave(self, ctx: ServerContext, node_id: str) -> NodeInfo | None:
        """Remove a node stopping on purpose; None when it was not a member.

        Raises:
            AuthenticationFailed: ``ctx`` is not the connection that registered it.
        """
        if ctx.state.get("node_id") != node_id:
            raise AuthenticationFailed("only the connection that registered a node may end it")
        return self.nodes.pop(node_id, None)

    def link_closed(self, ctx: ServerContext) -> None:
        """The connection ``ctx`` closed: the id it registered may be registered again."""
        node_id = ctx.state.get("node_id")
        node = self.nodes.get(node_id) if node_id is not None else None
        if node is not None and node.link is ctx:
            node.link = None

    def expire(self, now: float) -> list[NodeInfo]:
        """Remove and return the nodes silent for longer than the node TTL."""
        gone = [n for n in self.nodes.values() if now - n.last_seen > self._ttl]
        for node in gone:
            logger.warning("node %s at %s stopped answering; dropping it", node.node_id,
                           node.address)
            del self.nodes[node.node_id]
        return gone

    def suspect(self, addresses: list[str]) -> None:
        """Nodes a client could not write to: placement avoids them until they prove alive
        again by heartbeat for a node TTL, or are dropped."""
        until = time.monotonic() + self._ttl
        for node in self.nodes.values():
            if node.address in addresses:
                node.suspect_until = until
                logger.info("node %s at %s failed a client's call; placing elsewhere",
                            node.node_id, node.address)

    def replica_addresses(self, node_ids: list[str], now: float) -> list[str]:
        """The addresses of the members among ``node_ids``, in order, a suspect one last."""
        live = [self.nodes[n] for n in node_ids if n in self.nodes]
        live.sort(key=lambda n: n.suspect_until > now)
        return [n.address for n in live]

    def connections(self) -> dict[str, AnyConnection]:
        """Each member's connection (the master's, to its data address), by node id."""
        return {n.node_id: n.conn for n in self.nodes.values() if n.conn is not None}

    def usage(self) -> dict[str, m.NodeUsage]:
        """Each member's address, capacity and use, by node id."""
        return {n.node_id: m.NodeUsage(address=n.address, capacity=n.capacity, used=n.used)
                for n in self.nodes.values()}

    def healthy(self, now: float) -> int:
        """How many members are not suspect."""
        return sum(1 for n in self.nodes.values() if n.suspect_until <= now)

    def delete_targets(self, node_ids: list[str]) -> dict[str, tuple[AnyConnection, bool]]:
        """Each member's current connection, and whether it is suspect (lock taken here)."""
        now = time.monotonic()
        with self._lock:
            return {n: (self.nodes[n].conn, self.nodes[n].suspect_until > now)  # type: ignore[misc]
                    for n in node_ids if n in self.nodes and self.nodes[n].conn is not None}

    def close(self) -> None:
        for node in self.nodes.values():
            node.close()
