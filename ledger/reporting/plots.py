"""Small inline SVG bar charts of a run's metrics by arm, for the report (no plotting library:
the report must stay one self-contained file, and a few rectangles need none).

A run of the replay harness names its metrics ``<arm>_<family>`` (``no_store_p50_ttft``); a
chart shows one family across the arms, so the cited figure is seen beside its baseline.
"""

from __future__ import annotations

from html import escape

from ..models import Run

__all__ = ["arm_names", "family_chart", "metric_family"]

_WIDTH, _BAR, _GAP, _LABEL = 420, 22, 8, 120


def arm_names(run: Run) -> list[str]:
    """The arms of a replay run, in configuration order (empty for other runs)."""
    config = run.parameters.get("config", {})
    arms = config.get("arms") if isinstance(config, dict) else None
    if not isinstance(arms, list):
        return []
    return [str(a["name"]) for a in arms if isinstance(a, dict) and a.get("name")]


def metric_family(run: Run, metric: str) -> str | None:
    """``p50_ttft`` for ``no_store_p50_ttft``; None when the metric names no arm."""
    for arm in sorted(arm_names(run), key=len, reverse=True):
        if metric.startswith(arm + "_"):
            return metric[len(arm) + 1:]
    return None


def _format(value: float) -> str:
    return format(value, ".3g")


def family_chart(run: Run, family: str) -> str | None:
    """An SVG bar chart of ``family`` for every arm of ``run``; None when fewer than two arms
    recorded it."""
    by_name = {m.name: m for m in run.metrics}
    rows = [(arm, by_name[f"{arm}_{family}"]) for arm in arm_names(run)
            if f"{arm}_{family}" in by_name]
    if len(rows) < 2:
        return None
    top = max(abs(m.value) for _, m in rows) or 1.0
    unit = rows[0][1].unit
    height = len(rows) * (_BAR + _GAP) + 30
    title = f"{family.replace('_', ' ')} by arm ({unit}), run {run.id}"
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
             f'viewBox="0 0 {_WIDTH} {height}" width="{_WIDTH}" height="{height}" '
             f'aria-labelledby="t-{escape(family)}">',
             f'<title id="t-{escape(family)}">{escape(title)}</title>',
             f'<text x="0" y="14" class="chart-title">{escape(family.replace("_", " "))} '
             f'({escape(unit)})</text>']
    span = _WIDTH - _LABEL - 60
    for i, (arm, metric) in enumerate(rows):
        y = 24 + i * (_BAR + _GAP)
        width = max(1.0, span * abs(metric.value) / top)
        parts.append(f'<text x="0" y="{y + 15}" class="chart-label">{escape(arm)}</text>')
        parts.append(f'<rect x="{_LABEL}" y="{y}" width="{width:.1f}" height="{_BAR}" '
                     f'class="chart-bar"/>')
        parts.append(f'<text x="{_LABEL + width + 4:.1f}" y="{y + 15}" class="chart-value">'
                     f'{_format(metric.value)}</text>')
    parts.append("</svg>")
    return "".join(parts)
