"""The device tier: an arena on the accelerator (CUDA when present, else CPU standing in)."""

from __future__ import annotations

import torch

from reference_store.tiers.allocator import DEFAULT_ALIGNMENT
from reference_store.tiers.host import ArenaTier

__all__ = ["DeviceTier", "default_device"]


def default_device() -> torch.device:
    """``cuda`` when a GPU is visible, otherwise ``cpu``."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


class DeviceTier(ArenaTier):
    """One preallocated tensor on ``device``; reads and writes go straight between it and the
    caller's tensor with a single ``copy_`` (or memcpy when it stands in on the CPU)."""

    def __init__(
        self,
        capacity: int,
        *,
        device: torch.device | str | None = None,
        alignment: int = 256,
        placement: str = "best_fit",
    ) -> None:
        dev = default_device() if device is None else torch.device(device)
        super().__init__(capacity, name="device", device=dev, pin_memory=False,
                         alignment=max(alignment, DEFAULT_ALIGNMENT), placement=placement)
