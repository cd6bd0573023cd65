"""How a copy's speed depends on where its destination sits relative to its source, modulo 4 KiB.

Copies ``--mib`` MiB in pieces of each size from a page-aligned source (a memfd mapping, like a
node's shared arena) into a page-aligned destination shifted by ``shift`` bytes, and reports
each shift's throughput relative to shift 0, median of ``--rounds`` rounds in one run. On the
development machine a destination 16 bytes past its source ("4K aliasing": numpy's large
arrays start 16 bytes into a page) copied 256 KiB pieces at about a third of the aligned speed,
which is why ``store_vs_mooncake.py`` gives every system page-aligned buffers.

Usage::

    python benchmarks/bench_alignment.py --rounds 7
"""

from __future__ import annotations

import argparse
import mmap
import os
import statistics
import sys
import time

import numpy as np
from results_file import Results, add_output_option  # benchmarks/results_file.py

MiB = 1 << 20
SHIFTS = [0, 16, 64, 2048]
PIECES = [64 << 10, 256 << 10, MiB]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=int, default=64, help="bytes copied per round, MiB (64)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds per case (7)")
    add_output_option(parser)
    args = parser.parse_args()
    res = Results("bench_alignment", args)
    n = args.mib * MiB
    fd = os.memfd_create("bench-alignment")
    os.ftruncate(fd, n)
    src = memoryview(mmap.mmap(fd, n))
    src[:] = b"\x01" * n
    raw = np.zeros(n + 3 * 4096, dtype=np.uint8)
    base = -raw.ctypes.data % 4096
    print("piece     shift  GB/s   vs shift 0")
    for piece in PIECES:
        first = 0.0
        for shift in SHIFTS:
            dst = memoryview(raw[base + shift:base + shift + n]).cast("B")
            times = []
            for _ in range(args.rounds):
                t0 = time.perf_counter()
                for off in range(0, n, piece):
                    dst[off:off + piece] = src[off:off + piece]
                times.append(time.perf_counter() - t0)
            gbps = n / statistics.median(times) / 1e9
            first = first or gbps
            print(f"{piece >> 10:5d} KiB {shift:6d} {gbps:6.2f}   {gbps / first:5.2f}")
            res.row(piece_bytes=piece, shift=shift, gbps=gbps, vs_shift_0=gbps / first)
    for row in res.doc["rows"]:
        if row["shift"]:
            res.ratio(f"shift {row['shift']} / aligned at {row['piece_bytes'] >> 10} KiB",
                      row["vs_shift_0"])
    res.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
