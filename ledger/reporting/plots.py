"""Small inline SVG bar charts of a run's metrics by arm, for the report (no plotting library:
the report must stay one self-contained file, and a few rectangles need none).

A bar is the pooled value; when the run recorded its spread, a whisker spans the rounds' minimum
to maximum. A run of the replay harness names its metrics ``<arm>_<family>``
(``no_store_p50_ttft``); a chart shows one family across the arms, so the cited figure is seen
beside its baseline.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from html import escape
from pathlib import Path

from ..models import Run, RunMetric

__all__ = ["IMAGE_TYPES", "arm_names", "family_chart", "metric_family", "recorded_plots"]

#: Plot files a run may record among its outputs, by suffix, with their media type.
IMAGE_TYPES = {".svg": "image/svg+xml", ".png": "image/png"}
#: A plot file larger than this is not inlined (the report stays well under 1 MB).
MAX_PLOT_BYTES = 400_000

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


def _range(metric: RunMetric) -> tuple[float, ...]:
    """``(min, max)`` over the run's rounds when the run recorded its spread, else ``()``."""
    spread = getattr(metric, "spread", None)
    if spread is None:
        return ()
    return (float(spread.min), float(spread.max))


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
    top = max(max((abs(m.value), *_range(m))) for _, m in rows) or 1.0
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
        low_high = _range(metric)
        if low_high:  # the spread over rounds, min to max, as a whisker across the bar
            x0, x1 = (_LABEL + span * abs(v) / top for v in low_high)
            parts.append(f'<line x1="{x0:.1f}" x2="{x1:.1f}" y1="{y + _BAR / 2}" '
                         f'y2="{y + _BAR / 2}" class="chart-range"/>')
            width = max(width, x1 - _LABEL)
        parts.append(f'<text x="{_LABEL + width + 4:.1f}" y="{y + 15}" class="chart-value">'
                     f'{_format(metric.value)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _plot_html(run: Run, name: str, path: Path) -> str:
    data = path.read_bytes()
    if len(data) > MAX_PLOT_BYTES:
        return f"<p>{escape(name)}: {len(data):,} bytes, too large to inline</p>"
    if "sha256:" + hashlib.sha256(data).hexdigest() != run.outputs[name]:
        return (f"<p>{escape(name)}: the file in {escape(str(path.parent))} differs from the "
                "run's record; not shown</p>")
    uri = f"data:{IMAGE_TYPES[path.suffix.lower()]};base64,{base64.b64encode(data).decode()}"
    return (f'<figure><img src="{uri}" alt="{escape(name)}, recorded by run {escape(run.id)}">'
            f"<figcaption>{escape(name)} (digest checked against the run's record)"
            "</figcaption></figure>")


def recorded_plots(run: Run, folders: Sequence[Path]) -> tuple[list[str], list[str]]:
    """The run's recorded plot files found in ``FOLDER/<run id>/``, inlined when their digest
    matches the run's record; and the names of those not found."""
    shown, missing = [], []
    for name in sorted(n for n in run.outputs if Path(n).suffix.lower() in IMAGE_TYPES):
        path = next((f / run.id / name for f in folders if (f / run.id / name).is_file()), None)
        if path is None:
            missing.append(name)
            continue
        try:
            shown.append(_plot_html(run, name, path))
        except OSError as exc:
            shown.append(f"<p>{escape(name)}: unreadable ({escape(exc.strerror or '')})</p>")
    return shown, missing
