"""Eviction policies: which object a full tier should give up first.

A policy only orders keys (a tier's are strings, the master's are (namespace, key) pairs); the
tiered store skips pinned and leased objects while walking
:meth:`EvictionPolicy.candidates`, so no policy can evict them. Each tier gets its own policy
instance. Add a policy by subclassing :class:`EvictionPolicy` and registering it in
:data:`POLICIES` (or pass a factory to the store).
"""

from __future__ import annotations

import abc
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

from reference_store.errors import InvalidParams

K = TypeVar("K", bound=Hashable)

__all__ = ["POLICIES", "EvictionPolicy", "FIFOPolicy", "LRUPolicy", "PolicyFactory", "make_policy"]


class EvictionPolicy(abc.ABC, Generic[K]):
    """Orders the keys of one tier (or of the master's table) for eviction."""

    @abc.abstractmethod
    def inserted(self, key: K) -> None:
        """``key`` was written into the tier."""

    @abc.abstractmethod
    def accessed(self, key: K) -> None:
        """``key`` was read from the tier."""

    @abc.abstractmethod
    def removed(self, key: K) -> None:
        """``key`` left the tier (deleted, evicted, demoted or promoted)."""

    @abc.abstractmethod
    def candidates(self) -> Iterator[K]:
        """Keys in the order they should be evicted (a snapshot; safe to mutate while walking)."""

    def oldest(self) -> Iterator[K]:
        """Keys in eviction order without a snapshot: the caller stops walking before it
        changes the policy. A search for the first evictable key then costs the keys it skips,
        not all of them (a full snapshot per search made a full master's puts quadratic)."""
        return self.candidates()


class LRUPolicy(EvictionPolicy[K]):
    """Least recently used first; writes and reads both count as use."""

    def __init__(self) -> None:
        self._order: OrderedDict[K, None] = OrderedDict()

    def inserted(self, key: K) -> None:
        self._order[key] = None
        self._order.move_to_end(key)

    def accessed(self, key: K) -> None:
        try:  # runs on every read hit: one dict operation, not two
            self._order.move_to_end(key)
        except KeyError:
            pass

    def removed(self, key: K) -> None:
        self._order.pop(key, None)

    def candidates(self) -> Iterator[K]:
        return iter(list(self._order))

    def oldest(self) -> Iterator[K]:
        return iter(self._order)


class FIFOPolicy(LRUPolicy[K]):
    """Oldest write first; reads do not refresh an object."""

    def accessed(self, key: K) -> None:
        return None


PolicyFactory = Callable[[], EvictionPolicy[str]]
POLICIES: dict[str, PolicyFactory] = {"lru": LRUPolicy, "fifo": FIFOPolicy}


def make_policy(name: str) -> EvictionPolicy[str]:
    """A fresh policy registered as ``name``.

    Raises:
        InvalidParams: unknown name.
    """
    try:
        return POLICIES[name]()
    except KeyError:
        raise InvalidParams(f"eviction: unknown policy {name!r}; expected one of {sorted(POLICIES)}") from None
