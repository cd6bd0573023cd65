"""Disk tier read/write bandwidth against dd-style sequential file I/O of the same bytes.

Per round, in a fresh directory:

* store write: ``DiskTier.write`` of ``count`` objects of ``--object`` bytes (each object: fresh
  file, fsync, rename, directory fsync: the tier's crash-safe path);
* dd write: the same bytes written sequentially into one file in ``--object`` chunks, one fsync
  at the end (``dd bs=<object> conv=fsync``);
* before reading, each file's pages are dropped from the page cache with
  ``posix_fadvise(DONTNEED)`` so reads come from the device, not memory;
* store read: ``DiskTier.read_into`` (checksum verified) of every object into preallocated buffers;
* dd read: the one file read sequentially in ``--object`` chunks.

Reported: median GB/s of ``--rounds`` rounds and store/dd ratios.

    .venv/bin/python benchmarks/bench_disk.py --total 128 --object 4 --rounds 3 --dir /tmp
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from results_file import Results, add_output_option  # benchmarks/results_file.py

from reference_store.tiers import byte_view
from reference_store.tiers.disk import DiskTier

MB = 1 << 20


def _drop_cache(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def _dests(payload: np.ndarray, count: int) -> list[np.ndarray]:
    """Pre-faulted destinations (first-touch page faults are not disk bandwidth)."""
    return [np.ones(payload.nbytes, dtype=np.uint8) for _ in range(count)]


def _store_round(root: Path, payload: np.ndarray, count: int) -> tuple[float, float]:
    tier = DiskTier(root / "store", (count + 1) * (payload.nbytes + 4096), fsync=True)
    start = time.perf_counter()
    for i in range(count):
        tier.write(f"obj-{i}", byte_view(payload))
    write_s = time.perf_counter() - start
    for f in (root / "store" / "objects").iterdir():
        _drop_cache(f)
    dests = _dests(payload, count)
    start = time.perf_counter()
    for i, dest in enumerate(dests):
        tier.read_into(f"obj-{i}", byte_view(dest, writable=True))
    read_s = time.perf_counter() - start
    assert all(np.array_equal(d, payload) for d in dests)
    tier.close()
    return write_s, read_s


def _dd_round(root: Path, payload: np.ndarray, count: int) -> tuple[float, float]:
    path = root / "dd.bin"
    start = time.perf_counter()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for _ in range(count):
        view = payload.data
        while view:
            view = view[os.write(fd, view):]
    os.fsync(fd)
    os.close(fd)
    write_s = time.perf_counter() - start
    _drop_cache(path)
    dests = _dests(payload, count)
    start = time.perf_counter()
    with open(path, "rb", buffering=0) as f:
        for dest in dests:
            got = f.readinto(dest.data)
            assert got == payload.nbytes
    read_s = time.perf_counter() - start
    assert all(np.array_equal(d, payload) for d in dests)
    return write_s, read_s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--total", type=int, default=128, help="MiB per round (default 128)")
    parser.add_argument("--object", type=float, default=4, help="object / chunk size in MiB (default 4)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", default=None, help="where to write (default: system temp dir)")
    add_output_option(parser)
    args = parser.parse_args(argv)
    res = Results("bench_disk", args)
    obj = int(args.object * MB)
    count = max(1, args.total * MB // obj)
    nbytes = count * obj
    payload = np.random.default_rng(0).integers(0, 256, obj, dtype=np.uint8)
    runs: dict[str, list[float]] = {"store_w": [], "store_r": [], "dd_w": [], "dd_r": []}
    for _ in range(args.rounds):
        root = Path(tempfile.mkdtemp(prefix="bench_disk_", dir=args.dir))
        try:
            sw, sr = _store_round(root, payload, count)
            dw, dr = _dd_round(root, payload, count)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        for name, secs in zip(runs, (sw, sr, dw, dr)):
            runs[name].append(nbytes / secs / 1e9)
    med = {k: statistics.median(v) for k, v in runs.items()}
    print(f"disk tier vs dd-style sequential I/O: {count} x {obj / MB:g} MiB = {nbytes / MB:.0f} MiB, "
          f"median of {args.rounds} rounds")
    print(f"{'op':>6} {'store GB/s':>11} {'dd GB/s':>9} {'store/dd':>9}")
    print(f"{'write':>6} {med['store_w']:11.3f} {med['dd_w']:9.3f} {med['store_w'] / med['dd_w']:9.2f}")
    print(f"{'read':>6} {med['store_r']:11.3f} {med['dd_r']:9.3f} {med['store_r'] / med['dd_r']:9.2f}")
    for op, key in (("write", "w"), ("read", "r")):
        res.row(op=op, store_gbps=med[f"store_{key}"], dd_gbps=med[f"dd_{key}"])
        res.ratio(f"disk tier / dd {op}", med[f"store_{key}"] / med[f"dd_{key}"])
    res.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
