"""The client's links: its connection to the master, its connections to the nodes, the nodes
it no longer trusts, and its handles on the nodes' arenas (segments).

Reads and writes (:mod:`~reference_store.client.reads`, :mod:`~reference_store.client.writes`)
reach the cluster only through a :class:`Links`:

- the master: one connection, reconnected once when it was lost (a master restart), and while a
  master has just started, a LOCATE, EXISTS or PUT_START told to retry is retried until the
  call timeout;
- the nodes: ``streams`` connections each, every call under a short deadline
  (``node_timeout`` plus the frame's bytes at :data:`NODE_MIN_RATE`);
- suspicion: a node that failed a call is remembered, and the master hears of it (a revoke of
  no object) so that it places puts elsewhere; one that hung or dropped a call is not called
  again for :data:`NODE_SUSPECT_S`, so a dead or hung node costs one deadline, not one per call;
- segments: per node, this client's handle on its arena, or None to stream.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from reference_store.client.batch import chunks, split_small, transient
from reference_store.errors import (
    ConnectionLost,
    InvalidParams,
    NotReady,
    RpcTimeout,
    StoreError,
    TransferError,
)
from reference_store.transport import messages as m
from reference_store.transport.local import AnyConnection, connect
from reference_store.transport.protocol import Op
from reference_store.transport.segment import SegmentPeer, attach_shm

if TYPE_CHECKING:
    from reference_store.transport.transfer_engine import TransferEngineTransport

__all__ = [
    "DATA_PATHS",
    "NODE_MIN_RATE",
    "NODE_SUSPECT_S",
    "ClientOptions",
    "Links",
    "Segment",
    "answer",
    "submit",
]

logger = logging.getLogger(__name__)

DATA_PATHS = ("auto", "tcp", "shm", "te")
# After a node fails a call, it is not called for this long (while the master's TTL catches
# up): reads go to another replica, puts are placed again elsewhere.
NODE_SUSPECT_S = 5.0
NODE_MIN_RATE = 100 << 20  # bytes/s a node must at least sustain within one frame
_RETRY_WHEN_STARTING = (Op.LOCATE, Op.EXISTS, Op.PUT_START)
R = TypeVar("R", bound=m.Message)
Segment = tuple[str, SegmentPeer]  # (node id, the client's handle on its arena)
#: one frame of a streamed batch: ``(request, payload to send, views to receive into)``
FrameOf = Callable[[list[int]], tuple[m.Request, list[memoryview], list[memoryview] | None]]


@dataclass(frozen=True, slots=True)
class ClientOptions:
    """How a client talks to its cluster (see :class:`~reference_store.client.StoreClient`)."""

    master: str
    tenant: str
    token: str | None = field(repr=False)
    timeout: float
    node_timeout: float
    replicas: int
    max_frame_bytes: int
    streams: int
    frame_bytes: int
    data_path: str
    one_sided_min_bytes: int

    def __post_init__(self) -> None:
        if self.data_path not in DATA_PATHS:
            raise InvalidParams(f"data_path: expected one of {', '.join(DATA_PATHS)}, "
                                f"got {self.data_path!r}")

    @property
    def frame_cap(self) -> int:
        """The bytes one frame of a batch carries at most (one larger object excepted)."""
        return min(self.max_frame_bytes, self.frame_bytes)


class Links:
    """The master and node connections of one client, its suspects and its segments
    (thread-safe)."""

    def __init__(self, options: ClientOptions,
                 engine: TransferEngineTransport | None = None) -> None:
        self.options = options
        self.engine = engine
        self.lease_ttl_s = 0.0
        self.segments: dict[str, Segment | None] = {}  # node address -> handle, or None
        self._lock = threading.Lock()
        self._master: AnyConnection | None = None
        self._nodes: dict[str, AnyConnection] = {}  # "address#stream" -> connection
        self._failures: dict[str, float] = {}  # node address -> when a call to it failed
        self._blocked: dict[str, float] = {}  # node address -> when it hung or dropped a call
        self._closed = False
        self._connect_master()

    # ---------------------------------------------------------------- the master

    def _connect_master(self) -> AnyConnection:
        conn = connect(self.options.master, timeout=self.options.timeout)
        try:
            hello = m.call(conn, m.Hello(tenant=self.options.tenant, token=self.options.token),
                           m.HelloReply)
        except StoreError:
            conn.close()
            raise
        self.lease_ttl_s = hello.lease_ttl_s
        self._master = conn
        return conn

    def call_master(self, request: m.Request, reply: type[R]) -> R:
        """One master call; reconnects once if the connection was lost (e.g. master restart).

        Raises:
            NotReady: the client is closed, or the master still recovers after the timeout.
            StoreError: the master's answer, or the call's failure.
        """
        if self._closed:
            raise NotReady("the client is closed")
        deadline = time.monotonic() + self.options.timeout
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

    # ---------------------------------------------------------------- the nodes

    def node(self, address: str, stream: int = 0) -> AnyConnection:
        """Connection number ``stream`` to a node (several let the node copy one frame while
        the next one is still arriving).

        Raises:
            TransferError: the node is suspect (see :meth:`suspects`).
            StoreError: it cannot be reached (the node is then suspected).
        """
        slot = f"{address}#{stream % self.options.streams}"
        if address in self.suspects():
            raise TransferError(f"node {address} failed a call less than {NODE_SUSPECT_S:g} s "
                                "ago; not called again yet")
        with self._lock:
            conn = self._nodes.get(slot)
            if conn is None or conn.closed:
                try:
                    conn = connect(address, timeout=self.options.node_timeout)
                except StoreError as exc:
                    # a refused connection fails at once, so trying again costs nothing, and a
                    # node restarted on the same port must be reachable as soon as it is back
                    self.suspect(address, exc,
                                 block=not isinstance(exc.__cause__, ConnectionRefusedError))
                    raise
                self._nodes[slot] = conn
            return conn

    def answer(self, conn: AnyConnection, pending: Any, reply: type[R]) -> R:
        """:func:`answer`, noting a node that failed it."""
        try:
            return answer(conn, pending, reply)
        except StoreError as exc:
            if transient(exc):
                self.node_failed(conn, exc)
            raise

    def frames(self, plan: dict[str, list[int]], size_of: Callable[[int], int],
               frame_of: FrameOf, reply: type[R]) -> list[tuple[list[int], R | StoreError]]:
        """Send each node's share of ``plan`` as frames of about ``frame_bytes`` over its
        streams, every frame before waiting for any; ``frame_of(chunk)`` gives a frame's
        ``(request, payload, into)``. Returns each frame's objects with its decoded answer,
        or the error that ended it."""
        inflight: list[tuple[AnyConnection, tuple[int, Any], list[int], float]] = []
        out: list[tuple[list[int], R | StoreError]] = []
        for address, idxs in plan.items():
            for n, chunk in enumerate(chunks(idxs, [size_of(i) for i in idxs],
                                             self.options.frame_cap)):
                msg, payload, into = frame_of(chunk)
                limit = self.options.node_timeout + sum(size_of(i) for i in chunk) / NODE_MIN_RATE
                try:
                    conn = self.node(address, n)
                    inflight.append((conn, conn.submit(msg.op, msg, payload, into=into), chunk,
                                     limit))
                except StoreError as exc:
                    out.append((chunk, exc))
        for conn, (rid, pending), chunk, limit in inflight:
            try:
                out.append((chunk, m.decode(reply, conn.wait(rid, pending, limit).meta)))
            except StoreError as exc:
                logger.info("frame to %s failed: %s", conn.address, exc)
                if transient(exc):  # a refusal (a bad grant, say) says nothing of its health
                    self.node_failed(conn, exc)
                out.append((chunk, exc))
        return out

    def chunks(self, idxs: list[int], sizes: list[int]) -> list[list[int]]:
        """:func:`~reference_store.client.batch.chunks` at this client's frame size."""
        return chunks(idxs, sizes, self.options.frame_cap)

    def split_small(self, idxs: list[int], sizes: list[int]) -> tuple[list[int], list[int]]:
        """``(to stream, one-sided)``: with ``data_path="auto"``, objects under
        ``one_sided_min_bytes`` are streamed; otherwise all go one-sided."""
        if self.options.data_path != "auto":
            return [], idxs
        return split_small(idxs, sizes, self.options.one_sided_min_bytes)

    # ---------------------------------------------------------------- suspicion

    def node_failed(self, conn: AnyConnection, exc: StoreError) -> None:
        """Remember a node that failed a call (the master hears of it with the revoke), and
        drop a connection that timed out: its late answer must not meet the next call."""
        self.suspect(conn.address, exc)
        if isinstance(exc, RpcTimeout):
            conn.close()

    def suspect(self, address: str, exc: StoreError, *, block: bool = True) -> None:
        """Note a failed call (the master hears of it); ``block`` also stops calls to the node
        for ``NODE_SUSPECT_S``, for failures that cost time to meet again (a hang, a drop)."""
        now = time.monotonic()
        self._failures[address] = now
        if block:
            self._blocked[address] = now
        logger.warning("node %s failed a call (%s)%s", address, exc,
                       f"; not calling it for {NODE_SUSPECT_S:g} s" if block else "")

    def suspects(self) -> set[str]:
        """Nodes that hung or dropped a call within ``NODE_SUSPECT_S``: not called until then."""
        now = time.monotonic()
        return {a for a, t in list(self._blocked.items()) if now - t < NODE_SUSPECT_S}

    def failed_since(self, since: float) -> list[str]:
        """Nodes that failed a call at or after ``since`` (a ``time.monotonic()``)."""
        return [a for a, t in list(self._failures.items()) if t >= since]

    def report_failed(self, since: float) -> None:
        """Tell the master which nodes failed a read since ``since`` (a revoke of no object),
        so that it places puts elsewhere and lists those replicas last; best effort."""
        failed = self.failed_since(since)
        if failed:
            try:
                self.call_master(m.PutRevoke(keys=[], failed_nodes=failed), m.CodesReply)
            except StoreError as exc:
                logger.info("could not report failed nodes %s: %s", failed, exc)

    # ---------------------------------------------------------------- segments

    def segment(self, address: str) -> Segment | None:
        """This client's handle on the node's arena, or None to stream (cached per node).

        Raises:
            TransferError: ``data_path`` insists on a segment kind the node does not offer.
        """
        if self.options.data_path == "tcp":
            return None
        with self._lock:
            if address in self.segments:
                return self.segments[address]
        try:
            reply = m.call(self.node(address), m.Segments(), m.SegmentsReply)
        except StoreError as exc:
            logger.info("node %s: no segment list (%s); streaming", address, exc)
            return None
        found = self._attach(reply.segments)
        if found is None and self.options.data_path != "auto":
            raise TransferError(f"node {address} offers no {self.options.data_path} segment "
                                f"this process can reach (it offers "
                                f"{[s.get('kind') for s in reply.segments]})")
        seg = (reply.node_id, found) if found is not None else None
        with self._lock:
            self.segments.setdefault(address, seg)
            return self.segments[address]

    def _attach(self, offers: list[dict[str, str | int]]) -> SegmentPeer | None:
        for desc in offers:
            kind = desc.get("kind")
            if kind == "shm" and self.options.data_path in ("auto", "shm"):
                peer = attach_shm(desc)
                if peer is not None:
                    return peer
            if kind == "te" and self.engine is not None:
                from reference_store.transport.transfer_engine import attach_te

                te = attach_te(desc, self.engine)
                if te is not None:
                    return te
        return None

    def forget_segment(self, address: str, seg: Segment) -> None:
        """Drop a stale handle (the node restarted with a new arena)."""
        with self._lock:
            if self.segments.get(address) is seg:
                del self.segments[address]
        seg[1].close()

    # ---------------------------------------------------------------- closing

    def close(self) -> None:
        """Close every connection, segment and the engine; later calls raise NotReady."""
        self._closed = True
        with self._lock:
            conns = list(self._nodes.values()) + ([self._master] if self._master else [])
            self._nodes.clear()
            self._master = None
            segments, self.segments = list(self.segments.values()), {}
        for conn in conns:
            conn.close()
        for seg in segments:
            if seg is not None:
                seg[1].close()
        if self.engine is not None:
            self.engine.close()
            self.engine = None


def submit(conn: AnyConnection, request: m.Request) -> Any:
    """``conn.submit(...)`` of ``request``, or the StoreError it raised: :func:`answer`
    raises it where the answer is awaited, so that a pipelined loop handles every failure in
    one place."""
    try:
        return conn.submit(request.op, request)
    except StoreError as exc:
        return exc


def answer(conn: AnyConnection, pending: Any, reply: type[R]) -> R:
    """The decoded answer to :func:`submit`. Raises its StoreError."""
    if isinstance(pending, StoreError):
        raise pending
    return m.decode(reply, conn.wait(*pending).meta)
