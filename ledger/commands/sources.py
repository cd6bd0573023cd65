"""``ledger sources fetch|add|import|export``"""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import UsageError
from ..sources import DEFAULT_SNAPSHOT_DIR, FetchConfig, SnapshotStore, fetch_sources
from ._common import add_command
from ._ledger import add_db_options, emit, open_ledger

__all__ = ["register"]


def _snapshots_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--snapshots", default=DEFAULT_SNAPSHOT_DIR, metavar="DIR",
                   help=f"snapshot directory (default: {DEFAULT_SNAPSHOT_DIR})")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(subparsers, "sources", "Snapshot sources: fetch, add saved pages, WARC.",
                    "ledger sources fetch pct-2026-11-04-spotlight-mooncake-store")
    sub = p.add_subparsers(dest="sources_command", metavar="ACTION", required=True)
    defaults = FetchConfig()
    q = add_command(
        sub, "fetch",
        "Fetch each source URL (of one article, or of all), record status, final URL, content "
        "type, sha256 and time as a log entry, and keep the body and its readable text in a "
        "content-addressed snapshot directory. Exit 0 when every source was fetched (changed "
        "or not: see `ledger impact --changed`), 1 when a fetch failed or, with "
        "--fail-on-change, a source changed.",
        "ledger sources fetch --snapshots ledger-snapshots --timeout 20 && "
        "ledger impact --changed")
    q.add_argument("article_id", nargs="?", metavar="ARTICLE_ID")
    _snapshots_option(q)
    q.add_argument("--timeout", type=float, default=defaults.timeout_s, metavar="SECONDS")
    q.add_argument("--max-bytes", type=int, default=defaults.max_bytes, metavar="N")
    q.add_argument("--retries", type=int, default=defaults.retries, metavar="N")
    q.add_argument("--backoff", type=float, default=defaults.backoff_s, metavar="SECONDS",
                   help="first retry delay; doubles on each retry")
    q.add_argument("--fail-on-change", action="store_true",
                   help="exit 1 when a source changed since its previous snapshot")
    add_db_options(q)
    q.set_defaults(func=_fetch)

    q = add_command(
        sub, "add",
        "Record a saved copy of one source (HTML, Markdown, PDF or text) as a snapshot, with "
        "its readable text, as if it had been fetched.",
        "ledger sources add pct-2026-11-04-spotlight-mooncake-store:S2 S2.md "
        "--retrieved-at 2026-11-04")
    q.add_argument("target", metavar="ARTICLE:S#")
    q.add_argument("file", metavar="FILE")
    q.add_argument("--url", metavar="URL", help="where the copy came from (default: the "
                   "source's URL)")
    q.add_argument("--retrieved-at", metavar="DATE", help="when it was read (ISO date or "
                   "date-time; default: now)")
    _snapshots_option(q)
    add_db_options(q)
    q.set_defaults(func=_add)

    q = add_command(
        sub, "import",
        "Record the pages of a WARC archive as snapshots of every source with their URL.",
        "ledger sources import last-week.warc.gz")
    q.add_argument("archive", metavar="ARCHIVE.warc.gz")
    _snapshots_option(q)
    add_db_options(q)
    q.set_defaults(func=_import)

    q = add_command(
        sub, "export",
        "Write every snapshot an article rests on to a gzipped WARC archive, dated as read.",
        "ledger sources export pct-2026-11-04-spotlight-mooncake-store --warc seed.warc.gz")
    q.add_argument("article_id", metavar="ARTICLE_ID")
    q.add_argument("--warc", required=True, metavar="OUT.warc.gz")
    _snapshots_option(q)
    add_db_options(q)
    q.set_defaults(func=_export)


def _line(r: dict[str, Any]) -> str:
    where = f"{r['article_id']}:{r['source_id']}"
    if r["error"]:
        return f"{where} FAILED {r['url']}: {r['error']} ({r['attempts']} attempt(s))"
    state = "CHANGED" if r["changed"] else ("new" if not r["previous_sha256"] else "same")
    text = (f"text sha256:{r['text_sha256'][:16]}" if r.get("text_sha256")
            else f"no text: {r.get('text_error')}")
    status = f" {r['status_code']}" if r.get("status_code") else ""
    return (f"{where} {state}{status} {r['final_url']} sha256:{r['sha256'][:16]} "
            f"{r['size']} bytes; {text}")


def _text(records: list[dict[str, Any]]) -> str:
    lines = [_line(r) for r in records]
    failed = sum(1 for r in records if r["error"])
    if records and failed == len(records):
        lines.append(f"no source could be fetched ({failed} failure(s)): offline, or every "
                     "site refused? Nothing is known about changes")
    elif any(r["changed"] for r in records):
        lines.append("sources changed: run `ledger impact --changed` for the figures to re-check")
    return "\n".join(lines) or "no sources"


def _fetch(args: argparse.Namespace) -> int:
    config = FetchConfig(timeout_s=args.timeout, max_bytes=args.max_bytes,
                         retries=args.retries, backoff_s=args.backoff)
    with open_ledger(args) as ledger:
        records = fetch_sources(ledger, args.article_id, snapshot_dir=args.snapshots,
                                config=config)
    emit(args, records, _text)
    if any(r["error"] for r in records):
        return 1
    return 1 if args.fail_on_change and any(r["changed"] for r in records) else 0


def _add(args: argparse.Namespace) -> int:
    from ..archives import add_file

    with open_ledger(args) as ledger:
        record = add_file(ledger, args.target, args.file, store=SnapshotStore(args.snapshots),
                          url=args.url, retrieved_at=args.retrieved_at)
    emit(args, record, _line)
    return 0


def _import(args: argparse.Namespace) -> int:
    from ..archives import import_warc

    with open_ledger(args) as ledger:
        summary = import_warc(ledger, args.archive, store=SnapshotStore(args.snapshots))

    def text(data: dict[str, Any]) -> str:
        lines = [_line(r) for r in data["records"]]
        lines += [f"no source has the URL {url}; skipped" for url in data["unmatched"]]
        lines.append(f"imported {len(data['records'])} snapshot(s), {data['already']} already "
                     f"recorded, {len(data['unmatched'])} record(s) matched no source")
        return "\n".join(lines)

    emit(args, summary.to_dict(), text)
    if not summary.records and not summary.already:
        raise UsageError(f"{args.archive}: no record matched a source URL in the ledger")
    return 0


def _export(args: argparse.Namespace) -> int:
    from ..archives import export_warc

    with open_ledger(args) as ledger:
        written = export_warc(ledger, args.article_id, args.warc,
                              store=SnapshotStore(args.snapshots))
    emit(args, written, lambda rows: "\n".join(
        [f"{r['source_id']} {r['retrieved_at'][:19]} sha256:{r['sha256'][:16]} {r['url']}"
         for r in rows] + [f"wrote {len(rows)} snapshot(s) to {args.warc}"]))
    return 0
