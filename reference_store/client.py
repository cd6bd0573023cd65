"""The cluster client: metadata from the master, object bytes straight to and from the nodes.

A batch put costs one ``PUT_START`` and one ``PUT_END`` on the master. The bytes then go to each
node one of two ways (``data_path``):

- one-sided, when the node offers a segment this client can reach
  (:mod:`reference_store.transport.segment`): ``NODE_RESERVE`` answers arena offsets, the
  client writes there itself (``shm``: one memcpy into the node's arena on the same machine;
  ``te``: Mooncake's Transfer Engine), then ``NODE_COMMIT``. Gets ``NODE_PIN``, read, and
  ``NODE_UNPIN``.
- streamed: write frames (about ``frame_bytes`` each) sent with scatter/gather from the
  caller's buffers, and read frames received straight into them.

``data_path="auto"`` (the default) takes the one-sided path wherever it can and streams
otherwise; ``"tcp"`` always streams; ``"shm"`` or ``"te"`` insist on that segment kind (a node
without it fails the objects with TransferError). Reads fall back to the next replica when a
node fails, and skips for ``NODE_SUSPECT_S`` a node that failed a call (reads and writes) (a dead or hung node
costs one short deadline, then nothing; the master hears of it and places puts elsewhere). A read
that completes after its lease ended asks the master again: the object still listed under the
same id was never evicted, so its bytes stand; otherwise the read raises :class:`LeaseExpired`
(the bytes may have been evicted and reused).
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self, TypeVar

import msgspec
import numpy as np

from reference_store.errors import (
    BufferTooSmall,
    ConnectionLost,
    InvalidParams,
    LeaseExpired,
    NotReady,
    ObjectNotFound,
    ProtocolError,
    RpcError,
    RpcTimeout,
    StoreError,
    TransferError,
)
from reference_store.master import PIN_HARD, PIN_NONE, PIN_SOFT
from reference_store.transport import messages as m
from reference_store.transport.local import AnyConnection, connect
from reference_store.transport.protocol import Op
from reference_store.transport.segment import SegmentPeer, attach_shm
from reference_store.transport.tcp import DEFAULT_TIMEOUT_S

if TYPE_CHECKING:
    from reference_store.transport.transfer_engine import EngineConfig, TransferEngineTransport

__all__ = ["DEFAULT_MAX_FRAME_BYTES", "PIN_HARD", "PIN_NONE", "PIN_SOFT", "StoreClient"]

logger = logging.getLogger(__name__)

DEFAULT_MAX_FRAME_BYTES = 256 << 20
DEFAULT_STREAMS = 1
DEFAULT_FRAME_BYTES = 8 << 20
DATA_PATHS = ("auto", "tcp", "shm", "te")
DEFAULT_ONE_SIDED_MIN_BYTES = 64 << 10
# A node call waits this long, plus the frame's bytes at NODE_MIN_RATE: a hung node costs a put
# or a read one short wait (then a second try elsewhere), well within a second and far under the
# master's node TTL (5 s). A live node answers a frame in milliseconds, even on a busy machine.
DEFAULT_NODE_TIMEOUT_S = 0.5
# After a node fails a call, it is not called for this long (while the master's TTL catches
# up): reads go to another replica, puts are placed again elsewhere.
NODE_SUSPECT_S = 5.0
NODE_MIN_RATE = 100 << 20  # bytes/s a node must at least sustain within one frame
_RETRY_WHEN_STARTING = (Op.LOCATE, Op.EXISTS, Op.PUT_START)
R = TypeVar("R", bound=m.Message)
_Segment = tuple[str, SegmentPeer]  # (node id, the client's handle on its arena)


def _host_view(value: Any, *, writable: bool, field: str) -> memoryview:
    # A tensor can only exist once its caller imported torch: the client itself never loads it.
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
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

    ``data_path`` picks how bytes move (see the module docstring); with ``"auto"`` objects
    under ``one_sided_min_bytes`` are streamed even where a segment is reachable.
    ``transfer_engine`` starts a Mooncake Transfer Engine in this process for nodes that offer a
    ``te`` segment.

    Raises at construction:
        InvalidParams: an unknown ``data_path``, or ``"te"`` without ``transfer_engine``.
        ConnectionLost: the master cannot be reached.
        TenantNotRegistered, AuthenticationFailed: the master refused the tenant or token.
        TransferError: the Transfer Engine cannot start.
    """

    def __init__(
        self, master: str, *, tenant: str = "default", token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S, replicas: int = 1,
        max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES, streams: int = DEFAULT_STREAMS,
        frame_bytes: int = DEFAULT_FRAME_BYTES, data_path: str = "auto",
        transfer_engine: EngineConfig | None = None,
        one_sided_min_bytes: int = DEFAULT_ONE_SIDED_MIN_BYTES,
        node_timeout: float = DEFAULT_NODE_TIMEOUT_S,
    ) -> None:
        if data_path not in DATA_PATHS:
            raise InvalidParams(f"data_path: expected one of {', '.join(DATA_PATHS)}, "
                                f"got {data_path!r}")
        if data_path == "te" and transfer_engine is None:
            raise InvalidParams("transfer_engine: required with data_path 'te'")
        self.data_path = data_path
        self.one_sided_min_bytes = one_sided_min_bytes
        self.master_address = master
        self.tenant = tenant
        self._token = token
        self.timeout = timeout
        self.node_timeout = min(timeout, node_timeout)
        self._node_failures: dict[str, float] = {}  # node address -> when a call to it failed
        self._node_blocked: dict[str, float] = {}  # node address -> when it hung or dropped a call
        self.replicas = replicas
        self.max_frame_bytes = max_frame_bytes
        self.streams = max(1, streams)
        self.frame_bytes = frame_bytes
        self._lock = threading.Lock()
        self._nodes: dict[str, AnyConnection] = {}
        self._master: AnyConnection | None = None
        self._closed = False
        self._segments: dict[str, _Segment | None] = {}
        self._engine: TransferEngineTransport | None = None
        if transfer_engine is not None and data_path in ("auto", "te"):
            from reference_store.transport.transfer_engine import TransferEngineTransport

            self._engine = TransferEngineTransport(transfer_engine)
        self.lease_ttl_s = 0.0
        self._connect_master()

    def __repr__(self) -> str:
        return f"StoreClient(master={self.master_address!r}, tenant={self.tenant!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- connections

    def _connect_master(self) -> AnyConnection:
        conn = connect(self.master_address, timeout=self.timeout)
        try:
            hello = m.call(conn, m.Hello(tenant=self.tenant, token=self._token), m.HelloReply)
        except StoreError:
            conn.close()
            raise
        self.lease_ttl_s = hello.lease_ttl_s
        self._master = conn
        return conn

    def _call_master(self, request: m.Request, reply: type[R]) -> R:
        """One master call; reconnects once if the connection was lost (e.g. master restart)."""
        if self._closed:
            raise NotReady("the client is closed")
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                return self._call_master_once(request, reply)
            except NotReady:  # a master that has just started: its nodes are registering
                if (self._closed or request.op not in _RETRY_WHEN_STARTING
                        or time.monotonic() > deadline):
                    raise
                time.sleep(0.05)

    def _call_master_once(self, request: m.Request, reply: type[R]) -> R:
        with self._lock:
            conn = self._master if self._master is not None and not self._master.closed else None
            if conn is None:
                conn = self._connect_master()
        try:
            return m.call(conn, request, reply)
        except ConnectionLost:
            with self._lock:
                if self._master is conn:
                    self._master = None
                conn = self._connect_master()
            return m.call(conn, request, reply)

    def _node(self, address: str, stream: int = 0) -> AnyConnection:
        """Connection number ``stream`` to a node (several let the node copy one frame while
        the next one is still arriving)."""
        slot = f"{address}#{stream % self.streams}"
        if address in self._suspects():
            raise TransferError(f"node {address} failed a call less than {NODE_SUSPECT_S:g} s "
                                "ago; not called again yet")
        with self._lock:
            conn = self._nodes.get(slot)
            if conn is None or conn.closed:
                try:
                    conn = connect(address, timeout=self.node_timeout)
                except StoreError as exc:
                    # a refused connection fails at once, so trying again costs nothing, and a
                    # node restarted on the same port must be reachable as soon as it is back
                    self._suspect(address, exc,
                                  block=not isinstance(exc.__cause__, ConnectionRefusedError))
                    raise
                self._nodes[slot] = conn
            return conn

    def _await(self, conn: AnyConnection, pending: Any, reply: type[R]) -> R:
        """:func:`_answer`, noting a node that failed it."""
        try:
            return _answer(conn, pending, reply)
        except StoreError as exc:
            if _transient(exc):
                self._node_failed(conn, exc)
            raise

    def _node_failed(self, conn: AnyConnection, exc: StoreError) -> None:
        """Remember a node that failed a call (the master hears of it with the revoke), and
        drop a connection that timed out: its late answer must not meet the next call."""
        self._suspect(conn.address, exc)
        if isinstance(exc, RpcTimeout):
            conn.close()

    def _suspect(self, address: str, exc: StoreError, *, block: bool = True) -> None:
        """Note a failed call (the master hears of it); ``block`` also stops calls to the node
        for ``NODE_SUSPECT_S``, for failures that cost time to meet again (a hang, a drop)."""
        now = time.monotonic()
        self._node_failures[address] = now
        if block:
            self._node_blocked[address] = now
        logger.warning("node %s failed a call (%s)%s", address, exc,
                       f"; not calling it for {NODE_SUSPECT_S:g} s" if block else "")

    def _suspects(self) -> set[str]:
        """Nodes that hung or dropped a call within ``NODE_SUSPECT_S``: not called until then."""
        now = time.monotonic()
        return {a for a, t in list(self._node_blocked.items()) if now - t < NODE_SUSPECT_S}

    def _failed_since(self, since: float) -> list[str]:
        return [a for a, t in list(self._node_failures.items()) if t >= since]

    def _report_failed(self, since: float) -> None:
        """Tell the master which nodes failed a read since ``since`` (a revoke of no object),
        so that it places puts elsewhere and lists those replicas last; best effort."""
        failed = self._failed_since(since)
        if failed:
            try:
                self._call_master(m.PutRevoke(keys=[], failed_nodes=failed), m.CodesReply)
            except StoreError as exc:
                logger.info("could not report failed nodes %s: %s", failed, exc)

    def close(self) -> None:
        """Close every connection and segment; later calls raise NotReady."""
        self._closed = True
        with self._lock:
            conns = list(self._nodes.values()) + ([self._master] if self._master else [])
            self._nodes.clear()
            self._master = None
            segments, self._segments = list(self._segments.values()), {}
        for conn in conns:
            conn.close()
        for seg in segments:
            if seg is not None:
                seg[1].close()
        if self._engine is not None:
            self._engine.close()
            self._engine = None

    def register_buffer(self, buffer: Any) -> None:
        """Register ``buffer`` with this client's Transfer Engine so that ``te`` transfers from
        and into it skip the staging copy (Mooncake's ``register_buffer``); a no-op without
        an engine. Raises: InvalidParams, TransferError."""
        if self._engine is not None:
            self._engine.register(buffer)

    def register_range(self, address: int, length: int) -> None:
        """:meth:`register_buffer` for raw memory (an address the caller keeps alive)."""
        if self._engine is not None:
            self._engine.register_range(address, length)

    def unregister_range(self, address: int) -> None:
        """Undo :meth:`register_range` (a no-op without an engine or for an unknown address)."""
        if self._engine is not None:
            try:
                self._engine.unregister(address)
            except InvalidParams:
                pass

    def unregister_buffer(self, buffer: Any) -> None:
        """Undo :meth:`register_buffer`. Raises: InvalidParams when it was not registered."""
        if self._engine is not None:
            self._engine.unregister_buffer(buffer)

    # ---------------------------------------------------------------- segments

    def _segment(self, address: str) -> _Segment | None:
        """This client's handle on the node's arena, or None to stream (cached per node).

        Raises:
            TransferError: ``data_path`` insists on a segment kind the node does not offer.
        """
        if self.data_path == "tcp":
            return None
        with self._lock:
            if address in self._segments:
                return self._segments[address]
        try:
            reply = m.call(self._node(address), m.Segments(), m.SegmentsReply)
        except StoreError as exc:
            logger.info("node %s: no segment list (%s); streaming", address, exc)
            return None
        found = self._attach(reply.segments)
        if found is None and self.data_path != "auto":
            raise TransferError(f"node {address} offers no {self.data_path} segment this "
                                f"process can reach (it offers "
                                f"{[s.get('kind') for s in reply.segments]})")
        seg = (reply.node_id, found) if found is not None else None
        with self._lock:
            self._segments.setdefault(address, seg)
            return self._segments[address]

    def _attach(self, offers: list[dict[str, str | int]]) -> SegmentPeer | None:
        for desc in offers:
            kind = desc.get("kind")
            if kind == "shm" and self.data_path in ("auto", "shm"):
                peer = attach_shm(desc)
                if peer is not None:
                    return peer
            if kind == "te" and self._engine is not None:
                from reference_store.transport.transfer_engine import attach_te

                te = attach_te(desc, self._engine)
                if te is not None:
                    return te
        return None

    def _forget_segment(self, address: str, seg: _Segment) -> None:
        """Drop a stale handle (the node restarted with a new arena)."""
        with self._lock:
            if self._segments.get(address) is seg:
                del self._segments[address]
        seg[1].close()

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
        errors: list[StoreError | None] = [None] * len(keys)
        todo = list(range(len(keys)))
        for last in (False, True):  # a put whose node failed is placed again, once
            todo = self._put_round(keys, views, todo, errors, upsert=upsert, pin=pin,
                                   replicas=replicas or self.replicas, last=last)
            if not todo:
                break
        return errors

    def _put_round(self, keys: Sequence[str], views: list[memoryview], todo: list[int],
                   errors: list[StoreError | None], *, upsert: bool, pin: int, replicas: int,
                   last: bool) -> list[int]:
        """Put ``todo``; returns the objects to place again because a node failed (none when
        ``last``). The master hears which nodes failed, and places elsewhere."""
        since = time.monotonic()
        results = self._call_master(m.PutStart(
            keys=[keys[i] for i in todo], sizes=[views[i].nbytes for i in todo],
            upsert=upsert, replicas=replicas, pin=pin), m.PutStartReply).results
        started = dict(zip(todo, results, strict=True))
        plan: dict[str, list[int]] = defaultdict(list)
        for i, res in started.items():
            errors[i] = None
            if res.code:
                errors[i] = m.item_error(res.code, res.error, keys[i])
            elif not res.exists:
                if len(res.nodes) < replicas:
                    logger.warning("object %r stored with %d of %d replicas (too few live nodes)",
                                   keys[i], len(res.nodes), replicas)
                for address in res.nodes:
                    plan[address].append(i)
        failed = self._write_all(plan, started, keys, views, pin, errors)
        begun = [i for i, r in started.items() if not r.code and not r.exists]
        suspects = self._suspects()
        bad_nodes = sorted(set(self._failed_since(since)) | {a for a in plan if a in suspects})
        self._finish(keys, [i for i in begun if i not in failed], [i for i in begun if i in failed],
                     errors, bad_nodes)
        for i in todo:
            error = errors[i]
            if error is not None:
                errors[i] = _naming(error, keys[i])
        if last or not bad_nodes:
            return []
        return [i for i in begun if i in failed and _transient(errors[i])]

    def _write_all(self, plan: dict[str, list[int]], started: dict[int, m.PutSlot],
                   keys: Sequence[str], views: list[memoryview], pin: int,
                   errors: list[StoreError | None]) -> set[int]:
        records = {i: m.WriteRecord(object_id=started[i].object_id, ns=started[i].ns,
                                    tenant=started[i].tenant, key=keys[i],
                                    size=views[i].nbytes, pin=pin, grant=started[i].grant)
                   for idxs in plan.values() for i in idxs}
        failed: set[int] = set()
        streamed: dict[str, list[int]] = {}
        for address, idxs in plan.items():
            try:
                seg = self._segment(address)
            except StoreError as exc:
                self._mark(idxs, exc, failed, errors)
                continue
            rest = idxs if seg is None else self._write_one_sided(
                address, seg, idxs, records, views, failed, errors)
            if rest:
                streamed[address] = rest
        self._write_streamed(streamed, records, views, failed, errors)
        return failed

    def _write_one_sided(self, address: str, seg: _Segment, idxs: list[int],
                         records: dict[int, m.WriteRecord], views: list[memoryview],
                         failed: set[int],
                         errors: list[StoreError | None]) -> list[int]:
        """Reserve, write into the node's arena, commit, a chunk of about ``frame_bytes`` at a
        time while the node reserves the next chunks; returns the objects to stream instead
        (too small to gain, or not placed in the arena)."""
        node_id, peer = seg
        rest, idxs = self._split_small(idxs, [views[i].nbytes for i in idxs])
        try:
            conn = self._node(address)
        except StoreError as exc:
            self._mark(idxs, exc, failed, errors)
            return rest
        chunks = self._chunks(idxs, [views[i].nbytes for i in idxs])
        commits: list[tuple[Any, list[int]]] = []

        # every chunk's reservation is asked for up front: the node works through them while
        # this thread copies the chunks whose answers are in
        reserved = [_submit(conn, m.Reserve(objects=[records[i] for i in chunk]))
                    for chunk in chunks]
        for k, chunk in enumerate(chunks):
            try:
                reply = self._await(conn, reserved[k], m.ReserveReply)
            except StoreError as exc:
                self._mark(chunk, exc, failed, errors)
                continue
            direct, offsets = [], []
            item_errors = m.item_errors(reply, [_key_of(records, i) for i in chunk])
            for i, error, off in zip(chunk, item_errors, reply.offsets, strict=True):
                if error is not None:
                    self._mark([i], error, failed, errors)
                elif off < 0:
                    rest.append(i)
                else:
                    direct.append(i)
                    offsets.append(off)
            ids = [records[i].object_id for i in direct]
            if reply.node_id != node_id:  # restarted with a new arena: look again
                self._forget_segment(address, seg)
                commits.append((_submit(conn, m.Commit(ids=[], abort=ids)), []))
                rest.extend(direct)
                continue
            try:
                peer.write(offsets, [views[i] for i in direct])
            except StoreError as exc:
                self._mark(direct, exc, failed, errors)
                commits.append((_submit(conn, m.Commit(ids=[], abort=ids)), []))
                continue
            commits.append((_submit(conn, m.Commit(ids=ids)), direct))
        for pending, direct in commits:
            try:
                done = self._await(conn, pending, m.CodesReply)
            except StoreError as exc:
                self._mark(direct, exc, failed, errors)
                continue
            for i, error in zip(direct, m.item_errors(done, [_key_of(records, i) for i in direct])):
                if error is not None:
                    self._mark([i], error, failed, errors)
        return rest

    def _split_small(self, idxs: list[int], sizes: list[int]) -> tuple[list[int], list[int]]:
        """(to stream, one-sided): with ``data_path="auto"``, objects under
        ``one_sided_min_bytes`` are streamed (one frame does the whole put or get for them,
        where one-sided costs two extra node round trips)."""
        if self.data_path != "auto":
            return [], idxs
        small = [i for i, n in zip(idxs, sizes) if n < self.one_sided_min_bytes]
        large = [i for i, n in zip(idxs, sizes) if n >= self.one_sided_min_bytes]
        return small, large

    def _write_streamed(self, plan: dict[str, list[int]], records: dict[int, m.WriteRecord],
                        views: list[memoryview], failed: set[int],
                        errors: list[StoreError | None]) -> None:
        answers = self._frames(plan, lambda i: views[i].nbytes, lambda chunk: (
            m.Write(objects=[records[i] for i in chunk]), [views[i] for i in chunk], None),
            m.CodesReply)
        for chunk, answer in answers:
            if isinstance(answer, StoreError):
                self._mark(chunk, answer, failed, errors)
                continue
            for i, error in zip(chunk, m.item_errors(answer, [_key_of(records, i)
                                                               for i in chunk])):
                if error is not None:
                    self._mark([i], error, failed, errors)

    def _frames(self, plan: dict[str, list[int]], size_of: Callable[[int], int],
                request: Callable[[list[int]], tuple[m.Request, list[memoryview],
                                                     list[memoryview] | None]],
                reply: type[R]) -> list[tuple[list[int], R | StoreError]]:
        """Send each node's share of ``plan`` as frames of about ``frame_bytes`` over its
        streams, every frame before waiting for any; ``request(chunk)`` gives a frame's
        ``(request, payload, into)``. Returns each frame's objects with its decoded answer,
        or the error that ended it."""
        inflight: list[tuple[AnyConnection, tuple[int, Any], list[int], float]] = []
        out: list[tuple[list[int], R | StoreError]] = []
        for address, idxs in plan.items():
            for n, chunk in enumerate(self._chunks(idxs, [size_of(i) for i in idxs])):
                msg, payload, into = request(chunk)
                nbytes = sum(size_of(i) for i in chunk)
                try:
                    conn = self._node(address, n)
                    inflight.append((conn, conn.submit(msg.op, msg, payload, into=into), chunk,
                                     self.node_timeout + nbytes / NODE_MIN_RATE))
                except StoreError as exc:
                    out.append((chunk, exc))
        for conn, (rid, pending), chunk, limit in inflight:
            try:
                out.append((chunk, m.decode(reply, conn.wait(rid, pending, limit).meta)))
            except StoreError as exc:
                logger.info("frame to %s failed: %s", conn.address, exc)
                if _transient(exc):  # a refusal (a bad grant, say) says nothing of its health
                    self._node_failed(conn, exc)
                out.append((chunk, exc))
        return out

    @staticmethod
    def _mark(idxs: Sequence[int], exc: StoreError, failed: set[int],
              errors: list[StoreError | None]) -> None:
        for i in idxs:
            failed.add(i)
            errors[i] = exc if not isinstance(exc, ConnectionLost) else TransferError(str(exc))

    def _finish(self, keys: Sequence[str], done: list[int], failed: list[int],
                errors: list[StoreError | None], bad_nodes: Sequence[str] = ()) -> None:
        if done:
            ended = self._call_master(m.PutEnd(keys=[keys[i] for i in done]), m.CodesReply)
            for i, error in zip(done, m.item_errors(ended, [keys[i] for i in done])):
                if error is not None:
                    errors[i] = error
        if failed:
            self._call_master(m.PutRevoke(keys=[keys[i] for i in failed],
                                          failed_nodes=list(bad_nodes)), m.CodesReply)

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
        buf = bytearray(loc.size)
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
            if not isinstance(loc, StoreError) and loc.size > views[i].nbytes:
                located[i] = BufferTooSmall(
                    f"object {keys[i]!r} has {loc.size} bytes, buffer {views[i].nbytes}")
        return self._read_located(located, views)

    def _locate(self, keys: list[str], *, lease: bool) -> list[_Located | StoreError]:
        before = time.monotonic()
        results = self._call_master(m.Locate(keys=keys, lease=lease), m.LocateReply).results
        out: list[_Located | StoreError] = []
        for key, res in zip(keys, results, strict=True):
            if res.code:
                out.append(m.item_error(res.code, res.error, key))
            else:
                out.append(_Located(key, res, before + res.lease_s))
        return out

    def _read_located(self, located: list[_Located | StoreError],
                      views: list[memoryview]) -> list[int | StoreError]:
        out: list[int | StoreError] = [
            loc if isinstance(loc, StoreError)
            else ObjectNotFound(f"object {loc.key!r}: no live replica") for loc in located]
        todo = [i for i, loc in enumerate(located) if not isinstance(loc, StoreError)]
        tried: dict[int, set[str]] = defaultdict(set)
        since = time.monotonic()
        while todo:
            plan = self._next_replicas(todo, located, tried)
            todo = self._read_round(plan, located, views, out) if plan else []
        self._report_failed(since)
        self._check_leases(located, out)
        for i, loc in enumerate(located):
            if isinstance(loc, StoreError):
                continue
            result = out[i]
            if isinstance(result, StoreError):
                out[i] = _naming(result, loc.key)
        return out

    def _next_replicas(self, todo: list[int], located: list[_Located | StoreError],
                       tried: dict[int, set[str]]) -> dict[str, list[int]]:
        """Each object's next replica to read: in the master's order, neither tried yet nor a
        node that failed a call within ``NODE_SUSPECT_S`` (so a dead or hung node is waited
        for once, not by every read)."""
        suspect = self._suspects()
        plan: dict[str, list[int]] = defaultdict(list)
        for i in todo:
            loc = located[i]
            assert not isinstance(loc, StoreError)  # todo holds located objects only
            for address in loc.nodes:
                if address not in tried[i] and address not in suspect:
                    tried[i].add(address)
                    plan[address].append(i)
                    break
        return plan

    def _check_leases(self, located: list[_Located | StoreError],
                      out: list[int | StoreError]) -> None:
        """A read that ended after its lease: the master is asked again (renewing the lease).
        The same object id still listed means it was never evicted, so the bytes read stand;
        otherwise the read fails with LeaseExpired."""
        now = time.monotonic()
        late = {i: loc for i, loc in enumerate(located) if not isinstance(loc, StoreError)
                and isinstance(out[i], int) and now > loc.deadline}
        if not late:
            return
        again = self._locate([loc.key for loc in late.values()], lease=True)
        for (i, loc), fresh in zip(late.items(), again, strict=True):
            if isinstance(fresh, StoreError) or fresh.object_id != loc.object_id:
                out[i] = LeaseExpired("the read lease ended before the read completed, and "
                                      "the object has changed since")

    def _read_round(self, plan: dict[str, list[int]], located: list[Any],
                    views: list[memoryview], out: list[int | StoreError]) -> list[int]:
        """Read each node's share once; returns the objects to try on their next replica."""
        retry: list[int] = []
        streamed: dict[str, list[int]] = {}
        for address, idxs in plan.items():
            try:
                seg = self._segment(address)
            except StoreError as exc:
                for i in idxs:
                    out[i] = exc
                continue
            rest = idxs if seg is None else self._read_one_sided(
                address, seg, idxs, located, views, out, retry)
            if rest:
                streamed[address] = rest
        return retry + self._read_streamed(streamed, located, views, out)

    def _read_one_sided(self, address: str, seg: _Segment, idxs: list[int],
                        located: list[Any], views: list[memoryview],
                        out: list[int | StoreError], retry: list[int]) -> list[int]:
        """Pin, read from the node's arena, unpin, a chunk at a time while the node pins the
        next chunks; returns the objects to stream instead."""
        node_id, peer = seg
        rest, idxs = self._split_small(idxs, [located[i].size for i in idxs])
        try:
            conn = self._node(address)
        except StoreError as exc:
            logger.info("node %s unreachable: %s", address, exc)
            retry.extend(idxs)
            return rest
        chunks = self._chunks(idxs, [located[i].size for i in idxs])
        unpins = []

        pinned = [_submit(conn, m.Pin(**_read_fields(located, chunk)))  # all up front
                  for chunk in chunks]
        for k, chunk in enumerate(chunks):
            try:
                reply = self._await(conn, pinned[k], m.PinReply)
            except StoreError as exc:
                logger.info("pin on %s failed: %s", address, exc)
                retry.extend(chunk)
                continue
            held, offsets = [], []
            for i, size, off in zip(chunk, reply.sizes, reply.offsets):
                if size < 0:
                    retry.append(i)
                elif off < 0:
                    rest.append(i)
                else:
                    held.append(i)
                    offsets.append(off)
            ids = [located[i].object_id for i in held]
            if reply.node_id != node_id:  # restarted with a new arena: look again
                self._forget_segment(address, seg)
                rest.extend(held)
            else:
                try:
                    peer.read(offsets, [views[i][:located[i].size] for i in held])
                except StoreError as exc:
                    logger.info("one-sided read from %s failed: %s", address, exc)
                    retry.extend(held)
                else:
                    for i in held:
                        out[i] = located[i].size
            if ids:
                unpins.append(_submit(conn, m.Unpin(ids=ids)))
        for pending in unpins:
            try:
                self._await(conn, pending, m.UnpinReply)
            except StoreError as exc:  # the pins end with the connection anyway
                logger.info("unpin on %s failed: %s", address, exc)
        return rest

    def _read_streamed(self, plan: dict[str, list[int]], located: list[Any],
                       views: list[memoryview], out: list[int | StoreError]) -> list[int]:
        retry: list[int] = []
        answers = self._frames(plan, lambda i: located[i].size, lambda chunk: (
            m.Read(**_read_fields(located, chunk)), [], [views[i] for i in chunk]), m.ReadReply)
        for chunk, answer in answers:
            if isinstance(answer, StoreError):
                retry.extend(chunk)
                continue
            for i, size in zip(chunk, answer.sizes):
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
        return [bool(x) for x in self._call_master(m.Exists(keys=list(keys)),
                                                   m.ExistsReply).exists]

    def size_of(self, key: str) -> int:
        """Object size in bytes. Raises: ObjectNotFound, RpcError."""
        loc = self._locate([key], lease=False)[0]
        if isinstance(loc, StoreError):
            raise loc
        return loc.size

    def remove(self, key: str, *, force: bool = False) -> None:
        """Remove ``key``. Raises: ObjectNotFound, ObjectHasLease, PinnedObject, RpcError."""
        _raise_first(self.batch_remove([key], force=force))

    def batch_remove(self, keys: Sequence[str], *, force: bool = False) -> list[StoreError | None]:
        """Remove keys; one error (or None) per key. Raises: RpcError."""
        reply = self._call_master(m.Remove(keys=list(keys), force=force), m.CodesReply)
        return m.item_errors(reply, list(keys))

    def remove_all(self, *, force: bool = False) -> int:
        """Remove every object of this tenant that is not leased or hard-pinned; returns the count."""
        return self._call_master(m.RemoveAll(force=force), m.RemoveAllReply).removed

    def keys(self) -> list[str]:
        """This tenant's keys (the shared namespace's when isolation is off)."""
        return self._call_master(m.ListKeys(), m.ListReply).keys

    def stats(self) -> dict[str, Any]:
        """Nodes, this tenant's object count and bytes, quotas, evictions."""
        stats: dict[str, Any] = msgspec.to_builtins(self._call_master(m.Stats(), m.StatsReply))
        if stats["nodes"] is None:  # the master names nodes in the open mode only
            del stats["nodes"]
        return stats

    def ping(self) -> bool:
        """True when the master answers. Raises: RpcError."""
        return self._call_master(m.Ping(), m.PingReply).ok


@dataclass(frozen=True, slots=True)
class _Located:
    """A located object: its key, where the master says it is, and when its lease ends."""

    key: str
    where: m.Location
    deadline: float

    @property
    def size(self) -> int:
        return self.where.size

    @property
    def object_id(self) -> int:
        return self.where.object_id

    @property
    def nodes(self) -> list[str]:
        return self.where.nodes


def _key_of(records: dict[int, m.WriteRecord], i: int) -> str:
    return records[i].key


def _read_fields(located: list[Any], chunk: list[int]) -> dict[str, list[Any]]:
    """What NODE_READ and NODE_PIN name: each object's id, expected size and grant."""
    return {"ids": [located[i].object_id for i in chunk],
            "sizes": [located[i].size for i in chunk],
            "grants": [located[i].where.grant for i in chunk]}


def _submit(conn: AnyConnection, request: m.Request) -> Any:
    """``conn.submit(...)`` of ``request``, or the StoreError it raised: :func:`_answer`
    raises it where the answer is awaited, so that a pipelined loop handles every failure in
    one place."""
    try:
        return conn.submit(request.op, request)
    except StoreError as exc:
        return exc


def _answer(conn: AnyConnection, pending: Any, reply: type[R]) -> R:
    """The decoded answer to :func:`_submit`. Raises its StoreError."""
    if isinstance(pending, StoreError):
        raise pending
    return m.decode(reply, conn.wait(*pending).meta)


def _naming(error: StoreError, key: str) -> StoreError:
    """``error`` with its key in the message (same class and code), so that one error of a
    batch says which object it is about."""
    if repr(key) in str(error):
        return error
    try:
        named = type(error)(f"object {key!r}: {error}")
    except TypeError:  # a class with another constructor: keep it as it is
        return error
    named.__cause__ = error.__cause__
    return named


def _transient(error: StoreError | None) -> bool:
    """A failure of the node or the network (worth placing the object elsewhere)."""
    return isinstance(error, (TransferError, RpcError)) and not isinstance(error, ProtocolError)


def _raise_first(errors: Sequence[StoreError | None]) -> None:
    for err in errors:
        if err is not None:
            raise err
