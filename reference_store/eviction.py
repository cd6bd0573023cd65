"""Eviction policies: which object a full tier should give up first.

A policy only orders keys; the tiered store skips pinned and leased objects while walking
:meth:`EvictionPolicy.candidates`, so no policy can evict them. Each tier gets its own policy
instance. Add a policy by subclassing :class:`EvictionPolicy` and registering it in
:data:`POLICIES` (or pass a factory to the store).
"""

from __future__ import annotations

import abc
from collections import OrderedDict
from collections.abc import Callable, Iterator

from reference_store.errors import InvalidParams

__all__ = ["POLICIES", "EvictionPolicy", "FIFOPolicy", "LRUPolicy", "PolicyFactory", "make_policy"]


class EvictionPolicy(abc.ABC):
    """Orders the keys of one tier for eviction."""

    @abc.abstractmethod
    def inserted(self, key: str) -> None:
        """``key`` was written into the tier."""

    @abc.abstractmethod
    def accessed(self, key: str) -> None:
        """``key`` was read from the tier."""

    @abc.abstractmethod
    def removed(self, key: str) -> None:
        """``key`` left the tier (deleted, evicted, demoted or promoted)."""

    @abc.abstractmethod
    def candidates(self) -> Iterator[str]:
        """Keys in the order they should be evicted (a snapshot; safe to mutate while walking)."""


class LRUPolicy(EvictionPolicy):
    """Least recently used first; writes and reads both count as use."""

    def __init__(self) -> None:
        self._order: OrderedDict[str, None] = OrderedDict()

    def inserted(self, key: str) -> None:
        self._order[key] = None
        self._order.move_to_end(key)

    def accessed(self, key: str) -> None:
        try:  # runs on every read hit: one dict operation, not two
            self._order.move_to_end(key)
        except KeyError:
            pass

    def removed(self, key: str) -> None:
        self._order.pop(key, None)

    def candidates(self) -> Iterator[str]:
        return iter(list(self._order))


class FIFOPolicy(LRUPolicy):
    """Oldest write first; reads do not refresh an object."""

    def accessed(self, key: str) -> None:
        return None


PolicyFactory = Callable[[], EvictionPolicy]
POLICIES: dict[str, PolicyFactory] = {"lru": LRUPolicy, "fifo": FIFOPolicy}


def make_policy(name: str) -> EvictionPolicy:
    """A fresh policy registered as ``name``.

    Raises:
        InvalidParams: unknown name.
    """
    try:
        return POLICIES[name]()
    except KeyError:
        raise InvalidParams(f"eviction: unknown policy {name!r}; expected one of {sorted(POLICIES)}") from None
