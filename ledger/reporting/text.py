"""Readable text and Markdown: ``ledger figures``, ``ledger verify`` and the CI summary.

Figures are placed by paragraph and sentence (``¶2``), not by body line numbers, and each says
what it rests on in words: fact text, source title and date, or run and metric.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from ..report import Report, Severity
from .build import STATUSES, ArticleView, FigureView, FindingView
from .evidence import describe

__all__ = ["render_figures", "render_markdown", "render_verify_text"]

_WIDTH = 110


def _short(text: str, width: int) -> str:
    return textwrap.shorten(" ".join(text.split()), width=width, placeholder=" ...")


def _rests_on(fig: FigureView, view: ArticleView) -> list[str]:
    if not fig.traces:
        return ["UNTRACED: rests on nothing in this article"]
    assert view.evidence is not None
    lines = [describe(view.evidence, t) for t in fig.traces[:3]]
    if len(fig.traces) > 3:
        lines.append(f"... and {len(fig.traces) - 3} more")
    return lines


def _paragraph_of(view: ArticleView, offset: int) -> int:
    return next((i for i, p in enumerate(view.paragraphs, 1) if p.start <= offset < p.end), 0)


def render_figures(view: ArticleView, levels: Sequence[str] | None = None) -> str:
    """Each sentence with figures, then its figures: status and what each rests on (and, with
    ``levels`` from :func:`ledger.levels.figure_levels`, each figure's verification level)."""
    out: list[str] = []
    sentence = None
    for fig in view.figures:
        if fig.sentence != sentence:
            sentence = fig.sentence
            where = f"\u00b6{_paragraph_of(view, fig.figure.start)}"
            out.append("")
            out.append(textwrap.fill(f"{where} {sentence}", _WIDTH, subsequent_indent="   "))
        rests = _rests_on(fig, view)
        head = f"   {fig.figure.text!r:<22} {fig.icon} {fig.label:<10} "
        if levels is not None and levels[fig.index] not in ("-", "reported", fig.label):
            head += f"[{levels[fig.index]}] "
        pad = " " * len(head)
        out.append(head + _short(rests[0], max(40, _WIDTH - len(head))))
        out += [pad + _short(line, max(40, _WIDTH - len(pad))) for line in rests[1:]]
    counts = view.counts()
    summary = ", ".join(f"{n} {STATUSES[s][1]}" for s, n in counts.items() if n)
    out.append("")
    out.append(f"{len(view.figures)} figure(s): {summary or 'none'}")
    return "\n".join(out).lstrip("\n")


def _finding_lines(path: str, v: FindingView) -> list[str]:
    f = v.finding
    where = path
    if f.file_line is not None:
        where += f":{f.file_line}:{f.file_column}"
    if f.line is not None:
        where += f" body {f.line}:{f.column}"
    where += f" {f.pointer}" if f.pointer else ""
    lines = [f"{where}: {f.severity.value} [{f.rule}] {f.message}"]
    if v.sentence:
        lines.append(textwrap.fill(f"\u201c{' '.join(v.sentence.split())}\u201d", _WIDTH,
                                   initial_indent="    sentence: ", subsequent_indent=" " * 14))
    if v.hint:
        lines.append(f"    {v.hint}")
    return lines


def render_verify_text(report: Report, views: Sequence[ArticleView]) -> str:
    """``ledger verify``'s text output: each finding, its sentence and, for an untraced figure,
    the nearest evidence; then the summary line."""
    lines: list[str] = []
    for view in views:
        for v in view.findings:
            lines += _finding_lines(view.path, v)
    lines.append(report.summary)
    return "\n".join(lines)


def _md(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|").replace("<", "&lt;")


def _md_article(view: ArticleView) -> list[str]:
    a = view.article
    title = a.title if a else view.path
    verdict = "\u2705 ready to publish" if view.ready else "\u274c not ready"
    out = [f"### {_md(title)}: {verdict}", "", f"`{view.path}`", ""]
    if view.findings:
        out.append("**Findings**")
        out.append("")
        for v in view.findings:
            f = v.finding
            line = f"- **{f.severity.value}** `{f.rule}`: {_md(f.message)}"
            if v.hint:
                line += f" ({_md(v.hint)})"
            if v.sentence:
                line += f"<br>\u201c{_md(_short(v.sentence, 220))}\u201d"
            out.append(line)
        out.append("")
    weakest = view.weakest(3)
    if weakest:
        out.append("**Weakest figures**")
        out.append("")
        for fig in weakest:
            rests = _rests_on(fig, view)[0]
            out.append(f"1. `{_md(fig.figure.text)}` {fig.icon} {fig.label}: {_md(_short(rests, 160))}")
        out.append("")
    return out


def render_markdown(report: Report, views: Sequence[ArticleView]) -> str:
    """A short summary for a GitHub job summary or a pull-request comment."""
    ready = sum(v.ready for v in views)
    icons = " | ".join(f"{icon} {label}" for icon, label in STATUSES.values())
    out = [f"## Fact-check: {ready} of {len(views)} article(s) ready to publish", "",
           f"{report.summary}", "",
           f"| article | verdict | errors | warnings | {icons} |",
           "|---|---|---:|---:|" + "---:|" * len(STATUSES)]
    for view in views:
        counts = view.counts()
        name = view.article.id if view.article else view.path
        out.append(f"| {_md(name)} | {'ready' if view.ready else 'not ready'} | "
                   f"{view.result.count(Severity.error)} | {view.result.count(Severity.warning)} | "
                   + " | ".join(str(counts[s]) for s in STATUSES) + " |")
    out.append("")
    for view in views:
        out += _md_article(view)
    return "\n".join(out)
