"""The node's object state machine: every transition by name, and under random sequences the
rules the node relies on (bytes freed exactly once, never under a reader; only readable
objects reported; an id never reused)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_store.errors import ObjectAlreadyExists
from reference_store.node_objects import NodeObjects, ObjectState
from reference_store.transport.messages import ObjectRecord


def _rec(oid: int, size: int = 10) -> ObjectRecord:
    return ObjectRecord(object_id=oid, tenant="t", ns="", key=f"k{oid}", size=size)


def test_receive_store_read_and_remove() -> None:
    objs = NodeObjects()
    objs.begin_receive([1])
    assert objs.state(1) is ObjectState.RECEIVING and objs.report() == []
    assert not objs.begin_read(1, 10)  # not readable before it is received
    assert objs.received(1, _rec(1))
    assert objs.state(1) is ObjectState.STORED and objs.report() == [_rec(1)]
    assert not objs.begin_read(1, 11)  # another size: not this object
    assert objs.begin_read(1, 10) and objs.begin_read(1, 10)
    assert objs.state(1) is ObjectState.READING
    assert objs.remove(1) == (True, False)  # counted, freed later
    assert objs.state(1) is ObjectState.DELETE_PENDING and objs.report() == []
    assert not objs.begin_read(1, 10)
    assert not objs.end_read(1)  # one reader left
    assert objs.end_read(1)  # the last one frees it
    assert objs.state(1) is None


def test_a_frame_of_objects_in_one_call_each_way() -> None:
    """received_all, begin_read_all and end_read_all: what the single calls do, for a frame."""
    objs = NodeObjects()
    objs.begin_receive([1, 2, 3])
    assert objs.remove(2) == (False, False)  # cancelled while it was being received
    assert objs.received_all([(1, _rec(1), 11), (2, _rec(2), 22), (3, _rec(3), None)]) == [
        True, False, True]
    assert objs.begin_read_all([(1, 10), (2, 10), (3, 99), (3, 10)]) == [
        (True, 11), (False, None), (False, None), (True, None)]
    assert objs.remove(1) == (True, False)  # a reader holds it: freed by the last read
    assert objs.end_read_all([1, 3, 3]) == [1]
    assert objs.state(1) is None and objs.state(3) is ObjectState.STORED


def test_removed_while_receiving_is_thrown_away_at_commit() -> None:
    objs = NodeObjects()
    objs.begin_receive([2])
    assert objs.remove(2) == (False, False)
    assert objs.state(2) is ObjectState.CANCELLED
    assert not objs.received(2, _rec(2))  # the caller frees the bytes
    assert objs.state(2) is None


def test_ids_are_taken_all_or_none() -> None:
    objs = NodeObjects()
    objs.begin_receive([1])
    with pytest.raises(ObjectAlreadyExists):
        objs.begin_receive([3, 1])
    assert objs.state(3) is None
    with pytest.raises(ObjectAlreadyExists):
        objs.begin_receive([4, 4])
    objs.abandon([1])
    assert objs.state(1) is None
    objs.begin_receive([5])
    objs.received(5, _rec(5))
    objs.abandon([5])  # abandoning a stored object does nothing
    assert objs.state(5) is ObjectState.STORED


ACTIONS = st.lists(st.tuples(st.sampled_from(
    ["receive", "received", "abandon", "read", "end_read", "remove"]), st.integers(1, 4)),
    max_size=60)


@settings(max_examples=300, deadline=None)
@given(ACTIONS)
def test_bytes_are_freed_once_and_never_under_a_reader(actions: list[tuple[str, int]]) -> None:
    objs = NodeObjects()
    stored: set[int] = set()   # ids whose bytes are in the store (as the node would have them)
    readers: dict[int, int] = {}
    for action, oid in actions:
        if action == "receive":
            try:
                objs.begin_receive([oid])
                stored.add(oid)  # room reserved
            except ObjectAlreadyExists:
                pass
        elif action == "received" and objs.state(oid) in (ObjectState.RECEIVING,
                                                          ObjectState.CANCELLED):
            if not objs.received(oid, _rec(oid)):
                stored.discard(oid)  # thrown away
        elif action == "abandon" and objs.state(oid) in (ObjectState.RECEIVING,
                                                         ObjectState.CANCELLED):
            objs.abandon([oid])
            stored.discard(oid)
        elif action == "read" and objs.begin_read(oid, 10):
            readers[oid] = readers.get(oid, 0) + 1
        elif action == "end_read" and readers.get(oid):
            readers[oid] -= 1
            if objs.end_read(oid):
                assert oid in stored and not readers[oid]
                stored.discard(oid)
        elif action == "remove":
            _, free_now = objs.remove(oid)
            if free_now:
                assert oid in stored and not readers.get(oid)
                stored.discard(oid)
        # what is reported is readable, and what is readable has its bytes
        for rec in objs.report():
            assert rec.object_id in stored
            assert objs.state(rec.object_id) in (ObjectState.STORED, ObjectState.READING)
        for some in range(1, 5):
            if objs.state(some) is None:
                assert not readers.get(some)
