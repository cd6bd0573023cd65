"""vLLM-compatible block hashing and the store's object key.

Block hashes follow vLLM 0.32/0.33 byte for byte (see ``shared/reference/vllm-block-hashing.md``):

* only FULL blocks of ``block_size`` tokens are hashed;
* block ``i`` hashes the 3-tuple ``(parent_hash_bytes, tuple_of_int_tokens, extra_keys)`` where
  the parent of block 0 is ``NONE_HASH = fn(seed)``;
* ``extra_keys`` is ``None`` when empty, otherwise a tuple of tagged entries in the order
  ``("lora", name, path)``, ``("mm", identifier, offset_in_block)`` per overlapping item,
  ``("cache_salt", salt)`` (block 0 only) and ``("prompt_embeds", digest)``.

The seed is a parameter, never read from the environment here: pass the value of
``PYTHONHASHSEED`` that the vLLM instances use (``None`` when unset). For the xxhash family vLLM
draws a random NONE_HASH when no seed is set, so such keys cannot be shared between processes;
:func:`none_hash` refuses that case instead of inventing a seed.

Namespace fields (model, tenant, ranks, KV group, payload layout) never enter the hash; they
live in :class:`ObjectKey`, whose string form is vLLM 0.33 MooncakeStoreConnector's pool key
``[{cache_prefix}@]{model}{store_namespace}@tp_rank:{r}@pcp{r}@dcp{r}@pp_rank:{r}@group:{g}@{hex}``.

Checked against the vLLM 0.33.0 wheel's source (``vllm/v1/core/kv_cache_utils.py``,
``vllm/utils/hashing.py``, ``.../mooncake/store/data.py``); vLLM's optional hash lookahead
(``num_hash_lookahead_tokens``) is not modelled.
"""

from __future__ import annotations

import enum
import hashlib
import operator
import pickle
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import cbor2
import xxhash

from reference_store.errors import InvalidKey, InvalidParams

__all__ = [
    "DEFAULT_BLOCK_SIZE",
    "DEFAULT_HASH_ALGO",
    "HASH_ALGOS",
    "MAX_CACHE_SALT_LEN",
    "SHA256_DEFAULT_SEED",
    "LoraRef",
    "MissReason",
    "MultiModalItem",
    "ObjectKey",
    "PrefixResult",
    "block_extra_keys",
    "block_hashes",
    "hash_block_tokens",
    "hash_function",
    "longest_cached_prefix",
    "none_hash",
    "validate_cache_salt",
]

HASH_ALGOS: tuple[str, ...] = ("sha256", "sha256_cbor", "xxhash", "xxhash_cbor")
DEFAULT_BLOCK_SIZE = 16
DEFAULT_HASH_ALGO = "sha256_cbor"
SHA256_DEFAULT_SEED = "vllm-none-hash"
MAX_CACHE_SALT_LEN = 128
_PICKLE_PROTOCOL = 5  # pickle.HIGHEST_PROTOCOL on Python 3.11, which vLLM uses
_FORBIDDEN_SALT_CHARS = frozenset("@/\\\x00")

HashFn = Callable[[Any], bytes]


def _sha256_pickle(obj: Any) -> bytes:
    return hashlib.sha256(pickle.dumps(obj, protocol=_PICKLE_PROTOCOL)).digest()


def _sha256_cbor(obj: Any) -> bytes:
    return hashlib.sha256(cbor2.dumps(obj, canonical=True)).digest()


def _xxh_pickle(obj: Any) -> bytes:
    return xxhash.xxh3_128_digest(pickle.dumps(obj, protocol=_PICKLE_PROTOCOL))


def _xxh_cbor(obj: Any) -> bytes:
    return xxhash.xxh3_128_digest(cbor2.dumps(obj, canonical=True))


_HASH_FNS: dict[str, HashFn] = {
    "sha256": _sha256_pickle,
    "sha256_cbor": _sha256_cbor,
    "xxhash": _xxh_pickle,
    "xxhash_cbor": _xxh_cbor,
}


def hash_function(algo: str) -> HashFn:
    """Return vLLM's hash function named ``algo``.

    Raises:
        InvalidParams: ``algo`` is not one of :data:`HASH_ALGOS`.
    """
    try:
        return _HASH_FNS[algo]
    except KeyError:
        raise InvalidParams(f"algo: unknown hash algorithm {algo!r}; expected one of {HASH_ALGOS}") from None


def none_hash(algo: str = DEFAULT_HASH_ALGO, hash_seed: str | None = None) -> bytes:
    """The parent hash of block 0: ``fn(hash_seed)``, or ``fn("vllm-none-hash")`` for sha256.

    ``hash_seed`` is the ``PYTHONHASHSEED`` string the vLLM instances run with (None when unset).

    Raises:
        InvalidParams: unknown ``algo``, a non-string seed, or an xxhash algorithm with no seed
            (vLLM then picks a random NONE_HASH, so no other process could share the keys).
    """
    fn = hash_function(algo)
    if hash_seed is not None and not isinstance(hash_seed, str):
        raise InvalidParams(f"hash_seed: must be a string (PYTHONHASHSEED) or None, got {type(hash_seed).__name__}")
    if hash_seed is None:
        if algo.startswith("xxhash"):
            raise InvalidParams(
                f"hash_seed: {algo} without PYTHONHASHSEED gives a random NONE_HASH in vLLM, so keys "
                "would not be shareable; pass the PYTHONHASHSEED value the vLLM instances use"
            )
        hash_seed = SHA256_DEFAULT_SEED
    return fn(hash_seed)


def validate_cache_salt(salt: str) -> str:
    """Check ``salt`` the way vLLM does and return it.

    Raises:
        InvalidParams: not a non-empty string of at most 128 characters without ``@ / \\`` or NUL.
    """
    if not isinstance(salt, str):
        raise InvalidParams(f"cache_salt: must be a string, got {type(salt).__name__}")
    if not salt:
        raise InvalidParams("cache_salt: must not be empty")
    if len(salt) > MAX_CACHE_SALT_LEN:
        raise InvalidParams(f"cache_salt: {len(salt)} characters, at most {MAX_CACHE_SALT_LEN} allowed")
    bad = sorted(set(salt) & _FORBIDDEN_SALT_CHARS)
    if bad:
        raise InvalidParams(f"cache_salt: contains forbidden character(s) {bad!r}")
    return salt


@dataclass(frozen=True, slots=True)
class LoraRef:
    """A LoRA adapter, identified by name and path (never by its registration-order integer id)."""

    name: str
    path: str


@dataclass(frozen=True, slots=True)
class MultiModalItem:
    """A multimodal input occupying ``length`` placeholder tokens starting at token ``offset``.

    ``identifier`` is the content hash vLLM computes for the item (e.g. the image's mm hash).
    """

    identifier: str
    offset: int
    length: int

    def __post_init__(self) -> None:
        if self.offset < 0 or self.length <= 0:
            raise InvalidParams(
                f"mm_items: item {self.identifier!r} needs offset >= 0 and length > 0, "
                f"got offset={self.offset} length={self.length}"
            )


def _embeds_digest(prompt_embeds: Any, start: int, end: int) -> bytes:
    """SHA-256 of the raw bytes of rows ``start:end`` of a numpy array or torch tensor."""
    rows = prompt_embeds[start:end]
    if hasattr(rows, "detach"):  # torch tensor: raw bytes without a dtype round trip
        import torch

        flat = rows.detach().to("cpu").contiguous().reshape(-1).view(torch.uint8)
        return hashlib.sha256(flat.numpy().tobytes()).digest()
    import numpy as np

    return hashlib.sha256(np.ascontiguousarray(rows).tobytes()).digest()


def block_extra_keys(
    block_index: int,
    start: int,
    end: int,
    *,
    lora: LoraRef | None = None,
    mm_items: Sequence[MultiModalItem] = (),
    cache_salt: str | None = None,
    prompt_embeds: Any = None,
) -> tuple[Any, ...] | None:
    """The tagged extra keys of the block covering tokens ``[start, end)``; None when empty.

    A multimodal item's ``offset_in_block`` is ``item.offset - start``: negative when the item
    began in an earlier block and continues into this one.
    """
    keys: list[tuple[Any, ...]] = []
    if lora is not None:
        keys.append(("lora", lora.name, lora.path))
    for item in sorted(mm_items, key=lambda i: i.offset):  # vLLM keeps items in offset order
        if item.offset < end and item.offset + item.length > start:
            keys.append(("mm", item.identifier, item.offset - start))
    if cache_salt is not None and block_index == 0:
        keys.append(("cache_salt", cache_salt))
    if prompt_embeds is not None:
        keys.append(("prompt_embeds", _embeds_digest(prompt_embeds, start, end)))
    return tuple(keys) if keys else None


def _as_int_tuple(tokens: Sequence[Any]) -> tuple[int, ...]:
    if hasattr(tokens, "tolist"):  # numpy array or torch tensor: one conversion, plain ints
        tokens = tokens.tolist()
    try:
        return tuple(map(operator.index, tokens))
    except TypeError as exc:
        raise InvalidParams(f"tokens: every token id must be an integer ({exc})") from None


def hash_block_tokens(
    parent_hash: bytes,
    tokens: Sequence[int],
    extra_keys: tuple[Any, ...] | None = None,
    *,
    algo: str = DEFAULT_HASH_ALGO,
) -> bytes:
    """Hash one block: ``fn((parent_hash, tuple(tokens), extra_keys))``.

    Raises:
        InvalidParams: unknown ``algo``, a non-bytes parent, or non-integer tokens.
    """
    if not isinstance(parent_hash, bytes):
        raise InvalidParams(f"parent_hash: must be bytes, got {type(parent_hash).__name__}")
    return hash_function(algo)((parent_hash, _as_int_tuple(tokens), extra_keys))


def block_hashes(
    tokens: Sequence[int],
    block_size: int = DEFAULT_BLOCK_SIZE,
    algo: str = DEFAULT_HASH_ALGO,
    *,
    hash_seed: str | None = None,
    cache_salt: str | None = None,
    lora: LoraRef | None = None,
    mm_items: Sequence[MultiModalItem] = (),
    prompt_embeds: Any = None,
) -> list[bytes]:
    """Hashes of every full block of ``tokens``, chained from :func:`none_hash`.

    A trailing partial block is not hashed (vLLM never caches it).

    Raises:
        InvalidParams: bad ``block_size``, ``algo``, ``hash_seed``, ``cache_salt`` or tokens.
    """
    if not isinstance(block_size, int) or block_size <= 0:
        raise InvalidParams(f"block_size: must be a positive integer, got {block_size!r}")
    if cache_salt is not None:
        validate_cache_salt(cache_salt)
    fn = hash_function(algo)
    ids = _as_int_tuple(tokens)
    parent = none_hash(algo, hash_seed)
    out: list[bytes] = []
    for index in range(len(ids) // block_size):
        start, end = index * block_size, (index + 1) * block_size
        extra = block_extra_keys(
            index, start, end, lora=lora, mm_items=mm_items,
            cache_salt=cache_salt, prompt_embeds=prompt_embeds,
        )
        parent = fn((parent, ids[start:end], extra))
        out.append(parent)
    return out


# ---------------------------------------------------------------------------------------------
# Object key
# ---------------------------------------------------------------------------------------------

_LAYOUT_RE = re.compile(r"(?:@store_[a-z_]+:[^@]*)+")
_KEY_RE = re.compile(
    r"^(?:(?P<prefix>[^@]+)@)?(?P<model>(?!store_)[^@]+)(?P<layout>(?:@store_[a-z_]+:[^@]*)*)"
    r"@tp_rank:(?P<tp>\d+)@pcp(?P<pcp>\d+)@dcp(?P<dcp>\d+)@pp_rank:(?P<pp>\d+)"
    r"@group:(?P<group>\d+)@(?P<hash>[0-9a-f]+)$"
)


@dataclass(frozen=True, slots=True)
class ObjectKey:
    """Where one KV block lives: the block hash plus namespace fields kept outside the hash.

    ``str(key)`` is vLLM 0.33 MooncakeStoreConnector's pool key
    (``PoolKey.to_string``): ``[{cache_prefix}@]{model}{store_namespace}@tp_rank:{r}@pcp{r}``
    ``@dcp{r}@pp_rank:{r}@group:{g}@{block_hash_hex}``. ``tenant`` is the connector's
    ``cache_prefix`` (one namespace per deployment or tenant) and ``layout`` its
    ``store_namespace``: empty for the historical format, else e.g.
    ``"@store_tp:8@store_pp:1@store_format:tp_sharded"`` (the payload layout: how KV heads
    are sharded, which decides whether two writers' bytes are interchangeable).

    Raises:
        InvalidKey: a field that would make the string form ambiguous (``@`` in model or
            tenant, a model starting with ``store_``, a malformed layout, negative ranks,
            an empty hash).
    """

    model: str
    block_hash: bytes
    tenant: str = ""
    tp_rank: int = 0
    pcp_rank: int = 0
    dcp_rank: int = 0
    pp_rank: int = 0
    kv_group: int = 0
    layout: str = ""

    def __post_init__(self) -> None:
        for name in ("model", "tenant", "layout"):
            if not isinstance(getattr(self, name), str):
                raise InvalidKey(f"{name}: must be a string, got {getattr(self, name)!r}")
        if not self.model or "@" in self.model or self.model.startswith("store_"):
            raise InvalidKey(f"model: must be non-empty, without '@', not starting 'store_'; got {self.model!r}")
        if "@" in self.tenant:
            raise InvalidKey(f"tenant: must not contain '@', got {self.tenant!r}")
        if self.layout and not _LAYOUT_RE.fullmatch(self.layout):
            raise InvalidKey(f"layout: must be '' or like '@store_tp:8@store_pp:1@store_format:x', got {self.layout!r}")
        for name in ("tp_rank", "pcp_rank", "dcp_rank", "pp_rank", "kv_group"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise InvalidKey(f"{name}: must be a non-negative integer, got {value!r}")
        if not isinstance(self.block_hash, bytes) or not self.block_hash:
            raise InvalidKey(f"block_hash: must be non-empty bytes, got {self.block_hash!r}")

    def __str__(self) -> str:
        head = f"{self.tenant}@" if self.tenant else ""
        return (
            f"{head}{self.model}{self.layout}@tp_rank:{self.tp_rank}@pcp{self.pcp_rank}"
            f"@dcp{self.dcp_rank}@pp_rank:{self.pp_rank}@group:{self.kv_group}@{self.block_hash.hex()}"
        )

    @classmethod
    def parse(cls, text: str) -> ObjectKey:
        """Inverse of ``str()``; also accepts keys written by vLLM's MooncakeStoreConnector.

        Raises:
            InvalidKey: ``text`` is not in the connector's format.
        """
        if not isinstance(text, str):
            raise InvalidKey(f"key: must be a string, got {type(text).__name__}")
        match = _KEY_RE.match(text)
        if match is None or len(match["hash"]) % 2:
            raise InvalidKey(
                f"key: {text!r} is not '[prefix@]model[@store_...]@tp_rank:N@pcpN@dcpN@pp_rank:N@group:N@hexhash'"
            )
        return cls(
            model=match["model"], block_hash=bytes.fromhex(match["hash"]), tenant=match["prefix"] or "",
            tp_rank=int(match["tp"]), pcp_rank=int(match["pcp"]), dcp_rank=int(match["dcp"]),
            pp_rank=int(match["pp"]), kv_group=int(match["group"]), layout=match["layout"],
        )

    def with_hash(self, block_hash: bytes) -> ObjectKey:
        """The same namespace with another block hash."""
        return ObjectKey(
            model=self.model, block_hash=block_hash, tenant=self.tenant, tp_rank=self.tp_rank,
            pcp_rank=self.pcp_rank, dcp_rank=self.dcp_rank, pp_rank=self.pp_rank,
            kv_group=self.kv_group, layout=self.layout,
        )


# ---------------------------------------------------------------------------------------------
# Longest cached prefix
# ---------------------------------------------------------------------------------------------


class MissReason(str, enum.Enum):
    """Why reuse stopped at a block boundary."""

    SALT = "salt"              # the same tokens are cached without this request's cache_salt
    LORA = "lora"              # the same tokens are cached without this request's LoRA adapter
    MULTIMODAL = "multimodal"  # the same tokens are cached with other (or no) multimodal items
    TOKENS = "tokens"          # no variant of the extra keys hits: different or never-stored tokens


@dataclass(frozen=True, slots=True)
class PrefixResult:
    """Outcome of :func:`longest_cached_prefix`.

    ``miss_block`` and ``reason`` are None when every full block is cached. ``confirmed`` is
    True when the reason was proven by finding the block under an alternative hash chain.
    """

    cached_blocks: int
    total_blocks: int
    block_size: int
    miss_block: int | None = None
    reason: MissReason | None = None
    confirmed: bool = False
    detail: str = ""
    hashes: tuple[bytes, ...] = field(default=(), repr=False)

    @property
    def cached_tokens(self) -> int:
        return self.cached_blocks * self.block_size


KeyFn = Callable[[bytes], str]


def _probe(store: Any) -> Callable[[str], bool]:
    if callable(getattr(store, "exists", None)):
        return store.exists  # type: ignore[no-any-return]
    if callable(store):
        return store  # type: ignore[no-any-return]
    raise InvalidParams("store: needs an exists(key) method or must be a callable key -> bool")


def _count_present(store: Any, keys: list[str]) -> int:
    lookup = getattr(store, "lookup_prefix", None)
    if callable(lookup):
        return int(lookup(keys))
    exists = _probe(store)
    for index, key in enumerate(keys):
        if not exists(key):
            return index
    return len(keys)


def longest_cached_prefix(
    tokens: Sequence[int],
    store: Any,
    *,
    block_size: int = DEFAULT_BLOCK_SIZE,
    algo: str = DEFAULT_HASH_ALGO,
    hash_seed: str | None = None,
    cache_salt: str | None = None,
    lora: LoraRef | None = None,
    mm_items: Sequence[MultiModalItem] = (),
    prompt_embeds: Any = None,
    key_fn: KeyFn = bytes.hex,
) -> PrefixResult:
    """How many leading full blocks of ``tokens`` are in ``store``, and why reuse stopped.

    ``store`` is anything with ``exists(key)`` (``lookup_prefix(keys)`` is used when present)
    or a callable ``key -> bool``; ``key_fn`` turns a block hash into the store key (default:
    hex digest; use ``lambda h: str(namespace.with_hash(h))`` for :class:`ObjectKey`).

    The reason for a miss at block ``i`` is found by re-hashing blocks ``0..i`` without one
    input at a time (the cache salt, the LoRA adapter, the multimodal items) and probing the
    store for block ``i`` of that alternative chain: a hit proves that the tokens are cached
    and the dropped input is what differs (``confirmed=True``). If no alternative hits, the
    reason is :attr:`MissReason.TOKENS`: the tokens from block ``i`` on differ from anything
    stored (or were never stored).

    Raises:
        InvalidParams: bad hashing parameters or an unusable ``store``.
    """
    common = {"hash_seed": hash_seed, "prompt_embeds": prompt_embeds}
    hashes = block_hashes(
        tokens, block_size, algo, cache_salt=cache_salt, lora=lora, mm_items=mm_items, **common
    )
    keys = [key_fn(h) for h in hashes]
    cached = _count_present(store, keys)
    base = PrefixResult(cached, len(hashes), block_size, hashes=tuple(hashes))
    if cached == len(hashes):
        return base
    exists = _probe(store)
    prefix = list(tokens[: (cached + 1) * block_size])
    variants: list[tuple[MissReason, dict[str, Any]]] = []
    if cache_salt is not None:
        variants.append((MissReason.SALT, {"cache_salt": None, "lora": lora, "mm_items": mm_items}))
    if lora is not None:
        variants.append((MissReason.LORA, {"cache_salt": cache_salt, "lora": None, "mm_items": mm_items}))
    if mm_items:
        variants.append((MissReason.MULTIMODAL, {"cache_salt": cache_salt, "lora": lora, "mm_items": ()}))
    for reason, inputs in variants:
        alt = block_hashes(prefix, block_size, algo, **inputs, **common)
        if exists(key_fn(alt[cached])):
            return PrefixResult(
                cached, len(hashes), block_size, cached, reason, True,
                f"block {cached} is cached under the chain without the request's {reason.value}",
                tuple(hashes),
            )
    start, end = cached * block_size, (cached + 1) * block_size
    overlapping = [i.identifier for i in mm_items if i.offset < end and i.offset + i.length > start]
    if overlapping:
        # Identical placeholder tokens with other image content look like this from outside:
        # the store cannot be asked for an unknown identifier, so the attribution is unproven.
        return PrefixResult(
            cached, len(hashes), block_size, cached, MissReason.MULTIMODAL, False,
            f"block {cached} carries multimodal item(s) {overlapping}; no alternative chain hits",
            tuple(hashes),
        )
    return PrefixResult(
        cached, len(hashes), block_size, cached, MissReason.TOKENS, False,
        f"no variant of block {cached} is cached: its tokens (or earlier ones) differ or were never stored",
        tuple(hashes),
    )
