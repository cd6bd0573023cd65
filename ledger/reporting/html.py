"""The fact-check report as one self-contained HTML page: inline CSS and JS, no network.

:func:`render_html` turns an :class:`~ledger.reporting.build.ArticleView` into the page;
:func:`render_index` writes the desk's index of articles. The page works without JavaScript
(every evidence chain is in the document, and print shows them all); the script adds the
evidence panel, keyboard navigation and finding highlights.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from html import escape
from importlib import resources
from pathlib import Path

from ..models import Article, Run
from ..report import Severity
from .build import STATUSES, ArticleView, FigureView, FindingView, GuardrailView
from .evidence import NOT_RECORDED, Step, recompute
from .plots import family_chart, metric_family, recorded_plots

__all__ = ["render_html", "render_index"]

_AGREES, _DIFFERS = "\u2713 agrees", "\u2716 differs"
_READY, _NOT_READY = "\u2713 ready to publish", "\u2716 not ready"


def _asset(name: str) -> str:
    return resources.files("ledger").joinpath("data", name).read_text(encoding="utf-8")


def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{escape(title)}</title>\n<style>\n{_asset('report.css')}</style>\n</head>\n"
        f"<body>\n{body}\n<script>\n{_asset('report.js')}</script>\n</body>\n</html>\n"
    )


def _badge(status: str) -> str:
    icon, label = STATUSES[status]
    return (f'<span class="badge s-{status}"><span aria-hidden="true">{icon}</span> '
            f"{escape(label)}</span>")


# --- the body --------------------------------------------------------------------------------


def _boundaries(start: int, end: int, figures: Sequence[FigureView],
                findings: Sequence[FindingView]) -> list[int]:
    """Cut points of a paragraph: figure edges, and finding edges moved out of figures."""
    cuts = {start, end}
    for fig in figures:
        cuts |= {fig.figure.start, fig.figure.end}
    for v in findings:
        for edge in (v.start, v.end):
            if edge is None or not start < edge < end:
                continue
            inside = next((f for f in figures if f.figure.start < edge < f.figure.end), None)
            cuts.add(inside.figure.start if inside else edge)
    return sorted(cuts)


def _figure_html(fig: FigureView) -> str:
    findings = " ".join(str(i) for i in [*fig.findings, *fig.related])
    return (f'<button type="button" class="fig s-{fig.status}" id="fig-{fig.index}" '
            f'data-fig="{fig.index}" data-findings="{findings}" aria-controls="panel">'
            f'{escape(fig.figure.text)}<span class="ico" aria-hidden="true">{fig.icon}</span>'
            f'<span class="sr"> ({escape(fig.label)})</span></button>')


def _paragraph_html(view: ArticleView, start: int, end: int) -> str:
    body = view.article.body if view.article else ""
    figures = [f for f in view.figures if start <= f.figure.start < end]
    findings = [v for v in view.findings if v.start is not None and v.end is not None
                and v.start < end and start < v.end]
    by_start = {f.figure.start: f for f in figures}
    cuts = _boundaries(start, end, figures, findings)
    out = []
    for a, b in zip(cuts, cuts[1:]):
        if a in by_start:
            out.append(_figure_html(by_start[a]))
            continue
        covering = [str(v.index) for v in findings if v.start < b and a < v.end]  # type: ignore[operator]
        text = escape(body[a:b])
        if covering:
            out.append(f'<mark class="fspan" tabindex="-1" data-findings="{" ".join(covering)}">'
                       f"{text}</mark>")
        else:
            out.append(text)
    return f'<p data-start="{start}">{"".join(out)}</p>'


def _body_html(view: ArticleView) -> str:
    paras = "\n".join(_paragraph_html(view, p.start, p.end) for p in view.paragraphs)
    return (f'<section class="body" aria-labelledby="h-body"><h2 id="h-body">The article as '
            f"written</h2>\n<p class=\"hint\">Select a highlighted figure (Tab, or the arrow "
            f"keys) to see what it rests on.</p>\n{paras}</section>")


# --- chains ----------------------------------------------------------------------------------


def _step_html(step: Step) -> str:
    rows = "".join(
        f'<tr><th scope="row">{escape(k)}</th><td'
        f'{" class=missing" if v.startswith(NOT_RECORDED) else ""}>{escape(v)}</td></tr>'
        for k, v in step.rows)
    text = f"<blockquote>{escape(step.text)}</blockquote>" if step.text else ""
    link = (f'<p class="url"><a href="{escape(step.url)}" rel="noreferrer">'
            f"{escape(step.url)}</a></p>" if step.url else "")
    table = f"<table>{rows}</table>" if rows else ""
    return (f'<li class="step k-{escape(step.kind)}"><h4>{escape(step.title)}</h4>{text}{table}'
            f"{link}</li>")


def _chain_html(fig: FigureView, view: ArticleView) -> str:
    parts = [f'<section class="chain" id="chain-{fig.index}" data-fig="{fig.index}" '
             f'aria-labelledby="chain-h-{fig.index}" hidden>',
             f'<h3 id="chain-h-{fig.index}">\u201c{escape(fig.figure.text)}\u201d '
             f"{_badge(fig.status)}</h3>",
             f'<p class="sentence">{escape(fig.sentence)}</p>']
    for i in fig.findings:
        f, hint = view.findings[i].finding, view.findings[i].hint
        parts.append(f'<p class="finding-note sev-{f.severity.value}">{escape(f.severity.value)}'
                     f" [{escape(f.rule)}]: {escape(f.message)}"
                     + (f" ({escape(hint)})" if hint else "") + "</p>")
    for i in fig.related:
        v = view.findings[i]
        parts.append(f'<p class="finding-note sev-{v.finding.severity.value}">On its evidence '
                     f"{escape(v.evidence_id or '')}: {escape(v.finding.severity.value)} "
                     f"[{escape(v.finding.rule)}]: {escape(v.finding.message)}</p>")
    if not fig.chains:
        parts.append('<p class="missing">Traces to no evidence in this article.</p>')
    for words, steps in fig.chains:
        parts.append(f'<div class="trace"><p class="rests">Rests on: {escape(words)}</p>'
                     f'<ol class="steps">{"".join(_step_html(s) for s in steps)}</ol></div>')
    if fig.more:
        parts.append(f'<p class="more">and {fig.more} more piece(s) of evidence with the same '
                     "value</p>")
    parts.append("</section>")
    return "".join(parts)


def _panel_html(view: ArticleView) -> str:
    chains = "\n".join(_chain_html(f, view) for f in view.figures)
    return (f'<aside id="panel" class="panel" aria-labelledby="h-panel" aria-live="polite">'
            f'<h2 id="h-panel">Evidence chain</h2><p class="empty" id="panel-empty">Select a '
            f"figure to see its evidence.</p>\n{chains}</aside>")


# --- side sections ---------------------------------------------------------------------------


def _findings_html(view: ArticleView) -> str:
    if not view.findings:
        return ('<section aria-labelledby="h-findings"><h2 id="h-findings">Findings</h2>'
                "<p>No findings.</p></section>")
    items = []
    for v in view.findings:
        f = v.finding
        sentence = (f'<span class="sentence">{escape(v.sentence)}</span>' if v.sentence
                    else f'<span class="where">{escape(v.where)}</span>')
        hint = f'<span class="hint">{escape(v.hint)}</span>' if v.hint else ""
        target = "" if v.start is None and not any(
            v.index in fig.related for fig in view.figures) else " data-has-span"
        items.append(
            f'<li><button type="button" class="finding sev-{f.severity.value}" '
            f'data-finding="{v.index}"{target}><span class="sev">{escape(f.severity.value)}'
            f'</span> <code>{escape(f.rule)}</code> <span class="msg">{escape(f.message)}</span>'
            f"{hint}{sentence}</button></li>")
    return (f'<section aria-labelledby="h-findings"><h2 id="h-findings">Findings '
            f'({len(view.findings)})</h2><ul class="findings">{"".join(items)}</ul></section>')


def _guardrail_html(g: GuardrailView, view: ArticleView) -> str:
    if g.rule is None:
        how = "no machine-checkable rule, and its wording is not one the checker reads"
    else:
        how = (f"{g.rule.kind.replace('_', ' ')} rule, "
               + ("structured" if g.structured else "read from its wording"))
    hits = "".join(f'<button type="button" class="finding-link" data-finding="{i}">'
                   f"violation {i + 1}</button>" for i in g.findings)
    return (f'<li class="g-{g.state}"><span class="badge g-{g.state}">{g.state}</span> '
            f"{escape(g.correction.text)}<br><small>{escape(how)}</small> {hits}</li>")


def _guardrails_html(view: ArticleView) -> str:
    items = "".join(_guardrail_html(g, view) for g in view.guardrails) or "<li>None.</li>"
    return (f'<section aria-labelledby="h-guardrails"><h2 id="h-guardrails">Guardrails</h2>'
            f'<ul class="guardrails">{items}</ul></section>')


def _inferences_html(article: Article) -> str:
    items = []
    for inf in article.inferences:
        rows = "".join(
            f"<tr><td><code>{escape(name)} = {escape(expr)}</code></td><td>{escape(result)}</td>"
            f'<td class="{"ok" if ok else "bad"}">{_AGREES if ok else _DIFFERS}'
            f"</td></tr>" for name, expr, result, ok in recompute(inf))
        table = (f'<table class="computation"><thead><tr><th scope="col">step</th>'
                 f'<th scope="col">recomputed</th><th scope="col">check</th></tr></thead>'
                 f"<tbody>{rows}</tbody></table>" if rows
                 else f'<p class="missing">computation: {NOT_RECORDED}</p>')
        items.append(f"<li><p><strong>{escape(inf.id)}</strong> ({escape(inf.label)}; rests "
                     f"on {escape(', '.join(inf.basis_fact_ids) or 'no facts')}): "
                     f"{escape(inf.claim)}</p>{table}</li>")
    body = "".join(items) or "<li>None.</li>"
    return (f'<section aria-labelledby="h-inferences"><h2 id="h-inferences">Inferences</h2>'
            f'<ul class="inferences">{body}</ul></section>')


def _runs_html(view: ArticleView) -> str:
    article = view.article
    if article is None or not article.measurements:
        return ""
    cited = list(dict.fromkeys(m.run_id for m in article.measurements))
    found = {r.id: r for r in view.runs}
    parts = []
    for run_id in cited:
        run = found.get(run_id)
        if run is None:
            parts.append(f"<li><code>{escape(run_id)}</code>: {NOT_RECORDED} (give the ledger "
                         "with <code>--db</code> or run files with <code>--runs</code>)</li>")
            continue
        parts.append(f"<li><code>{escape(run.id)}</code>, {escape(run.started_at.isoformat())}"
                     f", {escape(run.verification_level.value.replace('_', ' '))}"
                     f"{_charts(run, article, view.plot_dirs)}</li>")
    return (f'<section aria-labelledby="h-runs"><h2 id="h-runs">Runs and plots</h2>'
            f'<ul class="runs">{"".join(parts)}</ul></section>')


def _charts(run: Run, article: Article, plot_dirs: Sequence[Path]) -> str:
    families = dict.fromkeys(
        fam for m in article.measurements or [] if m.run_id == run.id
        for fam in [metric_family(run, m.metric)] if fam)
    charts = [f"<figure>{c}</figure>" for c in (family_chart(run, fam) for fam in families) if c]
    shown, missing = recorded_plots(run, plot_dirs)
    out = f'<div class="charts">{"".join(charts + shown)}</div>' if charts or shown else ""
    if missing:
        where = ", ".join(str(d / run.id) for d in plot_dirs) or "no folder given (--plots)"
        out += (f'<p class="missing">the run\'s plots {escape(", ".join(missing))}: '
                f"{NOT_RECORDED} here (looked in {escape(where)})</p>")
    return out or f'<p class="missing">plots: {NOT_RECORDED}</p>'


def _legend(view: ArticleView) -> str:
    counts = view.counts()
    items = "".join(
        f'<li id="legend-{s}">{_badge(s)} <span class="count">{counts[s]}</span></li>'
        for s in STATUSES)
    return f'<ul class="legend" aria-label="figures by status">{items}</ul>'


def _header(view: ArticleView) -> str:
    a = view.article
    title = a.title if a else view.path
    verdict = ("ready to publish" if view.ready else "not ready: errors to fix")
    errors, warnings = view.result.count(Severity.error), view.result.count(Severity.warning)
    meta = (f"{escape(a.id)} \u00b7 {escape(a.status.value)} \u00b7 as of "
            f"{a.as_of_date.isoformat()}" if a else escape(view.path))
    return (f'<header><p class="kicker">Fact-check report</p><h1>{escape(title)}</h1>'
            f'<p class="meta">{meta}</p><p class="verdict {"ok" if view.ready else "bad"}">'
            f'<strong>{verdict}</strong>: {errors} error(s), {warnings} warning(s), '
            f"{len(view.figures)} figure(s)</p>{_legend(view)}</header>")


def render_html(view: ArticleView, generated: dt.datetime | None = None) -> str:
    """The report page for one article."""
    when = (generated or dt.datetime.now(dt.UTC)).strftime("%Y-%m-%d %H:%M UTC")
    main = ""
    if view.article is not None:
        main = (f'<div class="layout"><main>{_body_html(view)}</main>{_panel_html(view)}</div>'
                f'<div class="sections">{_findings_html(view)}{_guardrails_html(view)}'
                f"{_inferences_html(view.article)}{_runs_html(view)}</div>")
    else:
        main = f'<div class="sections">{_findings_html(view)}</div>'
    footer = f"<footer>Generated by <code>ledger report</code> on {when}.</footer>"
    title = f"Fact-check: {view.article.title if view.article else view.path}"
    return _page(title, f"{_header(view)}\n{main}\n{footer}")


def render_index(rows: Iterable[tuple[ArticleView, str]],
                 generated: dt.datetime | None = None) -> str:
    """The desk's index: each article, whether it is ready to publish, and a link to its
    report (``rows`` pairs each view with the report's relative file name)."""
    when = (generated or dt.datetime.now(dt.UTC)).strftime("%Y-%m-%d %H:%M UTC")
    items = []
    for view, href in rows:
        a = view.article
        counts = view.counts()
        figures = ", ".join(f"{counts[s]} {STATUSES[s][1]}" for s in STATUSES if counts[s])
        state = "ready" if view.ready else "not-ready"
        items.append(
            f'<tr><td><a href="{escape(href)}">{escape(a.title if a else view.path)}</a>'
            f'<br><small>{escape(a.id if a else "")}</small></td>'
            f'<td><span class="badge {state}">{_READY if view.ready else _NOT_READY}</span></td>'
            f"<td>{view.result.count(Severity.error)}</td>"
            f"<td>{view.result.count(Severity.warning)}</td>"
            f"<td>{escape(figures or 'no figures')}</td></tr>")
    table = (f'<table class="index"><thead><tr><th scope="col">article</th>'
             f'<th scope="col">status</th><th scope="col">errors</th><th scope="col">warnings'
             f'</th><th scope="col">figures</th></tr></thead><tbody>{"".join(items)}</tbody>'
             f"</table>")
    body = (f'<header><p class="kicker">Fact-check reports</p><h1>The desk\'s articles</h1>'
            f"</header><main>{table}</main><footer>Generated by <code>ledger report --all"
            f"</code> on {when}.</footer>")
    return _page("Fact-check reports", body)
