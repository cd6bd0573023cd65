"""What reads and writes share about a batch: the caller's buffers, its frames, its errors.

A batch is addressed by index (``i``: the i-th key the caller passed); these helpers turn the
caller's values into byte views, cut a node's share of a batch into frames, and shape the one
error each item ends with, so that it names its key and keeps its class.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from reference_store.errors import InvalidParams, ProtocolError, RpcError, StoreError, TransferError

__all__ = ["chunks", "host_view", "naming", "raise_first", "split_small", "transient"]


def host_view(value: Any, *, writable: bool, field: str) -> memoryview:
    """A flat byte view of a bytes-like object, numpy array or CPU tensor, without a copy.

    Raises:
        InvalidParams: naming ``field``: not a buffer, not contiguous, on a device, or
            read-only where ``writable`` is asked.
    """
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


def chunks(idxs: list[int], sizes: list[int], cap: int) -> list[list[int]]:
    """``idxs`` cut, in order, into groups of at most ``cap`` bytes (an object larger than
    ``cap`` is a group of its own): one frame each, so that while a node copies one frame the
    next one is on its way."""
    out: list[list[int]] = [[]]
    total = 0
    for i, size in zip(idxs, sizes):
        if out[-1] and total + size > cap:
            out.append([])
            total = 0
        out[-1].append(i)
        total += size
    return [c for c in out if c]


def split_small(idxs: list[int], sizes: list[int], threshold: int) -> tuple[list[int], list[int]]:
    """``(under threshold, the rest)``: objects too small to gain from the one-sided path (one
    streamed frame does their whole put or get, where one-sided costs two extra round trips)."""
    small = [i for i, n in zip(idxs, sizes) if n < threshold]
    large = [i for i, n in zip(idxs, sizes) if n >= threshold]
    return small, large


def naming(error: StoreError, key: str) -> StoreError:
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


def transient(error: StoreError | None) -> bool:
    """A failure of the node or the network (worth placing the object elsewhere), not a
    refusal (a bad grant, say), which says nothing of the node's health."""
    return isinstance(error, (TransferError, RpcError)) and not isinstance(error, ProtocolError)


def raise_first(errors: Sequence[StoreError | None]) -> None:
    """Raise the first error of a batch, if any."""
    for err in errors:
        if err is not None:
            raise err
