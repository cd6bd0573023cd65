"""The tiny transformer: prefill on cached KV gives the same state as a full prefill."""

from __future__ import annotations

import pytest
import torch

from replay.model import ModelConfig, TinyTransformer

CFG = ModelConfig(layers=2, heads=2, width=32, vocab_size=256, block_size=16, seed=1)


@pytest.fixture(scope="module")
def model() -> TinyTransformer:
    return TinyTransformer(CFG)


def test_prefill_from_cached_blocks_matches_full_prefill(model: TinyTransformer) -> None:
    tokens = [(i * 7) % 256 for i in range(70)]
    full = model.prefill(tokens)
    cached = model.assemble(model.blocks(full.kv, 0, 3))
    part = model.prefill(tokens, cached=cached, cached_len=48)
    assert part.computed_tokens == 22 and full.computed_tokens == 70
    assert part.first_token == full.first_token
    assert torch.allclose(part.kv[:, :, :70], full.kv[:, :, :70], atol=1e-5)
    assert list(model.decode(part, 6)) == list(model.decode(full, 6))


def test_work_counters_fall_with_a_cached_prefix(model: TinyTransformer) -> None:
    tokens = list(range(64))
    full = model.prefill(tokens)
    part = model.prefill(tokens, cached=model.assemble(model.blocks(full.kv, 0, 2)),
                         cached_len=32)
    assert part.attention_pairs < full.attention_pairs
    assert full.attention_pairs == 64 * 65 // 2


def test_blocks_have_the_paged_shape(model: TinyTransformer) -> None:
    full = model.prefill(list(range(40)))
    blocks = model.blocks(full.kv, 0, 2)
    assert [b.shape for b in blocks] == [torch.Size(CFG.block_shape)] * 2
    assert all(b.is_contiguous() for b in blocks)
    assert CFG.block_nbytes == 2 * 2 * 16 * 2 * 16 * 4


def test_same_seed_same_weights_other_seed_other_output() -> None:
    a, b = TinyTransformer(CFG), TinyTransformer(CFG)
    c = TinyTransformer(ModelConfig(layers=2, heads=2, width=32, vocab_size=256, seed=2))
    toks = list(range(30))
    assert torch.equal(a.prefill(toks).kv, b.prefill(toks).kv)
    assert not torch.equal(a.prefill(toks).kv, c.prefill(toks).kv)


def test_decode_yields_the_requested_number_of_tokens(model: TinyTransformer) -> None:
    state = model.prefill(list(range(20)))  # no extra capacity: decode grows the cache
    assert len(list(model.decode(state, 9))) == 9


def test_bad_inputs(model: TinyTransformer) -> None:
    with pytest.raises(ValueError, match="at least one prompt token"):
        model.prefill([1, 2], cached=model.new_kv(2), cached_len=2)
    with pytest.raises(ValueError, match="cached KV"):
        model.prefill(list(range(20)), cached=None, cached_len=16)
    with pytest.raises(ValueError, match="model.width"):
        ModelConfig(width=30, heads=4)
    with pytest.raises(ValueError, match="model.layers"):
        ModelConfig(layers=0)
