"""The master's objects: the readable ones, with their eviction order, and the puts under way.

An object is named by its ``(namespace, key)`` pair (its *ident*). :class:`Objects` holds the
readable objects (:class:`ObjectTable`), the puts started and not yet ended (*pending*, each
owned by the client that started it), and the source of object ids. A put moves from pending
to readable when its client ends it; only that client may end or revoke it, and a put left
unfinished for the put timeout may be taken over by the next put of its key.

The table keeps one :class:`~reference_store.eviction.LRUPolicy` per evictable pin class, so
that choosing a victim walks from the least recently used end instead of scanning every object;
hard-pinned objects are in no order at all, so they are never chosen.

The caller holds the master's lock for every method.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from reference_store.errors import (
    InvalidKey,
    InvalidParams,
    ObjectAlreadyExists,
    ObjectHasLease,
    ObjectNotFound,
    PinnedObject,
)
from reference_store.eviction import EvictionPolicy, LRUPolicy

__all__ = [
    "MAX_KEY_BYTES",
    "MAX_OBJECT_BYTES",
    "PIN_HARD",
    "PIN_NONE",
    "PIN_SOFT",
    "Ident",
    "ObjectMeta",
    "ObjectTable",
    "Objects",
    "checked_keys",
    "object_size",
]

PIN_NONE, PIN_SOFT, PIN_HARD = 0, 1, 2
MAX_KEY_BYTES = 4096
MAX_OBJECT_BYTES = 1 << 40  # one object; far above any node, far below float trouble

Ident = tuple[str, str]  # (namespace, key)


@dataclass
class ObjectMeta:
    tenant: str            # the tenant charged for it
    ns: str                # namespace ('' when isolation is off)
    key: str
    size: int
    object_id: int
    replicas: list[str]    # node ids
    owner: str | None = None
    started: float = 0.0
    pin: int = PIN_NONE
    lease_until: float = 0.0
    last_access: float = field(default_factory=time.monotonic)

    @property
    def ident(self) -> Ident:
        return (self.ns, self.key)

    @property
    def charged(self) -> int:
        return self.size * len(self.replicas)


class ObjectTable(dict[Ident, ObjectMeta]):
    """The readable objects by ident, with their eviction order (unpinned before
    soft-pinned, least recently used first within each)."""

    def __init__(self) -> None:
        super().__init__()
        self._order: dict[int, EvictionPolicy[Ident]] = {
            PIN_NONE: LRUPolicy(), PIN_SOFT: LRUPolicy()}

    def __setitem__(self, ident: Ident, obj: ObjectMeta) -> None:
        if ident in self:
            self._untrack(ident, self[ident])
        super().__setitem__(ident, obj)
        order = self._order.get(obj.pin)
        if order is not None:
            order.inserted(ident)

    def __delitem__(self, ident: Ident) -> None:
        self._untrack(ident, self[ident])
        super().__delitem__(ident)

    def _untrack(self, ident: Ident, obj: ObjectMeta) -> None:
        order = self._order.get(obj.pin)
        if order is not None:
            order.removed(ident)

    def touch(self, ident: Ident, obj: ObjectMeta) -> None:
        """``obj`` was just used: it is now the last to be evicted in its pin class."""
        order = self._order.get(obj.pin)
        if order is not None:
            order.accessed(ident)

    def victim(self, tenant: str | None, now: float) -> ObjectMeta | None:
        """The first object in eviction order that is not leased (hard-pinned never), of
        ``tenant`` when given."""
        for order in self._order.values():
            for ident in order.oldest():
                obj = self[ident]
                if obj.lease_until <= now and (tenant is None or obj.tenant == tenant):
                    return obj
        return None


class Objects:
    """The readable objects (``readable``), the puts under way (``pending``) and the ids."""

    def __init__(self) -> None:
        self.readable = ObjectTable()
        self.pending: dict[Ident, ObjectMeta] = {}
        # ids grow across restarts: the start time in the high 32 bits
        self._ids = itertools.count((int(time.time()) << 32) + 1)

    def new_id(self) -> int:
        return next(self._ids)

    def saw_id(self, object_id: int) -> None:
        """An id a node reported: new ids continue above it, so none is ever reused."""
        self._ids = itertools.count(max(next(self._ids), object_id + 1))

    def stalled_put(self, ident: Ident, put_timeout_s: float) -> ObjectMeta | None:
        """Remove and return the put of ``ident`` left unfinished for ``put_timeout_s`` (to be
        taken over); None when no put is under way.

        Raises:
            ObjectAlreadyExists: another client's put of it is under way, within the timeout.
        """
        old = self.pending.get(ident)
        if old is None:
            return None
        if time.monotonic() - old.started < put_timeout_s:
            raise ObjectAlreadyExists(f"object {ident[1]!r} is being put by another client")
        del self.pending[ident]
        return old

    def claimed(self, ns: str, keys: list[str],
                owner: str) -> Iterator[tuple[str, ObjectMeta | None]]:
        """Each key with ``owner``'s unfinished put of it, removed from the pending ones; None
        when there is none (never started, another client's, or taken over)."""
        for key in keys:
            obj = self.pending.get((ns, key))
            if obj is None or obj.owner != owner:
                yield key, None
                continue
            del self.pending[(ns, key)]
            yield key, obj

    def publish(self, obj: ObjectMeta) -> ObjectMeta | None:
        """Make an ended put readable; returns the object it replaces (to be dropped)."""
        obj.owner, obj.last_access = None, time.monotonic()
        old = self.readable.get(obj.ident)
        self.readable[obj.ident] = obj
        return old

    def abandoned(self, matches: Callable[[ObjectMeta], bool]) -> list[ObjectMeta]:
        """Remove and return the unfinished puts that ``matches``."""
        gone = [ident for ident, obj in self.pending.items() if matches(obj)]
        return [self.pending.pop(ident) for ident in gone]

    def remove(self, ident: Ident, *, force: bool) -> ObjectMeta:
        """Remove a readable object; returns it (to be dropped).

        Raises:
            ObjectNotFound.  ObjectHasLease, PinnedObject: without ``force``.
        """
        obj = self.readable.get(ident)
        if obj is None:
            raise ObjectNotFound(f"no object {ident[1]!r}")
        if not force and obj.lease_until > time.monotonic():
            raise ObjectHasLease(f"object {ident[1]!r} is leased")
        if not force and obj.pin == PIN_HARD:
            raise PinnedObject(f"object {ident[1]!r} is hard-pinned")
        del self.readable[ident]
        return obj

    def lease(self, obj: ObjectMeta, now: float, ttl_s: float) -> None:
        """A read lease on ``obj`` until ``now + ttl_s``; it is now the last to be evicted."""
        obj.lease_until = now + ttl_s
        obj.last_access = now
        self.readable.touch(obj.ident, obj)

    def keys_in(self, ns: str) -> list[str]:
        """The readable keys of namespace ``ns``, sorted."""
        return sorted(k for (n, k) in self.readable if n == ns)

    def of_tenant(self, tenant: str) -> list[ObjectMeta]:
        """The readable objects charged to ``tenant``."""
        return [o for o in self.readable.values() if o.tenant == tenant]

    def known_ids(self) -> set[int]:
        """Every object id known here, readable or under way."""
        return {o.object_id for o in (*self.readable.values(), *self.pending.values())}

    def expected_on(self, node_ids: list[str]) -> dict[str, dict[int, str]]:
        """For each of ``node_ids``, the readable objects it should hold: id -> key."""
        expected: dict[str, dict[int, str]] = {n: {} for n in node_ids}
        for obj in self.readable.values():
            for node_id in obj.replicas:
                expected.setdefault(node_id, {})[obj.object_id] = obj.key
        return expected


def checked_keys(keys: list[str]) -> list[str]:
    """``keys``, checked. Raises: InvalidKey for an empty key or one over MAX_KEY_BYTES."""
    for k in keys:
        if not k or len(k.encode()) > MAX_KEY_BYTES:
            raise InvalidKey(f"keys must be non-empty strings of at most {MAX_KEY_BYTES} bytes")
    return keys


def object_size(key: str, size: int) -> int:
    """A put's size: positive and no larger than :data:`MAX_OBJECT_BYTES` (the message type
    already made it an integer).

    Raises:
        InvalidParams: anything else, with the key named.
    """
    if size <= 0:
        raise InvalidParams(f"object {key!r}: size must be positive, got {size}")
    if size > MAX_OBJECT_BYTES:
        raise InvalidParams(f"object {key!r}: size {size} is larger than the largest allowed "
                            f"({MAX_OBJECT_BYTES})")
    return size
