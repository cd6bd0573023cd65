"""Runs as a person reads them: tables by arm and metric, values at sensible precision, spread.

:func:`run_tables` renders ``ledger runs show``; :func:`diff_tables` renders ``ledger runs
diff``. Both take the JSON form of runs (``Run.model_dump(mode="json")``) and return text made
with rich (no colour, a fixed width, so output is stable in files and tests). A metric's cell
reads ``0.787  [0.726-1.38]``: the value over every round pooled, then the 95% bootstrap
interval of the per-round median; a run recorded before rounds were kept shows ``spread
unknown``.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

__all__ = ["arm_names", "diff_tables", "flatten", "fmt_number", "fmt_spread", "run_tables"]

_WIDTH = 150


def fmt_number(value: float | None) -> str:
    """Three significant figures; whole numbers from 1000 up, with thousands separators."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    magnitude = abs(value)
    if magnitude == 0:
        return "0"
    if magnitude >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def fmt_spread(metric: dict[str, Any]) -> str:
    """``[low-high]`` of the 95% interval, or ``spread unknown``."""
    spread = metric.get("spread")
    if not spread:
        return "spread unknown"
    return f"[{fmt_number(spread['ci_low'])}-{fmt_number(spread['ci_high'])}]"


def _cell(metric: dict[str, Any] | None) -> str:
    if metric is None:
        return ""
    return f"{fmt_number(metric['value'])} {fmt_spread(metric)}"


def _table(title: str, columns: Iterable[str], left: Iterable[str]) -> Table:
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    lefts = set(left)
    for col in columns:
        table.add_column(col, justify="left" if col in lefts else "right", no_wrap=True)
    return table


def _render(*items: Any) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=_WIDTH, color_system=None, force_terminal=False,
                      highlight=False, soft_wrap=False)
    for item in items:
        console.print(item)
    return buffer.getvalue().rstrip()


def arm_names(run: dict[str, Any]) -> list[str]:
    """The replay arms a run was recorded with (longest first, to split metric names)."""
    arms = ((run.get("parameters") or {}).get("config") or {}).get("arms") or []
    return [a["name"] for a in arms if isinstance(a, dict) and "name" in a]


def _split(name: str, arms: Iterable[str]) -> tuple[str | None, str]:
    for arm in sorted(arms, key=len, reverse=True):
        if name.startswith(arm + "_"):
            return arm, name[len(arm) + 1:]
    return None, name


def _header(run: dict[str, Any]) -> list[str]:
    env = run.get("environment") or {}
    git = (run.get("git_commit") or "-")[:12] + ("+dirty" if run.get("git_dirty") else "")
    lines = [f"{run['id']}  {run['status']}  {run['started_at']} -> {run.get('ended_at') or '...'}",
             f"  git {git}; command: {' '.join(run.get('command') or [])}"]
    if env.get("cpu"):
        lines.append(f"  machine: {env.get('cpu')} x{env.get('cpu_count')}, "
                     f"{len(env.get('gpus') or [])} GPU(s), Python {env.get('python')}")
    load = run.get("machine_load") or {}
    if load:
        start, end = load.get("start") or {}, load.get("end") or {}
        busy = sorted(set(start.get("busy_processes", [])) | set(end.get("busy_processes", [])))
        lines.append(f"  load average {start.get('loadavg')} -> {end.get('loadavg')}; other busy "
                     f"processes: {', '.join(busy) or 'none'}")
    else:
        lines.append("  machine load: not recorded")
    if run.get("threads"):
        lines.append("  threads: " + ", ".join(f"{k}={v}" for k, v in run["threads"].items()))
    rounds = max((len(m.get("samples") or []) for m in run["metrics"]), default=0)
    lines.append(f"  rounds: {rounds}" if rounds else "  rounds: not recorded (spread unknown)")
    if run.get("error"):
        lines.append(f"  error: {run['error']}")
    return lines


def _reproduction_lines(reproductions: list[dict[str, Any]]) -> list[str]:
    if not reproductions:
        return ["  reproductions: none recorded (level: measured)"]
    lines = ["  reproductions:"]
    for r in reproductions:
        verdict = "held" if r.get("ok") else f"did NOT hold ({', '.join(r.get('failed', []))})"
        who = "independent, " if r.get("independent") else ""
        lines.append(f"    {r['date'][:19]} run {r['run_id']} on machine {r['machine']} "
                     f"({who}revision {r.get('revision') or '-'}): {verdict}")
    return lines


def run_tables(run: dict[str, Any], reproductions: list[dict[str, Any]] | None = None) -> str:
    """``ledger runs show``: a header, a table by arm and metric, then the other metrics."""
    arms = arm_names(run)
    by_metric: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = {}
    rest = []
    for m in run["metrics"]:
        arm, name = _split(m["name"], arms)
        if arm is None:
            rest.append(m)
        else:
            by_metric.setdefault((name, m["unit"], m["aggregation"]), {})[arm] = m
    items: list[Any] = ["\n".join(_header(run) + _reproduction_lines(reproductions or []))]
    if by_metric:
        table = _table("by arm: value over all rounds [95% CI of the per-round median; for "
                       "sums, of one round]", ("metric (unit, aggregation)", *arms),
                       ("metric (unit, aggregation)",))
        for (name, unit, agg), cells in by_metric.items():
            table.add_row(f"{name} ({unit}, {agg})", *(_cell(cells.get(a)) for a in arms))
        items.append(table)
    if rest:
        table = _table("run metrics" if not by_metric else "comparisons",
                       ("metric", "unit", "agg", "value", "95% CI", "rounds", "n"),
                       ("metric", "unit", "agg"))
        for m in rest:
            table.add_row(m["name"], m["unit"], m["aggregation"], fmt_number(m["value"]),
                          fmt_spread(m), str(len(m.get("samples") or [])) or "-",
                          str(m["sample_count"]))
        items.append(table)
    return _render(*items)


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts as ``{"a.b.c": leaf}``; lists of dicts by index (``arms.0.name``)."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        value = {str(i): v for i, v in enumerate(value)}
    if not isinstance(value, dict):
        return {prefix: value}
    out: dict[str, Any] = {}
    for key, item in value.items():
        out.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
    return out


def _short(value: Any, limit: int = 40) -> str:
    if isinstance(value, float):
        return fmt_number(value)
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def diff_tables(d: dict[str, Any], a: dict[str, Any], b: dict[str, Any]) -> str:
    """``ledger runs diff``: changed settings (flattened), then each metric side by side."""
    items: list[Any] = [f"A {d['a']}\nB {d['b']}"]
    changed = _table("what differs (flattened keys)", ("where", "A", "B"), ("where", "A", "B"))
    for section in ("parameters", "environment", "agent_fields"):
        fa, fb = flatten(a.get(section) or {}), flatten(b.get(section) or {})
        for key in sorted(set(fa) | set(fb)):
            if fa.get(key) != fb.get(key):
                changed.add_row(f"{section}.{key}", _short(fa.get(key, "-")),
                                _short(fb.get(key, "-")))
    git_a, git_b = d["git"]["a"], d["git"]["b"]
    if git_a != git_b:
        changed.add_row("git", _short(git_a), _short(git_b))
    items.append(changed if changed.row_count else "settings: identical")
    metrics = _table("metrics: value [95% CI]; B/A", ("metric", "unit", "A", "B", "B/A",
                                                       "intervals"), ("metric", "unit"))
    a_by, b_by = ({(m["name"], m["aggregation"]): m for m in r["metrics"]} for r in (a, b))
    for row in d["metrics"]:
        pair = (row["name"], row["aggregation"])
        ma, mb = a_by.get(pair), b_by.get(pair)
        ratio = row["ratio_b_over_a"]
        metrics.add_row(row["name"], row["unit"], _cell(ma), _cell(mb),
                        "-" if ratio is None else f"x{fmt_number(ratio)}", _overlap(ma, mb))
    items.append(metrics)
    return _render(*items)


def _overlap(a: dict[str, Any] | None, b: dict[str, Any] | None) -> str:
    sa, sb = (a or {}).get("spread"), (b or {}).get("spread")
    if not sa or not sb:
        return "unknown"
    apart = sa["ci_high"] < sb["ci_low"] or sb["ci_high"] < sa["ci_low"]
    return "apart" if apart else "overlap"
