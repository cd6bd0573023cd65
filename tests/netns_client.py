"""One client step on the client host of a multi-host test; prints one JSON line.

``python tests/netns_client.py CMD ARGS_JSON`` (run under ``ip netns exec``). It imports only
the store's client, so that each step starts in well under a second.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from reference_store.client import StoreClient
from reference_store.errors import ObjectNotFound, StoreError

__all__ = ["step", "value_of"]

_BATCH = 32


def value_of(key: str, size: int) -> bytes:
    """The only bytes ``key`` may hold in these tests: derived from the key itself."""
    seed = hashlib.sha256(key.encode()).digest()
    return (seed * (size // len(seed) + 1))[:size]


def _poll(fetch: Callable[[], Any], done: Callable[[Any], bool], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = fetch()
            if done(last):
                return last
        except StoreError as exc:  # e.g. the master is restarting: keep polling
            last = exc
        time.sleep(0.05)
    raise TimeoutError(f"{what} not reached within {timeout:.0f} s (last: {last})")


def _put(client: StoreClient, a: dict[str, Any]) -> dict[str, Any]:
    """Put (or upsert) ``count`` keys; each value derives from its key and ``tag``."""
    keys = [f"{a['prefix']}/{i}" for i in range(a["count"])]
    errors: list[str] = []
    for start in range(0, len(keys), _BATCH):
        chunk = keys[start:start + _BATCH]
        errs = client.batch_put(chunk, [value_of(k + a.get("tag", ""), a["size"]) for k in chunk],
                                replicas=a.get("replicas", 1), upsert=a.get("upsert", False))
        errors += [f"{k}: {type(e).__name__} {e}" for k, e in zip(chunk, errs) if e is not None]
    return {"ok": len(keys) - len(errors), "errors": errors}


def _check(client: StoreClient, a: dict[str, Any]) -> dict[str, Any]:
    counts: dict[str, Any] = {"hits": 0, "misses": 0, "wrong": 0, "errors": []}
    for i in range(a["count"]):
        key = f"{a['prefix']}/{i}"
        buf = bytearray(a["size"])
        got = client.batch_get_into([key], [buf])[0]
        if isinstance(got, ObjectNotFound):
            counts["misses"] += 1
        elif isinstance(got, StoreError):
            counts["errors"].append(f"{key}: {type(got).__name__} {got}")
        elif bytes(buf[:got]) != value_of(key + a.get("tag", ""), a["size"]):
            counts["wrong"] += 1
        else:
            counts["hits"] += 1
    return counts


def _get(client: StoreClient, a: dict[str, Any]) -> dict[str, Any]:
    try:
        return {"value": client.get(a["key"]).decode()}
    except StoreError as exc:
        return {"error": type(exc).__name__, "message": str(exc)}


def _wait_nodes(client: StoreClient, a: dict[str, Any]) -> dict[str, Any]:
    stats = _poll(client.stats, lambda s: s["node_count"] == a["count"], a["timeout"],
                  f"{a['count']} nodes registered")
    return {"node_count": stats["node_count"]}


def _wait_growth(client: StoreClient, a: dict[str, Any]) -> dict[str, Any]:
    """Wait until the master lists ``by`` more objects than at the start."""
    goal = client.stats()["objects"] + a["by"]
    stats = _poll(client.stats, lambda s: s["objects"] >= goal, a["timeout"],
                  f"{a['by']} more objects listed")
    return {"objects": stats["objects"]}


_STEPS: dict[str, Callable[[StoreClient, dict[str, Any]], dict[str, Any]]] = {
    "put": _put, "check": _check, "get": _get, "wait_nodes": _wait_nodes,
    "wait_growth": _wait_growth, "stats": lambda client, _: client.stats(),
}


def step(cmd: str, a: dict[str, Any]) -> dict[str, Any]:
    """Run step ``cmd`` with a fresh client of the master ``a["master"]`` (the tenant token from
    ``REFERENCE_STORE_TOKEN``)."""
    client = StoreClient(a["master"], timeout=10.0, data_path=a.get("data_path", "tcp"),
                         token=os.environ.get("REFERENCE_STORE_TOKEN"))
    try:
        return _STEPS[cmd](client, a)
    finally:
        client.close()


if __name__ == "__main__":
    print(json.dumps(step(sys.argv[1], json.loads(sys.argv[2])), default=str), flush=True)
