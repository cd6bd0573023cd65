"""``ledger figures PATH``: the table of figures in an article's body and what each traced to."""

from __future__ import annotations

import argparse
import json

from ..errors import DocumentError
from ..levels import figure_levels
from ..models import Article
from ..schema import load_article
from ..verify.text import line_col
from ..verify.tracing import TracedFigure, trace_figures
from ._common import add_command, write_output

__all__ = ["register", "render_table"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(
        subparsers, "figures",
        "List every figure in an article's body with its span, kind, value and the evidence it "
        "traced to (UNTRACED when none). Exit 0, or 1 when a figure is untraced.",
        "ledger figures claims/pct-2026-11-04-spotlight-mooncake-store.json --format json",
    )
    p.add_argument("path", metavar="PATH", help="an article JSON file")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--output", metavar="FILE", help="write the table here instead of stdout")
    p.add_argument("--db", metavar="URL", help="a ledger whose recorded reproductions raise "
                   "figures' verification levels (without it: reported or measured)")
    p.set_defaults(func=run)


def _levels(article: Article, traced: list[TracedFigure], url: str | None) -> list[str]:
    if not url:
        return figure_levels(article, traced)
    from ..db import Ledger
    from ..reproductions import all_reproductions

    with Ledger.open(url, create=False) as ledger, ledger.read() as conn:
        found = all_reproductions(conn)
    return figure_levels(article, traced, lambda run_id: found.get(run_id, []))


def _value(t: TracedFigure) -> str:
    f = t.figure
    if f.date is not None:
        return f.date.isoformat() if f.date_precision == "day" else f"{f.date:%m-%d}"
    return "-".join(format(v, "f") for v in f.values)


def render_table(body: str, traced: list[TracedFigure], levels: list[str] | None = None) -> str:
    """The table; ``levels`` (one per figure, see :func:`ledger.levels.figure_levels`) adds a
    LEVEL column."""
    rows: list[tuple[str, ...]] = [("SPAN", "FIGURE", "KIND", "VALUE", "TRACED TO")]
    for t in traced:
        line, col = line_col(body, t.figure.start)
        end = col + t.figure.end - t.figure.start
        where = "; ".join(tr.describe() for tr in t.traces) or "UNTRACED"
        rows.append((f"{line}:{col}-{end}", t.figure.text, t.figure.kind.value, _value(t), where))
    if levels is not None:
        rows = [(*r[:4], lv, r[4]) for r, lv in zip(rows, ["LEVEL", *levels])]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r[:-1], widths)) + "  " + r[-1]
                     for r in rows)


def run(args: argparse.Namespace) -> int:
    article, findings = load_article(args.path)
    if article is None:
        first = findings[0]
        raise DocumentError(args.path, f"not a valid article: {first.pointer} {first.message}")
    traced = trace_figures(article)
    levels = _levels(article, traced, args.db)
    if args.format == "json":
        rows = []
        for t, level in zip(traced, levels):
            line, col = line_col(article.body, t.figure.start)
            rows.append(t.to_dict() | {"line": line, "column": col,
                                       "end_column": col + t.figure.end - t.figure.start,
                                       "level": level})
        text = json.dumps({"article": article.id, "figures": rows}, indent=2)
    else:
        from ..reporting.build import build_view
        from ..reporting.text import render_figures

        text = render_figures(build_view(args.path), levels)
    write_output(text, args.output)
    return 0 if all(t.traced for t in traced) else 1
