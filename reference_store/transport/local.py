"""An in-process transport: the frame protocol's requests and answers without sockets.

A handler served with :func:`serve_local` gets an address ``local:N``; :func:`connect` gives a
:class:`LocalConnection` to it, and a TCP :class:`~reference_store.transport.tcp.Connection`
for any ``host:port``. Master, nodes and clients only ever connect through :func:`connect`, so a
whole cluster runs in one process when its servers are local (tests, examples), with the same
handlers, the same messages and the same errors as over TCP.

What stays the same as over TCP: every request's metadata is JSON-encoded and decoded again
(the handler's boundary sees exactly what a socket would deliver), a node's write lands in its
reserved store memory, answers to ``into=`` requests are scattered into the caller's buffers
(with a per-item BufferTooSmall), errors come back as the same class, a handler's own bug is an
internal error, and closing a connection tells the handler. What differs: a request is handled
on the caller's thread, so :meth:`LocalConnection.submit` returns once it is answered.
"""

from __future__ import annotations

import itertools
import logging
import threading
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from reference_store.errors import BufferTooSmall, ConnectionLost, ProtocolError, StoreError
from reference_store.transport.protocol import (
    Buffer,
    Frame,
    Header,
    Op,
    OutMeta,
    decode_meta,
    encode_meta,
    settled,
)
from reference_store.transport.tcp import (
    DEFAULT_TIMEOUT_S,
    Connection,
    Handler,
    ServerContext,
    landing_for,
    respond,
)

__all__ = ["LOCAL_PREFIX", "AnyConnection", "LocalConnection", "LocalServer", "connect",
           "serve_local"]

logger = logging.getLogger(__name__)

LOCAL_PREFIX = "local:"

_servers: dict[str, LocalServer] = {}
_servers_lock = threading.Lock()
_numbers = itertools.count(1)


class LocalServer:
    """A handler reachable in this process at :attr:`address` until :meth:`stop`."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.address = f"{LOCAL_PREFIX}{next(_numbers)}"
        self._conns: set[LocalConnection] = set()
        self._lock = threading.Lock()

    def stop(self) -> None:
        """Stop serving: the address is gone and every open connection is closed."""
        with _servers_lock:
            _servers.pop(self.address, None)
        with self._lock:
            conns, self._conns = list(self._conns), set()
        for conn in conns:
            conn.close()

    def _opened(self, conn: LocalConnection) -> None:
        with self._lock:
            self._conns.add(conn)

    def _closed(self, conn: LocalConnection) -> None:
        with self._lock:
            self._conns.discard(conn)


def serve_local(handler: Handler) -> LocalServer:
    """Serve ``handler`` in this process; returns its server (``.address``, ``.stop()``)."""
    server = LocalServer(handler)
    with _servers_lock:
        _servers[server.address] = server
    return server


def connect(address: str, *, timeout: float = DEFAULT_TIMEOUT_S) -> AnyConnection:
    """A connection to ``address``: in this process for ``local:N``, TCP otherwise.

    Raises:
        ConnectionLost: nothing serves there.  InvalidParams: not ``host:port``.
    """
    if address.startswith(LOCAL_PREFIX):
        return LocalConnection(address, timeout=timeout)
    return Connection(address, timeout=timeout)


@dataclass(slots=True)
class _Answered:
    """A request :meth:`LocalConnection.submit` has already answered."""

    frame: Frame | None = None
    error: StoreError | None = None
    item_errors: dict[int, StoreError] = field(default_factory=dict)


class LocalConnection:
    """A connection to a :class:`LocalServer`; same calls as the TCP ``Connection``."""

    def __init__(self, address: str, *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Raises: ConnectionLost when nothing serves at ``address``."""
        with _servers_lock:
            server = _servers.get(address)
        if server is None:
            raise ConnectionLost(f"cannot connect to {address}: nothing serves there")
        self.address = address
        self.timeout = timeout
        self._server = server
        self._ctx = ServerContext(peer=f"{LOCAL_PREFIX}client")
        self._ids = itertools.count(1)
        self._closed = False
        self._lock = threading.Lock()
        server._opened(self)

    @property
    def closed(self) -> bool:
        return self._closed

    def call(self, opcode: Op, meta: OutMeta | None = None, payload: Sequence[Buffer] = (), *,
             into: Sequence[memoryview] | None = None, timeout: float | None = None) -> Frame:
        """Send one request and return its answer (errors as the TCP ``Connection.call``)."""
        rid, pending = self.submit(opcode, meta, payload, into=into)
        return self.wait(rid, pending, timeout)

    def submit(self, opcode: Op, meta: OutMeta | None = None, payload: Sequence[Buffer] = (), *,
               into: Sequence[memoryview] | None = None) -> tuple[int, _Answered]:
        """Handle the request now; :meth:`wait` returns (or raises) its answer.

        Raises:
            ConnectionLost: the connection is closed.
        """
        if self._closed:
            raise ConnectionLost(f"connection to {self.address} is closed")
        rid = next(self._ids)
        raw = encode_meta({} if meta is None else meta)
        answered = _Answered()
        with self._lock:  # one request at a time per connection, as a TCP server reads them
            self._exchange(int(opcode), rid, raw, b"".join(bytes(b) for b in payload), into,
                           answered)
        return rid, answered

    def wait(self, rid: int, pending: _Answered, timeout: float | None = None) -> Frame:
        """The answer to a submitted request (see :meth:`call` for errors)."""
        return settled(pending.frame, pending.error, pending.item_errors)

    def close(self) -> None:
        """Close the connection; the handler hears of it once."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._server._closed(self)
        try:
            self._server.handler.disconnected(self._ctx)
        except Exception:  # a handler bug must not reach the caller
            logger.exception("disconnect handler failed for %s", self.address)

    def _exchange(self, opcode: int, rid: int, raw_meta: bytes, payload: bytes,
                  into: Sequence[memoryview] | None, answered: _Answered) -> None:
        handler, ctx = self._server.handler, self._ctx
        try:
            meta = decode_meta(raw_meta, zlib.crc32(raw_meta))
            header = Header(0, opcode, 0, rid, len(raw_meta), len(payload), 0, 0)
            landing = landing_for(handler, ctx, header, meta)
        except StoreError as exc:
            answered.error = exc if isinstance(exc, ProtocolError) else ProtocolError(str(exc))
            return
        try:
            if landing is not None:
                _fill(landing.buffers, payload)
            status, out_meta, buffers = respond(handler, ctx, header, meta,
                                                memoryview(payload), landing)
            raw_out = encode_meta(out_meta)
            reply = decode_meta(raw_out, zlib.crc32(raw_out))
            body = _deliver(reply, buffers, into, answered) if status == 0 else memoryview(b"")
            answered.frame = Frame(Header(1, opcode, status, rid, len(raw_out), body.nbytes, 0, 0),
                                   reply, body)
        finally:
            if landing is not None:
                landing.abort()  # a no-op once finished
            callbacks, ctx.after_send[:] = list(ctx.after_send), []
            for callback in callbacks:
                callback()


def _fill(buffers: Sequence[memoryview], payload: bytes) -> None:
    offset = 0
    for buf in buffers:
        buf[:] = payload[offset:offset + buf.nbytes]
        offset += buf.nbytes


def _deliver(reply: dict[str, Any], buffers: Sequence[Buffer],
             into: Sequence[memoryview] | None, answered: _Answered) -> memoryview:
    """Copy the answer's payload into ``into`` as its ``sizes`` say (a per-item BufferTooSmall
    for one that does not fit), or return it as one buffer."""
    views = [memoryview(b).cast("B") for b in buffers if memoryview(b).nbytes]
    if into is None or "sizes" not in reply:
        return memoryview(b"".join(bytes(v) for v in views))
    sizes = reply["sizes"]
    if not isinstance(sizes, list) or len(sizes) != len(into):
        raise ProtocolError("response 'sizes' does not match the destinations")
    source = iter(views)
    for i, (size, dest) in enumerate(zip(sizes, into, strict=True)):
        if not isinstance(size, int) or size <= 0:
            continue
        view = next(source)
        if size > dest.nbytes:
            answered.item_errors[i] = BufferTooSmall(
                f"object of {size} bytes does not fit a {dest.nbytes}-byte buffer")
            continue
        dest[:size] = view[:size]
    return memoryview(b"")


#: what :func:`connect` returns
AnyConnection = Connection | LocalConnection
