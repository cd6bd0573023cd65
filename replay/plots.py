"""PNG plots of a replay (matplotlib, Agg backend: no display needed).

* ``ttft.png``: TTFT distribution (empirical CDF) of every arm, so cold vs warm and without vs
  with the store sit on one axis, with the SLO's TTFT threshold as a vertical line;
* ``hit_rate.png``: hit rate over the run (moving window) per arm;
* ``cost.png``: cost per 1,000 completions that met the SLO, per arm, each bar labelled with
  its value; the prices are the cost model's illustrative prices, and the chart says so.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from replay.runner import ReplayRun

__all__ = ["cost_figure", "plot_all", "plot_cost", "plot_hit_rate", "plot_ttft", "ttft_figure"]


def plot_ttft(run: ReplayRun, path: Path) -> Path:
    return _save(ttft_figure(run), path)


def ttft_figure(run: ReplayRun) -> Figure:
    """The TTFT CDF of every arm, with the SLO's TTFT threshold as a dashed line."""
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, a in run.arms.items():
        ttft = sorted(r.ttft_s * 1e3 for r in a.records if r.ok and r.ttft_s is not None)
        if ttft:
            ax.step(ttft, [(i + 1) / len(ttft) for i in range(len(ttft))], where="post",
                    label=f"{name} ({a.arm.warmth}, store={a.arm.store.mode})")
    slo_ms = run.config.slo.ttft_s * 1e3
    ax.axvline(slo_ms, color="black", linestyle="--", linewidth=1,
               label=f"SLO: TTFT under {slo_ms:g} ms")
    ax.set_xscale("log")
    ax.set_xlabel("time to first token (ms, log scale)")
    ax.set_ylabel("fraction of requests")
    ax.set_title(f"TTFT: {run.config.name}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def plot_hit_rate(run: ReplayRun, path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, a in run.arms.items():
        if a.hit_rate_over_time:
            xs, ys = zip(*a.hit_rate_over_time)
            ax.plot(xs, [y * 100 for y in ys], label=name)
    ax.set_xlabel("time since start of replay (s)")
    ax.set_ylabel("prefix hit rate, last 8 requests (%)")
    ax.set_ylim(0, 100)
    ax.set_title(f"Hit rate over time: {run.config.name}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path)


def plot_cost(run: ReplayRun, path: Path) -> Path | None:
    fig = cost_figure(run)
    return None if fig is None else _save(fig, path)


def cost_figure(run: ReplayRun) -> Figure | None:
    """Cost per 1,000 completions meeting the SLO per arm, labelled, in one stated unit."""
    arms = [(n, a.cost_per_completion) for n, a in run.arms.items()
            if a.cost_per_completion is not None]
    if not arms:
        return None
    currency = getattr(run.config.cost_model, "currency", "")
    fig, ax = plt.subplots(figsize=(7, 4))
    names, values = zip(*arms)
    per_thousand = [v * 1000 for v in values]
    bars = ax.bar(names, per_thousand)
    ax.bar_label(bars, labels=[f"{v:.3g} {currency}" for v in per_thousand], padding=2)
    ax.set_ylabel(f"{currency} per 1,000 completions meeting the SLO")
    ax.set_title(f"Cost per 1,000 completions meeting the SLO ({currency}, illustrative "
                 f"prices): {run.config.name}", fontsize=10)
    ax.margins(y=0.15)
    ax.grid(True, axis="y", alpha=0.3)
    return fig


def _save(fig: Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_all(run: ReplayRun, out_dir: Path) -> list[Path]:
    """Write every plot into ``out_dir``; returns the files written."""
    paths = [plot_ttft(run, out_dir / "ttft.png"), plot_hit_rate(run, out_dir / "hit_rate.png")]
    cost = plot_cost(run, out_dir / "cost.png")
    return paths + ([cost] if cost else [])
