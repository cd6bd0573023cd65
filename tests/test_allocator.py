"""The arena allocator: no overlap, no leak, full coalescing, honest fragmentation figures."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_store.errors import InvalidParams
from reference_store.tiers.allocator import Allocator


def _check_invariants(alloc: Allocator) -> None:
    live = alloc.live_extents()
    free = alloc.free_extents()
    pieces = sorted([(o, s, "live") for o, s in live] + [(o, s, "free") for o, s in free])
    cursor = 0
    for offset, size, _ in pieces:  # live + free tile the arena exactly: no overlap, no leak
        assert offset == cursor and size > 0 and offset % alloc.alignment == 0
        cursor += size
    assert cursor == alloc.capacity
    for (a, sa), (b, _) in itertools.pairwise(free):  # coalesced: no two free extents touch
        assert a + sa < b
    assert alloc.allocated == sum(s for _, s in live)


ops = st.lists(st.tuples(st.booleans(), st.integers(0, 5000), st.integers(0, 1000)), max_size=120)


@settings(max_examples=150, deadline=None)
@given(ops=ops, placement=st.sampled_from(["best_fit", "first_fit"]))
def test_allocator_never_overlaps_or_leaks(ops: list[tuple[bool, int, int]], placement: str) -> None:
    alloc = Allocator(64 * 1024, alignment=64, placement=placement)
    held: list[int] = []
    for do_alloc, size, pick in ops:
        if do_alloc or not held:
            offset = alloc.allocate(size)
            if offset is None:
                assert not alloc.can_allocate(size)
                assert alloc.stats().largest_free < alloc.rounded(size)
            else:
                held.append(offset)
        else:
            alloc.free(held.pop(pick % len(held)))
        _check_invariants(alloc)
    for offset in held:
        alloc.free(offset)
    _check_invariants(alloc)
    assert alloc.free_extents() == [(0, alloc.capacity)]  # everything merged back


def test_best_fit_prefers_smallest_hole() -> None:
    alloc = Allocator(1024, alignment=64)
    a, b, c, d = (alloc.allocate(s) for s in (256, 64, 128, 64))
    assert None not in (a, b, c, d)
    alloc.free(a)   # hole of 256 at 0
    alloc.free(c)   # hole of 128 at 320
    assert alloc.allocate(100) == c
    first = Allocator(1024, alignment=64, placement="first_fit")
    offs = [first.allocate(s) for s in (256, 64, 128, 64)]
    first.free(offs[0])
    first.free(offs[2])
    assert first.allocate(100) == 0


def test_fragmentation_reported() -> None:
    alloc = Allocator(1024, alignment=64)
    offsets = [alloc.allocate(64) for _ in range(16)]
    for offset in offsets[::2]:
        alloc.free(offset)
    stats = alloc.stats()
    assert stats.free == 512 and stats.largest_free == 64 and stats.free_extents == 8
    assert stats.fragmentation == pytest.approx(1 - 64 / 512)
    assert alloc.allocate(128) is None


def test_zero_size_takes_one_unit_and_errors_are_clear() -> None:
    alloc = Allocator(256, alignment=64)
    assert alloc.rounded(0) == 64
    offset = alloc.allocate(0)
    assert offset == 0
    alloc.free(offset)
    with pytest.raises(InvalidParams, match="offset"):
        alloc.free(offset)
    with pytest.raises(InvalidParams, match="size"):
        alloc.allocate(-1)
    with pytest.raises(InvalidParams, match="alignment"):
        Allocator(256, alignment=48)
    with pytest.raises(InvalidParams, match="placement"):
        Allocator(256, placement="worst_fit")
