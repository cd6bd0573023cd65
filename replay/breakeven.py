"""Break-even prefix length: above which loading cached KV beats recomputing it.

For a prompt of ``L`` reusable prefix tokens plus ``s`` new tokens, compare

* recompute: prefill all ``L + s`` tokens;
* load: look up and read the ``L / block_size`` blocks from the store, then prefill ``s`` tokens
  on top of them.

*Prediction* uses two measured speeds only: prefill cost fitted as
``t = a + b * tokens_computed + c * attention_pairs`` on full prefills of several lengths, and the
store's read path as ``t = t0 + bytes / bandwidth`` from a one-block and a many-block read. The
predicted break-even is the shortest prefix on the grid where predicted load time < predicted
recompute time. *Measurement* then times both paths at every grid length (median of ``rounds``)
and reports the shortest length from which loading stays faster.
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from pydantic import BaseModel

from replay.model import TinyTransformer

__all__ = ["DEFAULT_GRID", "BreakEvenPoint", "BreakEvenResult", "measure_break_even"]

DEFAULT_GRID: tuple[int, ...] = (16, 32, 64, 128, 256, 512, 1024)


class BreakEvenPoint(BaseModel):
    prefix_tokens: int
    recompute_s: float
    load_s: float
    predicted_recompute_s: float
    predicted_load_s: float


class BreakEvenResult(BaseModel):
    suffix_tokens: int
    block_bytes: int
    rounds: int
    prefill_fit: dict[str, float]
    load_latency_s: float
    bandwidth_bytes_per_s: float
    predicted_break_even_tokens: int | None
    measured_break_even_tokens: int | None
    points: list[BreakEvenPoint]

    @property
    def agrees(self) -> bool:
        """Prediction and measurement name the same grid point (or both say never)."""
        return self.predicted_break_even_tokens == self.measured_break_even_tokens


def _median_time(fn: Callable[[], Any], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _paired_medians(first: Callable[[], Any], second: Callable[[], Any],
                    rounds: int) -> tuple[float, float]:
    """Median times of two paths timed alternately, so both see the same machine load."""
    a: list[float] = []
    b: list[float] = []
    for i in range(rounds):
        for fn, out in ((first, a), (second, b)) if i % 2 == 0 else ((second, b), (first, a)):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return statistics.median(a), statistics.median(b)


def _tokens(n: int, vocab: int, seed: int = 7) -> list[int]:
    return [int(x) for x in np.random.default_rng(seed).integers(0, vocab, size=n)]


def _fit_prefill(model: TinyTransformer, lengths: Sequence[int], rounds: int) -> dict[str, float]:
    rows, ys = [], []
    for n in lengths:
        toks = _tokens(n, model.cfg.vocab_size)
        ys.append(_median_time(lambda: model.prefill(toks), rounds))  # noqa: B023
        rows.append([1.0, float(n), n * (n + 1) / 2.0])
    # relative error weighting: short prompts matter as much as long ones
    w = 1.0 / np.array(ys)
    coef, *_ = np.linalg.lstsq(np.array(rows) * w[:, None], np.ones(len(ys)), rcond=None)
    a, b, c = (max(0.0, float(x)) for x in coef)
    return {"a": a, "b": b, "c": c}


def _predict_prefill(fit: dict[str, float], computed: int, cached: int) -> float:
    pairs = computed * cached + computed * (computed + 1) / 2.0
    return fit["a"] + fit["b"] * computed + fit["c"] * pairs


class _Loader:
    """The engine's read path: lookup, allocate, batch read, assemble."""

    def __init__(self, model: TinyTransformer, store: Any) -> None:
        self.model, self.store = model, store

    def put(self, nblocks: int) -> list[str]:
        keys = [f"breakeven/{uuid.uuid4().hex}" for _ in range(nblocks)]
        block = torch.randn(self.model.cfg.block_shape).to(self.model.cfg.torch_dtype)
        errors = self.store.batch_put(keys, [block] * nblocks)
        bad = [e for e in errors if e is not None]
        if bad:
            raise RuntimeError(f"break-even: store refused {len(bad)} blocks: {bad[0]}")
        return keys

    def load(self, keys: list[str]) -> torch.Tensor:
        from replay.engine import _lookup_prefix
        found = _lookup_prefix(self.store, keys)
        dests = [torch.empty(self.model.cfg.block_shape, dtype=self.model.cfg.torch_dtype)
                 for _ in range(found)]
        self.store.batch_get_into(keys[:found], dests)
        return self.model.assemble(dests)


def measure_break_even(model: TinyTransformer, store: Any, *, grid: Sequence[int] = DEFAULT_GRID,
                       suffix_tokens: int = 16, rounds: int = 5) -> BreakEvenResult:
    """Predict, then measure, the break-even prefix length for ``model`` and ``store``.

    Raises:
        ValueError: a grid length that is not a positive multiple of the block size.
        RuntimeError: the store refused the test blocks.
    """
    bs = model.cfg.block_size
    if not grid or any(g <= 0 or g % bs for g in grid):
        raise ValueError(f"grid: every prefix length must be a positive multiple of {bs}")
    loader = _Loader(model, store)
    model.prefill(_tokens(64, model.cfg.vocab_size))  # warm the kernels once
    fit = _fit_prefill(model, sorted({*grid, *(g + suffix_tokens for g in grid)}), rounds)
    many = max(grid) // bs
    one_keys, many_keys = loader.put(1), loader.put(many)
    t_one = _median_time(lambda: loader.load(one_keys), rounds)
    t_many = _median_time(lambda: loader.load(many_keys), rounds)
    extra = (many - 1) * model.cfg.block_nbytes
    bandwidth = extra / (t_many - t_one) if t_many > t_one else float("inf")
    latency = max(0.0, t_one - model.cfg.block_nbytes / bandwidth)
    points = [_point(model, loader, fit, latency, bandwidth, L, suffix_tokens, rounds)
              for L in sorted(grid)]
    return BreakEvenResult(
        suffix_tokens=suffix_tokens, block_bytes=model.cfg.block_nbytes, rounds=rounds,
        prefill_fit=fit, load_latency_s=latency, bandwidth_bytes_per_s=bandwidth,
        predicted_break_even_tokens=_crossing(points, predicted=True),
        measured_break_even_tokens=_crossing(points, predicted=False), points=points)


def _point(model: TinyTransformer, loader: _Loader, fit: dict[str, float], latency: float,
           bandwidth: float, prefix: int, suffix: int, rounds: int) -> BreakEvenPoint:
    bs = model.cfg.block_size
    toks = _tokens(prefix + suffix, model.cfg.vocab_size, seed=prefix)
    keys = loader.put(prefix // bs)

    def load_path() -> None:
        cached = loader.load(keys)
        model.prefill(toks, cached=cached, cached_len=prefix)

    recompute, load = _paired_medians(lambda: model.prefill(toks), load_path, rounds)
    pred_load = (latency + (prefix // bs) * model.cfg.block_nbytes / bandwidth
                 + _predict_prefill(fit, suffix, prefix))
    return BreakEvenPoint(prefix_tokens=prefix, recompute_s=recompute, load_s=load,
                          predicted_recompute_s=_predict_prefill(fit, prefix + suffix, 0),
                          predicted_load_s=pred_load)


def _crossing(points: Sequence[BreakEvenPoint], *, predicted: bool) -> int | None:
    """Shortest prefix from which loading is faster at that and every longer grid point."""
    answer = None
    for p in reversed(points):
        load, rec = ((p.predicted_load_s, p.predicted_recompute_s) if predicted
                     else (p.load_s, p.recompute_s))
        if load < rec:
            answer = p.prefix_tokens
        else:
            break
    return answer
