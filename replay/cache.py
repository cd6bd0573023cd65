"""An instance's local prefix cache: KV blocks keyed by block hash, least recently used first out.

This plays the part of a paged engine's GPU block pool with prefix caching on: a lookup returns
the longest run of leading block hashes present, and a full pool evicts the least recently used
block.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import torch

__all__ = ["LocalCacheStats", "LocalPrefixCache"]


@dataclass
class LocalCacheStats:
    """Counters since creation (or the last :meth:`LocalPrefixCache.clear`)."""

    capacity_blocks: int
    blocks: int = 0
    inserted: int = 0
    evicted: int = 0
    hit_blocks: int = 0
    queried_blocks: int = 0


class LocalPrefixCache:
    """A bounded LRU map from block hash to a KV block tensor. Thread-safe.

    Raises:
        ValueError: ``capacity_blocks`` below 0.
    """

    def __init__(self, capacity_blocks: int) -> None:
        if capacity_blocks < 0:
            raise ValueError(f"local_cache_blocks: must be >= 0, got {capacity_blocks}")
        self._blocks: OrderedDict[bytes, torch.Tensor] = OrderedDict()
        self._lock = threading.Lock()
        self.stats = LocalCacheStats(capacity_blocks=capacity_blocks)

    def match(self, hashes: Sequence[bytes]) -> list[torch.Tensor]:
        """The blocks of the longest present prefix of ``hashes`` (each touched as recently used)."""
        found: list[torch.Tensor] = []
        with self._lock:
            for h in hashes:
                block = self._blocks.get(h)
                if block is None:
                    break
                self._blocks.move_to_end(h)
                found.append(block)
            self.stats.hit_blocks += len(found)
            self.stats.queried_blocks += len(hashes)
        return found

    def put(self, block_hash: bytes, block: torch.Tensor) -> None:
        """Insert (or refresh) one block, evicting the least recently used beyond capacity."""
        with self._lock:
            if block_hash in self._blocks:
                self._blocks.move_to_end(block_hash)
                return
            if self.stats.capacity_blocks == 0:
                return
            self._blocks[block_hash] = block
            self.stats.inserted += 1
            while len(self._blocks) > self.stats.capacity_blocks:
                self._blocks.popitem(last=False)
                self.stats.evicted += 1
            self.stats.blocks = len(self._blocks)

    def clear(self) -> None:
        """Drop every block and reset the counters (an instance restart)."""
        with self._lock:
            self._blocks.clear()
            self.stats = LocalCacheStats(capacity_blocks=self.stats.capacity_blocks)

    def __len__(self) -> int:
        return len(self._blocks)
