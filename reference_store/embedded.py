"""The embedded store: device, host and disk tiers behind one lock, with Mooncake semantics.

* ``put`` of an existing key keeps the first value and succeeds; ``upsert`` replaces it.
* ``get``/``get_into`` take a lease of ``lease_ttl_s``; a leased object cannot be removed and
  is never evicted (``upsert`` may still replace it: reads copy under the lock). ``exists``/``lookup_prefix`` take no lease, so existence
  probes cannot starve eviction (a Mooncake complaint).
* A put into a full store evicts (demoting down the tiers) and succeeds when that can make
  room; only when everything left is pinned or leased does it raise :class:`StoreFull`.

Example::

    store = EmbeddedStore(StoreConfig(host_bytes=64 << 20))
    store.put("k", b"value")
    buf = bytearray(16)
    n = store.get_into("k", buf)
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from reference_store.config import StoreConfig, check_fits
from reference_store.errors import InvalidKey, InvalidParams, NotReady, StoreError
from reference_store.eviction import POLICIES, PolicyFactory, make_policy
from reference_store.tiers.base import Buffer, ByteView, Tier, TierStats, borrowed_view
from reference_store.tiers.device import DeviceTier
from reference_store.tiers.disk import DiskTier
from reference_store.tiers.host import ArenaTier, HostTier
from reference_store.tiers.tiered import TieredStore

if TYPE_CHECKING:
    from reference_store.reservation import Borrow, Reservation

__all__ = ["EmbeddedStore", "StoreStats"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class StoreStats:
    """A snapshot of the store. ``tiers`` is ordered fastest first."""

    tiers: tuple[TierStats, ...]
    objects: int
    hits: int
    misses: int
    evictions: int
    demotions: int
    drops: int
    promotions: int
    leased_objects: int
    pinned_objects: int
    hits_per_tier: dict[str, int] = field(default_factory=dict)

    @property
    def hit_rate(self) -> float:
        """Hits / reads (0.0 before the first read)."""
        reads = self.hits + self.misses
        return self.hits / reads if reads else 0.0

    @property
    def used_bytes(self) -> int:
        return sum(t.used_bytes for t in self.tiers)

    @property
    def capacity_bytes(self) -> int:
        return sum(t.capacity_bytes for t in self.tiers)

    def tier(self, name: str) -> TierStats:
        """Stats of the tier called ``name`` ("device", "host", "disk"). Raises KeyError."""
        for t in self.tiers:
            if t.name == name:
                return t
        raise KeyError(name)


def build_tiers(config: StoreConfig) -> list[Tier]:
    """The tiers ``config`` asks for, fastest first (zero-sized tiers are left out).

    Raises:
        InvalidParams: a tier larger than the machine's memory or the disk's free space.
    """
    check_fits(host_bytes=config.host_bytes, disk_dir=config.disk_dir, disk_bytes=config.disk_bytes)
    tiers: list[Tier] = []
    if config.device_bytes:
        tiers.append(DeviceTier(config.device_bytes, device=config.device,
                                alignment=max(config.alignment, 256), placement=config.placement))
    if config.host_bytes:
        tiers.append(HostTier(config.host_bytes, pin_memory=config.pin_host_memory,
                              alignment=config.alignment, placement=config.placement,
                              shared=config.share_host_memory))
    if config.disk_bytes:
        assert config.disk_dir is not None  # checked by StoreConfig
        tiers.append(DiskTier(Path(config.disk_dir), config.disk_bytes, fsync=config.disk_fsync,
                              verify_on_open=config.disk_verify_on_open))
    return tiers


class EmbeddedStore:
    """A single-process KV-block store. Thread-safe: one lock around every call, and one
    around a whole batch (``batch_put``/``batch_get_into`` take it once, not once a key).

    Raises (constructor):
        InvalidParams: bad config (unknown eviction policy, ...).
        StoreError: the disk directory cannot be used.
    """

    def __init__(
        self,
        config: StoreConfig | None = None,
        *,
        policy_factory: PolicyFactory | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config or StoreConfig()
        if policy_factory is None:
            make_policy(self.config.eviction)  # validates the name
            policy_factory = POLICIES[self.config.eviction]
        self._lock = threading.RLock()
        # keys this short cannot exceed max_key_bytes (UTF-8 takes at most 4 bytes a character)
        self._short_key = self.config.max_key_bytes // 4
        self._tiered: TieredStore | None = TieredStore(
            build_tiers(self.config), policy_factory=policy_factory,
            lease_ttl_s=float(self.config.lease_ttl_s), clock=clock,
            may_drop=self.config.drop_when_full,
        )

    # ----- plumbing ----------------------------------------------------------------------

    def _store(self) -> TieredStore:
        if self._tiered is None:
            raise NotReady("store is closed")
        return self._tiered

    def _check_key(self, key: Any) -> str:
        if not isinstance(key, str):
            raise InvalidKey(f"key: must be a string, got {type(key).__name__}")
        if not key:
            raise InvalidKey("key: must not be empty")
        if len(key) * 4 > self.config.max_key_bytes and len(key.encode("utf-8", "surrogatepass")) > self.config.max_key_bytes:
            raise InvalidKey(f"key: longer than {self.config.max_key_bytes} bytes")
        return key

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----- writes ------------------------------------------------------------------------

    def put(self, key: str, value: Buffer, *, pin: bool = False) -> None:
        """Store ``value`` under ``key``; an existing key keeps its first value (no error).

        ``pin=True`` keeps the object out of eviction (and out of ``remove`` without force).

        Raises:
            InvalidKey, InvalidParams (unsupported or non-contiguous value), StoreFull, NotReady.
        """
        self._check_key(key)
        src = borrowed_view(value, field="value")  # the caller holds `value` for the call
        with self._lock:
            self._store().put(key, src, pin=pin)

    def upsert(self, key: str, value: Buffer, *, pin: bool = False) -> None:
        """Store ``value`` under ``key``, replacing any previous value.

        Raises:
            InvalidKey, InvalidParams, StoreFull, NotReady. A leased object may be replaced (its
            lease carries over); if the new value fits nowhere the old one is gone too.
        """
        self._check_key(key)
        src = borrowed_view(value, field="value")  # the caller holds `value` for the call
        with self._lock:
            self._store().put(key, src, pin=pin, replace=True)

    def batch_put(self, keys: Sequence[str], values: Sequence[Buffer], *, pin: bool = False) -> list[StoreError | None]:
        """Put each pair; one result per key: None on success or the StoreError it raised.

        Raises:
            InvalidParams: ``keys`` and ``values`` differ in length.
        """
        if len(keys) != len(values):
            raise InvalidParams(f"values: {len(values)} values for {len(keys)} keys")
        results: list[StoreError | None] = []
        with self._lock:  # one acquisition for the whole batch
            for key, value in zip(keys, values):
                try:
                    self._check_key(key)
                    src = borrowed_view(value, field="value")  # `values` holds it meanwhile
                    self._store().put(key, src, pin=pin)
                    results.append(None)
                except StoreError as exc:
                    results.append(exc)
        return results

    def remove(self, key: str, *, force: bool = False) -> None:
        """Delete ``key``.

        Raises:
            ObjectNotFound; ObjectHasLease / PinnedObject unless ``force``; NotReady.
        """
        self._check_key(key)
        with self._lock:
            self._store().remove(key, force=force)

    def remove_all(self) -> int:
        """Delete every object that is neither leased nor pinned; return how many went."""
        with self._lock:
            store = self._store()
            removed = 0
            for key in list(store.entries):
                entry = store.entries[key]
                if entry.pinned or store.leased(entry):
                    continue
                store.remove(key)
                removed += 1
            return removed

    # ----- reads -------------------------------------------------------------------------

    def get(self, key: str) -> bytes:
        """The value of ``key``; takes a lease.

        Raises:
            ObjectNotFound, ChecksumMismatch (a corrupt disk copy, then forgotten), NotReady.
        """
        self._check_key(key)
        with self._lock:
            return self._store().read(key)

    def get_into(self, key: str, dest: Buffer) -> int:
        """Copy the value of ``key`` into ``dest``; return its size in bytes; takes a lease.

        ``dest`` may be a torch tensor (CPU or CUDA), numpy array, bytearray or writable
        memoryview, contiguous and at least ``size_of(key)`` bytes long.

        Raises:
            ObjectNotFound, BufferTooSmall, InvalidParams (read-only or odd dest),
            ChecksumMismatch, NotReady.
        """
        if type(key) is not str or not key or len(key) > self._short_key:
            self._check_key(key)
        view = borrowed_view(dest, writable=True, field="dest")  # `dest` outlives the call
        with self._lock:
            store = self._tiered
            if store is None:
                raise NotReady("store is closed")
            return store.read_into(key, view)

    def batch_get_into(self, keys: Sequence[str], dests: Sequence[Buffer]) -> list[int | StoreError]:
        """:meth:`get_into` for each pair; one result per key: bytes read or the StoreError.

        The batch holds the lock once and leases every object it reads from the same clock
        reading, which is what makes 16-64 KiB blocks cheap to read in bulk.

        Raises:
            InvalidParams: ``keys`` and ``dests`` differ in length.
        """
        if len(keys) != len(dests):
            raise InvalidParams(f"dests: {len(dests)} buffers for {len(keys)} keys")
        views: list[ByteView | StoreError] = []
        append, short = views.append, self._short_key
        with self._lock:  # one acquisition and one clock reading (the leases' start) per batch
            store = self._tiered
            for key, dest in zip(keys, dests):
                try:
                    if type(key) is not str or not key or len(key) > short:
                        self._check_key(key)
                    view = borrowed_view(dest, writable=True, field="dest")  # `dests` holds it
                    if store is None:
                        raise NotReady("store is closed")
                    append(view)
                except StoreError as exc:
                    append(exc)
            if store is None:
                return [v for v in views if isinstance(v, StoreError)]  # all of them, here
            return store.read_many_into(keys, views, store.clock())

    def exists(self, key: str) -> bool:
        """Whether ``key`` is stored (no lease taken). Raises InvalidKey, NotReady."""
        self._check_key(key)
        with self._lock:
            return key in self._store().entries

    def batch_exists(self, keys: Sequence[str]) -> list[bool]:
        """:meth:`exists` for each key (no lease). Raises InvalidKey, NotReady."""
        for key in keys:
            self._check_key(key)
        with self._lock:
            entries = self._store().entries
            return [key in entries for key in keys]

    def size_of(self, key: str) -> int:
        """Size of the value in bytes. Raises ObjectNotFound, NotReady."""
        self._check_key(key)
        with self._lock:
            return self._store().entry(key).size

    def lookup_prefix(self, keys: Sequence[str]) -> int:
        """How many leading ``keys`` are stored (stops at the first absent one; no lease)."""
        with self._lock:
            entries = self._store().entries
            for index, key in enumerate(keys):
                if key not in entries:
                    return index
            return len(keys)

    def keys(self) -> list[str]:
        """Every stored key (in no particular order)."""
        with self._lock:
            return self._store().keys()

    def tier_of(self, key: str) -> str:
        """Name of the tier holding ``key`` now. Raises ObjectNotFound."""
        with self._lock:
            store = self._store()
            return store.tiers[store.entry(key).tier].name

    # ----- in place (see reference_store.reservation) -----------------------------------

    def reserve(self, key: str, nbytes: int, *, upsert: bool = False,
                pin: bool = False) -> Reservation:
        """Room for an object of ``nbytes`` whose bytes are then written into
        ``reservation.buffer`` (straight into the host arena when it can make room there);
        the object is invisible until ``commit()``; ``abort()`` leaves no trace.

        Raises:
            InvalidKey, InvalidParams (bad ``nbytes``), NotReady.
        """
        from reference_store.reservation import Reservation, check_nbytes

        self._check_key(key)
        return Reservation(self, key, check_nbytes(nbytes), upsert=upsert, pin=pin)

    def reserve_many(self, items: Sequence[tuple[str, int]], *, upsert: bool = False,
                     pin: bool = False) -> list[Reservation]:
        """:meth:`reserve` for each ``(key, nbytes)``, in one pass under the store's lock (a
        receiver of many objects in one frame); commit or abort them together with
        :func:`~reference_store.reservation.commit_all` and
        :func:`~reference_store.reservation.abort_all`.

        Raises:
            InvalidKey, InvalidParams (bad ``nbytes``), NotReady: nothing stays reserved.
        """
        from reference_store.reservation import check_nbytes, reserve_all

        checked = []
        for key, nbytes in items:
            self._check_key(key)
            checked.append((key, check_nbytes(nbytes)))
        return reserve_all(self, checked, upsert=upsert, pin=pin)

    def borrow(self, key: str, *, copy: bool = True) -> Borrow:
        """A read-only view of ``key``'s bytes, kept from eviction until ``release()`` (use it
        as a context manager); takes a lease and counts a hit like ``get_into``. Without
        ``copy``, an object outside the host arena is neither read nor promoted: the borrow
        then holds no bytes (``offset`` None, ``nbytes`` the object's size), so that asking
        where an object lies costs no disk read.

        Raises:
            InvalidKey, ObjectNotFound, ChecksumMismatch, NotReady.
        """
        from reference_store.reservation import Borrow

        self._check_key(key)
        return Borrow(self, key, copy=copy)

    def borrow_many(self, keys: Sequence[str], *, copy: bool = True) -> list[Borrow | StoreError]:
        """:meth:`borrow` of each key in one pass under the store's lock (a sender of many
        objects in one frame): each key's borrow, or the StoreError it raised (InvalidKey,
        ObjectNotFound, ChecksumMismatch); release them together with
        :func:`~reference_store.reservation.release_all`.

        Raises:
            NotReady: the store was closed.
        """
        from reference_store.reservation import borrow_all

        bad: dict[int, StoreError] = {}
        for i, key in enumerate(keys):
            try:
                self._check_key(key)
            except InvalidKey as exc:
                bad[i] = exc
        taken = iter(borrow_all(self, [k for i, k in enumerate(keys) if i not in bad], copy=copy))
        return [bad[i] if i in bad else next(taken) for i in range(len(keys))]

    def lendable_arena(self) -> ArenaTier | None:
        """The top tier when it is a CPU arena that :meth:`reserve` and :meth:`borrow` lend
        from, else None: a storage node offers it to clients as a segment, and the ``offset``
        of a direct reservation or borrow is a position in it."""
        from reference_store.reservation import arena_of

        with self._lock:
            return arena_of(self._store().tiers[0])

    def stats(self) -> StoreStats:
        with self._lock:
            store = self._store()
            c = store.counters
            entries = store.entries.values()
            return StoreStats(
                tiers=tuple(store.tier_stats()), objects=len(store.entries), hits=c.hits,
                misses=c.misses, evictions=c.evictions, demotions=c.demotions, drops=c.drops,
                promotions=c.promotions,
                leased_objects=sum(1 for e in entries if store.leased(e)),
                pinned_objects=sum(1 for e in entries if e.pinned),
                hits_per_tier={t.name: n for t, n in zip(store.tiers, c.hits_per_tier)},
            )

    def close(self) -> None:
        """Release the tiers (disk objects stay on disk). Later calls raise NotReady."""
        with self._lock:
            if self._tiered is None:
                return
            for tier in self._tiered.tiers:
                tier.close()
            self._tiered = None
