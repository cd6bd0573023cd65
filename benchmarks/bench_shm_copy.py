"""One copy thread or two on the shared-memory data path, measured in the same run.

A master and one node run as processes; one client (this process, ``data_path="shm"``) puts and
gets 64 MiB batches of each object size, alternating rounds with two-thread copies allowed
(``PARALLEL_COPY_BYTES`` at its default, pieces of any size) and with one thread only. The first
two rounds of each size warm up and are dropped; the medians of the rest are reported. This is
what chose ``PARALLEL_PIECE_BYTES``: on two cores the node needs the second core for the
reservations and pins of many small objects.

Usage::

    python benchmarks/bench_shm_copy.py --rounds 16
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from cluster_fixtures import cluster  # noqa: E402
from results_file import Results, add_output_option  # benchmarks/results_file.py
from store_vs_mooncake import page_aligned  # noqa: E402

from reference_store.transport import segment  # noqa: E402

MiB = 1 << 20
SIZES = [256 << 10, MiB, 4 * MiB]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=16, help="rounds per size (even; 16)")
    parser.add_argument("--batch-mib", type=int, default=64, help="batch size in MiB (64)")
    add_output_option(parser)
    args = parser.parse_args()
    res = Results("bench_shm_copy", args)
    batch = args.batch_mib * MiB
    default_bytes, default_piece = segment.PARALLEL_COPY_BYTES, segment.PARALLEL_PIECE_BYTES
    print("size      mode     put GB/s  get GB/s")
    with cluster(nodes=1, memory=f"{4 * args.batch_mib}MiB") as c:
        client = c.client(data_path="shm")
        for size in SIZES:
            n = batch // size
            src, dst = page_aligned(n * size), page_aligned(n * size)
            src[:] = 7
            sv = [memoryview(src)[i * size:(i + 1) * size] for i in range(n)]
            dv = [memoryview(dst)[i * size:(i + 1) * size] for i in range(n)]
            times: dict[str, list[tuple[float, float]]] = {"two": [], "one": []}
            for r in range(args.rounds):
                mode = "two" if r % 2 else "one"
                segment.PARALLEL_COPY_BYTES = default_bytes if mode == "two" else 1 << 62
                segment.PARALLEL_PIECE_BYTES = 0 if mode == "two" else default_piece
                keys = [f"copy-{size}-{r}-{i}" for i in range(n)]
                t0 = time.perf_counter()
                client.batch_put(keys, sv)
                t1 = time.perf_counter()
                client.batch_get_into(keys, dv)
                t2 = time.perf_counter()
                client.batch_remove(keys, force=True)
                if r >= 2:
                    times[mode].append((t1 - t0, t2 - t1))
            label = f"{size // MiB} MiB" if size >= MiB else f"{size >> 10} KiB"
            gbps = {}
            for mode, samples in times.items():
                put = n * size / statistics.median(t[0] for t in samples) / 1e9
                get = n * size / statistics.median(t[1] for t in samples) / 1e9
                gbps[mode] = (put, get)
                print(f"{label:>8}  {mode:<6} {put:9.2f} {get:9.2f}")
                res.row(size_bytes=size, threads=mode, put_gbps=put, get_gbps=get)
            res.ratio(f"two / one threads put at {label}", gbps["two"][0] / gbps["one"][0])
            res.ratio(f"two / one threads get at {label}", gbps["two"][1] / gbps["one"][1])
    segment.PARALLEL_COPY_BYTES, segment.PARALLEL_PIECE_BYTES = default_bytes, default_piece
    res.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
