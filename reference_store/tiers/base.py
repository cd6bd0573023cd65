"""The tier interface and the byte views every tier copies through.

A tier stores whole objects under string keys and never evicts on its own: when it has no room
it raises :class:`StoreFull`, and the tiered store decides what to evict or demote. Callers'
buffers are turned into byte views once, at the boundary:

* a CPU object (bytes, bytearray, memoryview, numpy array, CPU tensor) becomes a flat
  ``memoryview`` of format ``B`` over the same memory (no copy);
* a CUDA tensor becomes a flat ``torch.uint8`` view of the same memory (no copy).
"""

from __future__ import annotations

import abc
import ctypes
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from reference_store.errors import InvalidParams

__all__ = ["Buffer", "ByteView", "Tier", "TierStats", "as_tensor", "borrowed_view", "byte_view", "view_nbytes"]

Buffer = bytes | bytearray | memoryview | np.ndarray | torch.Tensor
ByteView = memoryview | torch.Tensor


def _tensor_view(value: torch.Tensor, field: str) -> ByteView:
    tensor = value.detach()
    if tensor.layout is not torch.strided:
        raise InvalidParams(f"{field}: tensor must be dense, got layout {tensor.layout} (call .to_dense())")
    if not tensor.is_contiguous():
        raise InvalidParams(f"{field}: tensor must be contiguous (call .contiguous() first)")
    try:
        flat = tensor.reshape(-1).view(torch.uint8) if tensor.numel() else torch.empty(0, dtype=torch.uint8)
    except RuntimeError as exc:  # conjugate/negative views cannot be read as raw bytes
        raise InvalidParams(f"{field}: tensor cannot be viewed as bytes ({exc})") from exc
    if flat.device.type == "cpu":
        return flat.numpy().data
    return flat


# Exceptions numpy/memoryview raise for buffers the fast path does not handle (bfloat16 and
# other dtypes numpy lacks, tensors needing grad or with the conjugate bit, odd formats).
_FAST_PATH_MISSES = (TypeError, RuntimeError, ValueError, NotImplementedError)


def _fast_cpu_view(value: Any) -> memoryview | None:
    """The flat byte view of a plain CPU buffer (tensor, ndarray, bytes-like) in a few cheap calls.

    ``Tensor.numpy()`` costs about a microsecond where the general path (detach, reshape, dtype
    view, numpy) costs ten, which decides the speed of 16-64 KiB reads. None means "not a
    case this path knows": the caller takes the general path, which also owns the errors.
    """
    cls = type(value)
    try:
        if cls is torch.Tensor:
            if not value.is_cpu or value.requires_grad:
                return None
            view = value.numpy().data
        elif cls is np.ndarray:
            view = value.data
        elif cls is memoryview:
            view = value
        elif cls is bytearray or cls is bytes:
            view = memoryview(value)
        else:
            return None
        if not view.c_contiguous:
            return None
        return view if view.ndim == 1 and view.format == "B" else view.cast("B")
    except _FAST_PATH_MISSES:
        return None


# dtypes whose in-memory bytes are the values (no conjugate bit, no quantisation scale)
_RAW_DTYPES = frozenset({
    torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool,
    torch.float16, torch.bfloat16, torch.float32, torch.float64,
})
_UBYTE = ctypes.c_ubyte
_ARRAY_TYPES: dict[int, type[ctypes.Array[ctypes.c_ubyte]]] = {}  # nbytes -> c_ubyte * nbytes
_ARRAY_TYPES_MAX = 256
_U8 = np.dtype(np.uint8)


def _borrowed_tensor_view(value: torch.Tensor) -> memoryview | None:
    # A tensor that needs grad is read and written like its detach() (same memory), as the
    # general path does; sparse tensors report non-contiguous and take the general path.
    if (value.dtype not in _RAW_DTYPES or not value.is_cpu or not value.is_contiguous()
            or value.is_neg()):
        return None
    nbytes = value.nbytes
    if not nbytes:
        return None
    array_type = _ARRAY_TYPES.get(nbytes)
    if array_type is None:
        if len(_ARRAY_TYPES) >= _ARRAY_TYPES_MAX:  # KV blocks come in a few sizes; stay bounded
            _ARRAY_TYPES.clear()
        array_type = _ARRAY_TYPES[nbytes] = _UBYTE * nbytes
    return memoryview(array_type.from_address(value.data_ptr())).cast("B")


def borrowed_view(value: Any, *, writable: bool = False, field: str = "value") -> ByteView:
    """:func:`byte_view`, faster for CPU tensors, valid only while the caller holds ``value``.

    For a plain contiguous CPU tensor the view is built from its address (a few hundred
    nanoseconds instead of ``Tensor.numpy()``'s microsecond) and does NOT keep the tensor
    alive: use it for the length of one call that holds a reference to ``value``, never store
    it. Everything else goes through :func:`byte_view`.

    Raises:
        InvalidParams: as :func:`byte_view`.
    """
    cls = type(value)
    if cls is np.ndarray and value.dtype is _U8 and value.flags.c_contiguous:
        view = value.data  # a flat byte buffer already, the usual staging area
        if view.ndim == 1 and not (writable and view.readonly):
            return view
    if cls is torch.Tensor:
        try:
            view = _borrowed_tensor_view(value)
        except _FAST_PATH_MISSES:
            view = None
    else:
        view = _fast_cpu_view(value)
    if view is None or (writable and view.readonly):
        return byte_view(value, writable=writable, field=field)  # the general path, and its errors
    return view


def byte_view(value: Any, *, writable: bool = False, field: str = "value") -> ByteView:
    """A flat byte view of ``value`` sharing its memory.

    Raises:
        InvalidParams: unsupported type, non-contiguous memory, or a read-only buffer where
            ``writable`` is required.
    """
    fast = _fast_cpu_view(value)
    if fast is not None:
        if writable and fast.readonly:
            raise InvalidParams(f"{field}: buffer is read-only")
        return fast
    if isinstance(value, torch.Tensor):
        view = _tensor_view(value, field)
    elif isinstance(value, np.ndarray):
        if not value.flags.c_contiguous:
            raise InvalidParams(f"{field}: numpy array must be C-contiguous")
        flat = value if value.ndim == 1 and value.dtype == np.uint8 else value.reshape(-1).view(np.uint8)
        view = flat.data
    elif isinstance(value, (bytes, bytearray, memoryview)):
        view = memoryview(value)
        if not view.c_contiguous:
            raise InvalidParams(f"{field}: buffer must be C-contiguous")
        view = view.cast("B") if (view.format != "B" or view.ndim != 1) else view
    else:
        raise InvalidParams(
            f"{field}: expected bytes, bytearray, memoryview, numpy array or torch tensor, "
            f"got {type(value).__name__}"
        )
    if writable and isinstance(view, memoryview) and view.readonly:
        raise InvalidParams(f"{field}: buffer is read-only")
    return view


def view_nbytes(view: ByteView) -> int:
    return view.nbytes if isinstance(view, memoryview) else int(view.numel())


def as_tensor(view: ByteView) -> torch.Tensor:
    """A uint8 tensor over the same memory as ``view`` (read-only views too)."""
    if isinstance(view, torch.Tensor):
        return view
    if view.nbytes == 0:
        return torch.empty(0, dtype=torch.uint8)
    with warnings.catch_warnings():  # torch warns on read-only buffers; we only read from them
        warnings.simplefilter("ignore", UserWarning)
        return torch.frombuffer(view, dtype=torch.uint8)


@dataclass(frozen=True, slots=True)
class TierStats:
    """``used_bytes`` is what the objects occupy of ``capacity_bytes`` (alignment or file
    headers included); ``payload_bytes`` is the sum of object sizes."""

    name: str
    capacity_bytes: int
    used_bytes: int
    payload_bytes: int
    objects: int
    fragmentation: float = 0.0


class Tier(abc.ABC):
    """One storage level. Not thread-safe: the store that owns it serialises calls."""

    name: str
    capacity: int

    @abc.abstractmethod
    def footprint(self, key: str, nbytes: int) -> int:
        """Bytes of capacity an object of ``nbytes`` under ``key`` would occupy."""

    @abc.abstractmethod
    def can_fit(self, key: str, nbytes: int) -> bool:
        """Whether :meth:`write` of that size would find room now."""

    @abc.abstractmethod
    def write(self, key: str, src: ByteView) -> None:
        """Store ``src`` under ``key``, replacing any previous value only once the new one is in.

        Raises:
            StoreFull: no room (the tier never evicts by itself).
        """

    @abc.abstractmethod
    def read_into(self, key: str, dest: ByteView) -> int:
        """Copy the object into ``dest`` (at least ``size_of(key)`` bytes); return its size.

        Raises:
            ObjectNotFound, BufferTooSmall, ChecksumMismatch (disk).
        """

    @abc.abstractmethod
    def read(self, key: str) -> bytes:
        """The object's bytes. Raises ObjectNotFound (and ChecksumMismatch on disk)."""

    def view(self, key: str) -> ByteView:
        """A read-only view of the object, valid until the next write or delete."""
        return memoryview(self.read(key))

    @abc.abstractmethod
    def delete(self, key: str) -> None:
        """Drop ``key``. Raises ObjectNotFound."""

    @abc.abstractmethod
    def size_of(self, key: str) -> int:
        """Object size in bytes. Raises ObjectNotFound."""

    @abc.abstractmethod
    def __contains__(self, key: object) -> bool: ...

    @abc.abstractmethod
    def keys(self) -> Iterator[str]: ...

    @abc.abstractmethod
    def stats(self) -> TierStats: ...

    def close(self) -> None:  # noqa: B027 - an optional hook, not abstract
        """Release resources; the tier is unusable afterwards."""
