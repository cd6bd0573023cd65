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
This transport is not yet wired into the node data path (which uses ``transport.tcp``).
"""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from reference_store.errors import InvalidParams, NotReady, TransferError

__all__ = ["EngineConfig", "TransferEngineTransport", "engine_available"]

logger = logging.getLogger(__name__)


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
        rc = self._live().register_memory(addr, length)
        if rc != 0:
            raise TransferError(f"register_memory({length} bytes) returned {rc}")
        self._registered[addr] = (length, owner)
        return addr

    def unregister(self, address: int) -> None:
        """Forget a registered buffer. Raises: InvalidParams when it was not registered."""
        if self._registered.pop(address, None) is None:
            raise InvalidParams(f"buffer {address:#x} is not registered")
        self._live().unregister_memory(address)

    def _check_local(self, address: int, length: int) -> None:
        for base, (size, _owner) in self._registered.items():
            if base <= address and address + length <= base + size:
                return
        raise InvalidParams(f"local range {address:#x}+{length} is not inside a registered buffer")

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
