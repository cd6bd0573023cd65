"""The disk tier: one checksummed file per object, published by atomic rename.

Layout under ``root``::

    LOCK               flock'ed while a store has the directory open
    objects/<h>.obj    published objects; <h> = first 32 hex digits of sha256(key)
    tmp/               writes in progress (removed on open: a crash leaves only these torn)

An object file is a 36-byte header ``magic(8) key_len(u32) data_len(u64) digest(16)``, the
UTF-8 key, then the data. ``digest`` is xxh3_128 over ``key_len, data_len, key, data``.

A write goes to a fresh file in ``tmp/``, is fsynced, renamed over ``objects/<h>.obj`` and the
directory is fsynced; only then does :meth:`DiskTier.write` return. So after a crash every
acknowledged object is complete, and a half-written file never carries a published name. On
open the index is rebuilt from ``objects/`` (each file's digest checked unless
``verify_on_open`` is False); every read checks the digest again, and a file that fails is
deleted and reported as :class:`ChecksumMismatch`, never returned as data.
"""

from __future__ import annotations

import fcntl
import hashlib
import itertools
import logging
import os
import struct
from collections.abc import Iterator
from pathlib import Path

import xxhash

from reference_store.errors import (
    BufferTooSmall,
    ChecksumMismatch,
    ObjectNotFound,
    StoreError,
    StoreFull,
)
from reference_store.tiers.base import ByteView, Tier, TierStats, as_tensor, view_nbytes

__all__ = ["HEADER", "MAGIC", "DiskTier"]

logger = logging.getLogger(__name__)

MAGIC = b"RSOBJ\x00\x01\x00"
HEADER = struct.Struct("<8sIQ16s")
_LENGTHS = struct.Struct("<IQ")


def _digest(key_bytes: bytes, data: memoryview) -> bytes:
    h = xxhash.xxh3_128()
    h.update(_LENGTHS.pack(len(key_bytes), data.nbytes))
    h.update(key_bytes)
    h.update(data)
    return h.digest()


def _file_name(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32] + ".obj"


def _cpu_view(view: ByteView) -> memoryview:
    if isinstance(view, memoryview):
        return view
    return view.cpu().numpy().data


def _write_all(fd: int, data: memoryview) -> None:
    while data:
        written = os.write(fd, data)
        data = data[written:]


def _read_exact(fd: int, dest: memoryview) -> None:
    while dest:
        got = os.readv(fd, [dest])
        if got == 0:
            raise EOFError("file shorter than its header says")
        dest = dest[got:]


class DiskTier(Tier):
    """Objects as files under ``root``, at most ``capacity`` bytes of files (headers included).

    Raises (constructor):
        StoreError: the directory cannot be created, or another store holds it.
    """

    def __init__(self, root: str | os.PathLike[str], capacity: int, *, fsync: bool = True,
                 verify_on_open: bool = True) -> None:
        self.name = "disk"
        self.capacity = capacity
        self.root = Path(root)
        self.fsync = fsync
        self._objects = self.root / "objects"
        self._tmp = self.root / "tmp"
        self._index: dict[str, tuple[str, int, int]] = {}  # key -> (file name, data len, file len)
        self._used = 0
        self._payload = 0
        self._seq = itertools.count()
        try:
            self._objects.mkdir(parents=True, exist_ok=True)
            self._tmp.mkdir(exist_ok=True)
            self._lock_fd = os.open(self.root / "LOCK", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StoreError(f"disk_dir: cannot use {self.root} ({exc})") from exc
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._lock_fd)
            raise StoreError(f"disk_dir: {self.root} is in use by another store") from None
        self._recover(verify_on_open)

    # ----- recovery ----------------------------------------------------------------------

    def _recover(self, verify: bool) -> None:
        for leftover in self._tmp.iterdir():  # torn writes: never published, never data
            leftover.unlink(missing_ok=True)
        for path in sorted(self._objects.glob("*.obj")):
            try:
                key, data_len = self._check_file(path, verify)
            except (OSError, ValueError, EOFError) as exc:
                logger.warning("disk tier: dropping unreadable object file %s (%s)", path.name, exc)
                path.unlink(missing_ok=True)
                continue
            file_len = path.stat().st_size
            self._index[key] = (path.name, data_len, file_len)
            self._used += file_len
            self._payload += data_len
        self._sync_dir(self._tmp)
        logger.info("disk tier %s: %d objects, %d bytes after recovery", self.root, len(self._index), self._used)

    def _check_file(self, path: Path, verify: bool) -> tuple[str, int]:
        with open(path, "rb") as f:
            head = f.read(HEADER.size)
            if len(head) != HEADER.size:
                raise ValueError("short header")
            magic, key_len, data_len, digest = HEADER.unpack(head)
            if magic != MAGIC:
                raise ValueError("bad magic")
            if path.stat().st_size != HEADER.size + key_len + data_len:
                raise ValueError("file size does not match its header")
            key_bytes = f.read(key_len)
            if verify and _digest(key_bytes, memoryview(f.read(data_len))) != digest:
                raise ValueError("checksum mismatch")
        key = key_bytes.decode("utf-8", "surrogatepass")
        if _file_name(key) != path.name:
            raise ValueError("file name does not match the key inside")
        return key, data_len

    def _sync_dir(self, path: Path) -> None:
        if not self.fsync:
            return
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    # ----- Tier interface ----------------------------------------------------------------

    def footprint(self, key: str, nbytes: int) -> int:
        return HEADER.size + len(key.encode("utf-8", "surrogatepass")) + nbytes

    def can_fit(self, key: str, nbytes: int) -> bool:
        old = self._index.get(key)
        return self._used - (old[2] if old else 0) + self.footprint(key, nbytes) <= self.capacity

    def _entry(self, key: str) -> tuple[str, int, int]:
        try:
            return self._index[key]
        except KeyError:
            raise ObjectNotFound(f"key: {key!r} is not in the disk tier") from None

    def write(self, key: str, src: ByteView) -> None:
        data = _cpu_view(src)
        if not self.can_fit(key, data.nbytes):
            raise StoreFull(f"disk tier: {self._used}/{self.capacity} bytes used, "
                            f"{self.footprint(key, data.nbytes)} more needed for {key!r}")
        key_bytes = key.encode("utf-8", "surrogatepass")
        name = _file_name(key)
        tmp = self._tmp / f"{name}.{os.getpid()}.{next(self._seq)}"
        try:
            self._write_file(tmp, key_bytes, data)
            os.replace(tmp, self._objects / name)
            self._sync_dir(self._objects)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            cls = StoreFull if exc.errno == 28 else StoreError  # ENOSPC
            raise cls(f"disk tier: writing {key!r} failed ({exc})") from exc
        old = self._index.get(key)
        if old is not None:
            self._used -= old[2]
            self._payload -= old[1]
        file_len = HEADER.size + len(key_bytes) + data.nbytes
        self._index[key] = (name, data.nbytes, file_len)
        self._used += file_len
        self._payload += data.nbytes

    def _write_file(self, tmp: Path, key_bytes: bytes, data: memoryview) -> None:
        header = HEADER.pack(MAGIC, len(key_bytes), data.nbytes, _digest(key_bytes, data))
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            _write_all(fd, memoryview(header + key_bytes))
            _write_all(fd, data)
            if self.fsync:
                os.fsync(fd)
        finally:
            os.close(fd)

    def _read_checked(self, key: str, dest: memoryview) -> int:
        name, data_len, _ = self._entry(key)
        key_bytes = key.encode("utf-8", "surrogatepass")
        try:
            fd = os.open(self._objects / name, os.O_RDONLY)
            try:
                head = os.pread(fd, HEADER.size + len(key_bytes), 0)
                os.lseek(fd, len(head), os.SEEK_SET)
                _read_exact(fd, dest[:data_len])
            finally:
                os.close(fd)
            magic, key_len, length, digest = HEADER.unpack(head[:HEADER.size])
            ok = (magic, key_len, length, head[HEADER.size:]) == (MAGIC, len(key_bytes), data_len, key_bytes)
            ok = ok and _digest(key_bytes, dest[:data_len]) == digest
        except (OSError, EOFError, struct.error) as exc:
            ok = False
            logger.warning("disk tier: reading %r failed (%s)", key, exc)
        if not ok:
            self._discard(key)
            raise ChecksumMismatch(f"disk tier: object {key!r} failed its checksum; it was removed")
        return data_len

    def _discard(self, key: str) -> None:
        name, data_len, file_len = self._index.pop(key)
        self._used -= file_len
        self._payload -= data_len
        (self._objects / name).unlink(missing_ok=True)

    def read_into(self, key: str, dest: ByteView) -> int:
        n = self._entry(key)[1]
        room = view_nbytes(dest)
        if room < n:
            raise BufferTooSmall(f"dest: {room} bytes, object {key!r} needs {n}")
        if isinstance(dest, memoryview):
            return self._read_checked(key, dest)
        staging = bytearray(n)
        self._read_checked(key, memoryview(staging))
        as_tensor(dest)[:n].copy_(as_tensor(memoryview(staging)))
        return n

    def read(self, key: str) -> bytes:
        buf = bytearray(self._entry(key)[1])
        self._read_checked(key, memoryview(buf))
        return bytes(buf)

    def view(self, key: str) -> ByteView:
        buf = bytearray(self._entry(key)[1])
        self._read_checked(key, memoryview(buf))
        return memoryview(buf)

    def delete(self, key: str) -> None:
        self._entry(key)
        self._discard(key)
        self._sync_dir(self._objects)

    def size_of(self, key: str) -> int:
        return self._entry(key)[1]

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def keys(self) -> Iterator[str]:
        return iter(list(self._index))

    def stats(self) -> TierStats:
        return TierStats(self.name, self.capacity, self._used, self._payload, len(self._index), 0.0)

    def close(self) -> None:
        if self._lock_fd >= 0:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = -1
        self._index.clear()
