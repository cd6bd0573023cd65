"""Per-round samples of every metric, and their spread: median, range, bootstrap interval.

A replay with ``rounds: N`` replays each arm N times, arms alternating. Every metric the run
reports (:func:`replay.report.flat_metrics`) is computed for each round alone as well, giving N
samples; :func:`spread` summarises them with their median, min, max and a percentile
bootstrap confidence interval of the median (numpy, seeded, so the same samples always give the
same interval). With one round the spread is unknown and none is reported.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from replay.report import MetricRow, flat_metrics
from replay.runner import ReplayRun

__all__ = ["CONFIDENCE", "RESAMPLES", "interval_widths", "metric_samples", "spread",
           "spread_rows", "widths_text"]

#: The confidence of the interval every run reports.
CONFIDENCE = 0.95
#: Bootstrap resamples per interval.
RESAMPLES = 4000


def spread(samples: list[float], confidence: float = CONFIDENCE,
           resamples: int = RESAMPLES, seed: int = 0) -> dict[str, Any] | None:
    """Median, min, max and the percentile bootstrap CI of the median; None under 2 samples."""
    values = np.asarray(samples, dtype=float)
    if values.size < 2 or not np.all(np.isfinite(values)):
        return None
    rng = np.random.default_rng(seed)
    medians = np.median(rng.choice(values, size=(resamples, values.size), replace=True), axis=1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(medians, [tail, 100 - tail])
    return {"median": float(np.median(values)), "min": float(values.min()),
            "max": float(values.max()), "ci_low": float(low), "ci_high": float(high),
            "confidence": confidence, "method": "percentile bootstrap of the median over rounds",
            "resamples": resamples}


def metric_samples(run: ReplayRun) -> dict[str, list[float]]:
    """Metric name -> one value per round (only metrics every round produced)."""
    if not run.rounds:
        return {}
    per_round = [{row[0]: row[1] for row in flat_metrics(r)} for r in run.rounds]
    names = set.intersection(*(set(r) for r in per_round))
    return {name: [r[name] for r in per_round] for name in sorted(names)}


def spread_rows(run: ReplayRun) -> list[tuple[MetricRow, list[float] | None, dict[str, Any] | None]]:
    """Every metric row with its per-round samples and spread (None where unknown)."""
    samples = metric_samples(run)
    out = []
    for row in flat_metrics(run):
        values = samples.get(row[0])
        out.append((row, values, spread(values) if values else None))
    return out


def _watched(run: ReplayRun, names: list[str]) -> list[str]:
    import fnmatch
    patterns = run.config.interval.metrics or run.config.reproduce.metrics or ["*"]
    return [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)]


def interval_widths(run: ReplayRun) -> dict[str, float | None]:
    """Watched metric -> its 95% interval's width relative to its median (None: unknown)."""
    samples = metric_samples(run)
    widths: dict[str, float | None] = {}
    for name in _watched(run, sorted(samples)):
        s = spread(samples[name])
        widths[name] = (None if s is None or s["median"] == 0
                        else (s["ci_high"] - s["ci_low"]) / abs(s["median"]))
    return widths


def widths_text(run: ReplayRun) -> str:
    """One line: the interval width each watched metric reached, against the target."""
    widths = interval_widths(run)
    if not widths:
        return "95% intervals: one round, spread unknown (set rounds: 3 or more)"
    target = run.config.interval.relative_width
    parts = [f"{n} {'?' if w is None else format(w, '.0%')}" for n, w in widths.items()]
    return (f"95% interval width reached after {len(run.rounds)} rounds (relative to the "
            f"median; target {target:.0%}): " + ", ".join(parts))
