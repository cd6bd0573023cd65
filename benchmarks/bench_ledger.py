"""Ingest and audit cost per entry as the ledger grows, on SQLite and PostgreSQL.

For each back end the ledger is grown to each size in ``--sizes``; at every size the script
times (a) ``--probe`` real ingests (``Ledger.ingest``: verify-free storage of a small article,
one transaction each, with its projection rows) and (b) a full audit (every leaf, the chain,
the Merkle root). Each is repeated ``--rounds`` times and the median is reported, per entry,
with its ratio to the smallest size measured in the same run: a flat audit ratio means the
audit is linear in the number of entries.

The ledger is grown between sizes by appending article-sized filler entries (kind
``bench.fill``) in large transactions, which is faster than ingesting 100k articles one by one
and gives the audit the same amount of work per entry.

    .venv/bin/python benchmarks/bench_ledger.py --quick
    .venv/bin/python benchmarks/bench_ledger.py --sizes 1000,10000,100000 --output bench.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from typing import Any

import psycopg
from results_file import Results, add_output_option  # benchmarks/results_file.py

from ledger.db import Ledger
from ledger.log import read_head
from ledger.models import Article

PG_CONNINFO = "host=127.0.0.1 port=5432 dbname=test user=postgres"
FILL_BATCH = 2000


def small_article(n: int) -> dict[str, Any]:
    body = "The store keeps attention state that other instances reuse. [S1]"
    return {
        "id": f"b{n}-2026-11-04", "title": f"Bench article {n}", "section": "Bench",
        "publisher": "Bench desk", "as_of_date": "2026-11-04", "status": "draft",
        "subject": "bench", "editorial_word_count": 9,
        "facts": [{"id": "F1", "claim": "The page describes the store.", "source_ids": ["S1"],
                   "evidence_type": "primary_documentation"}],
        "license": {"editorial_text": "CC BY 4.0"},
        "sources": [{"id": "S1", "title": "A page", "publisher": "Someone", "published_at": None,
                     "retrieved_at": "2026-11-04", "url": f"https://example.org/{n}",
                     "primary": True}],
        "body": body, "content_type": "news", "publication_date": "2026-11-04",
        "observation_date": "2026-11-04",
    }


def fill(ledger: Ledger, count: int, start: int) -> None:
    done = 0
    while done < count:
        batch = min(FILL_BATCH, count - done)
        with ledger.write() as app:
            for i in range(batch):
                n = start + done + i
                app.append("bench.fill", f"fill-{n}", {"document": small_article(n)})
        done += batch


def size_of(ledger: Ledger) -> int:
    with ledger.read() as conn:
        return read_head(conn)[0]


def probe_ingest(ledger: Ledger, probe: int, serial: list[int]) -> float:
    """Seconds per ingest, over ``probe`` ingests of fresh articles."""
    articles = []
    for _ in range(probe):
        serial[0] += 1
        articles.append(Article.model_validate_json(json.dumps(small_article(10**7 + serial[0]))))
    t0 = time.perf_counter()
    for article in articles:
        ledger.ingest(article)
    return (time.perf_counter() - t0) / probe


def time_audit(ledger: Ledger) -> tuple[float, int]:
    t0 = time.perf_counter()
    result = ledger.audit()
    elapsed = time.perf_counter() - t0
    if not result.ok:
        raise SystemExit(f"audit failed during the benchmark: {result.problem}")
    return elapsed, result.size


def bench_backend(url: str, sizes: list[int], probe: int, rounds: int) -> list[dict[str, Any]]:
    rows = []
    serial = [0]
    with Ledger.open(url) as ledger:
        for size in sizes:
            current = size_of(ledger)
            if size > current:
                fill(ledger, size - current, current)
            ingest = statistics.median(probe_ingest(ledger, probe, serial) for _ in range(rounds))
            audits = [time_audit(ledger) for _ in range(rounds)]
            audit_s = statistics.median(a for a, _ in audits)
            entries = audits[-1][1]
            rows.append({"size": entries, "ingest_ms_per_entry": ingest * 1e3,
                         "audit_s": audit_s, "audit_us_per_entry": audit_s / entries * 1e6})
            print(f"  {entries:>8} entries: ingest {ingest * 1e3:8.3f} ms/entry, audit "
                  f"{audit_s:8.3f} s = {audit_s / entries * 1e6:7.2f} us/entry", flush=True)
    base = rows[0]
    for row in rows:
        row["ingest_ratio_to_smallest"] = row["ingest_ms_per_entry"] / base["ingest_ms_per_entry"]
        row["audit_per_entry_ratio_to_smallest"] = (row["audit_us_per_entry"]
                                                    / base["audit_us_per_entry"])
    return rows


def _pg_schema() -> tuple[str, str]:
    schema = f"ledger_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_CONNINFO, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    return schema, ("postgresql+psycopg://postgres@127.0.0.1:5432/test"
                    f"?options=-csearch_path%3D{schema}")


def _drop(schema: str) -> None:
    with psycopg.connect(PG_CONNINFO, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000",
                        help="comma-separated ledger sizes (entries)")
    parser.add_argument("--quick", action="store_true", help="sizes 1000,4000; 2 rounds")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--probe", type=int, default=100, help="timed ingests per round")
    parser.add_argument("--rounds", type=int, default=3)
    add_output_option(parser)
    args = parser.parse_args(argv)
    res = Results("bench_ledger", args)
    sizes = [1000, 4000] if args.quick else [int(s) for s in args.sizes.split(",")]
    rounds = 2 if args.quick else args.rounds
    probe = min(args.probe, 50) if args.quick else args.probe
    results: dict[str, Any] = {"sizes": sizes, "probe": probe, "rounds": rounds}
    for backend in args.backends.split(","):
        print(f"{backend}:", flush=True)
        if backend == "sqlite":
            with tempfile.TemporaryDirectory() as tmp:
                results[backend] = bench_backend(f"sqlite:///{tmp}/bench.db", sizes, probe, rounds)
        elif backend == "postgresql":
            schema, url = _pg_schema()
            try:
                results[backend] = bench_backend(url, sizes, probe, rounds)
            finally:
                _drop(schema)
        else:
            parser.error(f"unknown backend {backend!r}")
    for backend in args.backends.split(","):
        last = results[backend][-1]
        res.ratio(f"{backend} audit per entry at {last['size']} / at {results[backend][0]['size']}",
                  last["audit_per_entry_ratio_to_smallest"])
    res.save(results=results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
