"""How the SLO-based cost figure moves with the SLO threshold.

Cost per completion counts only requests that met the SLO, so it depends on the threshold as
much as on the cache. :func:`slo_sensitivity` recomputes, from the same request records, each
arm's completions meeting the SLO per hour and cost per 1,000 of them, and the reduction of the
compared pair, with both SLO limits (TTFT and end-to-end) scaled by each factor.
:func:`sensitivity_table` prints it; ``ledger run`` writes it as ``slo_sensitivity.txt`` and
``.json`` beside the plots.
"""

from __future__ import annotations

from typing import Any

from replay.cost import CostModel
from replay.runner import ReplayRun

__all__ = ["FACTORS", "sensitivity_table", "slo_sensitivity"]

#: Multiples of the configured SLO limits.
FACTORS = (0.5, 0.75, 1.0, 1.5, 2.0, 3.0)


def _met_per_hour(arm: Any, ttft_s: float, e2e_s: float) -> float:
    s = arm.summary
    met = sum(1 for r in arm.records if r.ok and r.ttft_s is not None and r.e2e_s is not None
              and r.ttft_s <= ttft_s and r.e2e_s <= e2e_s)
    return met / s.duration_s * 3600.0 if s.duration_s > 0 else 0.0


def slo_sensitivity(run: ReplayRun, factors: tuple[float, ...] = FACTORS) -> list[dict[str, Any]]:
    """One row per factor: the limits, and per arm the met-per-hour and cost per 1,000."""
    slo = run.config.slo
    priced = isinstance(run.config.cost_model, CostModel)
    rows = []
    for f in factors:
        ttft, e2e = slo.ttft_s * f, slo.e2e_s * f
        row: dict[str, Any] = {"factor": f, "ttft_s": ttft, "e2e_s": e2e, "arms": {}}
        for name, arm in run.arms.items():
            per_hour = _met_per_hour(arm, ttft, e2e)
            cost = (arm.cost_per_hour / per_hour * 1000
                    if priced and arm.cost_per_hour and per_hour > 0 else None)
            row["arms"][name] = {"met_per_hour": per_hour, "cost_per_1000": cost}
        if run.config.compare:
            ref, cand = (row["arms"].get(n, {}).get("cost_per_1000") for n in run.config.compare)
            row["reduction"] = 1 - cand / ref if ref and cand is not None else None
        rows.append(row)
    return rows


def sensitivity_table(run: ReplayRun, rows: list[dict[str, Any]]) -> str:
    """A fixed-width table of :func:`slo_sensitivity`."""
    currency = getattr(run.config.cost_model, "currency", "")
    names = list(run.arms)
    head = f"{'SLO TTFT/E2E (s)':<18}" + "".join(f"{n + ' ' + currency + '/1k':>22}" for n in names)
    lines = ["cost per 1,000 completions meeting the SLO, by SLO threshold "
             "(illustrative prices; x1 is the configured SLO)", head + f"{'reduction':>11}"]
    for row in rows:
        cells = "".join(
            f"{'-' if a['cost_per_1000'] is None else format(a['cost_per_1000'], '.3g'):>22}"
            for a in (row["arms"][n] for n in names))
        red = row.get("reduction")
        lines.append(f"x{row['factor']:<4g} {row['ttft_s']:.2g}/{row['e2e_s']:.2g}".ljust(18)
                     + cells + f"{'-' if red is None else format(red, '.0%'):>11}")
    return "\n".join(lines)
