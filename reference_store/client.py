"""The cluster client: metadata from the master, object bytes straight to and from the nodes.

A batch put costs one ``PUT_START`` and one ``PUT_END`` on the master plus one write frame per node
(per ``max_frame_bytes``), sent with scatter/gather from the caller's buffers. A batch get costs
one ``LOCATE`` and one read frame per node, received straight into the caller's buffers. Reads
fall back to the next replica when a node fails; a read that completes after its lease ended
raises :class:`LeaseExpired` (the bytes may have been evicted and reused).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, Self

import numpy as np
import torch

from reference_store.errors import (
    BufferTooSmall,
    ConnectionLost,
    InvalidParams,
    LeaseExpired,
    NotReady,
    ObjectNotFound,
    StoreError,
    TransferError,
    error_from_code,
)
from reference_store.master import PIN_HARD, PIN_NONE, PIN_SOFT
from reference_store.transport.protocol import Op
from reference_store.transport.tcp import DEFAULT_TIMEOUT_S, Connection

__all__ = ["DEFAULT_MAX_FRAME_BYTES", "PIN_HARD", "PIN_NONE", "PIN_SOFT", "StoreClient"]

logger = logging.getLogger(__name__)

DEFAULT_MAX_FRAME_BYTES = 256 << 20
DEFAULT_STREAMS = 1
DEFAULT_FRAME_BYTES = 8 << 20
_Located = dict[str, Any]


def _host_view(value: Any, *, writable: bool, field: str) -> memoryview:
    if isinstance(value, torch.Tensor):
        if value.device.type != "cpu":
            raise InvalidParams(f"{field}: pass a CPU tensor (copy device tensors to host first)")
        if not value.is_contiguous():
            raise InvalidParams(f"{field}: tensor must be contiguous")
        value = value.detach().reshape(-1).view(torch.uint8).numpy()
    if isinstance(value, np.ndarray):
        if not value.flags.c_contiguous:
            raise InvalidParams(f"{field}: numpy array must be C-contiguous")
        value = value.reshape(-1).view(np.uint8)
    try:
        view = memoryview(value)
    except TypeError as exc:
        raise InvalidParams(f"{field}: expected a bytes-like object, array or tensor, "
                            f"got {type(value).__name__}") from exc
    if not view.c_contiguous:
        raise InvalidParams(f"{field}: buffer must be contiguous")
    view = view.cast("B") if view.format != "B" or view.ndim != 1 else view
    if writable and view.readonly:
        raise InvalidParams(f"{field}: buffer is read-only")
    return view


class StoreClient:
    """A client of a reference-store cluster (thread-safe).

    Raises at construction:
        ConnectionLost: the master cannot be reached.
        TenantNotRegistered, AuthenticationFailed: the master refused the tenant or token.
    """

    def __init__(
        self, master: str, *, tenant: str = "default", token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S, replicas: int = 1,
        max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES, streams: int = DEFAULT_STREAMS,
        frame_bytes: int = DEFAULT_FRAME_BYTES,
    ) -> None:
        self.master_address = master
        self.tenant = tenant
        self._token = token
        self.timeout = timeout
        self.replicas = replicas
        self.max_frame_bytes = max_frame_bytes
        self.streams = max(1, streams)
        self.frame_bytes = frame_bytes
        self._lock = threading.Lock()
        self._nodes: dict[str, Connection] = {}
        self._master: Connection | None = None
        self._closed = False
        self.lease_ttl_s = 0.0
        self._connect_master()

    def __repr__(self) -> str:
        return f"StoreClient(master={self.master_address!r}, tenant={self.tenant!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- connections

    def _connect_master(self) -> Connection:
        conn = Connection(self.master_address, timeout=self.timeout)
        try:
            hello = conn.call(Op.HELLO, {"tenant": self.tenant, "token": self._token})
        except StoreError:
            conn.close()
            raise
        self.lease_ttl_s = float(hello.meta.get("lease_ttl_s", 0.0))
        self._master = conn
        return conn

    def _call_master(self, op: Op, meta: dict[str, Any]) -> dict[str, Any]:
        """One master call; reconnects once if the connection was lost (e.g. master restart)."""
        if self._closed:
            raise NotReady("the client is closed")
        with self._lock:
            conn = self._master if self._master is not None and not self._master.closed else None
            if conn is None:
                conn = self._connect_master()
        try:
            return conn.call(op, meta).meta
        except ConnectionLost:
            with self._lock:
                if self._master is conn:
                    self._master = None
                conn = self._connect_master()
            return conn.call(op, meta).meta

    def _node(self, address: str, stream: int = 0) -> Connection:
        """Connection number ``stream`` to a node (several let the node copy one frame while
        the next one is still arriving)."""
        slot = f"{address}#{stream % self.streams}"
        with self._lock:
            conn = self._nodes.get(slot)
            if conn is None or conn.closed:
                conn = Connection(address, timeout=self.timeout)
                self._nodes[slot] = conn
            return conn

    def close(self) -> None:
        """Close every connection; later calls raise NotReady."""
        self._closed = True
        with self._lock:
            conns = list(self._nodes.values()) + ([self._master] if self._master else [])
            self._nodes.clear()
            self._master = None
        for conn in conns:
            conn.close()

    # ---------------------------------------------------------------- puts

    def put(self, key: str, value: Any, *, pin: int = PIN_NONE, replicas: int | None = None) -> None:
        """Store ``value`` under ``key``; an existing key keeps its FIRST value (Mooncake's rule).

        Raises:
            StoreFull, TenantQuotaExceeded, TransferError, InvalidParams, InvalidKey, RpcError.
        """
        _raise_first(self.batch_put([key], [value], pin=pin, replicas=replicas))

    def upsert(self, key: str, value: Any, *, pin: int = PIN_NONE,
               replicas: int | None = None) -> None:
        """Store ``value`` under ``key``, replacing an existing value (errors as :meth:`put`)."""
        _raise_first(self.batch_put([key], [value], upsert=True, pin=pin, replicas=replicas))

    def batch_put(
        self, keys: Sequence[str], values: Sequence[Any], *, upsert: bool = False,
        pin: int = PIN_NONE, replicas: int | None = None,
    ) -> list[StoreError | None]:
        """Put many objects; returns one error (or None) per key, in order.

        Raises:
            InvalidParams: keys and values differ in length, or a value is not a buffer.
            RpcError: the master cannot be reached.
        """
        if len(keys) != len(values):
            raise InvalidParams("keys and values must have the same length")
        views = [_host_view(v, writable=False, field=f"values[{i}]") for i, v in enumerate(values)]
        started = self._call_master(Op.PUT_START, {
            "keys": list(keys), "sizes": [v.nbytes for v in views], "upsert": upsert,
            "replicas": replicas or self.replicas, "pin": pin})["results"]
        errors: list[StoreError | None] = [None] * len(keys)
        plan: dict[str, list[int]] = defaultdict(list)
        for i, res in enumerate(started):
            if res["code"]:
                errors[i] = error_from_code(res["code"], res.get("error", ""))
            elif not res.get("exists"):
                for address in res["nodes"]:
                    plan[address].append(i)
        failed = self._write_all(plan, started, keys, views, pin, errors)
        begun = [i for i, r in enumerate(started) if not r["code"] and not r.get("exists")]
        self._finish(keys, [i for i in begun if i not in failed], [i for i in begun if i in failed],
                     errors)
        return errors

    def _write_all(self, plan: dict[str, list[int]], started: list[dict[str, Any]],
                   keys: Sequence[str], views: list[memoryview], pin: int,
                   errors: list[StoreError | None]) -> set[int]:
        failed: set[int] = set()
        inflight = []
        for address, idxs in plan.items():
            for n, chunk in enumerate(self._chunks(idxs, [views[i].nbytes for i in idxs])):
                objects = [{"object_id": started[i]["object_id"], "ns": started[i]["ns"],
                            "tenant": started[i]["tenant"], "key": keys[i], "size": views[i].nbytes,
                            "pin": pin, "grant": started[i].get("grant", "")} for i in chunk]
                try:
                    conn = self._node(address, n)
                    rid, pending = conn.submit(Op.NODE_WRITE, {"objects": objects},
                                               [views[i] for i in chunk])
                    inflight.append((conn, rid, pending, chunk))
                except StoreError as exc:
                    self._mark(chunk, exc, failed, errors)
        for conn, rid, pending, chunk in inflight:
            try:
                codes = conn.wait(rid, pending).meta["codes"]
            except StoreError as exc:
                self._mark(chunk, exc, failed, errors)
                continue
            for i, code in zip(chunk, codes):
                if code:
                    self._mark([i], error_from_code(code, "node write failed"), failed, errors)
        return failed

    @staticmethod
    def _mark(idxs: Sequence[int], exc: StoreError, failed: set[int],
              errors: list[StoreError | None]) -> None:
        for i in idxs:
            failed.add(i)
            errors[i] = exc if not isinstance(exc, ConnectionLost) else TransferError(str(exc))

    def _finish(self, keys: Sequence[str], done: list[int], failed: list[int],
                errors: list[StoreError | None]) -> None:
        if done:
            codes = self._call_master(Op.PUT_END, {"keys": [keys[i] for i in done]})["codes"]
            for i, code in zip(done, codes):
                if code:
                    errors[i] = error_from_code(code, "put could not be completed (taken over?)")
        if failed:
            self._call_master(Op.PUT_REVOKE, {"keys": [keys[i] for i in failed]})

    def _chunks(self, idxs: list[int], sizes: list[int]) -> list[list[int]]:
        """Split a node's share into frames of about ``frame_bytes`` (never over
        ``max_frame_bytes``): while the node copies one frame the next one is on its way."""
        cap = min(self.max_frame_bytes, self.frame_bytes)
        chunks: list[list[int]] = [[]]
        total = 0
        for i, size in zip(idxs, sizes):
            if chunks[-1] and total + size > cap:
                chunks.append([])
                total = 0
            chunks[-1].append(i)
            total += size
        return [c for c in chunks if c]

    # ---------------------------------------------------------------- gets

    def get(self, key: str) -> bytes:
        """The object's bytes.

        Raises:
            ObjectNotFound, LeaseExpired, TransferError, RpcError.
        """
        loc = self._locate([key], lease=True)[0]
        if isinstance(loc, StoreError):
            raise loc
        buf = bytearray(loc["size"])
        result = self._read_located([loc], [memoryview(buf)])[0]
        if isinstance(result, StoreError):
            raise result
        return bytes(buf)

    def get_into(self, key: str, dest: Any) -> int:
        """Read the object into ``dest``; returns its size.

        Raises:
            ObjectNotFound, BufferTooSmall, LeaseExpired, TransferError, RpcError.
        """
        result = self.batch_get_into([key], [dest])[0]
        if isinstance(result, StoreError):
            raise result
        return result

    def batch_get_into(self, keys: Sequence[str], dests: Sequence[Any]) -> list[int | StoreError]:
        """Read many objects into ``dests``; returns a size or an error per key, in order.

        Raises:
            InvalidParams: lengths differ or a destination is not a writable buffer.
        """
        if len(keys) != len(dests):
            raise InvalidParams("keys and dests must have the same length")
        views = [_host_view(d, writable=True, field=f"dests[{i}]") for i, d in enumerate(dests)]
        located = self._locate(list(keys), lease=True)
        for i, loc in enumerate(located):
            if not isinstance(loc, StoreError) and loc["size"] > views[i].nbytes:
                located[i] = BufferTooSmall(
                    f"object {keys[i]!r} has {loc['size']} bytes, buffer {views[i].nbytes}")
        return self._read_located(located, views)

    def _locate(self, keys: list[str], *, lease: bool) -> list[_Located | StoreError]:
        before = time.monotonic()
        results = self._call_master(Op.LOCATE, {"keys": keys, "lease": lease})["results"]
        out: list[_Located | StoreError] = []
        for res in results:
            if res["code"]:
                out.append(error_from_code(res["code"], "no such object"))
            else:
                res["deadline"] = before + float(res.get("lease_s", 0.0))
                out.append(res)
        return out

    def _read_located(self, located: list[_Located | StoreError],
                      views: list[memoryview]) -> list[int | StoreError]:
        out: list[int | StoreError] = [
            loc if isinstance(loc, StoreError) else ObjectNotFound("no live replica")
            for loc in located]
        todo = [i for i, loc in enumerate(located) if not isinstance(loc, StoreError)]
        attempt = 0
        while todo:
            plan: dict[str, list[int]] = defaultdict(list)
            for i in todo:
                nodes = located[i]["nodes"]  # type: ignore[index]
                if attempt < len(nodes):
                    plan[nodes[attempt]].append(i)
            todo = self._read_round(plan, located, views, out)
            attempt += 1
        now = time.monotonic()
        for i, loc in enumerate(located):
            if isinstance(out[i], int) and not isinstance(loc, StoreError) and now > loc["deadline"]:
                out[i] = LeaseExpired("the read lease ended before the read completed")
        return out

    def _read_round(self, plan: dict[str, list[int]], located: list[Any],
                    views: list[memoryview], out: list[int | StoreError]) -> list[int]:
        retry: list[int] = []
        inflight = []
        for address, idxs in plan.items():
            for n, chunk in enumerate(self._chunks(idxs, [located[i]["size"] for i in idxs])):
                meta = {"ids": [located[i]["object_id"] for i in chunk],
                        "sizes": [located[i]["size"] for i in chunk],
                        "grants": [located[i].get("grant", "") for i in chunk]}
                try:
                    conn = self._node(address, n)
                    rid, pending = conn.submit(Op.NODE_READ, meta,
                                               into=[views[i] for i in chunk])
                    inflight.append((conn, rid, pending, chunk))
                except StoreError:
                    retry.extend(chunk)
        for conn, rid, pending, chunk in inflight:
            try:
                sizes = conn.wait(rid, pending).meta["sizes"]
            except StoreError as exc:
                logger.info("read from %s failed: %s", conn.address, exc)
                retry.extend(chunk)
                continue
            for i, size in zip(chunk, sizes):
                if size >= 0:
                    out[i] = size
                else:
                    retry.append(i)
        return retry

    # ---------------------------------------------------------------- metadata calls

    def exists(self, key: str) -> bool:
        """Whether ``key`` is stored (takes no lease). Raises: RpcError."""
        return bool(self.batch_exists([key])[0])

    def batch_exists(self, keys: Sequence[str]) -> list[bool]:
        """Existence of each key (no leases). Raises: InvalidKey, RpcError."""
        return [bool(x) for x in self._call_master(Op.EXISTS, {"keys": list(keys)})["exists"]]

    def size_of(self, key: str) -> int:
        """Object size in bytes. Raises: ObjectNotFound, RpcError."""
        loc = self._locate([key], lease=False)[0]
        if isinstance(loc, StoreError):
            raise loc
        return int(loc["size"])

    def remove(self, key: str, *, force: bool = False) -> None:
        """Remove ``key``. Raises: ObjectNotFound, ObjectHasLease, PinnedObject, RpcError."""
        _raise_first(self.batch_remove([key], force=force))

    def batch_remove(self, keys: Sequence[str], *, force: bool = False) -> list[StoreError | None]:
        """Remove keys; one error (or None) per key. Raises: RpcError."""
        codes = self._call_master(Op.REMOVE, {"keys": list(keys), "force": force})["codes"]
        return [error_from_code(c, "remove failed") if c else None for c in codes]

    def remove_all(self, *, force: bool = False) -> int:
        """Remove every object of this tenant that is not leased or hard-pinned; returns the count."""
        return int(self._call_master(Op.REMOVE_ALL, {"force": force})["removed"])

    def keys(self) -> list[str]:
        """This tenant's keys (the shared namespace's when isolation is off)."""
        return list(self._call_master(Op.LIST, {})["keys"])

    def stats(self) -> dict[str, Any]:
        """Nodes, this tenant's object count and bytes, quotas, evictions."""
        return self._call_master(Op.STATS, {})

    def ping(self) -> bool:
        """True when the master answers. Raises: RpcError."""
        return bool(self._call_master(Op.PING, {}).get("ok"))


def _raise_first(errors: Sequence[StoreError | None]) -> None:
    for err in errors:
        if err is not None:
            raise err
