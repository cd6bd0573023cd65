"""Block hashing against vLLM's vectors and hand-built serializations; ObjectKey; prefix misses.

Expected values are derived here from the published rules, independently of keys.py: CBOR bytes
come from a small canonical encoder written in this file, pickle bytes are checked against a
hand-assembled protocol-5 stream and then produced with pickle.dumps directly.
vLLM itself is not installed in this environment (its wheel pins its own torch build). When
``VLLM_SRC_DIR`` points at the ``vllm/`` folder of an unpacked vLLM wheel,
``test_chains_match_vllm_source`` runs vLLM's own hashing functions (pulled out of
``kv_cache_utils.py`` with ``ast``, no vLLM import) against ours; otherwise it is skipped.
"""

from __future__ import annotations

import ast
import collections.abc
import hashlib
import os
import pickle
import struct
import typing
from pathlib import Path
from types import SimpleNamespace as NS

import numpy as np
import pytest
import torch
import xxhash
from hypothesis import given
from hypothesis import strategies as st

from reference_store.errors import InvalidKey, InvalidParams
from reference_store.keys import (
    LoraRef,
    MissReason,
    MultiModalItem,
    ObjectKey,
    block_extra_keys,
    block_hashes,
    hash_block_tokens,
    longest_cached_prefix,
    none_hash,
    validate_cache_salt,
)

TOKENS = list(range(32))
NONE_SHA256_CBOR = "9bd96a485ad84efdafb72ee48a1d7a69bcead0f8f0433173941b276b9581eef0"
PLAIN = ["dc918a88b139e5afe60b88eda27508d4aee16c10fdc354791efea06206ac0749",
         "c300ec275d7bf08af8fc63e76cdc0086911bbc7091e03c5cf892553bef84ef0c"]
SALTED = ["4e31e1ced73eb044a95997f0109d0ddab3d9145878214f1a0ee37c048b397859",
          "dd153a6b48192c90c7d94ac9bb001d90b8150f328f74b1ea6f85313d4ecba23f"]


# --- an independent canonical CBOR encoder (RFC 8949 core deterministic encoding) -------------

def _head(major: int, n: int) -> bytes:
    if n < 24:
        return bytes([major << 5 | n])
    for info, fmt in ((24, ">B"), (25, ">H"), (26, ">I"), (27, ">Q")):
        if n < 1 << (8 * struct.calcsize(fmt)):
            return bytes([major << 5 | info]) + struct.pack(fmt, n)
    raise ValueError(n)


def cbor(obj: object) -> bytes:
    if obj is None:
        return b"\xf6"
    if isinstance(obj, bytes):
        return _head(2, len(obj)) + obj
    if isinstance(obj, str):
        raw = obj.encode()
        return _head(3, len(raw)) + raw
    if isinstance(obj, int):
        return _head(0, obj) if obj >= 0 else _head(1, -1 - obj)
    if isinstance(obj, tuple):
        return _head(4, len(obj)) + b"".join(cbor(x) for x in obj)
    raise TypeError(obj)


def sha_cbor(obj: object) -> bytes:
    return hashlib.sha256(cbor(obj)).digest()


def chain(fn, seed, blocks, extras):
    parent, out = fn(seed), []
    for toks, extra in zip(blocks, extras):
        parent = fn((parent, tuple(toks), extra))
        out.append(parent)
    return out


B0, B1 = tuple(range(16)), tuple(range(16, 32))


# --- the published vectors --------------------------------------------------------------------

def test_published_vector_plain() -> None:
    assert none_hash("sha256_cbor").hex() == NONE_SHA256_CBOR
    assert [h.hex() for h in block_hashes(TOKENS, 16, "sha256_cbor")] == PLAIN


def test_published_vector_salted() -> None:
    got = block_hashes(TOKENS, 16, "sha256_cbor", cache_salt="tenant-a")
    assert [h.hex() for h in got] == SALTED


def test_independent_cbor_encoder_reproduces_published_vectors() -> None:
    # Guards the encoder used below: if it were wrong, the other cbor tests would prove nothing.
    assert sha_cbor("vllm-none-hash").hex() == NONE_SHA256_CBOR
    got = chain(sha_cbor, "vllm-none-hash", [B0, B1], [(("cache_salt", "tenant-a"),), None])
    assert [h.hex() for h in got] == SALTED


# --- other algorithms, seeds, LoRA, multimodal, embeds --------------------------------------

def test_hand_assembled_pickle_matches_protocol_5() -> None:
    parent = bytes(32)
    # PROTO 5, FRAME n, SHORT_BINBYTES 32 + MEMOIZE, BININT1 1, BININT1 2, TUPLE2 + MEMOIZE,
    # NONE, TUPLE3 + MEMOIZE, STOP.
    body = b"C\x20" + parent + b"\x94" + b"K\x01K\x02\x86\x94" + b"N\x87\x94."
    expected = b"\x80\x05\x95" + struct.pack("<Q", len(body)) + body
    assert pickle.dumps((parent, (1, 2), None), protocol=5) == expected


def _pickled(obj: object) -> bytes:
    return pickle.dumps(obj, protocol=5)


@pytest.mark.parametrize("seed", [None, "0", "12345"])
def test_sha256_pickle_chain(seed: str | None) -> None:
    fn = lambda o: hashlib.sha256(_pickled(o)).digest()
    want = chain(fn, seed if seed is not None else "vllm-none-hash", [B0, B1], [None, None])
    assert block_hashes(TOKENS, 16, "sha256", hash_seed=seed) == want


@pytest.mark.parametrize("seed", ["0", "42"])
def test_xxhash_families(seed: str) -> None:
    pick = lambda o: xxhash.xxh3_128_digest(_pickled(o))
    cb = lambda o: xxhash.xxh3_128_digest(cbor(o))
    extras = [(("cache_salt", "s1"),), None]
    assert block_hashes(TOKENS, 16, "xxhash", hash_seed=seed, cache_salt="s1") == chain(pick, seed, [B0, B1], extras)
    assert block_hashes(TOKENS, 16, "xxhash_cbor", hash_seed=seed, cache_salt="s1") == chain(cb, seed, [B0, B1], extras)
    assert len(none_hash("xxhash", seed)) == 16


@pytest.mark.parametrize("algo", ["xxhash", "xxhash_cbor"])
def test_xxhash_without_seed_is_refused(algo: str) -> None:
    with pytest.raises(InvalidParams, match="hash_seed"):
        block_hashes(TOKENS, 16, algo)


def test_seed_changes_none_hash_for_sha256_cbor() -> None:
    assert none_hash("sha256_cbor", "7") == sha_cbor("7")
    assert none_hash("sha256_cbor", "7") != none_hash("sha256_cbor", None)


def test_lora_mm_salt_embeds_order_and_placement() -> None:
    lora = LoraRef("sql-adapter", "/adapters/sql")
    image = MultiModalItem("img-hash-1", offset=10, length=12)   # tokens 10..21: both blocks
    embeds = np.arange(32 * 4, dtype=np.float32).reshape(32, 4)
    d0 = hashlib.sha256(embeds[0:16].tobytes()).digest()
    d1 = hashlib.sha256(embeds[16:32].tobytes()).digest()
    extras = [
        (("lora", "sql-adapter", "/adapters/sql"), ("mm", "img-hash-1", 10), ("cache_salt", "t"), ("prompt_embeds", d0)),
        (("lora", "sql-adapter", "/adapters/sql"), ("mm", "img-hash-1", -6), ("prompt_embeds", d1)),
    ]
    got = block_hashes(TOKENS, 16, "sha256_cbor", cache_salt="t", lora=lora,
                       mm_items=[image], prompt_embeds=embeds)
    assert got == chain(sha_cbor, "vllm-none-hash", [B0, B1], extras)
    # the same embeddings given as a torch tensor hash to the same bytes
    assert block_hashes(TOKENS, 16, "sha256_cbor", cache_salt="t", lora=lora, mm_items=[image],
                        prompt_embeds=torch.from_numpy(embeds)) == got


def test_mm_item_only_in_overlapping_blocks() -> None:
    item = MultiModalItem("i", offset=16, length=4)
    assert block_extra_keys(0, 0, 16, mm_items=[item]) is None
    assert block_extra_keys(1, 16, 32, mm_items=[item]) == (("mm", "i", 0),)


def test_extra_keys_none_and_salt_only_in_block_zero() -> None:
    assert block_extra_keys(0, 0, 16) is None
    assert block_extra_keys(1, 16, 32, cache_salt="x") is None
    assert block_extra_keys(0, 0, 16, cache_salt="x") == (("cache_salt", "x"),)


def test_full_blocks_only_and_token_types() -> None:
    assert len(block_hashes(list(range(47)), 16)) == 2
    assert block_hashes(list(range(15)), 16) == []
    assert block_hashes(np.arange(32, dtype=np.int64), 16) == block_hashes(TOKENS, 16)
    assert block_hashes(torch.arange(32), 16) == block_hashes(TOKENS, 16)
    with pytest.raises(InvalidParams, match="tokens"):
        block_hashes([0.5] * 16, 16)
    with pytest.raises(InvalidParams, match="block_size"):
        block_hashes(TOKENS, 0)
    with pytest.raises(InvalidParams, match="algo"):
        block_hashes(TOKENS, 16, "md5")


def test_hash_block_tokens_single_block() -> None:
    parent = none_hash("sha256_cbor")
    assert hash_block_tokens(parent, range(16), None).hex() == PLAIN[0]
    with pytest.raises(InvalidParams, match="parent_hash"):
        hash_block_tokens("not-bytes", range(16))  # type: ignore[arg-type]


@pytest.mark.parametrize("salt", ["", "a@b", "a/b", "a\\b", "a\x00b", "x" * 129, 5])
def test_bad_salts_rejected(salt: object) -> None:
    with pytest.raises(InvalidParams, match="cache_salt"):
        validate_cache_salt(salt)  # type: ignore[arg-type]
    with pytest.raises(InvalidParams, match="cache_salt"):
        block_hashes(TOKENS, 16, cache_salt=salt)  # type: ignore[arg-type]


def test_good_salt_accepted() -> None:
    assert validate_cache_salt("x" * 128) == "x" * 128


# --- ObjectKey --------------------------------------------------------------------------------

def test_object_key_vllm_format() -> None:
    h = bytes.fromhex(PLAIN[0])
    key = ObjectKey(model="meta-llama/Llama-3-8B", block_hash=h, tp_rank=1, pp_rank=2, kv_group=3)
    text = f"meta-llama/Llama-3-8B@tp_rank:1@pcp0@dcp0@pp_rank:2@group:3@{PLAIN[0]}"
    assert str(key) == text
    assert ObjectKey.parse(text) == key
    vllm_with_prefix = "myprefix@m@tp_rank:0@pcp1@dcp2@pp_rank:0@group:0@abcd"
    parsed = ObjectKey.parse(vllm_with_prefix)
    assert parsed.tenant == "myprefix" and parsed.pcp_rank == 1 and parsed.dcp_rank == 2
    assert str(parsed) == vllm_with_prefix


_name = st.text(st.characters(blacklist_characters="@", blacklist_categories=("Cs",)), max_size=12)
_layout = st.one_of(st.just(""), st.builds(
    lambda tp, pp, fmt: f"@store_tp:{tp}@store_pp:{pp}@store_format:{fmt}",
    st.integers(1, 64), st.integers(1, 8), st.sampled_from(["tp_sharded", "tp_shared_mqa"])))


@given(model=_name.filter(lambda m: bool(m) and not m.startswith("store_")), tenant=_name,
       layout=_layout, h=st.binary(min_size=1, max_size=32),
       ranks=st.lists(st.integers(0, 10_000), min_size=5, max_size=5))
def test_object_key_round_trip(model: str, tenant: str, layout: str, h: bytes, ranks: list[int]) -> None:
    key = ObjectKey(model=model, block_hash=h, tenant=tenant, layout=layout, tp_rank=ranks[0],
                    pcp_rank=ranks[1], dcp_rank=ranks[2], pp_rank=ranks[3], kv_group=ranks[4])
    assert ObjectKey.parse(str(key)) == key


def test_object_key_with_vllm_store_namespace() -> None:
    # vLLM 0.33 PoolKey: [cache_prefix@]{model}{store_namespace}@tp_rank:...; namespace opt-in
    text = "dep1@Qwen/Qwen3-8B@store_tp:8@store_pp:1@store_format:tp_sharded@tp_rank:3@pcp0@dcp0@pp_rank:0@group:1@00ff"
    key = ObjectKey.parse(text)
    assert (key.tenant, key.model, key.layout) == ("dep1", "Qwen/Qwen3-8B", "@store_tp:8@store_pp:1@store_format:tp_sharded")
    assert (key.tp_rank, key.kv_group, key.block_hash) == (3, 1, b"\x00\xff")
    assert str(key) == text


@pytest.mark.parametrize("kwargs,field", [
    ({"model": "a@b"}, "model"), ({"model": ""}, "model"), ({"model": "store_x"}, "model"),
    ({"tenant": "x@y"}, "tenant"), ({"layout": "fp8"}, "layout"),
    ({"tp_rank": -1}, "tp_rank"), ({"block_hash": b""}, "block_hash"),
])
def test_object_key_rejects_ambiguous_fields(kwargs: dict, field: str) -> None:
    args = {"model": "m", "block_hash": b"\x01"} | kwargs
    with pytest.raises(InvalidKey, match=field):
        ObjectKey(**args)


@pytest.mark.parametrize("text", ["", "m@abcd", "m@tp_rank:x@pcp0@dcp0@pp_rank:0@group:0@ab",
                                  "m@tp_rank:0@pcp0@dcp0@pp_rank:0@group:0@abc"])
def test_object_key_parse_errors(text: str) -> None:
    with pytest.raises(InvalidKey, match="key"):
        ObjectKey.parse(text)


# --- longest cached prefix ------------------------------------------------------------------

def _store_of(*chains: list[bytes]) -> set[str]:
    return {h.hex() for c in chains for h in c}


def test_prefix_full_hit_and_token_miss() -> None:
    toks = list(range(64))
    stored = _store_of(block_hashes(toks, 16))
    full = longest_cached_prefix(toks, stored.__contains__)
    assert (full.cached_blocks, full.miss_block, full.reason) == (4, None, None)
    other = toks[:40] + [999] * 24
    res = longest_cached_prefix(other, stored.__contains__)
    assert (res.cached_blocks, res.cached_tokens, res.miss_block, res.reason) == (2, 32, 2, MissReason.TOKENS)


def test_prefix_miss_reason_salt() -> None:
    stored = _store_of(block_hashes(TOKENS, 16))
    res = longest_cached_prefix(TOKENS, stored.__contains__, cache_salt="tenant-b")
    assert (res.cached_blocks, res.miss_block, res.reason, res.confirmed) == (0, 0, MissReason.SALT, True)


def test_prefix_miss_reason_lora() -> None:
    stored = _store_of(block_hashes(TOKENS, 16))
    res = longest_cached_prefix(TOKENS, stored.__contains__, lora=LoraRef("a", "/a"))
    assert (res.miss_block, res.reason, res.confirmed) == (0, MissReason.LORA, True)


def test_prefix_miss_reason_multimodal() -> None:
    toks = list(range(48))
    stored = _store_of(block_hashes(toks, 16, mm_items=[MultiModalItem("cat", 20, 8)]))
    res = longest_cached_prefix(toks, stored.__contains__, mm_items=[MultiModalItem("dog", 20, 8)])
    assert (res.cached_blocks, res.miss_block, res.reason, res.confirmed) == (1, 1, MissReason.MULTIMODAL, False)
    plain = _store_of(block_hashes(toks, 16))
    res2 = longest_cached_prefix(toks, plain.__contains__, mm_items=[MultiModalItem("dog", 20, 8)])
    assert (res2.miss_block, res2.reason, res2.confirmed) == (1, MissReason.MULTIMODAL, True)


def test_prefix_with_object_keys_and_bad_store() -> None:
    ns = ObjectKey(model="m", block_hash=b"\x00", tenant="t")
    stored = {str(ns.with_hash(h)) for h in block_hashes(TOKENS, 16)}
    res = longest_cached_prefix(TOKENS, stored.__contains__, key_fn=lambda h: str(ns.with_hash(h)))
    assert res.cached_blocks == 2
    with pytest.raises(InvalidParams, match="store"):
        longest_cached_prefix(TOKENS + [1] * 16, object())


# --- optional: vLLM's own code ---------------------------------------------------------------

_FETCHED = Path(__file__).resolve().parent.parent / ".cache" / "vllm" / "vllm"  # scripts/fetch_vllm_hashing.py
_VLLM_SRC = os.environ.get("VLLM_SRC_DIR", "") or (str(_FETCHED) if _FETCHED.is_dir() else "")
_VLLM_FUNCS = {"_gen_mm_extra_hash_keys", "_gen_lora_extra_hash_keys", "_gen_prompt_embeds_extra_hash_keys",
               "generate_block_hash_extra_keys", "hash_block_tokens", "resolve_none_hash_seed"}


def _load_vllm(src: Path) -> tuple[dict, dict]:
    hashing: dict = {}
    exec((src / "utils" / "hashing.py").read_text(), hashing)  # noqa: S102 - vLLM's own module
    tree = ast.parse((src / "v1" / "core" / "kv_cache_utils.py").read_text())
    body = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in _VLLM_FUNCS]
    ns = {"hashlib": hashlib, "os": os, "Any": typing.Any, "Callable": collections.abc.Callable,
          "Sequence": collections.abc.Sequence, "Request": object, "BlockHash": bytes,
          "tensor_data": lambda t: t.flatten().cpu().contiguous().view(torch.uint8).numpy().data,
          "_NON_CRYPTO_HASH_FUNCTIONS": frozenset({hashing["xxhash"], hashing["xxhash_cbor"]}),
          "DEFAULT_NONE_HASH_SEED": "vllm-none-hash"}
    exec(compile(ast.Module(body=body, type_ignores=[]), "kv_cache_utils", "exec"), ns)  # noqa: S102
    return hashing, ns


@pytest.mark.skipif(not _VLLM_SRC, reason="run scripts/fetch_vllm_hashing.py (or set VLLM_SRC_DIR to an unpacked vLLM wheel's vllm/ folder)")
def test_chains_match_vllm_source(monkeypatch: pytest.MonkeyPatch) -> None:
    hashing, ns = _load_vllm(Path(_VLLM_SRC))
    tokens = list(range(1000, 1100))
    embeds = torch.randn(100, 8, dtype=torch.bfloat16)
    cases = [{}, {"salt": "tenant-a"}, {"lora": LoraRef("sql", "/a/sql")},
             {"mm": [MultiModalItem("img1", 5, 30), MultiModalItem("img2", 40, 3)]},
             {"salt": "s", "lora": LoraRef("x", "/x"), "mm": [MultiModalItem("a", 0, 16)], "embeds": embeds}]
    for algo in ("sha256", "sha256_cbor", "xxhash", "xxhash_cbor"):
        for seed in ("0", "123") if algo.startswith("xxhash") else (None, "0"):
            if seed is None:
                monkeypatch.delenv("PYTHONHASHSEED", raising=False)
            else:
                monkeypatch.setenv("PYTHONHASHSEED", seed)
            fn = hashing[algo]
            ns["NONE_HASH"] = fn(ns["resolve_none_hash_seed"](fn))
            for case in cases:
                mm = case.get("mm", [])
                req = NS(mm_features=[NS(identifier=i.identifier, mm_position=NS(offset=i.offset, length=i.length))
                                      for i in mm],
                         lora_request=NS(lora_name=case["lora"].name, lora_path=case["lora"].path) if "lora" in case else None,
                         cache_salt=case.get("salt"), prompt_embeds=case.get("embeds"), _prompt_embeds_per_block_hashes={})
                want, parent, mm_idx = [], None, 0
                for start in range(0, len(tokens) - 15, 16):
                    extra, mm_idx = ns["generate_block_hash_extra_keys"](req, start, start + 16, mm_idx)
                    parent = ns["hash_block_tokens"](fn, parent, tokens[start:start + 16], extra)
                    want.append(parent)
                got = block_hashes(tokens, 16, algo, hash_seed=seed, cache_salt=case.get("salt"),
                                   lora=case.get("lora"), mm_items=mm, prompt_embeds=case.get("embeds"))
                assert got == want, (algo, seed, sorted(case))
