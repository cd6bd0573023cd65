"""The consistency check: the master's table against what every node holds.

The expected contents are taken under the master's lock; the nodes are asked (``NODE_LIST``,
proven with the cluster key) with the lock released, so that a slow node holds up no client.
"""

from __future__ import annotations

from typing import Any

from reference_store.errors import StoreError
from reference_store.tenants import ClusterKey
from reference_store.transport import messages as m
from reference_store.transport.local import AnyConnection

__all__ = ["FSCK_TIMEOUT_S", "compare"]

FSCK_TIMEOUT_S = 10.0  # per node


def compare(nodes: dict[str, AnyConnection], expected: dict[str, dict[int, str]],
            known: set[int], key: ClusterKey) -> dict[str, Any]:
    """The report: ``missing``, listed here but absent on the node (a read would fail);
    ``orphans``, held by a node but unknown here (room nobody can use; unfinished puts count
    as known); ``unreachable``, nodes that did not answer; ``ok`` when all three are empty.

    ``expected`` maps each node id to the object ids (and keys) it should hold.
    """
    report: dict[str, Any] = {"nodes": len(nodes), "objects": len(known), "missing": [],
                              "orphans": [], "unreachable": []}
    for node_id, conn in nodes.items():
        try:
            listed = m.call(conn, m.NodeList(proof=key.proof("list")), m.NodeListReply,
                            timeout=FSCK_TIMEOUT_S)
        except StoreError as exc:
            report["unreachable"].append({"node": node_id, "error": str(exc)})
            continue
        held = {o.object_id for o in listed.objects}
        report["missing"] += [{"node": node_id, "object_id": oid, "key": k}
                              for oid, k in sorted(expected.get(node_id, {}).items())
                              if oid not in held]
        report["orphans"] += [{"node": node_id, "object_id": oid}
                              for oid in sorted(held - known)]
    report["ok"] = not (report["missing"] or report["orphans"] or report["unreachable"])
    return report
