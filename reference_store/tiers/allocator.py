"""A free-list allocator for one contiguous arena (offsets only; it owns no memory).

Free extents are kept sorted by offset and merged with both neighbours on free, so the arena
never fragments into adjacent free pieces. Placement is best fit by default (smallest extent
that fits, lowest offset on ties) or first fit. Sizes are rounded up to ``alignment``.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from reference_store.errors import InvalidParams

__all__ = ["DEFAULT_ALIGNMENT", "PLACEMENTS", "Allocator", "AllocatorStats"]

DEFAULT_ALIGNMENT = 64
PLACEMENTS = ("best_fit", "first_fit")


@dataclass(frozen=True, slots=True)
class AllocatorStats:
    """Snapshot of the arena. ``fragmentation`` is ``1 - largest_free / free`` (0 when empty)."""

    capacity: int
    allocated: int
    free: int
    largest_free: int
    free_extents: int
    allocations: int

    @property
    def fragmentation(self) -> float:
        return 0.0 if self.free == 0 else 1.0 - self.largest_free / self.free


class Allocator:
    """Hands out aligned, non-overlapping ``[offset, offset + size)`` extents of an arena.

    Raises (constructor):
        InvalidParams: non-positive alignment, negative capacity or unknown placement.
    """

    def __init__(self, capacity: int, *, alignment: int = DEFAULT_ALIGNMENT, placement: str = "best_fit") -> None:
        if alignment <= 0 or alignment & (alignment - 1):
            raise InvalidParams(f"alignment: must be a positive power of two, got {alignment}")
        if capacity < 0:
            raise InvalidParams(f"capacity: must be >= 0, got {capacity}")
        if placement not in PLACEMENTS:
            raise InvalidParams(f"placement: expected one of {PLACEMENTS}, got {placement!r}")
        self.alignment = alignment
        self.capacity = capacity - capacity % alignment
        self.placement = placement
        self._starts: list[int] = [0] if self.capacity else []   # free extents, sorted by offset
        self._sizes: dict[int, int] = {0: self.capacity} if self.capacity else {}
        self._live: dict[int, int] = {}                           # offset -> rounded size
        self.allocated = 0

    def rounded(self, size: int) -> int:
        """The number of arena bytes a request of ``size`` bytes occupies (at least one unit)."""
        size = max(size, 1)
        return (size + self.alignment - 1) // self.alignment * self.alignment

    def _choose(self, need: int) -> int | None:
        best: int | None = None
        for start in self._starts:
            size = self._sizes[start]
            if size < need:
                continue
            if self.placement == "first_fit":
                return start
            if best is None or size < self._sizes[best]:
                best = start
                if size == need:
                    break
        return best

    def allocate(self, size: int) -> int | None:
        """Reserve ``size`` bytes; return the offset, or None when no free extent is big enough.

        Raises:
            InvalidParams: ``size`` is negative.
        """
        if size < 0:
            raise InvalidParams(f"size: must be >= 0, got {size}")
        need = self.rounded(size)
        start = self._choose(need)
        if start is None:
            return None
        extent = self._sizes.pop(start)
        index = bisect.bisect_left(self._starts, start)
        if extent == need:
            del self._starts[index]
        else:
            self._starts[index] = start + need
            self._sizes[start + need] = extent - need
        self._live[start] = need
        self.allocated += need
        return start

    def free(self, offset: int) -> None:
        """Return the extent at ``offset``, merging it with free neighbours.

        Raises:
            InvalidParams: ``offset`` is not a live allocation (double free or a stray offset).
        """
        size = self._live.pop(offset, None)
        if size is None:
            raise InvalidParams(f"offset: {offset} is not an allocated extent")
        self.allocated -= size
        index = bisect.bisect_left(self._starts, offset)
        start, end = offset, offset + size
        if index < len(self._starts) and self._starts[index] == end:   # merge right
            end += self._sizes.pop(end)
            del self._starts[index]
        if index > 0:
            left = self._starts[index - 1]
            if left + self._sizes[left] == start:                       # merge left
                self._sizes[left] = end - left
                return
        self._starts.insert(index, start)
        self._sizes[start] = end - start

    def can_allocate(self, size: int) -> bool:
        """Whether :meth:`allocate` would succeed now."""
        return self._choose(self.rounded(size)) is not None

    def free_extents(self) -> list[tuple[int, int]]:
        """``(offset, size)`` of every free extent, by offset."""
        return [(s, self._sizes[s]) for s in self._starts]

    def live_extents(self) -> list[tuple[int, int]]:
        """``(offset, rounded size)`` of every allocation, by offset."""
        return sorted(self._live.items())

    def stats(self) -> AllocatorStats:
        free = self.capacity - self.allocated
        largest = max(self._sizes.values(), default=0)
        return AllocatorStats(self.capacity, self.allocated, free, largest, len(self._starts), len(self._live))
