"""reference_store.master.objects: the readable objects, the puts under way and their owners,
and ids that never repeat."""

from __future__ import annotations

import time

import pytest

from reference_store.errors import ObjectAlreadyExists, ObjectHasLease, ObjectNotFound, PinnedObject
from reference_store.master.objects import PIN_HARD, PIN_NONE, ObjectMeta, Objects


def _put(objects: Objects, key: str, owner: str, *, started: float | None = None,
         pin: int = PIN_NONE) -> ObjectMeta:
    obj = ObjectMeta("t", "ns", key, 10, objects.new_id(), ["n1"], owner=owner,
                     started=time.monotonic() if started is None else started, pin=pin)
    objects.pending[obj.ident] = obj
    return obj


def test_only_the_starting_client_claims_its_put_and_only_once() -> None:
    objects = Objects()
    mine = _put(objects, "a", "me")
    _put(objects, "b", "other")
    claimed = list(objects.claimed("ns", ["a", "b", "never"], "me"))
    assert claimed == [("a", mine), ("b", None), ("never", None)]
    assert list(objects.claimed("ns", ["a"], "me")) == [("a", None)]  # gone from pending
    assert ("ns", "b") in objects.pending  # another client's put is left alone


def test_publish_makes_a_put_readable_and_returns_what_it_replaces() -> None:
    objects = Objects()
    first = _put(objects, "k", "me")
    assert objects.publish(first) is None
    second = _put(objects, "k", "me")
    assert objects.publish(second) is first
    assert objects.readable[("ns", "k")] is second and second.owner is None
    assert objects.keys_in("ns") == ["k"] and objects.keys_in("other") == []


def test_a_put_under_way_is_taken_over_only_after_the_put_timeout() -> None:
    objects = Objects()
    _put(objects, "live", "a")
    with pytest.raises(ObjectAlreadyExists, match="'live'"):
        objects.stalled_put(("ns", "live"), put_timeout_s=60.0)
    stalled = _put(objects, "stalled", "a", started=time.monotonic() - 61.0)
    assert objects.stalled_put(("ns", "stalled"), put_timeout_s=60.0) is stalled
    assert ("ns", "stalled") not in objects.pending
    assert objects.stalled_put(("ns", "nothing"), put_timeout_s=60.0) is None


def test_abandoned_puts_are_removed_by_predicate() -> None:
    objects = Objects()
    gone = _put(objects, "x", "left")
    _put(objects, "y", "stays")
    assert objects.abandoned(lambda o: o.owner == "left") == [gone]
    assert list(objects.pending) == [("ns", "y")]


def test_remove_refuses_leased_and_hard_pinned_objects_unless_forced() -> None:
    objects = Objects()
    leased = _put(objects, "leased", "me")
    pinned = _put(objects, "pinned", "me", pin=PIN_HARD)
    objects.publish(leased)
    objects.publish(pinned)
    objects.lease(leased, time.monotonic(), 60.0)
    with pytest.raises(ObjectHasLease):
        objects.remove(("ns", "leased"), force=False)
    with pytest.raises(PinnedObject):
        objects.remove(("ns", "pinned"), force=False)
    with pytest.raises(ObjectNotFound):
        objects.remove(("ns", "missing"), force=True)
    assert objects.remove(("ns", "leased"), force=True) is leased
    assert objects.remove(("ns", "pinned"), force=True) is pinned
    assert not objects.readable


def test_ids_never_repeat_even_below_a_reported_one() -> None:
    objects = Objects()
    first = objects.new_id()
    objects.saw_id(first + 1000)
    assert objects.new_id() > first + 1000
    objects.saw_id(5)  # an old id reported later does not send ids back
    assert objects.new_id() > first + 1000


def test_expected_contents_per_node_count_readable_objects_only() -> None:
    objects = Objects()
    done = _put(objects, "done", "me")
    objects.publish(done)
    under_way = _put(objects, "under-way", "me")
    assert objects.expected_on(["n1", "n2"]) == {"n1": {done.object_id: "done"}, "n2": {}}
    assert objects.known_ids() == {done.object_id, under_way.object_id}
