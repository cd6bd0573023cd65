"""Break-even prefix length: prediction from measured speeds, then measurement."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reference_store import EmbeddedStore, StoreConfig
from replay.breakeven import measure_break_even
from replay.model import ModelConfig, TinyTransformer


@pytest.fixture()
def store() -> Iterator[EmbeddedStore]:
    s = EmbeddedStore(StoreConfig(host_bytes=32 << 20))
    try:
        yield s
    finally:
        s.close()


def test_result_is_complete_and_consistent(store: EmbeddedStore) -> None:
    model = TinyTransformer(ModelConfig(layers=1, heads=2, width=32, vocab_size=512))
    res = measure_break_even(model, store, grid=(16, 64, 256), rounds=3)
    assert [p.prefix_tokens for p in res.points] == [16, 64, 256]
    assert res.bandwidth_bytes_per_s > 0 and res.load_latency_s >= 0
    assert all(p.recompute_s > 0 and p.load_s > 0 for p in res.points)
    # the predicted recompute cost grows with the prompt; predicted load grows with the blocks
    rec = [p.predicted_recompute_s for p in res.points]
    load = [p.predicted_load_s for p in res.points]
    assert rec == sorted(rec) and load == sorted(load)
    for be in (res.predicted_break_even_tokens, res.measured_break_even_tokens):
        assert be is None or be in (16, 64, 256)
    assert res.block_bytes == model.cfg.block_nbytes


def test_grid_must_be_whole_blocks(store: EmbeddedStore) -> None:
    model = TinyTransformer(ModelConfig(layers=1, heads=2, width=32))
    with pytest.raises(ValueError, match="multiple of 16"):
        measure_break_even(model, store, grid=(10,))
