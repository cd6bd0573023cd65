"""ledger.log: RFC 8785 entries, RFC 6962 hashing, proofs, appends and the chain."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.errors import UsageError
from ledger.log import (
    GENESIS,
    TreeHead,
    canonical_json,
    chain_hash,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    merkle_root,
    node_hash,
    verify_consistency,
    verify_inclusion,
)

# The leaf inputs and tree roots of the Certificate Transparency reference test vectors.
CT_LEAVES = [bytes.fromhex(h) for h in [
    "", "00", "10", "2021", "3031", "40414243", "5051525354555657",
    "606162636465666768696a6b6c6d6e6f"]]
CT_ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]


def _mth(leaves: list[bytes]) -> bytes:
    """RFC 6962 section 2.1, written as the recursive definition (the oracle)."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node_hash(_mth(leaves[:k]), _mth(leaves[k:]))


def _leaves(n: int) -> list[bytes]:
    return [leaf_hash(str(i).encode()) for i in range(n)]


def test_empty_tree_root_is_hash_of_nothing() -> None:
    assert merkle_root([]).hex() == hashlib.sha256(b"").hexdigest()


@pytest.mark.parametrize("size", range(1, 9))
def test_roots_match_certificate_transparency_vectors(size: int) -> None:
    leaves = [leaf_hash(d) for d in CT_LEAVES[:size]]
    assert merkle_root(leaves).hex() == CT_ROOTS[size - 1]


@given(st.integers(min_value=0, max_value=70))
def test_one_pass_root_equals_recursive_definition(n: int) -> None:
    leaves = _leaves(n)
    assert merkle_root(leaves) == _mth(leaves)


@given(st.data())
def test_inclusion_proofs_verify_and_wrong_leaf_fails(data: st.DataObject) -> None:
    n = data.draw(st.integers(min_value=1, max_value=64))
    i = data.draw(st.integers(min_value=0, max_value=n - 1))
    leaves = _leaves(n)
    root, proof = merkle_root(leaves), inclusion_proof(i, leaves)
    assert verify_inclusion(i, n, leaves[i], proof, root)
    assert not verify_inclusion(i, n, leaf_hash(b"other"), proof, root)
    if n > 1:
        assert not verify_inclusion((i + 1) % n, n, leaves[i], proof, root)


@given(st.data())
def test_consistency_proofs_verify_and_rewritten_history_fails(data: st.DataObject) -> None:
    n = data.draw(st.integers(min_value=1, max_value=64))
    m = data.draw(st.integers(min_value=1, max_value=n))
    leaves = _leaves(n)
    old_root, new_root = merkle_root(leaves[:m]), merkle_root(leaves)
    proof = consistency_proof(m, leaves)
    assert verify_consistency(m, n, old_root, new_root, proof)
    j = data.draw(st.integers(min_value=0, max_value=m - 1))
    forged = list(leaves)
    forged[j] = leaf_hash(b"rewritten")
    assert not verify_consistency(m, n, old_root, merkle_root(forged), consistency_proof(m, forged))


def test_proof_arguments_out_of_range_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="outside a tree of size 3"):
        inclusion_proof(3, _leaves(3))
    with pytest.raises(UsageError, match="from size 0"):
        consistency_proof(0, _leaves(3))


def test_canonical_json_sorts_keys_and_normalises_numbers() -> None:
    assert canonical_json({"b": 1, "a": [1.0, "é", 1e21]}) == '{"a":[1,"é",1e+21],"b":1}'.encode()


def test_canonical_json_refuses_nan() -> None:
    with pytest.raises(UsageError, match="canonicalise"):
        canonical_json({"x": float("nan")})


def test_leaf_and_node_hashes_are_domain_separated() -> None:
    a, b = leaf_hash(b"a"), leaf_hash(b"b")
    assert leaf_hash(a + b) != node_hash(a, b)
    assert chain_hash(GENESIS, a) == hashlib.sha256(bytes(32) + a).digest()


def test_tree_head_from_dict_names_the_bad_field() -> None:
    good = {"size": 3, "root": "ab" * 32, "chain": "cd" * 32, "time": "2026-11-29T00:00:00Z"}
    assert TreeHead.from_dict(good).size == 3
    with pytest.raises(UsageError, match="'size'"):
        TreeHead.from_dict(good | {"size": -1})
    with pytest.raises(UsageError, match="'root'"):
        TreeHead.from_dict(good | {"root": "xyz"})
    with pytest.raises(UsageError, match="JSON object"):
        TreeHead.from_dict([1, 2])
