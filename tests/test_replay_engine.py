"""A serving instance: local prefix cache, shared EmbeddedStore, correctness of loaded KV."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reference_store import EmbeddedStore, StoreConfig
from replay.engine import (
    DoneEvent,
    InstanceConfig,
    RequestStats,
    ServingInstance,
    TokenEvent,
)
from replay.model import ModelConfig, TinyTransformer

CFG = ModelConfig(layers=1, heads=2, width=32, vocab_size=256, block_size=16, seed=3)
PROMPT = [(i * 11) % 256 for i in range(100)]  # 6 full blocks + 4 tokens


@pytest.fixture(scope="module")
def model() -> TinyTransformer:
    return TinyTransformer(CFG)


@pytest.fixture()
def store() -> Iterator[EmbeddedStore]:
    s = EmbeddedStore(StoreConfig(host_bytes=16 << 20))
    try:
        yield s
    finally:
        s.close()


def serve(inst: ServingInstance, prompt: list[int], n: int = 4,
          tenant: str | None = None) -> tuple[list[int], RequestStats]:
    tokens, stats = [], None
    for ev in inst.generate(prompt, n, tenant=tenant):
        if isinstance(ev, TokenEvent):
            tokens.append(ev.token)
        elif isinstance(ev, DoneEvent):
            stats = ev.stats
    assert stats is not None
    return tokens, stats


def test_local_hit_skips_full_blocks_but_computes_the_tail(model: TinyTransformer) -> None:
    inst = ServingInstance(model)
    cold_out, cold = serve(inst, PROMPT)
    warm_out, warm = serve(inst, PROMPT)
    assert cold.hit_tokens == 0 and cold.computed_tokens == 100 and cold.saved_blocks == 6
    assert warm.local_hit_tokens == 96 and warm.computed_tokens == 4
    assert warm_out == cold_out  # reused KV gives the same answer
    assert cold.output_tokens == warm.output_tokens == 4


def test_a_prompt_of_whole_blocks_still_computes_its_last_block(model: TinyTransformer) -> None:
    inst = ServingInstance(model)
    serve(inst, PROMPT[:64])
    _, again = serve(inst, PROMPT[:64])
    assert again.local_hit_tokens == 48 and again.computed_tokens == 16


def test_shared_store_carries_kv_between_instances(model: TinyTransformer,
                                                   store: EmbeddedStore) -> None:
    a = ServingInstance(model, InstanceConfig(name="a"), store=store)
    b = ServingInstance(model, InstanceConfig(name="b"), store=store)
    out_a, _ = serve(a, PROMPT)
    out_b, sb = serve(b, PROMPT)
    assert sb.store_hit_tokens == 96 and sb.local_hit_tokens == 0
    assert sb.transfer_bytes == 6 * CFG.block_nbytes and sb.transfer_s > 0
    assert out_b == out_a
    _, again = serve(b, PROMPT)  # loaded blocks were promoted into b's local cache
    assert again.local_hit_tokens == 96 and again.store_hit_tokens == 0


def test_without_store_other_instances_miss(model: TinyTransformer) -> None:
    a, b = ServingInstance(model), ServingInstance(model)
    serve(a, PROMPT)
    _, sb = serve(b, PROMPT)
    assert sb.hit_tokens == 0


def test_salt_isolation_keeps_tenants_apart(model: TinyTransformer, store: EmbeddedStore) -> None:
    cfg = InstanceConfig(isolation="salt")
    a, b = ServingInstance(model, cfg, store=store), ServingInstance(model, cfg, store=store)
    serve(a, PROMPT, tenant="tenant-a")
    _, other = serve(b, PROMPT, tenant="tenant-b")
    _, same = serve(b, PROMPT, tenant="tenant-a")
    assert other.hit_tokens == 0
    assert same.store_hit_tokens == 96


def test_local_cache_evicts_least_recently_used(model: TinyTransformer) -> None:
    inst = ServingInstance(model, InstanceConfig(local_cache_blocks=8))
    serve(inst, PROMPT)                                  # 6 blocks
    _, second = serve(inst, [t ^ 1 for t in PROMPT])     # 6 more: 4 evicted
    assert second.local_evictions == 4
    assert inst.local.stats.evicted == 4 and len(inst.local) == 8
    _, third = serve(inst, PROMPT)
    assert third.local_hit_tokens == 0                   # its first blocks were the oldest


def test_restart_loses_the_local_cache_but_not_the_store(model: TinyTransformer,
                                                         store: EmbeddedStore) -> None:
    inst = ServingInstance(model, store=store)
    serve(inst, PROMPT)
    inst.restart()
    _, after = serve(inst, PROMPT)
    assert after.local_hit_tokens == 0 and after.store_hit_tokens == 96


def test_bad_requests_raise_value_errors(model: TinyTransformer) -> None:
    inst = ServingInstance(model)
    with pytest.raises(ValueError, match="prompt"):
        list(inst.generate([], 3))
    with pytest.raises(ValueError, match="max_tokens"):
        list(inst.generate([1], 0))
    with pytest.raises(ValueError, match=r"\[0, 256\)"):
        list(inst.generate([999], 1))
    with pytest.raises(ValueError, match="local_cache_blocks"):
        InstanceConfig(local_cache_blocks=-1)
