"""``ledger impact ID`` and ``ledger export --format prov-json``"""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import UsageError
from ..impact import changed_sources, failed_sources, impact, stale_quotes
from ..provenance import export_prov_json
from ..snapshots import DEFAULT_SNAPSHOT_DIR
from ..sources import SnapshotStore
from ._common import add_command, write_output
from ._ledger import add_db_options, emit, open_ledger

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(
        subparsers, "impact",
        "List every figure, fact, inference, measurement and article that depends on a "
        "source, fact, run or metric, transitively: the sentences to re-check. ID is S4 (in "
        "every article), ARTICLE_ID:S4, F4, a run id, or RUN_ID/METRIC. With --changed, do "
        "this for every source whose latest fetch changed, and for every fact whose quote is "
        "gone from its source's latest snapshot.",
        "ledger impact pct-2026-11-04-spotlight-mooncake-store:S4")
    p.add_argument("id", nargs="?", metavar="ID")
    p.add_argument("--changed", action="store_true",
                   help="every source whose latest snapshot differs from the one before, "
                   "every quote gone from its source's latest snapshot (stale quotes), and "
                   "what rests on them; exit 1 when a source's latest fetch failed")
    p.add_argument("--snapshots", default=DEFAULT_SNAPSHOT_DIR, metavar="DIR",
                   help=f"snapshot directory, for stale quotes (default: {DEFAULT_SNAPSHOT_DIR})")
    add_db_options(p)
    p.set_defaults(func=_impact)

    p = add_command(subparsers, "export",
                    "Write the provenance graph (runs as activities, figures as entities).",
                    "ledger export --format prov-json --output ledger.prov.json")
    p.add_argument("--db", metavar="URL", help="ledger database (default: $LEDGER_DB_URL, "
                   "else ./ledger.db)")
    p.add_argument("--format", choices=["prov-json"], default="prov-json")
    p.add_argument("--output", metavar="FILE", help="write here instead of stdout")
    p.set_defaults(func=_export)


def _impact_text(results: list[dict[str, Any]]) -> str:
    lines = []
    for r in results:
        lines.append(f"{r['target']}: {r['figure_count']} figure(s) to re-check")
        for snap in r["snapshots"]:
            state = "CHANGED" if snap["changed"] else "unchanged"
            lines.append(f"  source {snap['article_id']}:{snap['source_id']} {state} at "
                         f"{snap['retrieved_at']} (sha256 {str(snap['sha256'])[:16]})")
        for a in r["articles"]:
            lines.append(f"  {a['article_id']} version {a['version']}")
            for kind in ("sources", "facts", "inferences", "measurements"):
                if a.get(kind):
                    lines.append(f"    {kind}: {', '.join(a[kind])}")
            for f in a["figures"]:
                lines.append(f"    body {f['line']}:{f['column']} {f['text']!r}: {f['sentence']}")
    return "\n".join(lines)


def _changed_text(data: dict[str, Any]) -> str:
    lines = [_impact_text(data["changed"])] if data["changed"] else []
    for q in data["stale_quotes"]:
        lines.append(f"stale quote: {q['article_id']}:{q['fact_id']} quotes {q['source_id']} "
                     f"as read on {q['retrieved_at'][:10]}; gone from the snapshot of "
                     f"{q['latest_at'][:10]}: {q['quote'][:100]!r}")
        lines.append(_impact_text([q["impact"]]).replace("\n", "\n  ", -1))
    for f in data["failed"]:
        lines.append(f"source {f['article_id']}:{f['source_id']} could not be fetched at "
                     f"{f['retrieved_at'][:19]} ({f['error']}): whether it changed is unknown")
    if not lines:
        return "no changed sources"
    return "\n".join(lines)


def _changed(conn: Any, snapshots: str) -> dict[str, Any]:
    targets = [f"{s['article_id']}:{s['source_id']}" for s in changed_sources(conn)]
    stale = stale_quotes(conn, SnapshotStore(snapshots))
    for q in stale:
        q["impact"] = impact(conn, f"{q['article_id']}:{q['fact_id']}").to_dict()
    return {"changed": [impact(conn, t).to_dict() for t in targets], "stale_quotes": stale,
            "failed": failed_sources(conn)}


def _impact(args: argparse.Namespace) -> int:
    if bool(args.id) == bool(args.changed):
        raise UsageError("give either an ID or --changed")
    with open_ledger(args) as ledger, ledger.read() as conn:
        if args.changed:
            data = _changed(conn, args.snapshots)
            emit(args, data, _changed_text)
            return 1 if data["failed"] else 0
        result = impact(conn, args.id).to_dict()
    emit(args, result, lambda d: _impact_text([d]))
    return 0


def _export(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger, ledger.read() as conn:
        text = export_prov_json(conn)
    write_output(text, args.output)
    return 0


