"""Routing policies: which instance gets a request.

* ``round_robin``: in turn, ignoring load and content.
* ``least_loaded``: the instance with the fewest requests in flight (lowest index on ties).
* ``prefix_affinity``: the instance that already holds the longest prefix of the prompt's blocks
  (as far as this router has seen: it remembers the block hashes it sent to each instance), unless
  that instance has more than ``balance_threshold`` requests in flight beyond the least loaded
  one; a prompt no instance knows goes to the least loaded (then the one that has been sent the
  fewest blocks). This is the cache-aware policy of
  production routers, kept small.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Literal

from reference_store.keys import block_hashes

__all__ = ["ROUTING_POLICIES", "Router", "RoutingPolicy"]

RoutingPolicy = Literal["round_robin", "least_loaded", "prefix_affinity"]
ROUTING_POLICIES: tuple[str, ...] = ("round_robin", "least_loaded", "prefix_affinity")


class Router:
    """Chooses among ``n`` instances. Thread-safe.

    Raises:
        ValueError: unknown policy or ``n`` below 1.
    """

    def __init__(self, policy: str, n: int, *, block_size: int = 16,
                 balance_threshold: int = 4, memory_blocks: int = 100_000) -> None:
        if policy not in ROUTING_POLICIES:
            raise ValueError(f"routing.policy: unknown {policy!r}; one of {ROUTING_POLICIES}")
        if n < 1:
            raise ValueError("routing: at least one instance is needed")
        self.policy, self.n, self.block_size = policy, n, block_size
        self.balance_threshold = balance_threshold
        self.inflight = [0] * n
        self._next = 0
        self._lock = threading.Lock()
        self._seen: list[OrderedDict[bytes, None]] = [OrderedDict() for _ in range(n)]
        self._memory = memory_blocks

    def choose(self, prompt: Sequence[int]) -> int:
        """Pick an instance for ``prompt`` and count the request as in flight there."""
        with self._lock:
            if self.policy == "round_robin":
                choice = self._next % self.n
                self._next += 1
            elif self.policy == "least_loaded":
                choice = self._least_loaded()
            else:
                choice = self._affinity(prompt)
            self.inflight[choice] += 1
            return choice

    def done(self, instance: int) -> None:
        """The request sent to ``instance`` finished."""
        with self._lock:
            self.inflight[instance] = max(0, self.inflight[instance] - 1)

    def _least_loaded(self) -> int:
        return min(range(self.n), key=lambda i: (self.inflight[i], i))

    def _emptiest(self) -> int:
        """Least loaded, ties broken by the fewest blocks sent there (spreads new prompts)."""
        return min(range(self.n), key=lambda i: (self.inflight[i], len(self._seen[i]), i))

    def _affinity(self, prompt: Sequence[int]) -> int:
        hashes = block_hashes(list(prompt), self.block_size, "xxhash_cbor", hash_seed="router")
        best, best_len = self._emptiest(), 0
        for i, seen in enumerate(self._seen):
            length = 0
            for h in hashes:
                if h not in seen:
                    break
                length += 1
            if length > best_len:
                best, best_len = i, length
        lightest = self._least_loaded()
        if self.inflight[best] - self.inflight[lightest] > self.balance_threshold:
            best = lightest
        seen = self._seen[best]
        for h in hashes:
            seen[h] = None
            seen.move_to_end(h)
        while len(seen) > self._memory:
            seen.popitem(last=False)
        return best
