"""Arena tiers: one preallocated byte tensor carved up by :class:`Allocator`.

:class:`HostTier` keeps the arena in DRAM (page-locked when CUDA is present, so copies to and
from the GPU can be DMA'd); :class:`reference_store.tiers.device.DeviceTier` keeps it on the
accelerator. Data moves with exactly one copy between the arena and the caller's buffer: a
``memoryview`` slice assignment (memcpy) when both sides are in CPU memory, ``Tensor.copy_``
when either side is on a GPU.
"""

from __future__ import annotations

import logging
import mmap
import os
from collections.abc import Iterator

import torch

from reference_store.errors import BufferTooSmall, InvalidParams, ObjectNotFound, StoreFull
from reference_store.tiers.allocator import DEFAULT_ALIGNMENT, Allocator
from reference_store.tiers.base import ByteView, Tier, TierStats, as_tensor, view_nbytes

__all__ = ["ArenaTier", "HostTier"]

logger = logging.getLogger(__name__)


class ArenaTier(Tier):
    """Objects in one contiguous ``torch.uint8`` arena on ``device``.

    ``used_bytes`` counts aligned extents (what the allocator really holds). With ``shared``
    a CPU arena lives in a ``memfd`` (:attr:`shared_fd`) that a co-located process may map:
    the ``shm`` segment of :mod:`reference_store.transport.segment`.
    """

    def __init__(
        self,
        capacity: int,
        *,
        name: str,
        device: torch.device | str = "cpu",
        pin_memory: bool = False,
        alignment: int = DEFAULT_ALIGNMENT,
        placement: str = "best_fit",
        shared: bool = False,
    ) -> None:
        self.name = name
        self._alloc = Allocator(capacity, alignment=alignment, placement=placement)
        self.capacity = self._alloc.capacity
        self.device = torch.device(device)
        self.shared_fd: int | None = None
        self._mapping: mmap.mmap | None = None
        if shared and self.device.type == "cpu" and self.capacity:
            self.arena = self._shared_arena(name)
        else:
            self.arena = torch.empty(self.capacity, dtype=torch.uint8, device=self.device,
                                     pin_memory=pin_memory and self.device.type == "cpu")
        self._mv: memoryview | None = self.arena.numpy().data if self.device.type == "cpu" else None
        self._index: dict[str, tuple[int, int]] = {}  # key -> (offset, size)
        self._payload = 0
        logger.debug("%s tier: %d bytes on %s (pinned=%s)", name, self.capacity, self.device,
                     self.arena.is_pinned() if self.device.type == "cpu" else False)

    def _shared_arena(self, name: str) -> torch.Tensor:
        fd = os.memfd_create(f"reference-store-{name}-arena", os.MFD_CLOEXEC)
        try:
            os.ftruncate(fd, self.capacity)
            self._mapping = mmap.mmap(fd, self.capacity)
        except OSError:
            os.close(fd)
            raise
        self.shared_fd = fd
        return torch.frombuffer(self._mapping, dtype=torch.uint8)

    def footprint(self, key: str, nbytes: int) -> int:
        return self._alloc.rounded(nbytes)

    # ----- lending arena memory (writes and reads in place, see reference_store.reservation) -

    @property
    def lendable(self) -> bool:
        """True when the arena is CPU memory that callers may write and read in place."""
        return self._mv is not None

    def claim(self, nbytes: int) -> tuple[int, memoryview] | None:
        """Room for ``nbytes`` not yet owned by any key: ``(offset, writable view)``, or None
        when no free extent fits or the arena is not :attr:`lendable`. Hand it back with
        :meth:`unclaim` or turn it into an object with :meth:`adopt`."""
        if self._mv is None:
            return None
        offset = self._alloc.allocate(nbytes)
        if offset is None:
            return None
        return offset, self._mv[offset:offset + nbytes]

    def unclaim(self, offset: int) -> None:
        """Give back room from :meth:`claim` that was never adopted."""
        self._alloc.free(offset)

    def adopt(self, key: str, offset: int, nbytes: int) -> None:
        """Make claimed room at ``offset`` the object ``key`` (which must not be in this tier).

        Raises:
            InvalidParams: ``key`` is already in this tier.
        """
        if key in self._index:
            raise InvalidParams(f"key: {key!r} is already in the {self.name} tier")
        self._index[key] = (offset, nbytes)
        self._payload += nbytes

    def can_fit(self, key: str, nbytes: int) -> bool:
        return self._alloc.can_allocate(nbytes)

    def offset_of(self, key: str) -> int:
        """Where ``key``'s bytes start in the arena. Raises ObjectNotFound."""
        return self._locate(key)[0]

    def _locate(self, key: str) -> tuple[int, int]:
        try:
            return self._index[key]
        except KeyError:
            raise ObjectNotFound(f"key: {key!r} is not in the {self.name} tier") from None

    def _copy_in(self, offset: int, src: ByteView) -> None:
        n = view_nbytes(src)
        if n == 0:
            return
        if self._mv is not None and isinstance(src, memoryview):
            self._mv[offset:offset + n] = src
        else:
            self.arena[offset:offset + n].copy_(as_tensor(src))

    def write(self, key: str, src: ByteView) -> None:
        n = view_nbytes(src)
        offset = self._alloc.allocate(n)
        if offset is None:
            stats = self._alloc.stats()
            raise StoreFull(
                f"{self.name} tier: no free extent of {self._alloc.rounded(n)} bytes "
                f"({stats.free} free in {stats.free_extents} extents, largest {stats.largest_free})"
            )
        try:
            self._copy_in(offset, src)
        except BaseException:
            self._alloc.free(offset)
            raise
        old = self._index.get(key)
        self._index[key] = (offset, n)
        self._payload += n
        if old is not None:
            self._alloc.free(old[0])
            self._payload -= old[1]

    def read_into(self, key: str, dest: ByteView) -> int:
        located = self._index.get(key)
        if located is None:
            raise ObjectNotFound(f"key: {key!r} is not in the {self.name} tier")
        offset, n = located
        mv = self._mv
        if mv is not None and type(dest) is memoryview:  # CPU to CPU: one memcpy, no torch call
            if dest.nbytes < n:
                raise BufferTooSmall(f"dest: {dest.nbytes} bytes, object {key!r} needs {n}")
            if n:
                dest[:n] = mv[offset:offset + n]
            return n
        room = view_nbytes(dest)
        if room < n:
            raise BufferTooSmall(f"dest: {room} bytes, object {key!r} needs {n}")
        if n:
            as_tensor(dest)[:n].copy_(self.arena[offset:offset + n])
        return n

    def read(self, key: str) -> bytes:
        offset, n = self._locate(key)
        if self._mv is not None:
            return bytes(self._mv[offset:offset + n])
        return self.arena[offset:offset + n].cpu().numpy().tobytes()

    def view(self, key: str) -> ByteView:
        offset, n = self._locate(key)
        if self._mv is not None:
            return self._mv[offset:offset + n].toreadonly()
        return self.arena[offset:offset + n]

    def delete(self, key: str) -> None:
        offset, n = self._locate(key)
        del self._index[key]
        self._alloc.free(offset)
        self._payload -= n

    def size_of(self, key: str) -> int:
        return self._locate(key)[1]

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def keys(self) -> Iterator[str]:
        return iter(list(self._index))

    def extents(self) -> dict[str, tuple[int, int]]:
        """``key -> (offset, size)`` of every object (for tests and diagnostics)."""
        return dict(self._index)

    def stats(self) -> TierStats:
        a = self._alloc.stats()
        return TierStats(self.name, self.capacity, a.allocated, self._payload, len(self._index), a.fragmentation)

    def close(self) -> None:
        self._index.clear()
        self._mv = None
        self.arena = torch.empty(0, dtype=torch.uint8)
        mapping, self._mapping = self._mapping, None
        if mapping is not None:
            try:
                mapping.close()
            except BufferError:  # a lent view is still alive; unmapped when it is collected
                pass
        fd, self.shared_fd = self.shared_fd, None
        if fd is not None:
            os.close(fd)


class HostTier(ArenaTier):
    """A DRAM arena; page-locked when ``pin_memory`` is None and CUDA is available.

    A ``shared`` arena (a memfd other processes on this host can map) is not page-locked."""

    def __init__(
        self,
        capacity: int,
        *,
        pin_memory: bool | None = None,
        alignment: int = DEFAULT_ALIGNMENT,
        placement: str = "best_fit",
        shared: bool = False,
    ) -> None:
        pin = torch.cuda.is_available() if pin_memory is None else pin_memory
        super().__init__(capacity, name="host", device="cpu", pin_memory=pin and not shared,
                         alignment=alignment, placement=placement, shared=shared)
