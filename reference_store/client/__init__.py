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
node fails; a node that failed a call (a read or a write) is skipped for ``NODE_SUSPECT_S`` (a
dead or hung node costs one short deadline, then nothing; the master hears of it and places
puts elsewhere). A read that completes after its lease ended asks the master again: the object
still listed under the same id was never evicted, so its bytes stand; otherwise the read raises
:class:`LeaseExpired` (the bytes may have been evicted and reused).

:class:`StoreClient` composes one module per role:

- :mod:`~reference_store.client.links`: the master and node connections, the nodes that failed
  a call (and reporting them), the segments;
- :mod:`~reference_store.client.reads`: locate, leases, replica fallback, one-sided and
  streamed reads;
- :mod:`~reference_store.client.writes`: put rounds, re-placement, one-sided and streamed
  writes;
- :mod:`~reference_store.client.batch`: the caller's buffers, frames and per-item errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Self

import msgspec

from reference_store.client.batch import raise_first
from reference_store.client.links import ClientOptions, Links
from reference_store.client.reads import Reads
from reference_store.client.writes import Writes
from reference_store.errors import InvalidParams, StoreError
from reference_store.master import PIN_HARD, PIN_NONE, PIN_SOFT
from reference_store.transport import messages as m
from reference_store.transport.tcp import DEFAULT_TIMEOUT_S

if TYPE_CHECKING:
    from reference_store.transport.transfer_engine import EngineConfig, TransferEngineTransport

__all__ = ["DEFAULT_MAX_FRAME_BYTES", "PIN_HARD", "PIN_NONE", "PIN_SOFT", "StoreClient"]

DEFAULT_MAX_FRAME_BYTES = 256 << 20
DEFAULT_STREAMS = 1
DEFAULT_FRAME_BYTES = 8 << 20
DEFAULT_ONE_SIDED_MIN_BYTES = 64 << 10
# A node call waits this long, plus the frame's bytes at NODE_MIN_RATE: a hung node costs a put
# or a read one short wait (then a second try elsewhere), well within a second and far under the
# master's node TTL (5 s). A live node answers a frame in milliseconds, even on a busy machine.
DEFAULT_NODE_TIMEOUT_S = 0.5


def _option(name: str) -> Any:
    """A read-only attribute of the client that is one of its :class:`ClientOptions`."""
    return property(lambda self: getattr(self.options, name),
                    doc=f"The ``{name}`` this client was made with.")


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

    master_address = _option("master")
    tenant = _option("tenant")
    timeout = _option("timeout")
    node_timeout = _option("node_timeout")
    replicas = _option("replicas")
    max_frame_bytes = _option("max_frame_bytes")
    streams = _option("streams")
    frame_bytes = _option("frame_bytes")
    data_path = _option("data_path")
    one_sided_min_bytes = _option("one_sided_min_bytes")

    def __init__(
        self, master: str, *, tenant: str = "default", token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S, replicas: int = 1,
        max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES, streams: int = DEFAULT_STREAMS,
        frame_bytes: int = DEFAULT_FRAME_BYTES, data_path: str = "auto",
        transfer_engine: EngineConfig | None = None,
        one_sided_min_bytes: int = DEFAULT_ONE_SIDED_MIN_BYTES,
        node_timeout: float = DEFAULT_NODE_TIMEOUT_S,
    ) -> None:
        self.options = ClientOptions(
            master=master, tenant=tenant, token=token, timeout=timeout,
            node_timeout=min(timeout, node_timeout), replicas=replicas,
            max_frame_bytes=max_frame_bytes, streams=max(1, streams), frame_bytes=frame_bytes,
            data_path=data_path, one_sided_min_bytes=one_sided_min_bytes)
        if data_path == "te" and transfer_engine is None:
            raise InvalidParams("transfer_engine: required with data_path 'te'")
        engine = _start_engine(transfer_engine, data_path)
        try:
            self._links = Links(self.options, engine)
        except BaseException:
            if engine is not None:
                engine.close()
            raise
        self._reads = Reads(self._links)
        self._writes = Writes(self._links)

    def __repr__(self) -> str:
        return f"StoreClient(master={self.master_address!r}, tenant={self.tenant!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def lease_ttl_s(self) -> float:
        """The read lease the master grants, in seconds (from its HELLO answer)."""
        return self._links.lease_ttl_s

    def close(self) -> None:
        """Close every connection and segment; later calls raise NotReady."""
        self._links.close()

    # ---------------------------------------------------------------- Transfer Engine buffers

    def register_buffer(self, buffer: Any) -> None:
        """Register ``buffer`` with this client's Transfer Engine so that ``te`` transfers from
        and into it skip the staging copy (Mooncake's ``register_buffer``); a no-op without
        an engine. Raises: InvalidParams, TransferError."""
        if self._links.engine is not None:
            self._links.engine.register(buffer)

    def register_range(self, address: int, length: int) -> None:
        """:meth:`register_buffer` for raw memory (an address the caller keeps alive)."""
        if self._links.engine is not None:
            self._links.engine.register_range(address, length)

    def unregister_range(self, address: int) -> None:
        """Undo :meth:`register_range` (a no-op without an engine or for an unknown address)."""
        if self._links.engine is not None:
            try:
                self._links.engine.unregister(address)
            except InvalidParams:
                pass

    def unregister_buffer(self, buffer: Any) -> None:
        """Undo :meth:`register_buffer`. Raises: InvalidParams when it was not registered."""
        if self._links.engine is not None:
            self._links.engine.unregister_buffer(buffer)

    # ---------------------------------------------------------------- puts

    def put(self, key: str, value: Any, *, pin: int = PIN_NONE, replicas: int | None = None) -> None:
        """Store ``value`` under ``key``; an existing key keeps its FIRST value (Mooncake's rule).

        Raises:
            StoreFull, TenantQuotaExceeded, TransferError, InvalidParams, InvalidKey, RpcError.
        """
        raise_first(self.batch_put([key], [value], pin=pin, replicas=replicas))

    def upsert(self, key: str, value: Any, *, pin: int = PIN_NONE,
               replicas: int | None = None) -> None:
        """Store ``value`` under ``key``, replacing an existing value (errors as :meth:`put`)."""
        raise_first(self.batch_put([key], [value], upsert=True, pin=pin, replicas=replicas))

    def batch_put(
        self, keys: Sequence[str], values: Sequence[Any], *, upsert: bool = False,
        pin: int = PIN_NONE, replicas: int | None = None,
    ) -> list[StoreError | None]:
        """Put many objects; returns one error (or None) per key, in order.

        Raises:
            InvalidParams: keys and values differ in length, or a value is not a buffer.
            RpcError: the master cannot be reached.
        """
        return self._writes.batch_put(keys, values, upsert=upsert, pin=pin, replicas=replicas)

    # ---------------------------------------------------------------- gets

    def get(self, key: str) -> bytes:
        """The object's bytes.

        Raises:
            ObjectNotFound, LeaseExpired, TransferError, RpcError.
        """
        return self._reads.get(key)

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
        return self._reads.batch_get_into(keys, dests)

    # ---------------------------------------------------------------- metadata calls

    def exists(self, key: str) -> bool:
        """Whether ``key`` is stored (takes no lease). Raises: RpcError."""
        return bool(self.batch_exists([key])[0])

    def batch_exists(self, keys: Sequence[str]) -> list[bool]:
        """Existence of each key (no leases). Raises: InvalidKey, RpcError."""
        return [bool(x) for x in self._links.call_master(m.Exists(keys=list(keys)),
                                                         m.ExistsReply).exists]

    def size_of(self, key: str) -> int:
        """Object size in bytes. Raises: ObjectNotFound, RpcError."""
        loc = self._reads.locate([key], lease=False)[0]
        if isinstance(loc, StoreError):
            raise loc
        return loc.size

    def remove(self, key: str, *, force: bool = False) -> None:
        """Remove ``key``. Raises: ObjectNotFound, ObjectHasLease, PinnedObject, RpcError."""
        raise_first(self.batch_remove([key], force=force))

    def batch_remove(self, keys: Sequence[str], *, force: bool = False) -> list[StoreError | None]:
        """Remove keys; one error (or None) per key. Raises: RpcError."""
        reply = self._links.call_master(m.Remove(keys=list(keys), force=force), m.CodesReply)
        return m.item_errors(reply, list(keys))

    def remove_all(self, *, force: bool = False) -> int:
        """Remove every object of this tenant that is not leased or hard-pinned; returns the count."""
        return self._links.call_master(m.RemoveAll(force=force), m.RemovedReply).removed

    def keys(self) -> list[str]:
        """This tenant's keys (the shared namespace's when isolation is off)."""
        return self._links.call_master(m.ListKeys(), m.ListReply).keys

    def stats(self) -> dict[str, Any]:
        """Nodes, this tenant's object count and bytes, quotas, evictions."""
        stats: dict[str, Any] = msgspec.to_builtins(
            self._links.call_master(m.Stats(), m.StatsReply))
        if stats["nodes"] is None:  # the master names nodes in the open mode only
            del stats["nodes"]
        return stats

    def ping(self) -> bool:
        """True when the master answers. Raises: RpcError."""
        return self._links.call_master(m.Ping(), m.PingReply).ok


def _start_engine(config: EngineConfig | None, data_path: str) -> TransferEngineTransport | None:
    """A Transfer Engine in this process when one is configured and the path may use it.

    Raises:
        TransferError: the engine cannot start.
    """
    if config is None or data_path not in ("auto", "te"):
        return None
    from reference_store.transport.transfer_engine import TransferEngineTransport

    return TransferEngineTransport(config)
