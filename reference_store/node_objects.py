"""The life of an object on a storage node, as one state machine.

::

                begin_receive            received
    (unknown) ───────────────► RECEIVING ────────► STORED ◄──────────────┐
        ▲                         │  │               │ begin_read         │ end_read
        │  abandon / received     │  │ remove        ▼                    │ (last reader)
        └─────────────────────────┘  └──► CANCELLED READING ──────────────┘
        ▲  (thrown away)                     │        │ remove
        │                                    │        ▼
        └──── abandon / received ◄───────────┘   DELETE_PENDING ── end_read (last) ──► (unknown)
                                                       STORED ── remove ──► (unknown)

- ``RECEIVING``: room is reserved and bytes are arriving; not readable, the id is taken.
- ``STORED``: committed and readable.
- ``READING``: stored, with responses or pins still sending from its bytes (``readers``).
- ``DELETE_PENDING``: removed while being read: gone for readers and reports, its bytes freed
  when the last read ends (their room must not be reused under a send).
- ``CANCELLED``: removed while being received (the master took the put over): its commit
  throws it away.

Ids are never reused, so an id that has left the machine never comes back. Every transition
is one method here, under one lock; each says whether the caller must now free the bytes in
the store (the store calls happen outside the lock). The node keeps no other record of its
objects.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from reference_store.errors import ObjectAlreadyExists
from reference_store.transport.messages import ObjectRecord

__all__ = ["NodeObjects", "ObjectState"]


class ObjectState(enum.Enum):
    RECEIVING = "receiving"
    STORED = "stored"
    READING = "reading"
    DELETE_PENDING = "delete_pending"
    CANCELLED = "cancelled"


@dataclass(slots=True)
class _Entry:
    state: ObjectState
    record: ObjectRecord | None = None  # known once received
    readers: int = 0
    digest: int | None = None  # xxh3_64 of its bytes, when checked as they arrived


class NodeObjects:
    """Every object id a node knows, each in one :class:`ObjectState` (thread-safe)."""

    def __init__(self) -> None:
        self._entries: dict[int, _Entry] = {}
        self._lock = threading.Lock()

    def state(self, oid: int) -> ObjectState | None:
        """The id's state (None: unknown, or gone)."""
        with self._lock:
            entry = self._entries.get(oid)
            return entry.state if entry is not None else None

    def count(self, state: ObjectState) -> int:
        with self._lock:
            return sum(1 for e in self._entries.values() if e.state is state)

    def begin_receive(self, ids: list[int]) -> None:
        """unknown -> RECEIVING for every id, or for none.

        Raises:
            ObjectAlreadyExists: an id is taken (listed twice, stored or being received: ids
                are never reused, so a used one means a forged or replayed write).
        """
        with self._lock:
            taken = [oid for oid in ids if oid in self._entries]
            if taken or len(set(ids)) != len(ids):
                raise ObjectAlreadyExists(f"object {(taken or ids)[0]} is already stored "
                                          "or being received")
            for oid in ids:
                self._entries[oid] = _Entry(ObjectState.RECEIVING)

    def received(self, oid: int, record: ObjectRecord, digest: int | None = None) -> bool:
        """RECEIVING -> STORED (True), with the xxh3_64 its bytes were checked against on the
        way in when known (reads send it as is); a CANCELLED one leaves (False: free its
        bytes)."""
        with self._lock:
            return self._received(oid, record, digest)

    def _received(self, oid: int, record: ObjectRecord, digest: int | None) -> bool:
        entry = self._entries.get(oid)
        if entry is None or entry.state is not ObjectState.RECEIVING:
            self._entries.pop(oid, None)
            return False
        entry.state, entry.record, entry.digest = ObjectState.STORED, record, digest
        return True

    def received_all(self, items: Sequence[tuple[int, ObjectRecord, int | None]]) -> list[bool]:
        """:meth:`received` for each ``(oid, record, digest)``, under one lock."""
        with self._lock:
            return [self._received(oid, record, digest) for oid, record, digest in items]

    def digest(self, oid: int) -> int | None:
        """The xxh3_64 recorded by :meth:`received` (None: unknown, or not recorded)."""
        with self._lock:
            entry = self._entries.get(oid)
            return entry.digest if entry is not None else None

    def abandon(self, ids: list[int]) -> None:
        """RECEIVING or CANCELLED -> unknown: the bytes never came (or were refused)."""
        with self._lock:
            for oid in ids:
                entry = self._entries.get(oid)
                if entry is not None and entry.state in (ObjectState.RECEIVING,
                                                         ObjectState.CANCELLED):
                    del self._entries[oid]

    def begin_read(self, oid: int, size: int) -> bool:
        """STORED or READING of ``size`` bytes -> READING, one reader more; False when the
        object is not readable (unknown, not yet received, removed, or another size)."""
        with self._lock:
            return self._begin_read(oid, size)

    def _begin_read(self, oid: int, size: int) -> bool:
        entry = self._entries.get(oid)
        if (entry is None or entry.state not in (ObjectState.STORED, ObjectState.READING)
                or entry.record is None or entry.record.size != size):
            return False
        entry.state = ObjectState.READING
        entry.readers += 1
        return True

    def begin_read_all(self, items: Sequence[tuple[int, int]]) -> list[tuple[bool, int | None]]:
        """:meth:`begin_read` for each ``(oid, size)``, under one lock: whether it began, and
        the object's digest as :meth:`digest` gives it."""
        with self._lock:
            return [(True, self._entries[oid].digest) if self._begin_read(oid, size)
                    else (False, None) for oid, size in items]

    def end_read_all(self, ids: Sequence[int]) -> list[int]:
        """:meth:`end_read` for each id, under one lock: the ids whose bytes to free now."""
        with self._lock:
            return [oid for oid in ids if self._end_read(oid)]

    def end_read(self, oid: int) -> bool:
        """One reader less; the last one takes READING -> STORED, or DELETE_PENDING -> unknown
        (True: free its bytes now)."""
        with self._lock:
            return self._end_read(oid)

    def _end_read(self, oid: int) -> bool:
        entry = self._entries.get(oid)
        if entry is None or entry.readers == 0:
            return False
        entry.readers -= 1
        if entry.readers:
            return False
        if entry.state is ObjectState.DELETE_PENDING:
            del self._entries[oid]
            return True
        entry.state = ObjectState.STORED
        return False

    def remove(self, oid: int) -> tuple[bool, bool]:
        """The master removed ``oid``: ``(counted, free_now)``. STORED -> unknown (counted, free
        now); READING -> DELETE_PENDING (counted, freed by the last reader); RECEIVING ->
        CANCELLED (its commit throws it away); anything else: nothing to do."""
        with self._lock:
            entry = self._entries.get(oid)
            if entry is None:
                return False, False
            if entry.state is ObjectState.STORED:
                del self._entries[oid]
                return True, True
            if entry.state is ObjectState.READING:
                entry.state = ObjectState.DELETE_PENDING
                return True, False
            if entry.state is ObjectState.RECEIVING:
                entry.state = ObjectState.CANCELLED
            return False, False

    def report(self) -> list[ObjectRecord]:
        """The records of the readable objects (STORED or READING): what the master may list."""
        with self._lock:
            return [e.record for e in self._entries.values() if e.record is not None
                    and e.state in (ObjectState.STORED, ObjectState.READING)]
