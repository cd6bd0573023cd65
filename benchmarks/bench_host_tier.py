"""Host-tier ``get_into`` bandwidth against a plain copy of the same bytes, in the same run.

For each object size the store holds ``--total`` bytes of objects in its host arena; a round
reads all of them with ``EmbeddedStore.get_into`` into preallocated destinations. The baselines
copy the same bytes between the same kinds of buffers with numpy (``np.copyto``) and torch
(``Tensor.copy_``) and no store in between. Reported: median GB/s of ``--rounds`` rounds and the
ratio store / numpy (the target is >= 0.7).

``--mode kv`` measures small, KV-block-sized objects (16-64 KiB by default), where per-call
overhead rather than memory bandwidth decides: ``get_into`` one key at a time and
``batch_get_into`` in batches of ``--batch`` keys, into uint8 numpy arrays and into float16
torch tensors shaped like a KV block, against ``np.copyto`` / ``Tensor.copy_`` of the same bytes
between the same buffers. ``batch_fresh`` is ``batch_get_into`` into destinations allocated for
each batch (``torch.empty``/``np.empty`` included in the time), as a serving engine's read path
does; its ratio is against ``np.copyto`` into destinations allocated the same way. Reported:
microseconds per object and bandwidth ratios store / numpy (same bytes, same run), then the
fixed cost of one call (a 64-byte object read again and again, so the copy is free).

    .venv/bin/python benchmarks/bench_host_tier.py --total 256 --rounds 5
    .venv/bin/python benchmarks/bench_host_tier.py --mode kv --total 64 --rounds 9
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch
from results_file import Results, add_output_option  # benchmarks/results_file.py

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


KV_METHODS = ("get_into", "batch_get_into", "batch_fresh")


def _interleaved(fns: dict[str, Callable[[], None]], rounds: int) -> dict[str, float]:
    """Median seconds per call of each function, run in turn each round so drift hits all alike."""
    for fn in fns.values():
        fn()  # warm-up
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def _kv_dests(kind: str, obj_bytes: int, count: int) -> list:
    if kind == "numpy":
        return [np.empty(obj_bytes, dtype=np.uint8) for _ in range(count)]
    # float16 [2 (K and V), obj_bytes / 256 tokens-heads, 64 head_dim], as a KV block is shaped
    return [torch.empty(2, obj_bytes // 256, 64, dtype=torch.float16) for _ in range(count)]


def bench_kv(obj_bytes: int, total: int, rounds: int, kind: str, batch: int) -> dict[str, float]:
    """Median seconds per round for the store methods and the plain copies, one object size."""
    count = max(batch, total // obj_bytes // batch * batch)
    store = EmbeddedStore(StoreConfig(host_bytes=count * obj_bytes + MB))
    block = np.random.default_rng(0).integers(0, 256, obj_bytes, dtype=np.uint8)
    keys = [f"kv-{i}" for i in range(count)]
    errors = store.batch_put(keys, [block] * count)
    assert not any(errors), errors
    dests = _kv_dests(kind, obj_bytes, count)
    sources = [np.random.default_rng(1).integers(0, 256, obj_bytes, dtype=np.uint8) for _ in keys]
    nsrc = [s.view(np.float16).reshape(d.shape) if kind == "torch" else s for s, d in zip(sources, dests)]
    tsrc = [torch.from_numpy(s) for s in nsrc]
    ndst = [d.numpy() if kind == "torch" else d for d in dests]
    tdst = [d if kind == "torch" else torch.from_numpy(d) for d in dests]
    chunks = [(keys[i:i + batch], dests[i:i + batch]) for i in range(0, count, batch)]

    def get_into() -> None:
        for key, dest in zip(keys, dests):
            store.get_into(key, dest)

    def batch_get_into() -> None:
        for ks, ds in chunks:
            store.batch_get_into(ks, ds)

    def batch_fresh() -> None:  # as a serving engine does: new destinations for every read
        for ks, _ in chunks:
            store.batch_get_into(ks, _kv_dests(kind, obj_bytes, len(ks)))

    def numpy_copy() -> None:
        for s, d in zip(nsrc, ndst):
            np.copyto(d, s)

    def numpy_fresh() -> None:  # the plain copy with batch_fresh's allocations
        for i in range(0, count, batch):
            fresh = _kv_dests(kind, obj_bytes, batch)
            for s, d in zip(nsrc[i:i + batch], fresh):
                np.copyto(d.numpy() if kind == "torch" else d, s)

    def torch_copy() -> None:
        for s, d in zip(tsrc, tdst):
            d.copy_(s)

    medians = _interleaved({"get_into": get_into, "batch_get_into": batch_get_into,
                            "batch_fresh": batch_fresh, "numpy": numpy_copy, "numpy_fresh": numpy_fresh,
                            "torch": torch_copy}, rounds)
    get_into()  # the copies overwrote the destinations: read once more and check the bytes
    assert all(d.view(np.uint8).reshape(-1).tobytes() == block.tobytes() for d in ndst)
    store.close()
    return {name: seconds / count for name, seconds in medians.items()}


def call_overhead(kind: str, rounds: int, calls: int = 20000) -> dict[str, float]:
    """Seconds per call reading one 64-byte object again and again (the copy costs nothing)."""
    store = EmbeddedStore(StoreConfig(host_bytes=MB))
    store.put("tiny", bytes(64))
    dest = _kv_dests(kind, 256, 1)[0].reshape(-1)[:32] if kind == "torch" else np.empty(64, np.uint8)
    src, ndest = np.zeros(64, np.uint8), np.empty(64, np.uint8)
    keys, dests = ["tiny"] * 64, [dest] * 64

    def get_into() -> None:
        for _ in range(calls):
            store.get_into("tiny", dest)

    def batch_get_into() -> None:
        for _ in range(calls // 64):
            store.batch_get_into(keys, dests)

    def numpy_copy() -> None:
        for _ in range(calls):
            np.copyto(ndest, src)

    medians = _interleaved({"get_into": get_into, "batch_get_into": batch_get_into,
                            "numpy": numpy_copy}, rounds)
    store.close()
    per_batch = calls // 64 * 64
    return {"get_into": medians["get_into"] / calls, "batch_get_into": medians["batch_get_into"] / per_batch,
            "numpy": medians["numpy"] / calls}


def main_kv(args: argparse.Namespace, sizes: list[int], res: Results) -> int:
    print(f"small-object reads: {args.total} MiB per round, median of {args.rounds} rounds, "
          f"batch={args.batch}, torch threads={torch.get_num_threads()}")
    print(f"{'object':>7} {'dest':>6} {'numpy us':>9} {'torch us':>9} "
          + " ".join(f"{m + ' us':>17} {m + '/' + ('numpy_fresh' if m == 'batch_fresh' else 'numpy'):>23}"
                     for m in KV_METHODS))
    for size in sizes:
        for kind in ("numpy", "torch"):
            per = bench_kv(size, args.total * MB, args.rounds, kind, args.batch)
            base = {m: per["numpy_fresh" if m == "batch_fresh" else "numpy"] for m in KV_METHODS}
            cells = " ".join(f"{per[m] * 1e6:17.2f} {base[m] / per[m]:23.2f}" for m in KV_METHODS)
            print(f"{size // 1024:>6}K {kind:>6} {per['numpy'] * 1e6:9.2f} {per['torch'] * 1e6:9.2f} {cells}")
            res.row(size_bytes=size, dest=kind, **{f"{m}_us": per[m] * 1e6 for m in per})
            for m in KV_METHODS:
                res.ratio(f"{m} / {'numpy_fresh' if m == 'batch_fresh' else 'numpy'} at "
                          f"{size // 1024} KiB, dest {kind}", base[m] / per[m])
    print("fixed cost per call (one 64-byte object read again and again, median of rounds):")
    for kind in ("numpy", "torch"):
        per = call_overhead(kind, args.rounds)
        print(f"  dest={kind:>5}: get_into {per['get_into'] * 1e6:.2f} us, batch_get_into "
              f"{per['batch_get_into'] * 1e6:.2f} us a key, np.copyto {per['numpy'] * 1e6:.2f} us")
        res.row(call_overhead_dest=kind, **{f"{m}_us": v * 1e6 for m, v in per.items()})
    res.save()
    return 0


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
    parser.add_argument("--sizes", default=None,
                        help="object sizes, e.g. 256K,1M (default 64K,256K,1M,4M,16M; kv: 16K,32K,64K)")
    parser.add_argument("--dest", choices=["numpy", "torch"], default="numpy")
    parser.add_argument("--mode", choices=["bandwidth", "kv"], default="bandwidth",
                        help="bandwidth: large objects (default); kv: 16-64 KiB objects, per-call cost")
    parser.add_argument("--batch", type=int, default=64, help="keys per batch_get_into (kv mode)")
    add_output_option(parser)
    args = parser.parse_args(argv)
    res = Results(f"bench_host_tier-{args.mode}", args)
    default_sizes = "16K,32K,64K" if args.mode == "kv" else "64K,256K,1M,4M,16M"
    sizes = [int(s[:-1]) * (1024 if s.endswith("K") else MB) for s in (args.sizes or default_sizes).split(",")]
    if args.mode == "kv":
        return main_kv(args, sizes, res)
    print(f"host tier get_into vs plain copy: {args.total} MiB per round, median of {args.rounds} rounds, "
          f"dest={args.dest}, torch threads={torch.get_num_threads()}")
    print(f"{'object':>8} {'store GB/s':>11} {'numpy GB/s':>11} {'torch GB/s':>11} {'store/numpy':>12} {'store/torch':>12}")
    for size in sizes:
        store_bw, numpy_bw, torch_bw = bench_size(size, args.total * MB, args.rounds, args.dest)
        label = f"{size // MB}M" if size >= MB else f"{size // 1024}K"
        print(f"{label:>8} {store_bw:11.2f} {numpy_bw:11.2f} {torch_bw:11.2f} "
              f"{store_bw / numpy_bw:12.2f} {store_bw / torch_bw:12.2f}")
        res.row(size_bytes=size, store_gbps=store_bw, numpy_gbps=numpy_bw, torch_gbps=torch_bw)
        res.ratio(f"get_into / numpy copy at {label}", store_bw / numpy_bw)
    print("allocator after 3000 mixed-size puts (16K-2M) into 64 MiB with LRU eviction:")
    for placement in ("best_fit", "first_fit"):
        frag, fill = churn_fragmentation(placement)
        print(f"  {placement:>9}: fragmentation {frag:.2f} (1 - largest free / free), arena filled {fill:.1%}")
        res.row(placement=placement, fragmentation=frag, arena_filled=fill)
    res.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
