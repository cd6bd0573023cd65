"""A small real decoder-only transformer whose prefill produces paged KV blocks.

Random weights drawn from a fixed seed: the model computes nothing useful, but it does exactly the
work a real one does (projections, rotary positions, causal attention, MLP) so that prefill time
grows with the tokens computed, decode time with the tokens generated, and a cached prefix
removes prefill work and nothing else.

KV layout: the working cache of a sequence is one tensor ``[layers, 2, tokens, heads, head_dim]``
(2 = key, value; keys stored after rotary embedding, as paged engines do). A *block* is the
contiguous tensor ``[layers, 2, block_size, heads, head_dim]`` for ``block_size`` consecutive
tokens; that is the unit the prefix cache and the store hold.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import torch
import torch.nn.functional as F

__all__ = ["DEFAULT_MODEL", "ModelConfig", "PrefillResult", "TinyTransformer"]


@dataclass(frozen=True, kw_only=True)
class ModelConfig:
    """Shape of the model. ``width`` must be a multiple of ``heads``."""

    name: str = "tiny-rope-2l-128"
    revision: str = "seed0"
    layers: int = 2
    heads: int = 4
    width: int = 128
    mlp_ratio: int = 4
    vocab_size: int = 4096
    block_size: int = 16
    seed: int = 0
    dtype: str = "float32"

    def __post_init__(self) -> None:
        for field in ("layers", "heads", "width", "vocab_size", "block_size", "mlp_ratio"):
            if getattr(self, field) < 1:
                raise ValueError(f"model.{field}: must be >= 1")
        if self.width % self.heads:
            raise ValueError(f"model.width: {self.width} is not a multiple of heads={self.heads}")
        if (self.width // self.heads) % 2:
            raise ValueError("model.width: head_dim must be even for rotary embeddings")
        if self.dtype not in ("float32", "bfloat16", "float16"):
            raise ValueError(f"model.dtype: unsupported {self.dtype!r}")

    @property
    def head_dim(self) -> int:
        return self.width // self.heads

    @property
    def torch_dtype(self) -> torch.dtype:
        return getattr(torch, self.dtype)

    @property
    def block_shape(self) -> tuple[int, int, int, int, int]:
        return (self.layers, 2, self.block_size, self.heads, self.head_dim)

    @property
    def block_nbytes(self) -> int:
        return math.prod(self.block_shape) * torch.empty((), dtype=self.torch_dtype).element_size()


DEFAULT_MODEL = ModelConfig()


@dataclass
class PrefillResult:
    """KV of the whole prompt, the first generated token and the work done."""

    kv: torch.Tensor  # [layers, 2, capacity, heads, head_dim]; first `length` rows valid
    length: int
    first_token: int
    computed_tokens: int
    attention_pairs: int


class _Layer:
    def __init__(self, cfg: ModelConfig, gen: torch.Generator) -> None:
        w, dt = cfg.width, cfg.torch_dtype

        def init(*shape: int) -> torch.Tensor:
            return (torch.randn(*shape, generator=gen) * 0.02).to(dt)

        self.qkv = init(3 * w, w)
        self.out = init(w, w)
        self.up = init(cfg.mlp_ratio * w, w)
        self.down = init(w, cfg.mlp_ratio * w)


class TinyTransformer:
    """Prefill (optionally continuing from cached KV) and greedy decode."""

    def __init__(self, cfg: ModelConfig = DEFAULT_MODEL) -> None:
        self.cfg = cfg
        gen = torch.Generator().manual_seed(cfg.seed)
        self.embed = (torch.randn(cfg.vocab_size, cfg.width, generator=gen) * 0.02).to(
            cfg.torch_dtype)
        self.layers = [_Layer(cfg, gen) for _ in range(cfg.layers)]
        half = cfg.head_dim // 2
        self._inv_freq = 1.0 / (10000 ** (torch.arange(half, dtype=torch.float32) / half))

    def new_kv(self, capacity: int) -> torch.Tensor:
        """An empty working KV cache for ``capacity`` tokens."""
        c = self.cfg
        return torch.empty(c.layers, 2, capacity, c.heads, c.head_dim, dtype=c.torch_dtype)

    def _rope(self, x: torch.Tensor, start: int) -> torch.Tensor:
        # x: [tokens, heads, head_dim]
        pos = torch.arange(start, start + x.shape[0], dtype=torch.float32)
        ang = torch.outer(pos, self._inv_freq)
        cos, sin = ang.cos().to(x.dtype)[:, None, :], ang.sin().to(x.dtype)[:, None, :]
        x1, x2 = x[..., ::2], x[..., 1::2]
        return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)

    def _forward(self, tokens: list[int], kv: torch.Tensor, start: int) -> torch.Tensor:
        """Run ``tokens`` at positions ``start..``, writing their KV into ``kv``; last hidden."""
        c = self.cfg
        n, end = len(tokens), start + len(tokens)
        x = self.embed[torch.tensor(tokens, dtype=torch.long)]
        mask = None
        if n > 1:
            q_pos = torch.arange(start, end)[:, None]
            mask = torch.arange(end)[None, :] <= q_pos
        for i, layer in enumerate(self.layers):
            h = F.rms_norm(x, (c.width,))
            q, k, v = (h @ layer.qkv.T).view(n, 3, c.heads, c.head_dim).unbind(1)
            kv[i, 0, start:end] = self._rope(k, start)
            kv[i, 1, start:end] = v
            q = self._rope(q, start).transpose(0, 1)
            keys, vals = kv[i, 0, :end].transpose(0, 1), kv[i, 1, :end].transpose(0, 1)
            att = F.scaled_dot_product_attention(q, keys, vals, attn_mask=mask)
            x = x + att.transpose(0, 1).reshape(n, c.width) @ layer.out.T
            h = F.rms_norm(x, (c.width,))
            x = x + F.silu(h @ layer.up.T) @ layer.down.T
        return F.rms_norm(x[-1], (c.width,))

    def _next_token(self, hidden: torch.Tensor) -> int:
        return int(torch.argmax(hidden @ self.embed.T))

    @torch.inference_mode()
    def prefill(self, tokens: list[int], *, cached: torch.Tensor | None = None,
                cached_len: int = 0, extra_capacity: int = 0) -> PrefillResult:
        """Compute KV for ``tokens[cached_len:]`` on top of ``cached`` (KV of the first tokens).

        ``cached`` is a working cache (``[layers, 2, >=cached_len, heads, head_dim]``) or None.

        Raises:
            ValueError: no token left to compute, or ``cached`` too short or of the wrong shape.
        """
        if not tokens or cached_len >= len(tokens):
            raise ValueError("prefill: at least one prompt token must be computed")
        kv = self.new_kv(len(tokens) + extra_capacity)
        if cached_len:
            if cached is None or cached.shape[2] < cached_len or cached.shape[3:] != kv.shape[3:]:
                raise ValueError("prefill: cached KV is missing or does not fit the model")
            kv[:, :, :cached_len] = cached[:, :, :cached_len]
        hidden = self._forward(tokens[cached_len:], kv, cached_len)
        n = len(tokens) - cached_len
        pairs = n * cached_len + n * (n + 1) // 2
        return PrefillResult(kv=kv, length=len(tokens), first_token=self._next_token(hidden),
                             computed_tokens=n, attention_pairs=pairs)

    @torch.inference_mode()
    def decode(self, state: PrefillResult, steps: int) -> Iterator[int]:
        """Yield ``steps`` greedy tokens after the prompt; the first is ``state.first_token``."""
        token = state.first_token
        for step in range(steps):
            yield token
            if step == steps - 1:
                return
            pos = state.length + step
            if pos >= state.kv.shape[2]:
                grown = self.new_kv(pos + max(16, steps))
                grown[:, :, :pos] = state.kv[:, :, :pos]
                state.kv = grown
            token = self._next_token(self._forward([token], state.kv, pos))

    def blocks(self, kv: torch.Tensor, first: int, count: int) -> list[torch.Tensor]:
        """Contiguous copies of blocks ``first .. first+count-1`` of a working cache."""
        bs = self.cfg.block_size
        return [kv[:, :, (first + i) * bs:(first + i + 1) * bs].contiguous()
                for i in range(count)]

    def assemble(self, blocks: list[torch.Tensor]) -> torch.Tensor:
        """A working cache made of whole blocks, in order."""
        if not blocks:
            return self.new_kv(0)
        return torch.cat(blocks, dim=2)
