"""A reference Mooncake-style KV-cache store: vLLM-compatible keys, tiered embedded store.

Other parts add their public names to ``__all__`` below (keep it one flat list).
"""

from reference_store.client import StoreClient
from reference_store.config import StoreConfig
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
from reference_store.master import Master, MasterConfig
from reference_store.node import Node, NodeConfig
from reference_store.tenants import TenantPolicy

__all__ = [
    "BufferTooSmall",
    "ChecksumMismatch",
    "EmbeddedStore",
    "InvalidKey",
    "InvalidParams",
    "LeaseExpired",
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
    # cluster (issue 6)
    "StoreClient",
    "StoreConfig",
    "StoreError",
    "StoreFull",
    "StoreStats",
    "TenantPolicy",
    "block_hashes",
    "hash_block_tokens",
    "longest_cached_prefix",
    "none_hash",
]
