"""A serving instance: the tiny model, a local prefix cache, optionally a shared KV store.

A request's full prompt blocks are hashed with vLLM's block hash (``reference_store.keys``).
The instance reuses the longest prefix found first in its local cache and then, for the blocks
after that, in the shared store; a store hit is *loaded* (copied into fresh tensors, timed as
transfer) instead of recomputed. At least one prompt token is always computed, as in vLLM, to
produce the logits of the first output token. After the first token is sent, newly computed full
blocks go to the local cache and are written to the store (timed separately: it delays the end of
the request, not its first token).

The instance computes one request at a time (one accelerator, no batching): the queue wait shows
up in time to first token, as it does on a saturated server.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

import torch

from reference_store.errors import StoreError
from reference_store.keys import ObjectKey, block_hashes
from replay.cache import LocalPrefixCache
from replay.model import TinyTransformer

__all__ = [
    "DoneEvent",
    "InstanceConfig",
    "KVStore",
    "RequestStats",
    "ServingInstance",
    "TokenEvent",
]

logger = logging.getLogger(__name__)


class KVStore(Protocol):
    """What an instance needs of a shared store (EmbeddedStore and the store client have it),
    plus ``lookup_prefix(keys)`` or ``batch_exists(keys)``."""

    def batch_get_into(self, keys: Sequence[str], dests: Sequence[Any]) -> list[Any]: ...

    def batch_put(self, keys: Sequence[str], values: Sequence[Any]) -> list[Any]: ...


def _lookup_prefix(store: Any, keys: Sequence[str]) -> int:
    """Leading keys present; ``lookup_prefix`` when the store has it, else ``batch_exists``."""
    if not keys:
        return 0
    lookup = getattr(store, "lookup_prefix", None)
    if lookup is not None:
        return int(lookup(keys))
    count = 0
    for present in store.batch_exists(keys):
        if not present:
            break
        count += 1
    return count


@dataclass(frozen=True, kw_only=True)
class InstanceConfig:
    """How one instance caches. ``isolation='salt'`` puts the tenant in the block hash."""

    name: str = "instance0"
    local_cache_blocks: int = 4096
    hash_algo: str = "sha256_cbor"
    isolation: Literal["shared", "salt"] = "shared"
    write_to_store: bool = True

    def __post_init__(self) -> None:
        if self.local_cache_blocks < 0:
            raise ValueError("instance.local_cache_blocks: must be >= 0")
        if self.isolation not in ("shared", "salt"):
            raise ValueError(f"instance.isolation: unknown {self.isolation!r}")


@dataclass
class RequestStats:
    """What one request cost, as the instance saw it (times in seconds)."""

    instance: str
    prompt_tokens: int
    output_tokens: int = 0
    local_hit_tokens: int = 0
    store_hit_tokens: int = 0
    computed_tokens: int = 0
    attention_pairs: int = 0
    queue_s: float = 0.0
    transfer_s: float = 0.0
    transfer_bytes: int = 0
    prefill_s: float = 0.0
    save_s: float = 0.0
    saved_blocks: int = 0
    decode_s: float = 0.0
    local_evictions: int = 0
    store_errors: int = 0

    @property
    def hit_tokens(self) -> int:
        return self.local_hit_tokens + self.store_hit_tokens

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TokenEvent:
    token: int


@dataclass(frozen=True)
class DoneEvent:
    stats: RequestStats


@dataclass
class _Plan:
    hashes: list[bytes]
    keys: list[str]
    blocks: list[torch.Tensor] = field(default_factory=list)


class ServingInstance:
    """One model replica with its caches. ``generate`` is safe to call from many threads."""

    def __init__(self, model: TinyTransformer, cfg: InstanceConfig = InstanceConfig(),
                 store: KVStore | None = None) -> None:
        self.model, self.cfg, self.store = model, cfg, store
        self.local = LocalPrefixCache(cfg.local_cache_blocks)
        self._busy = threading.Lock()
        self.inflight = 0

    def restart(self) -> None:
        """Lose the local cache, as a restarted process would (the shared store keeps its data)."""
        with self._busy:
            self.local.clear()
        logger.info("instance %s restarted: local cache cleared", self.cfg.name)

    def _keys(self, prompt: list[int], tenant: str | None) -> _Plan:
        salt = tenant if self.cfg.isolation == "salt" and tenant else None
        hashes = block_hashes(prompt, self.model.cfg.block_size, self.cfg.hash_algo,
                              cache_salt=salt)
        name = self.model.cfg.name
        return _Plan(hashes, [str(ObjectKey(model=name, block_hash=h)) for h in hashes])

    def _load(self, plan: _Plan, usable: int, stats: RequestStats) -> None:
        bs = self.model.cfg.block_size
        plan.blocks = self.local.match(plan.hashes[:usable])
        stats.local_hit_tokens = len(plan.blocks) * bs
        if self.store is None or len(plan.blocks) >= usable:
            return
        t0 = time.perf_counter()
        first = len(plan.blocks)
        try:
            found = _lookup_prefix(self.store, plan.keys[first:usable])
            dests = [torch.empty(self.model.cfg.block_shape, dtype=self.model.cfg.torch_dtype)
                     for _ in range(found)]
            results = (self.store.batch_get_into(plan.keys[first:first + found], dests)
                       if found else [])
        except (StoreError, OSError) as exc:
            # a store that is down or restarting costs a miss, never the request
            logger.warning("%s: store read failed, recomputing: %s", self.cfg.name, exc)
            stats.store_errors += 1
            results, dests = [], []
        for i, r in enumerate(results):
            if not isinstance(r, int) or r < 0:
                stats.store_errors += 1
                break  # a block lost between lookup and read ends the usable prefix
            plan.blocks.append(dests[i])
            self.local.put(plan.hashes[first + i], dests[i])
            stats.transfer_bytes += r
        stats.transfer_s = time.perf_counter() - t0
        stats.store_hit_tokens = (len(plan.blocks) - first) * bs

    def _save(self, plan: _Plan, kv: torch.Tensor, first: int, stats: RequestStats) -> None:
        count = len(plan.hashes) - first
        if count <= 0:
            return
        t0 = time.perf_counter()
        blocks = self.model.blocks(kv, first, count)
        before = self.local.stats.evicted
        for h, b in zip(plan.hashes[first:], blocks):
            self.local.put(h, b)
        stats.local_evictions = self.local.stats.evicted - before
        if self.store is not None and self.cfg.write_to_store:
            try:
                errors = self.store.batch_put(plan.keys[first:], blocks)
                stats.store_errors += sum(e is not None for e in errors)
            except (StoreError, OSError) as exc:
                logger.warning("%s: store write failed: %s", self.cfg.name, exc)
                stats.store_errors += 1
        stats.saved_blocks = count
        stats.save_s = time.perf_counter() - t0

    def generate(self, prompt: list[int], max_tokens: int, *,
                 tenant: str | None = None) -> Iterator[TokenEvent | DoneEvent]:
        """Serve one request: token events as they are produced, then the request's stats.

        Raises:
            ValueError: empty prompt, ``max_tokens`` below 1, or a token id outside the vocabulary.
        """
        if not prompt:
            raise ValueError("prompt: must not be empty")
        if max_tokens < 1:
            raise ValueError("max_tokens: must be >= 1")
        vocab = self.model.cfg.vocab_size
        if min(prompt) < 0 or max(prompt) >= vocab:
            raise ValueError(f"prompt: token ids must lie in [0, {vocab})")
        stats = RequestStats(instance=self.cfg.name, prompt_tokens=len(prompt))
        t_wait = time.perf_counter()
        self.inflight += 1
        try:
            with self._busy:
                stats.queue_s = time.perf_counter() - t_wait
                yield from self._serve(prompt, max_tokens, tenant, stats)
        finally:
            self.inflight -= 1
        yield DoneEvent(stats)

    def _serve(self, prompt: list[int], max_tokens: int, tenant: str | None,
               stats: RequestStats) -> Iterator[TokenEvent]:
        plan = self._keys(prompt, tenant)
        usable = (len(prompt) - 1) // self.model.cfg.block_size
        self._load(plan, usable, stats)
        hit = len(plan.blocks) * self.model.cfg.block_size
        t0 = time.perf_counter()
        cached = self.model.assemble(plan.blocks) if plan.blocks else None
        state = self.model.prefill(prompt, cached=cached, cached_len=hit,
                                   extra_capacity=max_tokens)
        stats.prefill_s = time.perf_counter() - t0
        stats.computed_tokens, stats.attention_pairs = state.computed_tokens, state.attention_pairs
        tokens = self.model.decode(state, max_tokens)
        yield TokenEvent(next(tokens))
        stats.output_tokens = 1
        self._save(plan, state.kv, len(plan.blocks), stats)
        while True:  # decode time counts the model's work only, not the consumer's
            t1 = time.perf_counter()
            tok = next(tokens, None)
            stats.decode_s += time.perf_counter() - t1
            if tok is None:
                return
            stats.output_tokens += 1
            yield TokenEvent(tok)
