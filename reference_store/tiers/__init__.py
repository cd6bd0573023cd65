"""Storage tiers: device and host arenas, the disk tier, and the tiered store over them."""

from reference_store.tiers.allocator import Allocator, AllocatorStats
from reference_store.tiers.base import Tier, TierStats, byte_view
from reference_store.tiers.device import DeviceTier, default_device
from reference_store.tiers.disk import DiskTier
from reference_store.tiers.host import ArenaTier, HostTier
from reference_store.tiers.tiered import Entry, TieredStore

__all__ = [
    "Allocator",
    "AllocatorStats",
    "ArenaTier",
    "DeviceTier",
    "DiskTier",
    "Entry",
    "HostTier",
    "Tier",
    "TierStats",
    "TieredStore",
    "byte_view",
    "default_device",
]
