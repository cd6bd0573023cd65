"""The ``Store`` protocol: what an in-process store and a cluster client both offer.

:class:`~reference_store.embedded.EmbeddedStore` (this process's memory and disk) and
:class:`~reference_store.client.StoreClient` (a cluster) satisfy it, so code written against
``Store`` runs on either: a cache connector, a benchmark, a test. Each has more besides (tiers
and reservations; replicas and segments), which is why this is a protocol and not a base class.

The rules both keep: a ``put`` of an existing key keeps the first value (``upsert`` replaces
it); batch calls answer one result per key, in order, an error object instead of raising; an
error names its key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from reference_store.errors import StoreError

__all__ = ["Store"]


@runtime_checkable
class Store(Protocol):
    """A key-value store of byte objects (see the module docstring for the shared rules)."""

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key`` unless the key exists. Raises: StoreError."""
        ...

    def upsert(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key``, replacing an existing value. Raises: StoreError."""
        ...

    def batch_put(self, keys: Sequence[str], values: Sequence[Any]) -> list[StoreError | None]:
        """Put many objects; one error (or None) per key."""
        ...

    def get(self, key: str) -> bytes:
        """The object's bytes. Raises: ObjectNotFound, StoreError."""
        ...

    def get_into(self, key: str, dest: Any) -> int:
        """Read the object into ``dest``; its size. Raises: ObjectNotFound, BufferTooSmall."""
        ...

    def batch_get_into(self, keys: Sequence[str], dests: Sequence[Any]) -> list[int | StoreError]:
        """Read many objects; a size or an error per key."""
        ...

    def exists(self, key: str) -> bool:
        """Whether ``key`` is stored."""
        ...

    def batch_exists(self, keys: Sequence[str]) -> list[bool]:
        """Whether each key is stored."""
        ...

    def size_of(self, key: str) -> int:
        """The object's size in bytes. Raises: ObjectNotFound."""
        ...

    def remove(self, key: str, *, force: bool = False) -> None:
        """Remove ``key``. Raises: ObjectNotFound, ObjectHasLease, PinnedObject."""
        ...

    def keys(self) -> list[str]:
        """The stored keys."""
        ...

    def close(self) -> None:
        """Release what the store holds; later calls fail."""
        ...
