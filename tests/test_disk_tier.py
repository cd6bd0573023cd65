"""Disk tier: file format, index rebuild, checksums, torn and foreign files, capacity, locking."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from reference_store.errors import (
    BufferTooSmall,
    ChecksumMismatch,
    ObjectNotFound,
    StoreError,
    StoreFull,
)
from reference_store.tiers import byte_view
from reference_store.tiers.disk import HEADER, DiskTier, _file_name

KB = 1024


@pytest.fixture
def tier(tmp_path: Path):
    t = DiskTier(tmp_path, 256 * KB)
    try:
        yield t
    finally:
        t.close()


def _obj_path(root: Path, key: str) -> Path:
    return root / "objects" / _file_name(key)


def test_round_trip_and_exact_accounting(tier: DiskTier) -> None:
    tier.write("a/b@c ünïcode", byte_view(b"hello"))
    tier.write("empty", byte_view(b""))
    assert tier.read("a/b@c ünïcode") == b"hello"
    assert tier.read("empty") == b""
    out = bytearray(8)
    assert tier.read_into("a/b@c ünïcode", byte_view(out, writable=True)) == 5 and out[:5] == b"hello"
    t = torch.zeros(5, dtype=torch.uint8)
    tier.read_into("a/b@c ünïcode", byte_view(t, writable=True))
    assert bytes(t.numpy()) == b"hello"
    stats = tier.stats()
    files = list((tier.root / "objects").iterdir())
    assert stats.used_bytes == sum(f.stat().st_size for f in files)
    assert stats.payload_bytes == 5 and stats.objects == 2
    with pytest.raises(BufferTooSmall):
        tier.read_into("a/b@c ünïcode", byte_view(bytearray(2), writable=True))
    tier.delete("empty")
    with pytest.raises(ObjectNotFound):
        tier.read("empty")


def test_replace_is_atomic_rename(tier: DiskTier) -> None:
    tier.write("k", byte_view(b"one"))
    inode = _obj_path(tier.root, "k").stat().st_ino
    tier.write("k", byte_view(b"two-longer"))
    assert tier.read("k") == b"two-longer"
    assert _obj_path(tier.root, "k").stat().st_ino != inode  # a fresh file replaced the old one
    assert tier.stats().payload_bytes == len(b"two-longer")
    assert list((tier.root / "tmp").iterdir()) == []


def test_capacity_limit(tmp_path: Path) -> None:
    t = DiskTier(tmp_path, 3 * KB)
    t.write("a", byte_view(bytes(KB)))
    t.write("b", byte_view(bytes(KB)))
    with pytest.raises(StoreFull, match="disk tier"):
        t.write("c", byte_view(bytes(KB)))
    assert t.can_fit("a", KB)  # replacing an object frees its own space first
    t.write("a", byte_view(bytes(KB)))
    assert t.stats().used_bytes <= t.capacity
    t.close()


def test_index_rebuilt_on_reopen_and_tmp_files_ignored(tmp_path: Path) -> None:
    t = DiskTier(tmp_path, 256 * KB)
    for i in range(5):
        t.write(f"k{i}", byte_view(bytes([i]) * (i * 100)))
    t.close()
    torn = tmp_path / "tmp" / "leftover.partial"
    torn.write_bytes(b"RSOBJ half written")
    t2 = DiskTier(tmp_path, 256 * KB)
    assert sorted(t2.keys()) == [f"k{i}" for i in range(5)]
    assert all(t2.read(f"k{i}") == bytes([i]) * (i * 100) for i in range(5))
    assert not torn.exists()
    t2.close()


def test_corrupt_file_is_never_returned_as_data(tier: DiskTier) -> None:
    tier.write("k", byte_view(b"A" * 1000))
    path = _obj_path(tier.root, "k")
    raw = bytearray(path.read_bytes())
    raw[HEADER.size + 1 + 500] ^= 0xFF  # flip one data bit
    path.write_bytes(bytes(raw))
    with pytest.raises(ChecksumMismatch, match="checksum"):
        tier.read("k")
    assert "k" not in tier and not path.exists()
    assert tier.stats().used_bytes == 0


@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage", "wrong_name"])
def test_damaged_files_dropped_on_open(tmp_path: Path, damage: str) -> None:
    t = DiskTier(tmp_path, 256 * KB)
    t.write("good", byte_view(b"G" * 300))
    t.write("bad", byte_view(b"B" * 300))
    t.close()
    path = _obj_path(tmp_path, "bad")
    raw = path.read_bytes()
    if damage == "flip":
        path.write_bytes(raw[:-1] + bytes([raw[-1] ^ 1]))
    elif damage == "truncate":
        path.write_bytes(raw[:-10])
    elif damage == "garbage":
        path.write_bytes(os.urandom(len(raw)))
    else:
        path.rename(tmp_path / "objects" / ("0" * 32 + ".obj"))
    t2 = DiskTier(tmp_path, 256 * KB)
    assert list(t2.keys()) == ["good"] and t2.read("good") == b"G" * 300
    assert len(list((tmp_path / "objects").iterdir())) == 1
    t2.close()


def test_directory_locked_against_second_store(tmp_path: Path) -> None:
    t = DiskTier(tmp_path, KB)
    with pytest.raises(StoreError, match="in use"):
        DiskTier(tmp_path, KB)
    t.close()
    DiskTier(tmp_path, KB).close()


def test_unusable_directory_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="disk_dir"):
        DiskTier(blocker / "sub", KB)
