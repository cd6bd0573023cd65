"""A facade with the shape of Mooncake's ``mooncake.store.MooncakeDistributedStore``.

Same method names, arguments and integer results as Mooncake 0.3.13, so a script written for
Mooncake runs unchanged against the reference store::

    from reference_store.compat.mooncake import MooncakeDistributedStore
    store = MooncakeDistributedStore()
    store.setup("127.0.0.1", "http://127.0.0.1:8080/metadata", 512 << 20, 16 << 20, "tcp", "",
                "127.0.0.1:50051")
    store.put("key", b"value")

Differences, on purpose:

* ``protocol="tcp"`` uses the reference store's own transports (shared memory with nodes on
  this machine, TCP frames otherwise; ``metadata_server`` is then unused). ``protocol="rdma"``
  starts Mooncake Transfer Engines with ``metadata_server`` and ``rdma_devices``: the local
  segment offers its arena through one, and every transfer goes through the client's
  (``data_path="te"``; nodes without a ``te`` segment then fail with TransferError).
* ``global_segment_size > 0`` starts a storage node inside this process that contributes that
  much memory, like a Mooncake client with a segment; 0 makes a pure client.
* The tenant token comes from ``setup(..., token=...)`` or the ``REFERENCE_STORE_TOKEN``
  environment variable (Mooncake has no tokens).
* Calls before ``setup`` or after ``close`` return ``NotReady.code`` (-950) instead of crashing.
* ``is_exist`` takes no lease.
"""

from __future__ import annotations

import ctypes
import json
import logging
import os
import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import torch
from pydantic import SecretStr

from reference_store.client import PIN_HARD, PIN_NONE, PIN_SOFT, StoreClient
from reference_store.errors import (
    InvalidParams,
    NotReady,
    StoreError,
)
from reference_store.node import Node, NodeConfig

__all__ = ["TOKEN_ENV", "MooncakeDistributedStore", "ReplicateConfig"]

if TYPE_CHECKING:
    from reference_store.transport.transfer_engine import EngineConfig

logger = logging.getLogger(__name__)

TOKEN_ENV = "REFERENCE_STORE_TOKEN"
#: The cluster key a contributed segment proves to a master that has one (Mooncake's ``setup``
#: has no argument for it; ``setup(..., cluster_key=...)`` is the explicit form).
CLUSTER_KEY_ENV = "REFERENCE_STORE_CLUSTER_KEY"
_TENSOR_MAGIC = b"RSTN"
_NODE_READY_S = 30.0


class ReplicateConfig:
    """Mooncake's per-put options that the reference store honours."""

    def __init__(self) -> None:
        self.replica_num = 1
        self.with_hard_pin = False
        self.with_soft_pin = False

    @property
    def pin(self) -> int:
        return PIN_HARD if self.with_hard_pin else PIN_SOFT if self.with_soft_pin else PIN_NONE


def _view(ptr: int, size: int) -> memoryview:
    if size < 0 or (size and not ptr):
        raise InvalidParams(f"bad buffer: pointer {ptr:#x}, size {size}")
    if size == 0:
        return memoryview(bytearray(0))
    return memoryview((ctypes.c_ubyte * size).from_address(ptr)).cast("B")


class MooncakeDistributedStore:
    """Mooncake's client API over a reference-store cluster. Methods return Mooncake's codes."""

    def __init__(self) -> None:
        self._client: StoreClient | None = None
        self._node: Node | None = None
        self._buffers: dict[int, int] = {}

    # ---------------------------------------------------------------- lifecycle

    def setup(self, local_hostname: str | dict[str, Any], metadata_server: str = "",
              global_segment_size: int = 16 << 20, local_buffer_size: int = 16 << 20,
              protocol: str = "tcp", rdma_devices: str = "",
              master_server_addr: str = "127.0.0.1:50051", engine: object = None,
              enable_ssd_offload: bool = False, ssd_offload_path: str = "",
              tenant_id: str = "default", enable_client_http_server: bool = False,
              client_http_port: int = 9300, *, token: str | None = None,
              cluster_key: str | None = None) -> int:
        """Connect to the master (and contribute a segment); 0 on success, else a negative code.

        ``token`` (else ``$REFERENCE_STORE_TOKEN``) is the tenant's token; ``cluster_key`` (else
        ``$REFERENCE_STORE_CLUSTER_KEY``) is the secret the contributed segment proves to a master
        started with a cluster key, as every storage node does.
        """
        if isinstance(local_hostname, dict):
            cfg = dict(local_hostname)
            return self.setup(
                str(cfg.get("local_hostname", "127.0.0.1")), str(cfg.get("metadata_server", "")),
                int(cfg.get("global_segment_size", 16 << 20)),
                int(cfg.get("local_buffer_size", 16 << 20)), str(cfg.get("protocol", "tcp")),
                str(cfg.get("rdma_devices", "")),
                str(cfg.get("master_server_addr", cfg.get("master_server_address", ""))),
                tenant_id=str(cfg.get("tenant_id", "default")), token=cfg.get("token"),
                cluster_key=cfg.get("cluster_key"))
        if self._client is not None:
            return InvalidParams.code
        try:
            engine = _engine_config(local_hostname, metadata_server, protocol, rdma_devices)
            if global_segment_size > 0:  # the segment first: the client's engine is a peer
                self._start_segment(local_hostname, master_server_addr, global_segment_size,
                                    engine, cluster_key or os.environ.get(CLUSTER_KEY_ENV))
            self._client = StoreClient(
                master_server_addr, tenant=tenant_id, token=token or os.environ.get(TOKEN_ENV),
                data_path="te" if engine is not None else "auto",
                transfer_engine=_client_engine(engine))
        except StoreError as exc:
            logger.warning("setup failed: %s", exc)
            self.close()
            return exc.code
        return 0

    def _start_segment(self, hostname: str, master: str, size: int,
                       engine: EngineConfig | None, cluster_key: str | None) -> None:
        host = hostname.rsplit(":", 1)[0] if hostname.count(":") == 1 else hostname
        self._node = Node(NodeConfig(master=master, memory_bytes=size, host=host or "127.0.0.1",
                                     transfer_engine=engine,
                                     cluster_key=SecretStr(cluster_key) if cluster_key else None))
        self._node.serve()
        if not self._node.registered.wait(_NODE_READY_S):
            raise NotReady(f"the local segment did not register with {master}")

    def close(self) -> int:
        """Disconnect and withdraw the local segment (its objects become misses). Returns 0."""
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._node is not None:
            self._node.stop()
            self._node = None
        return 0

    def health_check(self) -> int:
        """0 healthy, 1 not set up or closed, 2 master unreachable."""
        if self._client is None:
            return 1
        try:
            return 0 if self._client.ping() else 2
        except StoreError:
            return 2

    def _c(self) -> StoreClient:
        if self._client is None:
            raise NotReady("call setup() first")
        return self._client

    # ---------------------------------------------------------------- puts

    def put(self, key: str, value: Any, config: ReplicateConfig | None = None) -> int:
        return self._put([key], [value], config, upsert=False)[0]

    def upsert(self, key: str, value: Any, config: ReplicateConfig | None = None) -> int:
        return self._put([key], [value], config, upsert=True)[0]

    def put_from(self, key: str, buffer_ptr: int, size: int,
                 config: ReplicateConfig | None = None) -> int:
        return self.batch_put_from([key], [buffer_ptr], [size], config)[0]

    def upsert_from(self, key: str, buffer_ptr: int, size: int,
                    config: ReplicateConfig | None = None) -> int:
        try:
            view = _view(buffer_ptr, size)
        except StoreError as exc:
            return exc.code
        return self._put([key], [view], config, upsert=True)[0]

    def batch_put_from(self, keys: Sequence[str], buffer_ptrs: Sequence[int],
                       sizes: Sequence[int], config: ReplicateConfig | None = None) -> list[int]:
        if not len(keys) == len(buffer_ptrs) == len(sizes):
            return [InvalidParams.code] * len(keys)
        try:
            views = [_view(p, s) for p, s in zip(buffer_ptrs, sizes)]
        except StoreError as exc:
            return [exc.code] * len(keys)
        return self._put(list(keys), views, config, upsert=False)

    def _put(self, keys: list[str], values: list[Any], config: ReplicateConfig | None,
             *, upsert: bool) -> list[int]:
        cfg = config or ReplicateConfig()
        try:
            errors = self._c().batch_put(keys, values, upsert=upsert, pin=cfg.pin,
                                         replicas=max(1, int(cfg.replica_num)))
        except StoreError as exc:
            return [exc.code] * len(keys)
        return [0 if e is None else e.code for e in errors]

    def put_tensor(self, key: str, tensor: torch.Tensor) -> int:
        """Store a CPU tensor with its dtype and shape; 0 or a negative code."""
        try:
            t = tensor.detach().contiguous().cpu()
            header = json.dumps({"dtype": str(t.dtype).removeprefix("torch."),
                                 "shape": list(t.shape)}).encode()
            raw = t.reshape(-1).view(torch.uint8).numpy() if t.numel() else b""
            blob = _TENSOR_MAGIC + struct.pack("!I", len(header)) + header + bytes(raw)
        except (RuntimeError, TypeError, ValueError) as exc:
            logger.warning("put_tensor(%r): %s", key, exc)
            return InvalidParams.code
        return self.put(key, blob)

    # ---------------------------------------------------------------- gets

    def get(self, key: str) -> bytes:
        """The value, or ``b''`` when missing or on any error (Mooncake's behaviour)."""
        try:
            return self._c().get(key)
        except StoreError:
            return b""

    def get_into(self, key: str, buffer_ptr: int, size: int) -> int:
        return self.batch_get_into([key], [buffer_ptr], [size])[0]

    def batch_get_into(self, keys: Sequence[str], buffer_ptrs: Sequence[int],
                       sizes: Sequence[int]) -> list[int]:
        if not len(keys) == len(buffer_ptrs) == len(sizes):
            return [InvalidParams.code] * len(keys)
        try:
            views = [_view(p, s) for p, s in zip(buffer_ptrs, sizes)]
            results = self._c().batch_get_into(list(keys), views)
        except StoreError as exc:
            return [exc.code] * len(keys)
        return [r.code if isinstance(r, StoreError) else r for r in results]

    def get_tensor(self, key: str) -> torch.Tensor | None:
        """The tensor stored by :meth:`put_tensor`, or None."""
        blob = self.get(key)
        if len(blob) < 8 or blob[:4] != _TENSOR_MAGIC:
            return None
        (hlen,) = struct.unpack("!I", blob[4:8])
        try:
            header = json.loads(blob[8:8 + hlen])
            dtype = getattr(torch, header["dtype"])
            data = bytearray(blob[8 + hlen:])
            flat = torch.frombuffer(data, dtype=dtype) if data else torch.empty(0, dtype=dtype)
            return flat.reshape(header["shape"])
        except (ValueError, KeyError, AttributeError, RuntimeError):
            return None

    # ---------------------------------------------------------------- metadata

    def is_exist(self, key: str) -> int:
        return self.batch_is_exist([key])[0]

    def batch_is_exist(self, keys: Sequence[str]) -> list[int]:
        try:
            return [int(x) for x in self._c().batch_exists(list(keys))]
        except StoreError:
            return [-1] * len(keys)

    def get_size(self, key: str) -> int:
        try:
            return self._c().size_of(key)
        except StoreError as exc:
            return exc.code

    def remove(self, key: str, force: bool = False) -> int:
        return self.batch_remove([key], force)[0]

    def batch_remove(self, keys: Sequence[str], force: bool = False) -> list[int]:
        try:
            return [0 if e is None else e.code
                    for e in self._c().batch_remove(list(keys), force=force)]
        except StoreError as exc:
            return [exc.code] * len(keys)

    def remove_all(self, force: bool = False) -> int:
        """Number of objects removed, or a negative code."""
        try:
            return self._c().remove_all(force=force)
        except StoreError as exc:
            return exc.code

    def register_buffer(self, buffer_ptr: int, size: int) -> int:
        """Record a buffer, and register it with the Transfer Engine when ``setup`` started one
        (``protocol="rdma"``: transfers from and into it skip the staging copy); 0, or a
        negative code (-600 for a bad buffer)."""
        if not buffer_ptr or size <= 0:
            return InvalidParams.code
        if self._client is not None:
            try:
                self._client.register_range(buffer_ptr, size)
            except StoreError as exc:
                return exc.code
        self._buffers[buffer_ptr] = size
        return 0

    def unregister_buffer(self, buffer_ptr: int) -> int:
        """0, or -600 when the buffer was not registered (as Mooncake)."""
        if self._buffers.pop(buffer_ptr, None) is None:
            return InvalidParams.code
        if self._client is not None:
            self._client.unregister_range(buffer_ptr)
        return 0


def _engine_config(hostname: str, metadata_server: str, protocol: str,
                   devices: str) -> EngineConfig | None:
    """The Transfer Engine ``setup`` asks for: ``protocol="rdma"`` moves bytes through Mooncake's
    engine (the local segment offers its arena over it, the client reads and writes it); "tcp"
    keeps the reference store's own transports (shared memory on one host, else TCP frames).

    Raises: InvalidParams (unknown protocol, or rdma without a metadata server or device)."""
    if protocol == "tcp":
        return None
    if protocol != "rdma":
        raise InvalidParams(f"protocol: expected 'tcp' or 'rdma', got {protocol!r}")
    if not metadata_server:
        raise InvalidParams("metadata_server: required with protocol 'rdma' "
                            "(e.g. http://HOST:8080/metadata)")
    from reference_store.transport.transfer_engine import EngineConfig

    host = hostname.rsplit(":", 1)[0] if hostname.count(":") == 1 else hostname
    return EngineConfig(local_hostname=host, metadata_server=metadata_server, protocol="rdma",
                        device_name=devices)


def _client_engine(segment: EngineConfig | None) -> EngineConfig | None:
    """The client's own engine: a second endpoint beside the segment's, on a port of its own."""
    if segment is None:
        return None
    import socket
    from dataclasses import replace

    try:
        with socket.socket() as probe:  # Mooncake names an endpoint "host:port"
            probe.bind((segment.local_hostname, 0))
            port = probe.getsockname()[1]
    except OSError as exc:
        raise InvalidParams(f"local_hostname: cannot bind {segment.local_hostname!r}: "
                            f"{exc}") from exc
    return replace(segment, local_hostname=f"{segment.local_hostname}:{port}")
