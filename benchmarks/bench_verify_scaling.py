"""``ledger verify`` time against body size, and one article including start-up.

1. **Scaling**: the desk's seed article with its body replaced by one paragraph of N
   figure-bearing sentences (the hostile-input probe of issue 13), N doubled four times from
   ``--start``; each size is verified in-process ``--rounds`` times (caches cleared) and the
   median kept. Prints each time and the ratio to the previous size: linear time gives about
   2.0, and every ratio must stay under 2.5.
2. **Start-up**: ``python -m ledger verify`` on the seed article as a fresh process, median of
   ``--rounds`` runs, against a bare ``python -c pass`` in the same run.

    .venv/bin/python benchmarks/bench_verify_scaling.py --start 250 --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from results_file import Results, add_output_option  # benchmarks/results_file.py

from ledger.figures import _extract
from ledger.models import Article
from ledger.quantities import _typed, lemma
from ledger.verify import prose, verify_article

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "claims" / "pct-2026-11-04-spotlight-mooncake-store.json"
SENTENCE = ("They reported 3.8 times the throughput on 12 GB200 GPUs, a 46-fold reduction in "
            "median time to first token and 92.2% cache hits. ")
LIMIT = 2.5


def _clear() -> None:
    for cache in (_extract, _typed, lemma, prose.paragraphs, prose.sentences, prose.clauses):
        cache.cache_clear()


def time_body(article: Article, sentences: int, rounds: int) -> float:
    body = SENTENCE * sentences
    art = article.model_copy(update={"body": body, "editorial_word_count": len(body.split())})
    times = []
    for _ in range(rounds):
        _clear()
        start = time.perf_counter()
        verify_article(art)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_process(argv: list[str], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        subprocess.run(argv, check=False, capture_output=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--start", type=int, default=250, help="sentences in the smallest body")
    parser.add_argument("--rounds", type=int, default=3)
    add_output_option(parser)
    args = parser.parse_args(argv)
    res = Results("bench_verify_scaling", args)
    article = Article.model_validate_json(SEED.read_text(encoding="utf-8"))
    print(f"body scaling: one paragraph of N sentences, median of {args.rounds} rounds")
    previous, worst = None, 0.0
    for step in range(5):
        n = args.start * 2 ** step
        secs = time_body(article, n, args.rounds)
        ratio = secs / previous if previous else None
        worst = max(worst, ratio or 0.0)
        shown = f"  ratio {ratio:.2f}" if ratio else ""
        print(f"  N={n:>6} ({len(SENTENCE) * n:>9,} chars): {secs:7.3f} s{shown}")
        res.row(sentences=n, seconds=secs, ratio_to_previous=ratio)
        previous = secs
    print(f"worst doubling ratio: {worst:.2f} (limit {LIMIT}) -> "
          f"{'OK' if worst < LIMIT else 'OVER'}")
    bare = time_process([sys.executable, "-c", "pass"], args.rounds)
    one = time_process([sys.executable, "-m", "ledger", "verify", str(SEED)], args.rounds)
    print(f"one article including start-up: {one:.3f} s (bare interpreter {bare:.3f} s; "
          f"target under 1 s)")
    res.ratio("worst doubling ratio", worst)
    res.save(one_article_s=one, bare_interpreter_s=bare)
    return 0 if worst < LIMIT and one < 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
