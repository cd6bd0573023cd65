"""Host-tier ``get_into`` bandwidth against a plain copy of the same bytes, in the same run.

For each object size the store holds ``--total`` bytes of objects in its host arena; a round
reads all of them with ``EmbeddedStore.get_into`` into preallocated destinations. The baselines
copy the same bytes between the same kinds of buffers with numpy (``np.copyto``) and torch
(``Tensor.copy_``) and no store in between. Reported: median GB/s of ``--rounds`` rounds and the
ratio store / numpy (the target is >= 0.7).

    .venv/bin/python benchmarks/bench_host_tier.py --total 256 --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch

from reference_store import EmbeddedStore, StoreConfig

MB = 1 << 20


def _median_gbps(fn: Callable[[], None], nbytes: int, rounds: int) -> float:
    fn()  # warm-up: page faults on first touch are not bandwidth
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return nbytes / statistics.median(times) / 1e9


def bench_size(obj_bytes: int, total: int, rounds: int, dest_kind: str) -> tuple[float, float, float]:
    count = max(1, total // obj_bytes)
    store = EmbeddedStore(StoreConfig(host_bytes=count * obj_bytes + MB, lease_ttl_s=0.0))
    src = np.random.default_rng(0).integers(0, 256, obj_bytes, dtype=np.uint8)
    keys = [f"obj-{i}" for i in range(count)]
    for key in keys:
        store.put(key, src)
    if dest_kind == "torch":
        dests: list = [torch.empty(obj_bytes, dtype=torch.uint8) for _ in keys]
    else:
        dests = [np.empty(obj_bytes, dtype=np.uint8) for _ in keys]
    sources = [np.random.default_rng(1).integers(0, 256, obj_bytes, dtype=np.uint8) for _ in keys]
    tsources = [torch.from_numpy(s) for s in sources]
    tdests = [d if isinstance(d, torch.Tensor) else torch.from_numpy(d) for d in dests]
    ndests = [d.numpy() if isinstance(d, torch.Tensor) else d for d in dests]

    def via_store() -> None:
        for key, dest in zip(keys, dests):
            store.get_into(key, dest)

    def via_numpy() -> None:
        for s, d in zip(sources, ndests):
            np.copyto(d, s)

    def via_torch() -> None:
        for s, d in zip(tsources, tdests):
            d.copy_(s)

    nbytes = count * obj_bytes
    # interleave so drift in machine load hits all three alike
    results: dict[str, list[float]] = {"store": [], "numpy": [], "torch": []}
    for _ in range(rounds):
        results["store"].append(_median_gbps(via_store, nbytes, 1))
        results["numpy"].append(_median_gbps(via_numpy, nbytes, 1))
        results["torch"].append(_median_gbps(via_torch, nbytes, 1))
    for key in keys:  # check the bytes, outside the timing
        assert store.get(key) == src.tobytes()
    store.close()
    return tuple(statistics.median(results[k]) for k in ("store", "numpy", "torch"))  # type: ignore[return-value]


def churn_fragmentation(placement: str, puts: int = 3000) -> tuple[float, float]:
    """Fill a 64 MiB arena with mixed sizes under LRU eviction; return (fragmentation, fill)."""
    rng = np.random.default_rng(7)
    store = EmbeddedStore(StoreConfig(host_bytes=64 * MB, placement=placement, lease_ttl_s=0.0))
    payload = bytes(2 * MB)
    for i in range(puts):
        size = int(rng.choice([16 << 10, 64 << 10, 256 << 10, 1 * MB, 2 * MB]))
        store.put(f"c{i}", memoryview(payload)[:size])
    host = store.stats().tier("host")
    store.close()
    return host.fragmentation, host.used_bytes / host.capacity_bytes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--total", type=int, default=256, help="MiB read per round (default 256)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", default="64K,256K,1M,4M,16M", help="object sizes, e.g. 256K,1M")
    parser.add_argument("--dest", choices=["numpy", "torch"], default="numpy")
    args = parser.parse_args(argv)
    sizes = [int(s[:-1]) * (1024 if s.endswith("K") else MB) for s in args.sizes.split(",")]
    print(f"host tier get_into vs plain copy: {args.total} MiB per round, median of {args.rounds} rounds, "
          f"dest={args.dest}, torch threads={torch.get_num_threads()}")
    print(f"{'object':>8} {'store GB/s':>11} {'numpy GB/s':>11} {'torch GB/s':>11} {'store/numpy':>12} {'store/torch':>12}")
    for size in sizes:
        store_bw, numpy_bw, torch_bw = bench_size(size, args.total * MB, args.rounds, args.dest)
        label = f"{size // MB}M" if size >= MB else f"{size // 1024}K"
        print(f"{label:>8} {store_bw:11.2f} {numpy_bw:11.2f} {torch_bw:11.2f} "
              f"{store_bw / numpy_bw:12.2f} {store_bw / torch_bw:12.2f}")
    print("allocator after 3000 mixed-size puts (16K-2M) into 64 MiB with LRU eviction:")
    for placement in ("best_fit", "first_fit"):
        frag, fill = churn_fragmentation(placement)
        print(f"  {placement:>9}: fragmentation {frag:.2f} (1 - largest free / free), arena filled {fill:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
