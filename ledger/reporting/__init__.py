"""The fact-check report: every body figure with its status and evidence chain, as one
self-contained HTML page (:func:`render_html`), an index of articles (:func:`render_index`), a
Markdown summary for CI (:func:`render_markdown`) and readable text for the terminal.

Not to be confused with :mod:`ledger.report`, which holds the findings of ``ledger verify``.
"""

from .build import STATUSES, ArticleView, FigureView, FindingView, build_view, load_run_files
from .evidence import NOT_RECORDED, Evidence, Step, chain, describe
from .html import render_html, render_index

__all__ = [
    "NOT_RECORDED",
    "STATUSES",
    "ArticleView",
    "Evidence",
    "FigureView",
    "FindingView",
    "Step",
    "build_view",
    "chain",
    "describe",
    "load_run_files",
    "render_html",
    "render_index",
]
