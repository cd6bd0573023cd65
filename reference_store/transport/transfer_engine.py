"""One-sided transfers through Mooncake's Transfer Engine (the RDMA path).

``mooncake.engine.TransferEngine`` (PyPI ``mooncake-transfer-engine-non-cuda``, the ``mooncake``
extra; it needs Debian's ``libibverbs1`` to load) moves bytes between registered memory of two
processes without the peer's CPU: ``protocol="rdma"`` with a NIC name (``device_name="mlx5_0"``)
where RDMA hardware exists, or ``protocol="tcp"`` anywhere, which is how it is exercised here.
Peers find each other through a metadata service: Mooncake's master embeds an HTTP one
(``mooncake_master --enable_http_metadata_server=true``), or ``P2PHANDSHAKE``.

What runs on the development machine (2 cores, no RDMA NIC, no soft-RoCE): the ``tcp`` protocol
between two processes, through the master's HTTP metadata server (tests/test_transfer_engine.py).
The ``rdma`` protocol is the same calls with a device name; it has not been run here.

The node/client wiring uses :class:`TeExport` and :class:`TePeer`, the ``te`` kind of
:mod:`reference_store.transport.segment`'s one-sided data path: the node registers its host arena
once (:class:`TeExport`, whose ``describe()`` answers ``NODE_SEGMENTS``), and a client that runs
an engine of the same protocol attaches it (:func:`attach_te`) and writes and reads the arena at
the offsets ``NODE_RESERVE``/``NODE_PIN`` answered. The engine only moves bytes between
registered memory, so the client copies through a registered staging buffer of its own, except
for views that already lie in memory the caller registered on its engine (Mooncake's
``register_buffer``), which move with no copy.
"""

from __future__ import annotations

import ctypes
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from reference_store.errors import InvalidParams, NotReady, TransferError

__all__ = [
    "DEFAULT_STAGING_BYTES",
    "MAX_BATCH_ENTRIES",
    "EngineConfig",
    "TeExport",
    "TePeer",
    "TransferEngineTransport",
    "attach_te",
    "engine_available",
    "view_address",
]

logger = logging.getLogger(__name__)

DEFAULT_STAGING_BYTES = 64 << 20
# Entries per batch submission: each batch is one allocation in the engine; a bounded number keeps
# a request of many small objects from asking for an unbounded one.
MAX_BATCH_ENTRIES = 256


def engine_available() -> tuple[bool, str]:
    """Whether ``mooncake.engine`` loads here, and why not when it does not."""
    try:
        from mooncake.engine import TransferEngine  # noqa: F401
    except (ImportError, OSError) as exc:
        return False, f"mooncake.engine cannot be loaded: {exc}"
    return True, ""


@dataclass(frozen=True, kw_only=True)
class EngineConfig:
    """How to start an engine: ``protocol`` "tcp" or "rdma" (then ``device_name`` names NICs)."""

    local_hostname: str
    metadata_server: str
    protocol: str = "tcp"
    device_name: str = ""

    def __post_init__(self) -> None:
        if self.protocol not in ("tcp", "rdma"):
            raise InvalidParams(f"protocol: must be 'tcp' or 'rdma', got {self.protocol!r}")
        if self.protocol == "rdma" and not self.device_name:
            raise InvalidParams("device_name: required with protocol 'rdma' (e.g. mlx5_0)")


def _address_of(buffer: Any) -> tuple[int, int, Any]:
    """(address, length, owner) of a writable contiguous CPU buffer; owner keeps it alive."""
    if hasattr(buffer, "data_ptr") and hasattr(buffer, "is_contiguous"):  # torch tensor
        if buffer.device.type != "cpu" or not buffer.is_contiguous():
            raise InvalidParams("buffer: tensor must be a contiguous CPU tensor")
        return int(buffer.data_ptr()), int(buffer.numel() * buffer.element_size()), buffer
    if isinstance(buffer, np.ndarray):
        if not buffer.flags.c_contiguous or not buffer.flags.writeable:
            raise InvalidParams("buffer: numpy array must be C-contiguous and writable")
        return int(buffer.ctypes.data), int(buffer.nbytes), buffer
    if isinstance(buffer, bytearray):
        arr = (ctypes.c_char * len(buffer)).from_buffer(buffer)
        return ctypes.addressof(arr), len(buffer), arr
    raise InvalidParams(f"buffer: expected a numpy array, bytearray or CPU tensor, "
                        f"got {type(buffer).__name__}")


def view_address(view: memoryview) -> int:
    """The address of a C-contiguous memoryview's first byte.

    ``np.frombuffer`` exposes the address of read-only buffers (``bytes``) as well as writable
    ones; the caller must not let the engine write through the address of a read-only view.

    Raises:
        InvalidParams: the view is not C-contiguous.
    """
    if not view.c_contiguous:
        raise InvalidParams("view: must be C-contiguous")
    if view.nbytes == 0:
        return 0
    return int(np.frombuffer(view, dtype=np.uint8).ctypes.data)


class TransferEngineTransport:
    """A Transfer Engine endpoint: register local memory, read/write a peer's registered memory.

    Raises at construction:
        TransferError: Mooncake cannot be loaded or the engine does not initialize.
    """

    def __init__(self, config: EngineConfig) -> None:
        ok, why = engine_available()
        if not ok:
            raise TransferError(why)
        from mooncake.engine import TransferEngine

        self.config = config
        self._engine: Any = TransferEngine()
        rc = self._engine.initialize(config.local_hostname, config.metadata_server,
                                     config.protocol, config.device_name)
        if rc != 0:
            raise TransferError(f"TransferEngine.initialize returned {rc} "
                                f"(protocol {config.protocol}, metadata {config.metadata_server})")
        self._registered: dict[int, tuple[int, Any]] = {}

    @property
    def session_id(self) -> str:
        """The name peers pass as ``peer`` to reach this endpoint: the engine publishes its
        segment in the metadata service under ``local_hostname``."""
        self._live()
        return self.config.local_hostname

    def _live(self) -> Any:
        if self._engine is None:
            raise NotReady("the transfer engine is closed")
        return self._engine

    def register(self, buffer: Any) -> int:
        """Register a buffer for one-sided access; returns its address.

        Raises:
            InvalidParams: not a contiguous writable CPU buffer.  TransferError: refused.
        """
        addr, length, owner = _address_of(buffer)
        self._register(addr, length, owner)
        return addr

    def register_range(self, address: int, length: int) -> None:
        """Register raw memory the caller keeps alive (Mooncake's ``register_buffer(ptr, size)``).

        Raises:
            InvalidParams: a null address or a length <= 0.  TransferError: refused.
        """
        if not address or length <= 0:
            raise InvalidParams(f"buffer: address {address:#x} length {length} is not a buffer")
        self._register(address, length, None)

    def _register(self, addr: int, length: int, owner: Any) -> None:
        rc = self._live().register_memory(addr, length)
        if rc != 0:
            raise TransferError(f"register_memory({length} bytes) returned {rc}")
        self._registered[addr] = (length, owner)

    def unregister(self, address: int) -> None:
        """Forget a registered buffer. Raises: InvalidParams when it was not registered."""
        if self._registered.pop(address, None) is None:
            raise InvalidParams(f"buffer {address:#x} is not registered")
        self._live().unregister_memory(address)

    def unregister_buffer(self, buffer: Any) -> None:
        """:meth:`unregister` by the buffer given to :meth:`register`.

        Raises: InvalidParams (not registered, or not a buffer)."""
        self.unregister(_address_of(buffer)[0])

    def is_registered(self, address: int, length: int) -> bool:
        """Whether ``[address, address + length)`` lies inside ONE buffer registered here (False
        once the engine is closed, which unregisters everything)."""
        for base, (size, _owner) in self._registered.items():
            if base <= address and address + length <= base + size:
                return True
        return False

    def _check_local(self, address: int, length: int) -> None:
        if not self.is_registered(address, length):
            raise InvalidParams(f"local range {address:#x}+{length} is not inside a registered "
                                f"buffer")

    def read(self, peer: str, local: int, remote: int, length: int) -> None:
        """Copy ``length`` bytes at the peer's ``remote`` into local ``local``.

        Raises: InvalidParams (unregistered local range), TransferError.
        """
        self.batch_read(peer, [local], [remote], [length])

    def write(self, peer: str, local: int, remote: int, length: int) -> None:
        """Copy ``length`` local bytes at ``local`` to the peer's ``remote`` (errors as read)."""
        self.batch_write(peer, [local], [remote], [length])

    def batch_read(self, peer: str, locals_: Sequence[int], remotes: Sequence[int],
                   lengths: Sequence[int]) -> None:
        """Many reads in one submission (errors as :meth:`read`)."""
        self._batch("read", peer, locals_, remotes, lengths)

    def batch_write(self, peer: str, locals_: Sequence[int], remotes: Sequence[int],
                    lengths: Sequence[int]) -> None:
        """Many writes in one submission (errors as :meth:`read`)."""
        self._batch("write", peer, locals_, remotes, lengths)

    def _batch(self, kind: str, peer: str, locals_: Sequence[int], remotes: Sequence[int],
               lengths: Sequence[int]) -> None:
        if not len(locals_) == len(remotes) == len(lengths):
            raise InvalidParams("locals, remotes and lengths must have the same length")
        for addr, length in zip(locals_, lengths):
            self._check_local(addr, length)
        engine = self._live()
        call = engine.batch_transfer_sync_read if kind == "read" else engine.batch_transfer_sync_write
        rc = call(peer, list(locals_), list(remotes), list(lengths))
        if rc != 0:
            raise TransferError(f"transfer engine {kind} from {peer} returned {rc}")

    def close(self) -> None:
        """Unregister everything and drop the engine."""
        if self._engine is None:
            return
        for addr in list(self._registered):
            self._engine.unregister_memory(addr)
        self._registered.clear()
        self._engine = None


class TeExport:
    """The node side of ``te``: the node's host arena registered once on the node's engine.

    ``arena`` is a contiguous CPU ``torch.uint8`` tensor or numpy array (any buffer
    :meth:`TransferEngineTransport.register` takes); the engine is the caller's and stays open
    after :meth:`close`.

    Raises at construction:
        InvalidParams: the arena is not a contiguous writable CPU buffer.
        TransferError: the engine refuses to register it.
        NotReady: the engine is closed.
    """

    kind = "te"

    def __init__(self, engine: TransferEngineTransport, arena: Any) -> None:
        _addr, size, _owner = _address_of(arena)
        self._engine = engine
        self._size = size
        self._base: int | None = engine.register(arena)
        self._desc: dict[str, Any] = {"kind": self.kind, "session": engine.session_id,
                                      "base": self._base, "size": size,
                                      "protocol": engine.config.protocol}

    def describe(self) -> dict[str, Any]:
        """``kind``, ``session`` (the engine's segment name), ``base`` (the arena's registered
        address), ``size`` (bytes) and ``protocol`` ("tcp" or "rdma")."""
        return dict(self._desc)

    def close(self) -> None:
        """Unregister the arena (once; a no-op when the engine was closed first)."""
        base, self._base = self._base, None
        if base is not None and self._engine.is_registered(base, self._size):
            self._engine.unregister(base)


class TePeer:
    """The client side of ``te``: one node's arena, written and read one-sided by this process's
    engine (``tcp`` here; ``rdma`` is the same code once the engine was given a device name).

    The engine moves bytes only between registered memory. A view that lies inside a buffer the
    caller registered on ``engine`` is transferred from/to directly; any other view is copied
    through the peer's own registered staging buffer (``staging_bytes``), in as many batches as
    its size needs. A read-only view (``bytes``) may be written from, through its address when it
    is registered and through staging otherwise; reading into one raises InvalidParams.
    Calls are serialized (they share the staging buffer). The engine stays the caller's:
    :meth:`close` unregisters only the staging buffer.

    ``bytes_direct`` and ``bytes_staged`` count what moved each way, for telemetry and tests.

    Raises at construction:
        InvalidParams: ``staging_bytes`` is not positive.
        TransferError: the engine refuses to register the staging buffer.
    """

    kind = "te"

    def __init__(self, engine: TransferEngineTransport, *, session: str, base: int, size: int,
                 staging_bytes: int = DEFAULT_STAGING_BYTES) -> None:
        if staging_bytes <= 0:
            raise InvalidParams(f"staging_bytes: must be positive, got {staging_bytes}")
        self.session, self.base, self.size = session, base, size
        self._engine = engine
        self._staging = np.empty(staging_bytes, dtype=np.uint8)
        self._stage: memoryview = self._staging.data
        self._staging_addr: int | None = engine.register(self._staging)
        self._lock = threading.Lock()
        self.bytes_direct = 0
        self.bytes_staged = 0

    def write(self, offsets: Sequence[int], views: Sequence[memoryview]) -> None:
        """Copy each ``views[i]`` to arena offset ``offsets[i]``.

        Raises:
            InvalidParams: lengths differ, or a view is not C-contiguous.
            TransferError: a range lies outside the arena, the peer is closed, or the engine
                fails.
        """
        self._transfer("write", offsets, views)

    def read(self, offsets: Sequence[int], views: Sequence[memoryview]) -> None:
        """Fill each ``views[i]`` from arena offset ``offsets[i]`` (errors as :meth:`write`, and
        InvalidParams for a read-only view)."""
        self._transfer("read", offsets, views)

    def close(self) -> None:
        """Unregister the staging buffer (once; a no-op when the engine was closed first)."""
        with self._lock:
            addr, self._staging_addr = self._staging_addr, None
            if addr is not None and self._engine.is_registered(addr, self._staging.nbytes):
                self._engine.unregister(addr)

    def _flatten(self, kind: str, offsets: Sequence[int],
                 views: Sequence[memoryview]) -> list[tuple[int, memoryview]]:
        if len(offsets) != len(views):
            raise InvalidParams("offsets and views must have the same length")
        out = []
        for i, (off, view) in enumerate(zip(offsets, views)):
            if not view.c_contiguous:
                raise InvalidParams(f"views[{i}]: must be C-contiguous")
            if kind == "read" and view.readonly:
                raise InvalidParams(f"views[{i}]: read-only, cannot be read into")
            if off < 0 or off + view.nbytes > self.size:
                raise TransferError(f"te segment {self.session}: range {off}+{view.nbytes} is "
                                    f"outside the {self.size}-byte arena")
            if view.nbytes:
                out.append((off, view.cast("B") if view.format != "B" or view.ndim != 1
                            else view))
        return out

    def _transfer(self, kind: str, offsets: Sequence[int], views: Sequence[memoryview]) -> None:
        flat = self._flatten(kind, offsets, views)
        with self._lock:
            if self._staging_addr is None:
                raise TransferError(f"te segment {self.session}: closed")
            direct: list[tuple[int, int, int]] = []
            staged: list[tuple[int, memoryview]] = []
            for off, view in flat:
                addr = view_address(view)
                if self._engine.is_registered(addr, view.nbytes):
                    direct.append((addr, self.base + off, view.nbytes))
                else:
                    staged.append((off, view))
            self._submit(kind, direct)
            self.bytes_direct += sum(n for _a, _r, n in direct)
            self._through_staging(kind, staged)

    def _through_staging(self, kind: str, staged: list[tuple[int, memoryview]]) -> None:
        cap = self._staging.nbytes
        batch: list[tuple[int, int, memoryview]] = []  # (staging offset, arena offset, view part)
        used = 0
        for off, view in staged:
            done = 0
            while done < view.nbytes:
                if used == cap or len(batch) == MAX_BATCH_ENTRIES:
                    self._flush(kind, batch)
                    batch, used = [], 0
                n = min(view.nbytes - done, cap - used)
                part = view[done:done + n]
                if kind == "write":
                    self._stage[used:used + n] = part
                batch.append((used, off + done, part))
                used += n
                done += n
        if batch:
            self._flush(kind, batch)

    def _flush(self, kind: str, batch: list[tuple[int, int, memoryview]]) -> None:
        assert self._staging_addr is not None  # checked under the lock by _transfer
        base = self._staging_addr
        self._submit(kind, [(base + s, self.base + r, p.nbytes) for s, r, p in batch])
        if kind == "read":
            for s, _r, part in batch:
                part[:] = self._stage[s:s + part.nbytes]
        self.bytes_staged += sum(p.nbytes for _s, _r, p in batch)

    def _submit(self, kind: str, entries: list[tuple[int, int, int]]) -> None:
        call = self._engine.batch_read if kind == "read" else self._engine.batch_write
        for i in range(0, len(entries), MAX_BATCH_ENTRIES):
            chunk = entries[i:i + MAX_BATCH_ENTRIES]
            try:
                call(self.session, [e[0] for e in chunk], [e[1] for e in chunk],
                     [e[2] for e in chunk])
            except TransferError as exc:
                raise TransferError(f"te segment {self.session}: {exc}") from exc
            except (NotReady, RuntimeError, OSError) as exc:
                raise TransferError(f"te segment {self.session}: {kind} failed: {exc}") from exc


def attach_te(desc: dict[str, Any], engine: TransferEngineTransport, *,
              staging_bytes: int = DEFAULT_STAGING_BYTES) -> TePeer | None:
    """A :class:`TePeer` on the node's arena that ``desc`` (a ``TeExport.describe()``)
    describes, or None (the reason logged) when the description is unusable or names another
    protocol than ``engine``'s. Nothing is sent to the node: an unreachable session shows as
    TransferError on the first transfer.

    Raises:
        InvalidParams: ``staging_bytes`` is not positive.
        TransferError: the engine refuses to register the staging buffer.
    """
    fields = {"kind": str, "session": str, "base": int, "size": int, "protocol": str}
    for name, typ in fields.items():
        value = desc.get(name) if isinstance(desc, dict) else None
        if not isinstance(value, typ) or isinstance(value, bool):
            logger.info("te segment description unusable (%s: expected %s, got %r); using TCP",
                        name, typ.__name__, value)
            return None
    if desc["kind"] != TeExport.kind or not desc["session"] or desc["base"] <= 0 \
            or desc["size"] <= 0:
        logger.info("te segment description unusable (%r); using TCP", desc)
        return None
    if desc["protocol"] != engine.config.protocol:
        logger.info("te segment of %s speaks %s, this engine %s; using TCP", desc["session"],
                    desc["protocol"], engine.config.protocol)
        return None
    return TePeer(engine, session=desc["session"], base=desc["base"], size=desc["size"],
                  staging_bytes=staging_bytes)
