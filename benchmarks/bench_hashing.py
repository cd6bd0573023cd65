"""Block hashing speed per algorithm (vLLM-compatible chains), median of several rounds.

Hashes a prompt of ``--tokens`` token ids in blocks of ``--block-size``, with and without a
cache salt and LoRA adapter, and reports blocks per second, microseconds per block, and the
speed relative to ``sha256`` (pickle) measured in the same run.

    .venv/bin/python benchmarks/bench_hashing.py --tokens 32768 --rounds 7
"""

from __future__ import annotations

import argparse
import statistics
import time

from results_file import Results, add_output_option  # benchmarks/results_file.py

from reference_store.keys import HASH_ALGOS, LoraRef, block_hashes


def _medians(tokens: list[int], block_size: int, rounds: int, **extra: object) -> dict[str, float]:
    """Median seconds per algorithm; rounds interleave the algorithms so load drift hits all alike."""
    times: dict[str, list[float]] = {algo: [] for algo in HASH_ALGOS}
    for _ in range(rounds):
        for algo in HASH_ALGOS:
            start = time.perf_counter()
            block_hashes(tokens, block_size, algo, hash_seed="0", **extra)  # type: ignore[arg-type]
            times[algo].append(time.perf_counter() - start)
    return {algo: statistics.median(t) for algo, t in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=32768)
    parser.add_argument("--block-size", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=7)
    add_output_option(parser)
    args = parser.parse_args(argv)
    res = Results("bench_hashing", args)
    tokens = [(i * 2654435761) % 152_000 for i in range(args.tokens)]  # realistic large ids
    blocks = args.tokens // args.block_size
    cases = {"plain": {}, "salt+lora": {"cache_salt": "tenant-a", "lora": LoraRef("sql", "/adapters/sql")}}
    print(f"block hashing: {args.tokens} tokens = {blocks} blocks of {args.block_size}, median of {args.rounds} rounds")
    print(f"{'algo':>12} {'case':>10} {'blocks/s':>12} {'us/block':>9} {'vs sha256':>10}")
    for case, extra in cases.items():
        _medians(tokens, args.block_size, 1, **extra)  # warm-up
        measured = _medians(tokens, args.block_size, args.rounds, **extra)
        base = measured["sha256"]
        for algo, secs in measured.items():
            print(f"{algo:>12} {case:>10} {blocks / secs:12.0f} {secs / blocks * 1e6:9.2f} {base / secs:10.2f}")
            res.row(algo=algo, case=case, blocks_per_s=blocks / secs, vs_sha256=base / secs)
    for row in res.doc["rows"]:
        if row["case"] == "plain" and row["algo"] != "sha256":
            res.ratio(f"{row['algo']} / sha256 speed", row["vs_sha256"])
    res.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
