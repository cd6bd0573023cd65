"""Writing and reading an embedded store's objects in place, without a staging copy.

A :class:`Reservation` is room for one object carved out of the host arena before its bytes
exist: a network receiver ``recv_into``s :attr:`Reservation.buffer` directly, checks the
payload's hash, then :meth:`~Reservation.commit`s (the object becomes visible) or
:meth:`~Reservation.abort`s (the room goes back; nothing else changed). A :class:`Borrow` is
the read-side twin: a read-only view of a stored object's bytes in the arena, protected from
eviction until it is released, so a sender can ``sendmsg`` straight from the arena.

Where the store cannot hand out arena memory (the top tier is not a CPU arena, it cannot make
room there, the object lives on disk), both fall back to a private buffer and a copy, with the
same semantics. ``direct`` says which path was taken.

Both are made by :meth:`reference_store.embedded.EmbeddedStore.reserve` and
:meth:`~reference_store.embedded.EmbeddedStore.borrow`, take the store's lock, and use the arena
tier's lending API (:meth:`ArenaTier.claim`, ``unclaim``, ``adopt``, ``view``) and
:meth:`TieredStore.adopt`.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Self

from reference_store.errors import InvalidParams, StoreError
from reference_store.tiers.host import ArenaTier
from reference_store.tiers.tiered import Entry

if TYPE_CHECKING:
    from reference_store.tiers.tiered import TieredStore

__all__ = ["Borrow", "Reservation", "abort_all", "borrow_all", "commit_all", "release_all",
           "reserve_all"]

logger = logging.getLogger(__name__)

def arena_of(tier: Any) -> ArenaTier | None:
    """``tier`` when it is a CPU arena whose memory can be lent out, else None."""
    return tier if isinstance(tier, ArenaTier) and tier.lendable else None


class Reservation:
    """Room for one object, written through :attr:`buffer`, invisible until :meth:`commit`.

    Use it as a context manager to abort automatically when the block raises.
    """

    def __init__(self, owner: Any, key: str, nbytes: int, *, upsert: bool, pin: bool,
                 claim: bool = True) -> None:
        self._owner = owner            # the EmbeddedStore (its lock and tiers)
        self.key = key
        self.nbytes = nbytes
        self.upsert = upsert
        self.pin = pin
        self._offset: int | None = None
        self._tier: Any = None
        self._done = False
        # without ``claim`` the room is claimed later, by reserve_all, under its lock
        self.buffer = self._claim() if claim else memoryview(b"")

    @property
    def direct(self) -> bool:
        """True when :attr:`buffer` is the object's final place in the host arena."""
        return self._offset is not None

    @property
    def offset(self) -> int | None:
        """Where :attr:`buffer` starts in the host arena (None when not :attr:`direct`)."""
        return self._offset

    def _claim(self) -> memoryview:
        with self._owner._lock:
            return self._claim_in(self._owner._store())

    def _claim_in(self, store: TieredStore) -> memoryview:
        """The room, claimed with the store's lock held."""
        tier = arena_of(store.tiers[0]) if self.nbytes else None
        if tier is not None and store.make_room(0, self.key, self.nbytes, {self.key}):
            claimed = tier.claim(self.nbytes)
            if claimed is not None:
                self._offset, self._tier = claimed[0], tier
                return claimed[1]
        return memoryview(bytearray(self.nbytes))

    def commit(self) -> bool:
        """Make the object visible; returns False when ``key`` already existed and this is not
        an upsert (the first value is kept and the room goes back, as ``put`` does).

        Raises:
            InvalidParams: the reservation was already committed or aborted.
            NotReady: the store was closed.
            StoreFull: (indirect reservations only) no tier could take the object.
        """
        with self._owner._lock:
            return self._commit_locked()

    def _commit_locked(self) -> bool:
        if self._done:
            raise InvalidParams("reservation: already committed or aborted")
        self._done = True
        store: TieredStore = self._owner._store()
        if not self.direct:
            return store.put(self.key, self.buffer, pin=self.pin, replace=self.upsert)
        assert self._offset is not None
        if not store.adopt(self.key, self._offset, self.nbytes, pin=self.pin,
                           replace=self.upsert):
            self._release()
            return False
        return True

    def abort(self) -> None:
        """Give the room back; the store is as if the reservation never happened. Idempotent."""
        with self._owner._lock:
            self._abort_locked()

    def _abort_locked(self) -> None:
        if self._done:
            return
        self._done = True
        if self.direct and self._owner._tiered is not None:
            self._release()

    def _release(self) -> None:
        assert self._offset is not None
        self._tier.unclaim(self._offset)
        self._offset = None
        self.buffer = memoryview(b"")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is not None or not self._done:
            self.abort()

    def __del__(self) -> None:
        if not getattr(self, "_done", True):
            logger.warning("reservation for %r dropped without commit or abort", self.key)
            try:
                self.abort()
            except Exception:  # noqa: BLE001 - never raise from a finaliser
                pass


def reserve_all(owner: Any, items: Sequence[tuple[str, int]], *, upsert: bool,
                pin: bool) -> list[Reservation]:
    """A :class:`Reservation` for each ``(key, nbytes)``, claimed in one pass under the store's
    lock: what as many ``owner.reserve`` calls do, without taking the lock for each.

    Raises:
        NotReady: the store was closed (nothing stays reserved).
    """
    out = [Reservation(owner, key, nbytes, upsert=upsert, pin=pin, claim=False)
           for key, nbytes in items]
    with owner._lock:
        try:
            store: TieredStore = owner._store()
            for res in out:
                res.buffer = res._claim_in(store)
        except BaseException:
            for res in out:
                res._abort_locked()
            raise
    return out


def commit_all(reservations: Sequence[Reservation]) -> list[bool | StoreError]:
    """:meth:`Reservation.commit` of each (all of one store), in one pass under the store's
    lock: each one's answer, or the StoreError its commit raised (that one is then aborted)."""
    out: list[bool | StoreError] = []
    if not reservations:
        return out
    owner = reservations[0]._owner
    with owner._lock:
        for res in reservations:
            if res._done:
                out.append(InvalidParams("reservation: already committed or aborted"))
                continue
            try:
                out.append(res._commit_locked())
            except StoreError as exc:
                if res.direct and owner._tiered is not None:
                    res._release()  # nothing was adopted: the room goes back
                out.append(exc)
    return out


def abort_all(reservations: Sequence[Reservation]) -> None:
    """:meth:`Reservation.abort` of each (all of one store), in one pass under its lock."""
    if reservations:
        with reservations[0]._owner._lock:
            for res in reservations:
                res._abort_locked()


class Borrow:
    """A read-only view of a stored object's bytes, kept from eviction until :meth:`release`.

    While borrowed, the object holds an unbounded lease: eviction, demotion, ``remove`` without
    force and ``remove_all`` leave it alone. A forced remove or an upsert of the same key still
    frees the room, so callers that may do either must wait for their own borrows to end.
    """

    def __init__(self, owner: Any, key: str, *, copy: bool = True, take: bool = True) -> None:
        self._owner = owner
        self.key = key
        self._entry: Entry | None = None
        self.offset: int | None = None  # where the bytes start in the arena, when direct
        self.nbytes = 0
        # without ``take`` the bytes are taken later, by borrow_all, under its lock
        self.buffer = self._take(copy) if take else memoryview(b"")

    @property
    def direct(self) -> bool:
        """True when :attr:`buffer` points into the host arena (no copy was made)."""
        return self._entry is not None

    def _take(self, copy: bool) -> memoryview:
        """The bytes: lent from the arena, or else a copy; without ``copy`` an object outside
        the arena is not read at all (an empty buffer, ``offset`` None, ``nbytes`` its size)."""
        with self._owner._lock:
            return self._take_in(self._owner._store(), copy)

    def _take_in(self, store: TieredStore, copy: bool) -> memoryview:
        """:meth:`_take` with the store's lock held."""
        owner = self._owner
        entry = store.entries.get(self.key)
        tier = arena_of(store.tiers[entry.tier]) if entry is not None else None
        if entry is None or tier is None or self.key not in tier:
            if entry is not None and not copy:
                self.nbytes = entry.size
                return memoryview(b"")
            view = memoryview(bytearray(entry.size if entry is not None else 0))
            store.read_into(self.key, view)  # raises ObjectNotFound when absent
            self.nbytes = view.nbytes
            return view.toreadonly()
        store._touch(self.key, entry)
        table = owner.__dict__.setdefault("_borrows", {})
        slot = table.get(self.key)
        if slot is None or slot[0] is not entry:
            slot = table[self.key] = [entry, 0, entry.lease_until]
        slot[1] += 1  # slot[2]: the lease before the first borrow, restored by the last
        entry.lease_until = math.inf
        self._entry = entry
        self.offset = tier.offset_of(self.key)
        lent = tier.view(self.key)
        assert isinstance(lent, memoryview)  # a lendable arena is CPU memory
        self.nbytes = lent.nbytes
        return lent

    def release(self) -> None:
        """End the borrow (idempotent); the object's lease goes back to what it was."""
        with self._owner._lock:
            self._release_locked()

    def _release_locked(self) -> None:
        entry, self._entry = self._entry, None
        self.buffer = memoryview(b"")
        if entry is None:
            return
        table = self._owner.__dict__.get("_borrows", {})
        slot = table.get(self.key)
        if slot is None or slot[0] is not entry:
            return
        slot[1] -= 1
        if slot[1] == 0:
            del table[self.key]
            entry.lease_until = slot[2]

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def check_nbytes(nbytes: Any) -> int:
    """Validate a reservation size. Raises InvalidParams."""
    if type(nbytes) is not int or nbytes < 0:
        raise InvalidParams(f"nbytes: must be a non-negative int, got {nbytes!r}")
    return nbytes


def borrow_all(owner: Any, keys: Sequence[str], *, copy: bool = True) -> list[Borrow | StoreError]:
    """A :class:`Borrow` of each key, taken in one pass under the store's lock (what as many
    ``owner.borrow`` calls do, without taking the lock for each), or the StoreError that
    key's borrow raised.

    Raises:
        NotReady: the store was closed.
    """
    out: list[Borrow | StoreError] = []
    with owner._lock:
        store: TieredStore = owner._store()
        for key in keys:
            borrow = Borrow(owner, key, copy=copy, take=False)
            try:
                borrow.buffer = borrow._take_in(store, copy)
            except StoreError as exc:
                out.append(exc)
                continue
            out.append(borrow)
    return out


def release_all(borrows: Sequence[Borrow]) -> None:
    """:meth:`Borrow.release` of each (all of one store), in one pass under its lock."""
    if borrows:
        with borrows[0]._owner._lock:
            for borrow in borrows:
                borrow._release_locked()
