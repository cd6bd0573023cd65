"""Prefix reuse speeds up prefill and leaves decode alone: timed on this machine.

For prompts of several lengths that extend a cached context by 64 new tokens (an agent turn),
time one request served cold (nothing cached) and one served after its context was stored in the
shared EmbeddedStore on ANOTHER instance (so the KV is loaded, not found locally). Both paths
alternate round by round; each figure is the median of ``--rounds``. Reported as ratios measured
in the same run: prefill speed-up (cold / warm) and decode time ratio (warm / cold per token).

    .venv/bin/python benchmarks/replay_claims.py --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import sys

import torch
from results_file import Results, add_output_option  # benchmarks/results_file.py

from reference_store import EmbeddedStore, StoreConfig
from replay.engine import DoneEvent, ServingInstance
from replay.model import ModelConfig, TinyTransformer


def _stats(inst: ServingInstance, prompt: list[int], out: int) -> dict[str, float]:
    for ev in inst.generate(prompt, out):
        if isinstance(ev, DoneEvent):
            return ev.stats.to_dict()
    raise RuntimeError("no stats")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--lengths", type=int, nargs="+", default=[256, 512, 1024, 2048])
    p.add_argument("--output-tokens", type=int, default=32)
    add_output_option(p)
    args = p.parse_args(argv)
    res = Results("replay_claims", args)
    torch.set_num_threads(1)
    model = TinyTransformer(ModelConfig())
    gen = torch.Generator().manual_seed(0)
    print(f"{'context':>8} {'cold prefill ms':>16} {'warm prefill ms':>16} {'speed-up':>9} "
          f"{'cold decode ms/tok':>19} {'warm decode ms/tok':>19} {'decode ratio':>13}")
    for length in args.lengths:
        cold_p: list[float] = []
        warm_p: list[float] = []
        cold_d: list[float] = []
        warm_d: list[float] = []
        for r in range(args.rounds):
            base = torch.randint(0, model.cfg.vocab_size, (length + 64,), generator=gen).tolist()
            with EmbeddedStore(StoreConfig(host_bytes=256 << 20)) as store:
                writer = ServingInstance(model, store=store)
                reader = ServingInstance(model, store=store)
                cold_inst = ServingInstance(model)
                _stats(writer, base[:length], 1)  # the context is now in the store
                order = [(cold_inst, cold_p, cold_d), (reader, warm_p, warm_d)]
                for inst, pre, dec in (order if r % 2 == 0 else order[::-1]):
                    s = _stats(inst, base, args.output_tokens)
                    pre.append(s["prefill_s"] + s["transfer_s"])
                    dec.append(s["decode_s"] / (s["output_tokens"] - 1))
        cp, wp = statistics.median(cold_p), statistics.median(warm_p)
        cd, wd = statistics.median(cold_d), statistics.median(warm_d)
        print(f"{length:>8} {cp * 1e3:>16.2f} {wp * 1e3:>16.2f} {cp / wp:>8.2f}x "
              f"{cd * 1e3:>19.3f} {wd * 1e3:>19.3f} {wd / cd:>12.2f}x")
        res.row(context_tokens=length, cold_prefill_s=cp, warm_prefill_s=wp,
                cold_decode_s_per_token=cd, warm_decode_s_per_token=wd)
        res.ratio(f"prefill speed-up at {length} tokens (cold / warm time)", cp / wp)
        res.ratio(f"decode time warm / cold at {length} tokens", wd / cd)
    res.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
