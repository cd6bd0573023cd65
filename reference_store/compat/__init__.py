"""Facades with the shape of other stores' client APIs (Mooncake's for now)."""

from reference_store.compat.mooncake import MooncakeDistributedStore, ReplicateConfig

__all__ = ["MooncakeDistributedStore", "ReplicateConfig"]
