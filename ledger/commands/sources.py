"""``ledger sources fetch [ARTICLE_ID]``"""

from __future__ import annotations

import argparse
from typing import Any

from ..sources import DEFAULT_SNAPSHOT_DIR, FetchConfig, fetch_sources
from ._common import add_command
from ._ledger import add_db_options, emit, open_ledger

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(subparsers, "sources", "Snapshot source URLs.",
                    "ledger sources fetch pct-2026-11-04-spotlight-mooncake-store")
    sub = p.add_subparsers(dest="sources_command", metavar="ACTION", required=True)
    defaults = FetchConfig()
    q = add_command(
        sub, "fetch",
        "Fetch each source URL (of one article, or of all), record status, final URL, content "
        "type, sha256 and time as a log entry, and keep the body in a content-addressed "
        "snapshot directory. Exit 0 when every source was fetched and none changed, 1 when one "
        "changed or failed (see `ledger impact --changed`).",
        "ledger sources fetch --snapshots ledger-snapshots --timeout 20")
    q.add_argument("article_id", nargs="?", metavar="ARTICLE_ID")
    q.add_argument("--snapshots", default=DEFAULT_SNAPSHOT_DIR, metavar="DIR",
                   help=f"snapshot directory (default: {DEFAULT_SNAPSHOT_DIR})")
    q.add_argument("--timeout", type=float, default=defaults.timeout_s, metavar="SECONDS")
    q.add_argument("--max-bytes", type=int, default=defaults.max_bytes, metavar="N")
    q.add_argument("--retries", type=int, default=defaults.retries, metavar="N")
    q.add_argument("--backoff", type=float, default=defaults.backoff_s, metavar="SECONDS",
                   help="first retry delay; doubles on each retry")
    add_db_options(q)
    q.set_defaults(func=_fetch)


def _text(records: list[dict[str, Any]]) -> str:
    lines = []
    for r in records:
        where = f"{r['article_id']}:{r['source_id']}"
        if r["error"]:
            lines.append(f"{where} FAILED {r['url']}: {r['error']} ({r['attempts']} attempt(s))")
        else:
            state = "CHANGED" if r["changed"] else ("new" if not r["previous_sha256"] else "same")
            lines.append(f"{where} {state} {r['status_code']} {r['final_url']} "
                         f"sha256:{r['sha256'][:16]} {r['size']} bytes")
    if any(r["changed"] for r in records):
        lines.append("sources changed: run `ledger impact --changed` for the figures to re-check")
    return "\n".join(lines) or "no sources"


def _fetch(args: argparse.Namespace) -> int:
    config = FetchConfig(timeout_s=args.timeout, max_bytes=args.max_bytes,
                         retries=args.retries, backoff_s=args.backoff)
    with open_ledger(args) as ledger:
        records = fetch_sources(ledger, args.article_id, snapshot_dir=args.snapshots,
                                config=config)
    emit(args, records, _text)
    return 1 if any(r["error"] or r["changed"] for r in records) else 0
