"""The master's object table: what it knows of each object, and its eviction order.

An object is named by its ``(namespace, key)`` pair (its *ident*). The table keeps one
:class:`~reference_store.eviction.LRUPolicy` per evictable pin class, so that choosing a
victim walks from the least recently used end instead of scanning every object; hard-pinned
objects are in no order at all, so they are never chosen.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from reference_store.errors import InvalidKey, InvalidParams
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
