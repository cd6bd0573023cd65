"""Tiers stacked fastest first: write on top, evict by policy, demote instead of dropping.

Rules:

* a put goes to the highest tier that can make room for it (evicting there if needed);
* making room walks that tier's policy order and skips pinned, leased and protected objects;
  an evicted object is moved to the next tier down (which may in turn make room below it),
  and is dropped only when no lower tier can take it;
* a read hit in a lower tier promotes the object to the top tier when room can be made there;
* each object lives in exactly one tier, so capacity accounting is the tiers' own.

Not thread-safe: :class:`reference_store.embedded.EmbeddedStore` serialises every call.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from reference_store.config import DEFAULT_LEASE_TTL_S
from reference_store.errors import (
    ChecksumMismatch,
    InvalidParams,
    ObjectHasLease,
    ObjectNotFound,
    PinnedObject,
    StoreError,
    StoreFull,
)
from reference_store.eviction import EvictionPolicy, LRUPolicy, PolicyFactory
from reference_store.tiers.base import ByteView, Tier, TierStats, view_nbytes

__all__ = ["Entry", "TieredCounters", "TieredStore"]

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class Entry:
    """What the store knows about one object besides its bytes."""

    size: int
    tier: int
    pinned: bool = False
    lease_until: float = 0.0


@dataclass(slots=True)
class TieredCounters:
    hits: int = 0
    misses: int = 0
    evictions: int = 0     # objects pushed out of a tier to make room
    demotions: int = 0     # ... of which landed in a lower tier
    drops: int = 0         # ... of which no lower tier could take (gone)
    promotions: int = 0
    hits_per_tier: list[int] = field(default_factory=list)


class TieredStore:
    """Objects spread over ``tiers`` (index 0 = fastest) with per-tier eviction policies."""

    def __init__(
        self,
        tiers: Sequence[Tier],
        *,
        policy_factory: PolicyFactory = LRUPolicy,
        lease_ttl_s: float = DEFAULT_LEASE_TTL_S,
        clock: Callable[[], float] = time.monotonic,
        may_drop: bool = True,
    ) -> None:
        if not tiers:
            raise InvalidParams("tiers: at least one tier with capacity > 0 is needed")
        self.tiers = list(tiers)
        self.policies: list[EvictionPolicy] = [policy_factory() for _ in self.tiers]
        self.lease_ttl_s = lease_ttl_s
        self.clock = clock
        self.may_drop = may_drop  # False: full means StoreFull, never an object dropped
        self.entries: dict[str, Entry] = {}
        self.counters = TieredCounters(hits_per_tier=[0] * len(self.tiers))
        for index, tier in enumerate(self.tiers):  # objects a persistent tier already holds
            for key in tier.keys():  # noqa: SIM118 - a Tier, not a dict
                if key in self.entries:  # a higher tier won; the lower copy is stale
                    tier.delete(key)
                    continue
                self.entries[key] = Entry(tier.size_of(key), index)
                self.policies[index].inserted(key)

    # ----- queries -----------------------------------------------------------------------

    def entry(self, key: str) -> Entry:
        try:
            return self.entries[key]
        except KeyError:
            raise ObjectNotFound(f"key: {key!r} not found") from None

    def leased(self, entry: Entry) -> bool:
        return entry.lease_until > self.clock()

    def keys(self) -> list[str]:
        return list(self.entries)

    def tier_stats(self) -> list[TierStats]:
        return [tier.stats() for tier in self.tiers]

    # ----- eviction ----------------------------------------------------------------------

    def _evictable(self, index: int, protect: set[str]) -> Iterator[str]:
        for key in self.policies[index].candidates():
            entry = self.entries.get(key)
            if entry is None or entry.tier != index or key in protect:
                continue
            if entry.pinned or self.leased(entry):
                continue
            yield key

    def make_room(self, index: int, key: str, nbytes: int, protect: set[str]) -> bool:
        """Evict from tier ``index`` until ``nbytes`` fit; False when nothing more can go."""
        tier = self.tiers[index]
        if tier.footprint(key, nbytes) > tier.capacity:
            return False
        if tier.can_fit(key, nbytes):
            return True
        for victim in self._evictable(index, protect):
            if not self._evict(index, victim, protect | {key}):
                return False  # nothing can be demoted, and dropping is not allowed
            if tier.can_fit(key, nbytes):
                return True
        return False

    def _move(self, key: str, source: int, target: int) -> None:
        self.tiers[target].write(key, self.tiers[source].view(key))
        self.tiers[source].delete(key)
        self.policies[source].removed(key)
        self.policies[target].inserted(key)
        self.entries[key].tier = target

    def _evict(self, index: int, key: str, protect: set[str]) -> bool:
        """Demote ``key`` a tier down, or drop it when no lower tier has room (only when
        ``may_drop``); False when it stayed where it was."""
        entry = self.entries[key]
        for lower in range(index + 1, len(self.tiers)):
            if self.make_room(lower, key, entry.size, protect | {key}):
                self.counters.evictions += 1
                self._move(key, index, lower)
                self.counters.demotions += 1
                logger.debug("demoted %r from %s to %s", key, self.tiers[index].name, self.tiers[lower].name)
                return True
        if not self.may_drop:
            return False
        self.counters.evictions += 1
        self._drop(key)
        self.counters.drops += 1
        logger.debug("dropped %r from %s: no lower tier had room", key, self.tiers[index].name)
        return True

    def _drop(self, key: str) -> None:
        entry = self.entries.pop(key)
        self.tiers[entry.tier].delete(key)
        self.policies[entry.tier].removed(key)

    # ----- writes ------------------------------------------------------------------------

    def put(self, key: str, src: ByteView, *, pin: bool = False, replace: bool = False) -> bool:
        """Store ``src``; returns False (and keeps the first value) when ``key`` exists and
        ``replace`` is False.

        Raises:
            StoreFull: no tier can make room, even after evicting everything evictable.
        """
        old = self.entries.get(key)
        if old is not None and not replace:
            return False
        # Replacing a leased object is allowed: reads copy under the store's lock, so no reader
        # sees a mix, and the object stays present (the lease carries over to the new value).
        lease_until = old.lease_until if old is not None else 0.0
        nbytes = view_nbytes(src)
        for index, tier in enumerate(self.tiers):
            if old is not None and old.tier == index:  # the old copy's space comes back after
                self._drop(key)
                old = None
            if self.make_room(index, key, nbytes, {key}):
                tier.write(key, src)
                if old is not None:
                    self._drop(key)
                self.entries[key] = Entry(nbytes, index, pinned=pin, lease_until=lease_until)
                self.policies[index].inserted(key)
                return True
        if old is not None:
            self._drop(key)
        raise StoreFull(self._full_message(key, nbytes))

    def adopt(self, key: str, offset: int, nbytes: int, *, pin: bool = False,
              replace: bool = False) -> bool:
        """Make room claimed from the top tier (an arena, ``tiers[0].claim``) the object ``key``,
        with :meth:`put`'s semantics: returns False, adopting nothing, when ``key`` exists and
        ``replace`` is False (the caller then unclaims the room)."""
        old = self.entries.get(key)
        if old is not None and not replace:
            return False
        lease_until = old.lease_until if old is not None else 0.0
        if old is not None:
            self._drop(key)
        self.tiers[0].adopt(key, offset, nbytes)  # type: ignore[attr-defined]
        self.entries[key] = Entry(nbytes, 0, pinned=pin, lease_until=lease_until)
        self.policies[0].inserted(key)
        return True

    def _full_message(self, key: str, nbytes: int) -> str:
        parts = ", ".join(f"{s.name} {s.used_bytes}/{s.capacity_bytes}" for s in self.tier_stats())
        return (f"no room for {key!r} ({nbytes} bytes) in any tier after evicting every "
                f"unpinned, unleased object ({parts})")

    def remove(self, key: str, *, force: bool = False) -> None:
        """Raises ObjectNotFound, PinnedObject or ObjectHasLease (the last two unless ``force``)."""
        entry = self.entry(key)
        if not force and entry.pinned:
            raise PinnedObject(f"key: {key!r} is pinned; use force=True to remove it")
        if not force and self.leased(entry):
            raise ObjectHasLease(f"key: {key!r} has a lease for another "
                                 f"{entry.lease_until - self.clock():.3f} s")
        self._drop(key)

    # ----- reads -------------------------------------------------------------------------

    def _found(self, key: str) -> Entry:
        entry = self.entries.get(key)
        if entry is None:
            self.counters.misses += 1
            raise ObjectNotFound(f"key: {key!r} not found")
        return entry

    def _touch(self, key: str, entry: Entry) -> None:
        until = self.clock() + self.lease_ttl_s
        if until > entry.lease_until:
            entry.lease_until = until
        counters, tier = self.counters, entry.tier
        counters.hits += 1
        counters.hits_per_tier[tier] += 1
        self.policies[tier].accessed(key)

    def _forget_corrupt(self, key: str) -> None:
        entry = self.entries.pop(key, None)
        if entry is not None:
            self.policies[entry.tier].removed(key)
            if key in self.tiers[entry.tier]:
                self.tiers[entry.tier].delete(key)

    def read_into(self, key: str, dest: ByteView, *, now: float | None = None) -> int:
        """Copy the object into ``dest``, take a lease, promote a lower-tier hit.

        ``now`` is the clock reading to lease from (a batch reads the clock once); None reads it.
        This is the hot path of 16-64 KiB reads: one dict lookup, one tier call, and the lease,
        counters and policy update of :meth:`_touch` written out in place (a call costs more
        than the work at these sizes).

        Raises:
            ObjectNotFound, BufferTooSmall, ChecksumMismatch (the object is then forgotten).
        """
        entry = self.entries.get(key)
        if entry is None:
            self.counters.misses += 1
            raise ObjectNotFound(f"key: {key!r} not found")
        try:
            n = self.tiers[entry.tier].read_into(key, dest)
        except ChecksumMismatch:
            self._forget_corrupt(key)
            raise
        # _touch, inlined
        until = (self.clock() if now is None else now) + self.lease_ttl_s
        if until > entry.lease_until:
            entry.lease_until = until
        tier = entry.tier
        counters = self.counters
        counters.hits += 1
        counters.hits_per_tier[tier] += 1
        self.policies[tier].accessed(key)
        if tier:
            self._promote(key)
        return n

    def read_many_into(self, keys: Sequence[str], dests: Sequence[ByteView | StoreError],
                       now: float) -> list[int | StoreError]:
        """:meth:`read_into` for each pair, leasing from one clock reading ``now``; one result a
        key (bytes read or the StoreError). A StoreError in ``dests`` (a key or buffer the
        caller already refused) is passed through as that key's result.

        The loop keeps the store's attributes in locals: at 16-64 KiB a key, the bookkeeping
        costs as much as the copy.
        """
        results: list[int | StoreError] = []
        append = results.append
        entries, tiers, policies, counters = self.entries, self.tiers, self.policies, self.counters
        per_tier = counters.hits_per_tier
        until = now + self.lease_ttl_s
        for key, dest in zip(keys, dests):
            if isinstance(dest, StoreError):
                append(dest)
                continue
            entry = entries.get(key)
            if entry is None:
                counters.misses += 1
                append(ObjectNotFound(f"key: {key!r} not found"))
                continue
            tier = entry.tier
            try:
                n = tiers[tier].read_into(key, dest)
            except ChecksumMismatch as exc:
                self._forget_corrupt(key)
                append(exc)
                continue
            except StoreError as exc:
                append(exc)
                continue
            if until > entry.lease_until:
                entry.lease_until = until
            counters.hits += 1
            per_tier[tier] += 1
            policies[tier].accessed(key)
            if tier:
                self._promote(key)
            append(n)
        return results

    def read(self, key: str) -> bytes:
        """The object's bytes; takes a lease and promotes like :meth:`read_into`."""
        entry = self._found(key)
        try:
            data = self.tiers[entry.tier].read(key)
        except ChecksumMismatch:
            self._forget_corrupt(key)
            raise
        self._touch(key, entry)
        self._promote(key)
        return data

    def _promote(self, key: str) -> None:
        entry = self.entries[key]
        if entry.tier == 0:
            return
        for upper in range(entry.tier):
            if self.make_room(upper, key, entry.size, {key}):
                self._move(key, entry.tier, upper)
                self.counters.promotions += 1
                return
