"""``ledger ingest PATH...``, ``ledger show ID``, ``ledger history ARTICLE_ID``"""

from __future__ import annotations

import argparse
import difflib
import re
from typing import Any

from ..db import Ledger
from ..errors import DocumentError, NotFound, UsageError
from ..progress import progress
from ..report import Severity
from ..schema import load_article
from ..verify import expand_paths, verify_article
from ..verify.runs import measurement_check
from ._common import add_command
from ._ledger import add_db_options, dumps, emit, open_ledger, run_lookup

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(
        subparsers, "ingest",
        "Verify articles, then store each as a new version in the ledger. An article with "
        "verification errors is refused unless --allow-errors. Exit 0 when all are stored "
        "(or unchanged), 1 when one was refused, 2 when a file cannot be read.",
        "ledger ingest claims/ --db ledger.db")
    p.add_argument("paths", nargs="+", metavar="PATH", help="article JSON files or directories")
    p.add_argument("--allow-errors", action="store_true",
                   help="store articles even when verification reports errors")
    add_db_options(p)
    p.set_defaults(func=_ingest)

    p = add_command(subparsers, "show",
                    "Show a stored article (latest or --version N), one of its sources, facts, "
                    "inferences or measurements (ARTICLE_ID:S4), a run, or a log entry (#12).",
                    "ledger show pct-2026-11-04-spotlight-mooncake-store:S4 --format json")
    p.add_argument("id", metavar="ID",
                   help="ARTICLE_ID, ARTICLE_ID:S4 (or :F4, :I1, :M1), RUN_ID, or #ENTRY")
    p.add_argument("--version", type=int, help="article version (default: latest)")
    add_db_options(p)
    p.set_defaults(func=_show)

    p = add_command(subparsers, "history",
                    "List every stored version of an article with its differences.",
                    "ledger history pct-2026-11-04-spotlight-mooncake-store")
    p.add_argument("article_id", metavar="ARTICLE_ID")
    add_db_options(p)
    p.set_defaults(func=_history)


def _ingest_one(ledger: Any, path: str, allow_errors: bool) -> dict[str, Any]:
    try:
        article, findings = load_article(path)
    except DocumentError as exc:
        return {"path": path, "outcome": "unreadable", "reason": str(exc)}
    if article is not None:
        # The runs an article cites must already be in this ledger (`ledger runs import`).
        with run_lookup(ledger) as lookup:
            findings += verify_article(article, [measurement_check(lookup)])
    errors = [f for f in findings if f.severity is Severity.error]
    if article is None or (errors and not allow_errors):
        reasons = [f"{f.pointer or '/'}: [{f.rule}] {f.message}" for f in errors]
        return {"path": path, "outcome": "refused", "errors": reasons}
    try:
        result = ledger.ingest(article)
    except UsageError as exc:  # content no database may hold (a NUL character)
        return {"path": path, "outcome": "refused", "errors": [str(exc)]}
    outcome = "unchanged" if result.unchanged else "stored"
    return {"path": path, "outcome": outcome, "errors_allowed": len(errors)} | result.to_dict()


def _ingest_text(results: list[dict[str, Any]]) -> str:
    lines = []
    for r in results:
        if r["outcome"] in ("stored", "unchanged"):
            lines.append(f"{r['path']}: {r['outcome']} {r['article_id']} version {r['version']} "
                         f"(entry {r['entry_seq']})")
        elif r["outcome"] == "refused":
            lines.append(f"{r['path']}: refused, verification found {len(r['errors'])} "
                         "error(s) (use --allow-errors to store anyway):")
            lines += [f"  {e}" for e in r["errors"]]
        else:
            lines.append(f"{r['path']}: unreadable: {r['reason']}")
    return "\n".join(lines)


def _ingest(args: argparse.Namespace) -> int:
    paths = [str(p) for p in expand_paths(args.paths)]
    with open_ledger(args, create=True) as ledger:
        results = []
        with progress(len(paths), "ingesting") as step:
            for path in paths:
                results.append(_ingest_one(ledger, path, args.allow_errors))
                step(path)
    emit(args, results, _ingest_text)
    outcomes = {r["outcome"] for r in results}
    if "unreadable" in outcomes:
        return 2
    return 1 if "refused" in outcomes else 0


_PART = re.compile(r"^(?P<article>.+):(?P<part>[SFIM][1-9][0-9]*)$")
_ENTRY = re.compile(r"^(?:#|entry:)(?P<seq>[0-9]+)$")
_COLLECTIONS = {"S": "sources", "F": "facts", "I": "inferences", "M": "measurements"}


def _show_part(ledger: Ledger, article_id: str, part: str, version: int | None) -> dict[str, Any]:
    document = ledger.get_article(article_id, version).to_json_dict()
    for item in document.get(_COLLECTIONS[part[0]]) or []:
        if item.get("id") == part:
            return {"article_id": article_id, **item}
    raise NotFound(f"article {article_id} has no {part}")


def _show(args: argparse.Namespace) -> int:
    entry, part = _ENTRY.match(args.id), _PART.match(args.id)
    if entry or part:
        with open_ledger(args) as ledger:
            data = (ledger.entry(int(entry["seq"])) if entry else
                    _show_part(ledger, part["article"], part["part"], args.version))  # type: ignore[index]
        emit(args, data, dumps)
        return 0
    with open_ledger(args) as ledger:
        try:
            article = ledger.get_article(args.id, args.version)
        except NotFound:
            if args.version is not None:
                raise
            run = ledger.get_run(args.id)
            reproductions = [r.to_dict() for r in ledger.reproductions(run.id)]
            emit(args, run.model_dump(mode="json") | {"reproductions": reproductions},
                 lambda d: _run_text(d))
            return 0
        versions = ledger.history(args.id)
        levels = _levels(ledger, article)
    version = versions[-1] if args.version is None else versions[args.version - 1]
    data = version.to_dict() | {"document": article.to_json_dict(), "levels": levels}
    data.pop("changes")
    emit(args, data, _article_text)
    return 0


def _levels(ledger: Ledger, article: Any) -> dict[str, dict[str, str]]:
    """The verification level of each measurement, fact and inference (ledger.levels)."""
    from ..levels import article_levels
    from ..reproductions import all_reproductions

    with ledger.read() as conn:
        found = all_reproductions(conn)
    levels = article_levels(article, lambda run_id: found.get(run_id, []))
    return {key: info.to_dict() for key, info in levels.items()}


def _levels_text(levels: dict[str, dict[str, str]]) -> list[str]:
    by_level: dict[str, list[str]] = {}
    for key, info in levels.items():
        by_level.setdefault(info["level"], []).append(key)
    return [f"  {level}: {', '.join(keys)}" for level, keys in sorted(by_level.items())]


def _article_text(data: dict[str, Any]) -> str:
    doc = data["document"]
    return "\n".join([
        (f"{data['article_id']} version {data['version']} (entry {data['entry_seq']}, "
         f"recorded {data['recorded_at']})"),
        f"  title: {doc['title']}",
        f"  status: {doc['status']}, as of {doc['as_of_date']}",
        f"  digest: sha256:{data['digest']}",
        (f"  {len(doc['sources'])} source(s), {len(doc['facts'])} fact(s), "
         f"{len(doc.get('inferences', []))} inference(s), "
         f"{len(doc.get('measurements') or [])} measurement(s)"),
        "  verification levels:", *_levels_text(data.get("levels", {})),
    ])


def _run_text(data: dict[str, Any]) -> str:
    from .runs import run_text

    return run_text(data)


def _history(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger:
        versions = ledger.history(args.article_id)
    emit(args, [v.to_dict() for v in versions], _history_text)
    return 0


def _history_text(versions: list[dict[str, Any]]) -> str:
    lines = []
    for v in versions:
        lines.append(f"version {v['version']}  {v['recorded_at']}  entry {v['entry_seq']}  "
                     f"sha256:{v['digest'][:16]}  {v['status']}")
        for c in v["changes"]:
            lines.append(f"  {c['op']:7} {c['path']}")
            if c["op"] == "replace" and isinstance(c.get("value"), str):
                lines += _text_diff(str(c["old"]), c["value"])
    return "\n".join(lines)


def _text_diff(old: str, new: str, limit: int = 40) -> list[str]:
    """A unified diff of two texts, sentence by sentence, indented; at most ``limit`` lines."""
    def split(text: str) -> list[str]:
        return text.replace(". ", ".\n").splitlines()

    diff = list(difflib.unified_diff(split(old), split(new), lineterm="", n=0))[2:]
    shown = [f"      {line}" for line in diff if not line.startswith("@@")]
    return shown[:limit] + ([f"      ... {len(shown) - limit} more"] if len(shown) > limit else [])
