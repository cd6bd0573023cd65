"""A reference Mooncake-style KV-cache store: vLLM-compatible keys, tiered embedded store,
a master, storage nodes and clients (bytes over TCP frames, or one-sided through shared memory
or Mooncake's Transfer Engine). The replay harness that drives it is the separate ``replay``
package; this one never imports it.

Public names load on first use (PEP 562), so a process that needs only the master or the
keys does not pay for importing torch. Other parts add their names to ``_EXPORTS``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    "block_hashes": "reference_store.keys",
    "BufferTooSmall": "reference_store.errors",
    "ChecksumMismatch": "reference_store.errors",
    "EmbeddedStore": "reference_store.embedded",
    "EngineConfig": "reference_store.transport.transfer_engine",
    "hash_block_tokens": "reference_store.keys",
    "InvalidKey": "reference_store.errors",
    "InvalidParams": "reference_store.errors",
    "LeaseExpired": "reference_store.errors",
    "LocalCluster": "reference_store.local_cluster",
    "longest_cached_prefix": "reference_store.keys",
    "LoraRef": "reference_store.keys",
    "Master": "reference_store.master",
    "MasterConfig": "reference_store.master",
    "MissReason": "reference_store.keys",
    "MultiModalItem": "reference_store.keys",
    "Node": "reference_store.node",
    "NodeConfig": "reference_store.node",
    "none_hash": "reference_store.keys",
    "NotReady": "reference_store.errors",
    "ObjectAlreadyExists": "reference_store.errors",
    "ObjectHasLease": "reference_store.errors",
    "ObjectKey": "reference_store.keys",
    "ObjectNotFound": "reference_store.errors",
    "PinnedObject": "reference_store.errors",
    "PrefixResult": "reference_store.keys",
    "Store": "reference_store.store",
    "StoreClient": "reference_store.client",
    "StoreConfig": "reference_store.config",
    "StoreError": "reference_store.errors",
    "StoreFull": "reference_store.errors",
    "StoreStats": "reference_store.embedded",
    "StrictModel": "reference_store.config",
    "Size": "reference_store.config",
    "parse_size": "reference_store.config",
    "format_size": "reference_store.config",
    "TenantPolicy": "reference_store.tenants",
    "TransferError": "reference_store.errors",
}

__all__ = [
    "BufferTooSmall",
    "ChecksumMismatch",
    "EmbeddedStore",
    "EngineConfig",
    "InvalidKey",
    "InvalidParams",
    "LeaseExpired",
    "LocalCluster",
    "LoraRef",
    "Master",
    "MasterConfig",
    "MissReason",
    "MultiModalItem",
    "Node",
    "NodeConfig",
    "NotReady",
    "ObjectAlreadyExists",
    "ObjectHasLease",
    "ObjectKey",
    "ObjectNotFound",
    "PinnedObject",
    "PrefixResult",
    "Size",
    "Store",
    "StoreClient",
    "StoreConfig",
    "StoreError",
    "StoreFull",
    "StoreStats",
    "StrictModel",
    "TenantPolicy",
    "TransferError",
    "block_hashes",
    "format_size",
    "hash_block_tokens",
    "longest_cached_prefix",
    "none_hash",
    "parse_size",
]

if TYPE_CHECKING:  # pragma: no cover
    from reference_store.client import StoreClient
    from reference_store.config import Size, StoreConfig, StrictModel, format_size, parse_size
    from reference_store.embedded import EmbeddedStore, StoreStats
    from reference_store.errors import (
        BufferTooSmall,
        ChecksumMismatch,
        InvalidKey,
        InvalidParams,
        LeaseExpired,
        NotReady,
        ObjectAlreadyExists,
        ObjectHasLease,
        ObjectNotFound,
        PinnedObject,
        StoreError,
        StoreFull,
        TransferError,
    )
    from reference_store.keys import (
        LoraRef,
        MissReason,
        MultiModalItem,
        ObjectKey,
        PrefixResult,
        block_hashes,
        hash_block_tokens,
        longest_cached_prefix,
        none_hash,
    )
    from reference_store.local_cluster import LocalCluster
    from reference_store.master import Master, MasterConfig
    from reference_store.node import Node, NodeConfig
    from reference_store.store import Store
    from reference_store.tenants import TenantPolicy
    from reference_store.transport.transfer_engine import EngineConfig


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'reference_store' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
