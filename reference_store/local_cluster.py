"""A whole cluster in this process: a master and storage nodes joined by the in-process
transport (:mod:`reference_store.transport.local`), for tests and examples.

The parts are the real ones (the same :class:`~reference_store.master.Master`,
:class:`~reference_store.node.Node` and :class:`~reference_store.client.StoreClient`, the same
typed messages and checks); only the sockets are gone, so a cluster starts in milliseconds and
needs no processes. What it cannot show is what sockets and processes do: a killed or hung
process, a slow peer, a byte stream cut in the middle. Those stay with the TCP tests.

Example::

    with LocalCluster(nodes=2) as cluster:
        client = cluster.client()
        client.put("k", b"v")
        assert client.get("k") == b"v"
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from reference_store.client import StoreClient
from reference_store.master import Master, MasterConfig
from reference_store.node import Node, NodeConfig
from reference_store.tenants import ClusterKey, TenantPolicy

__all__ = ["DEFAULT_NODE_BYTES", "LocalCluster"]

DEFAULT_NODE_BYTES = 8 << 20
READY_TIMEOUT_S = 10.0


class LocalCluster:
    """A master and ``nodes`` storage nodes of ``memory_bytes`` each, all in this process.

    ``master`` configures the master (its host and port are unused); ``node_options`` are
    extra :class:`~reference_store.node.NodeConfig` fields for every node. Stopping the cluster
    (or leaving its ``with`` block) closes its clients, then stops the nodes and the master.

    Raises at construction:
        InvalidParams: a bad master or node setting.  NotReady: a node did not register.
    """

    def __init__(self, *, nodes: int = 2, memory_bytes: int = DEFAULT_NODE_BYTES,
                 master: MasterConfig | None = None, tenants: TenantPolicy | None = None,
                 cluster_key: ClusterKey | None = None,
                 node_options: Mapping[str, Any] | None = None) -> None:
        self.master = Master(master or MasterConfig(), tenants, cluster_key)
        self.master.serve(local=True)
        self.nodes: list[Node] = []
        self.clients: list[StoreClient] = []
        self._memory_bytes = memory_bytes
        self._node_options = dict(node_options or {})
        try:
            for _ in range(nodes):
                self.add_node()
        except BaseException:
            self.stop()
            raise

    @property
    def address(self) -> str:
        """The master's address, for :class:`~reference_store.client.StoreClient`."""
        return self.master.address

    def add_node(self, **options: Any) -> Node:
        """Start one more node (``options`` override the cluster's node options) and wait
        until it has registered. Raises: NotReady, AuthenticationFailed."""
        settings = {"memory_bytes": self._memory_bytes, "prefault": False, "freeze_gc": False,
                    "heartbeat_s": 0.2, **self._node_options, **options}
        node = Node(NodeConfig(master=self.address, **settings))
        self.nodes.append(node)
        node.serve(local=True)
        node.wait_registered(READY_TIMEOUT_S)
        return node

    def stop_node(self, node: Node) -> None:
        """Stop ``node`` as an operator would (it says goodbye to the master)."""
        node.stop()
        self.nodes.remove(node)

    def client(self, **kwargs: Any) -> StoreClient:
        """A client of this cluster (closed when the cluster stops)."""
        client = StoreClient(self.address, **kwargs)
        self.clients.append(client)
        return client

    def stop(self) -> None:
        for client in self.clients:
            client.close()
        for node in self.nodes:
            node.stop()
        self.nodes.clear()
        self.master.stop()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
