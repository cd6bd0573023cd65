"""One-sided data paths: a client writes and reads a node's arena (its *segment*) directly.

This is Mooncake's model. A storage node registers its memory once; to put, the client asks the
node for room (``NODE_RESERVE`` answers arena offsets), writes the bytes there itself, and asks
the node to ``NODE_COMMIT``; to get, it asks the node to ``NODE_PIN`` the objects (offsets,
protected from eviction and removal), reads them, and ``NODE_UNPIN``s. Only those small control
frames go over the node's TCP connection; the bytes move by whichever segment transport both
sides have:

``shm``
    The node's host arena lives in a ``memfd``; a client on the SAME machine maps it (through
    ``/proc/<pid>/fd/<fd>``, checked against the node's boot id and the file's inode) and the
    transfer is one ``memcpy``. A process that may open that path runs as the node's OS user and
    could read the node's memory anyway, so this exposes nothing new; it is still the whole
    arena (every tenant's bytes), so a client that must not be trusted with that belongs on
    another machine or on ``data_path="tcp"``.
``te``
    Mooncake's Transfer Engine (:mod:`reference_store.transport.transfer_engine`): the node
    registers its arena with an engine, the client's engine writes and reads it one-sided,
    over ``rdma`` where there is a NIC, or the engine's ``tcp`` protocol.

A node describes what it offers in answer to ``NODE_SEGMENTS``: a list of dicts, each with a
``"kind"``. A client picks the first kind it can attach (:func:`attach_shm`, or the Transfer
Engine's ``attach``), and otherwise streams bytes in ``NODE_WRITE``/``NODE_READ`` frames.
"""

from __future__ import annotations

import logging
import mmap
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import numpy as np

from reference_store.errors import InvalidParams, TransferError

__all__ = [
    "PARALLEL_COPY_BYTES",
    "PARALLEL_PIECE_BYTES",
    "POPULATE_MAX_BYTES",
    "SegmentExport",
    "SegmentPeer",
    "ShmExport",
    "ShmPeer",
    "attach_shm",
    "boot_id",
    "copy_pairs",
]

logger = logging.getLogger(__name__)

#: A transfer of at least this many bytes, in pieces of :data:`PARALLEL_PIECE_BYTES` or more on
#: average, is copied by two threads (numpy's copy releases the GIL): one core's memcpy tops out
#: near 5 GB/s on the development machine, two reach ~8. Many smaller pieces mean the node is
#: busy with as many reservations or pins, and on two cores a second copy thread then slows the
#: whole transfer (256 KiB objects: put 2.3 GB/s serial against 1.9-2.1 with two threads).
PARALLEL_COPY_BYTES = 2 << 20
PARALLEL_PIECE_BYTES = 1 << 20
#: An ``shm`` arena up to this size is mapped with all its pages up front.
POPULATE_MAX_BYTES = 1 << 30
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


_CPUS = os.cpu_count() or 1


def _helper() -> ThreadPoolExecutor | None:
    """One shared copy thread, or None on a single-CPU machine."""
    global _pool
    if _CPUS < 2:
        return None
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(1, thread_name_prefix="segment-copy")
        return _pool


def _copy(pairs: Sequence[tuple[memoryview, memoryview]]) -> None:
    for dst, src in pairs:
        np.copyto(np.frombuffer(dst, np.uint8), np.frombuffer(src, np.uint8))


def copy_pairs(pairs: Sequence[tuple[memoryview, memoryview]]) -> None:
    """Copy each ``(dst, src)`` pair of equal-length byte views: one memcpy per pair on this
    thread, or, for large transfers of large pieces (see :data:`PARALLEL_COPY_BYTES`), the bytes
    cut in two halves (splitting a pair where needed) with a helper thread copying the first."""
    total = sum(dst.nbytes for dst, _src in pairs)
    large = total >= PARALLEL_COPY_BYTES and total >= PARALLEL_PIECE_BYTES * len(pairs)
    pool = _helper() if large else None
    if pool is None:
        for dst, src in pairs:
            dst[:] = src
        return
    first: list[tuple[memoryview, memoryview]] = []
    rest = list(pairs)
    room = total // 2
    while rest and room > 0:
        dst, src = rest.pop(0)
        if dst.nbytes <= room:
            first.append((dst, src))
            room -= dst.nbytes
        else:
            first.append((dst[:room], src[:room]))
            rest.insert(0, (dst[room:], src[room:]))
            room = 0
    done = pool.submit(_copy, first)
    try:
        _copy(rest)
    finally:
        done.result()


class SegmentExport(Protocol):
    """A node's arena offered over one transport (node side)."""

    kind: str

    def describe(self) -> dict[str, Any]:
        """JSON-able facts a client needs to attach (always includes ``"kind"``)."""
        ...

    def close(self) -> None:
        """Stop offering the arena."""
        ...


class SegmentPeer(Protocol):
    """A client's handle on one node's arena (client side).

    ``offsets[i]`` is where ``views[i]`` goes (write) or comes from (read) in the arena, as
    ``NODE_RESERVE``/``NODE_PIN`` answered. Raises TransferError when the transfer fails.
    """

    kind: str

    def write(self, offsets: Sequence[int], views: Sequence[memoryview]) -> None: ...

    def read(self, offsets: Sequence[int], views: Sequence[memoryview]) -> None: ...

    def close(self) -> None: ...


def boot_id() -> str:
    """This machine's boot id (Linux): equal ids mean the same running kernel, one host."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            return f.read().strip()
    except OSError:
        return ""


class ShmExport:
    """The node side of ``shm``: describes the arena's memfd (created by the host tier)."""

    kind = "shm"

    def __init__(self, fd: int, size: int) -> None:
        st = os.fstat(fd)
        self._desc = {"kind": self.kind, "boot_id": boot_id(), "pid": os.getpid(), "fd": fd,
                      "ino": st.st_ino, "dev": st.st_dev, "size": size}

    def describe(self) -> dict[str, Any]:
        return dict(self._desc)

    def close(self) -> None:
        """The memfd belongs to the tier; nothing to release here."""


class ShmPeer:
    """The client side of ``shm``: the node's arena mapped into this process."""

    kind = "shm"

    def __init__(self, mapping: mmap.mmap, size: int) -> None:
        self._map: mmap.mmap | None = mapping
        self._view: memoryview | None = memoryview(mapping)
        self.size = size

    def _arena(self) -> memoryview:
        if self._view is None:
            raise TransferError("shm segment: closed")
        return self._view

    def _check(self, offsets: Sequence[int], views: Sequence[memoryview]) -> None:
        if len(offsets) != len(views):
            raise InvalidParams("offsets and views must have the same length")
        for off, view in zip(offsets, views):
            if off < 0 or off + view.nbytes > self.size:
                raise TransferError(f"shm segment: range {off}+{view.nbytes} is outside the "
                                    f"{self.size}-byte arena")

    def write(self, offsets: Sequence[int], views: Sequence[memoryview]) -> None:
        self._check(offsets, views)
        arena = self._arena()
        copy_pairs([(arena[off:off + v.nbytes], v) for off, v in zip(offsets, views)])

    def read(self, offsets: Sequence[int], views: Sequence[memoryview]) -> None:
        self._check(offsets, views)
        arena = self._arena()
        copy_pairs([(v, arena[off:off + v.nbytes]) for off, v in zip(offsets, views)])

    def close(self) -> None:
        view, self._view = self._view, None
        if view is not None:
            view.release()
        mapping, self._map = self._map, None
        if mapping is not None:
            try:
                mapping.close()
            except BufferError:  # a caller still holds a slice; the GC unmaps it later
                pass


def attach_shm(desc: dict[str, Any]) -> ShmPeer | None:
    """Map a node's ``shm`` segment, or None (with the reason logged) when this process cannot:
    another host, another pid namespace, no permission, or the file is not the one described."""
    try:
        pid, fd, size = int(desc["pid"]), int(desc["fd"]), int(desc["size"])
        ino, dev, boot = int(desc["ino"]), int(desc["dev"]), str(desc["boot_id"])
    except (KeyError, TypeError, ValueError) as exc:
        logger.info("shm segment description unusable (%s); using TCP", exc)
        return None
    if not boot or boot != boot_id():
        logger.info("shm segment of pid %d is on another host; using TCP", pid)
        return None
    path = f"/proc/{pid}/fd/{fd}"
    try:
        handle = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError as exc:
        logger.info("cannot open %s (%s); using TCP", path, exc)
        return None
    try:
        st = os.fstat(handle)
        if (st.st_ino, st.st_dev) != (ino, dev) or st.st_size < size or size <= 0:
            logger.info("%s is not the node's arena (another process or namespace); using TCP",
                        path)
            return None
        # a small arena is mapped page by page up front (no faults on first use, as the node
        # prefaults it); a large one fills its page tables as it is used (populating 64 GiB
        # would cost 128 MiB of page tables in every client at once)
        populate = getattr(mmap, "MAP_POPULATE", 0) if size <= POPULATE_MAX_BYTES else 0
        flags = mmap.MAP_SHARED | populate
        return ShmPeer(mmap.mmap(handle, size, flags=flags), size)
    except OSError as exc:
        logger.info("cannot map %s (%s); using TCP", path, exc)
        return None
    finally:
        os.close(handle)
