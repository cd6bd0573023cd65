"""``ledger verify`` throughput on many articles, against plain ``json`` + ``jsonschema``.

Writes ``--articles`` distinct article files (the desk's two articles, each copy with a
different figure-free closing sentence so no cache can serve a later copy), then times, in the
same run and interleaved round by round:

* **baseline**: ``json.load`` + ``jsonschema`` (draft 2020-12, validator built once) of each file;
* **verify**: ``ledger verify`` of the same files (schema, references, dates, figure tracing,
  labels, guardrails, arithmetic, consistency), with the figure cache cleared each round.

Reports the median articles per second of each and the ratio verify/baseline.

    .venv/bin/python benchmarks/bench_verify.py --articles 1000 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import jsonschema
from results_file import Results, add_output_option  # benchmarks/results_file.py

from ledger.figures import _extract
from ledger.quantities import _typed, lemma
from ledger.schema import SCHEMA_DIR
from ledger.verify import prose, verify_paths
from ledger.verify.consistency import word_count

ROOT = Path(__file__).resolve().parent.parent
ARTICLES = sorted((ROOT / "claims").glob("*.json"))
_WORDS = ["amber", "basalt", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo",
          "juniper", "kestrel", "lagoon", "meadow", "nectar", "onyx", "prairie"]


def _tag(i: int) -> str:
    """A figure-free phrase unique to ``i`` (base-16 digits spelled as words)."""
    words = []
    while True:
        words.append(_WORDS[i % 16])
        i //= 16
        if i == 0:
            return " ".join(words)


def write_corpus(directory: Path, count: int) -> list[Path]:
    templates = [json.loads(p.read_text(encoding="utf-8")) for p in ARTICLES]
    paths = []
    for i in range(count):
        doc = json.loads(json.dumps(templates[i % len(templates)]))
        doc["body"] += f"\n\nDesk reference {_tag(i)}."
        doc["editorial_word_count"] = word_count(doc["body"])
        path = directory / f"article-{i:05d}.json"
        path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def baseline(paths: list[Path], validator: jsonschema.Draft202012Validator) -> int:
    invalid = 0
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            invalid += not validator.is_valid(json.load(handle))
    return invalid


def verify(paths: list[Path]) -> int:
    for cache in (_extract, _typed, lemma, prose.paragraphs, prose.sentences, prose.clauses):
        cache.cache_clear()
    report = verify_paths(paths)
    return report.exit_code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    add_output_option(parser)
    args = parser.parse_args(argv)
    res = Results("bench_verify", args)
    schema = json.loads((SCHEMA_DIR / "article.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    times: dict[str, list[float]] = {"baseline": [], "verify": []}
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_corpus(Path(tmp), args.articles)
        assert baseline(paths[:4], validator) == 0 and verify(paths[:4]) == 0  # honest corpus
        for _ in range(args.rounds):
            start = time.perf_counter()
            assert baseline(paths, validator) == 0
            times["baseline"].append(time.perf_counter() - start)
            start = time.perf_counter()
            assert verify(paths) == 0, "the corpus must verify cleanly"
            times["verify"].append(time.perf_counter() - start)
    medians = {name: statistics.median(t) for name, t in times.items()}
    print(f"{args.articles} articles, median of {args.rounds} rounds")
    for name, secs in medians.items():
        print(f"{name:>9}: {secs:8.2f} s  {args.articles / secs:9.1f} articles/s")
    ratio = medians["verify"] / medians["baseline"]
    print(f"ratio: ledger verify takes {ratio:.1f}x the time of json+jsonschema "
          f"(throughput {1 / ratio:.3f} of the baseline)")
    for name, secs in medians.items():
        res.row(tool=name, seconds=secs, articles_per_s=args.articles / secs)
    res.ratio("ledger verify time / json+jsonschema time", ratio)
    res.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
