"""Turn a :class:`ReplayRun` into a summary table, a JSON document, and ledger-ready metrics."""

from __future__ import annotations

import math
from typing import Any

from replay.runner import ArmResult, ReplayRun

__all__ = ["MetricRow", "flat_metrics", "run_document", "summary_table"]

MetricRow = tuple[str, float, str, str, int]  # name, value, unit, aggregation, sample count


def _fmt(v: Any, scale: float = 1.0, digits: int = 1) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v * scale:.{digits}f}"


_COLUMNS = [
    ("arm", 18), ("warmth", 6), ("store", 11), ("routing", 15), ("hit %", 6),
    ("p50 TTFT ms", 11), ("p99 TTFT ms", 11), ("p50 E2E ms", 10), ("prefill ms/req", 14),
    ("decode ms/tok", 13), ("xfer ms p50", 11), ("evict %", 7), ("SLO ok/h", 9),
    ("cost/compl", 10),
]


def _row(name: str, a: ArmResult) -> list[str]:
    s = a.summary
    return [name, a.arm.warmth, a.arm.store.mode, a.arm.routing, _fmt(s.hit_rate, 100),
            _fmt(s.p50_ttft_s, 1e3), _fmt(s.p99_ttft_s, 1e3), _fmt(s.p50_e2e_s, 1e3),
            _fmt(s.prefill_s_per_request, 1e3), _fmt(s.decode_s_per_token, 1e3, 2),
            _fmt(s.p50_transfer_s, 1e3, 2), _fmt(s.eviction_rate, 100),
            _fmt(s.slo_met_per_hour, 1, 0),
            "-" if a.cost_per_completion is None else f"{a.cost_per_completion:.3g}"]


def summary_table(run: ReplayRun) -> str:
    """A fixed-width text table, one row per arm, then the cost comparison if any."""
    header = " ".join(h.rjust(w) if i else h.ljust(w) for i, (h, w) in enumerate(_COLUMNS))
    rounds = f" x {run.config.rounds} rounds (pooled)" if run.config.rounds > 1 else ""
    lines = [(f"replay {run.config.name}: {run.trace.request_count} requests, "
             f"{len(run.trace.sessions)} sessions ({run.trace.kind}){rounds}"), header]
    for name, a in run.arms.items():
        cells = _row(name, a)
        lines.append(" ".join(c.rjust(w) if i else c.ljust(w)
                              for i, (c, (_, w)) in enumerate(zip(cells, _COLUMNS))))
    c = run.comparison
    if c is not None and run.config.compare:
        ref, cand = run.config.compare
        lines.append(
            f"cost: {cand} vs {ref}: hourly cost x{c.cost_ratio:.3f}, useful throughput "
            f"x{_fmt(c.throughput_ratio, 1, 3)}, cost per completion "
            f"x{_fmt(c.cost_per_completion_ratio, 1, 3)} "
            f"(reduction {_fmt(c.reduction, 100)}%) [{c.currency}]")
    from replay.spread import widths_text
    lines.append(widths_text(run))
    return "\n".join(lines)


def _arm_metrics(name: str, a: ArmResult) -> list[MetricRow]:
    s, n = a.summary, a.summary.completed
    rows: list[MetricRow] = []

    def add(metric: str, value: float | None, unit: str, agg: str, count: int = n) -> None:
        if value is not None:
            rows.append((f"{name}_{metric}", float(value), unit, agg, count))

    add("p50_ttft", s.p50_ttft_s, "s", "p50")
    add("p99_ttft", s.p99_ttft_s, "s", "p99")
    add("p50_e2e", s.p50_e2e_s, "s", "p50")
    add("p99_e2e", s.p99_e2e_s, "s", "p99")
    add("throughput", s.throughput_rps, "requests/s", "rate")
    add("hit_rate", s.hit_rate, "fraction", "ratio")
    add("skipped_prefill_tokens", s.skipped_prefill_tokens, "tokens", "sum")
    add("computed_prefill_tokens", s.computed_prefill_tokens, "tokens", "sum")
    add("p50_transfer", s.p50_transfer_s, "s", "p50")
    add("transfer_total", s.transfer_s_total, "s", "sum")
    add("prefill_per_request", s.prefill_s_per_request, "s", "mean")
    add("decode_per_token", s.decode_s_per_token, "s", "mean")
    add("eviction_rate", s.eviction_rate, "fraction", "ratio")
    add("slo_met_per_hour", s.slo_met_per_hour, "requests/h", "rate")
    add("failed", s.failed, "requests", "sum", s.requests)
    add("store_errors", s.store_errors, "operations", "sum")
    add("cost_per_hour", a.cost_per_hour, "currency/h", "sum", 1)
    add("cost_per_completion", a.cost_per_completion, "currency/request", "derived")
    return rows


def _ratio_metrics(run: ReplayRun) -> list[MetricRow]:
    rows: list[MetricRow] = []
    if not run.config.compare:
        return rows
    ref_name, cand_name = run.config.compare
    ref, cand = run.arms.get(ref_name), run.arms.get(cand_name)
    if ref is None or cand is None:
        return rows
    n = min(ref.summary.completed, cand.summary.completed)
    pairs = [("p50_ttft_speedup", ref.summary.p50_ttft_s, cand.summary.p50_ttft_s),
             ("p99_ttft_speedup", ref.summary.p99_ttft_s, cand.summary.p99_ttft_s),
             ("p50_e2e_speedup", ref.summary.p50_e2e_s, cand.summary.p50_e2e_s),
             ("prefill_speedup", ref.summary.prefill_s_per_request,
              cand.summary.prefill_s_per_request),
             ("decode_speedup", ref.summary.decode_s_per_token, cand.summary.decode_s_per_token)]
    for metric, r, c in pairs:
        if r and c:  # reference over candidate: how many times faster the candidate is
            rows.append((f"{metric}", r / c, "ratio", "ratio", n))
    cmp = run.comparison
    if cmp is not None:
        for metric, v in (("cost_ratio", cmp.cost_ratio), ("throughput_ratio", cmp.throughput_ratio),
                          ("cost_per_completion_ratio", cmp.cost_per_completion_ratio),
                          ("cost_reduction", cmp.reduction)):
            if v is not None:
                rows.append((metric, v, "ratio", "ratio", n))
    return rows


def flat_metrics(run: ReplayRun) -> list[MetricRow]:
    """Every figure as (name, value, unit, aggregation, sample count); names are snake_case."""
    rows: list[MetricRow] = []
    for name, a in run.arms.items():
        rows += _arm_metrics(name, a)
    return rows + _ratio_metrics(run)


def run_document(run: ReplayRun) -> dict[str, Any]:
    """Everything measured, as JSON-ready data (records included)."""
    return {
        "config": run.config.model_dump(mode="json"),
        "trace": {"name": run.trace.name, "kind": run.trace.kind,
                  "requests": run.trace.request_count, "sessions": len(run.trace.sessions)},
        "started_at": run.started_at, "ended_at": run.ended_at,
        "comparison": run.comparison.model_dump() if run.comparison else None,
        "metrics": [dict(zip(("name", "value", "unit", "aggregation", "sample_count"), m))
                    for m in flat_metrics(run)],
        "arms": {name: {"arm": a.arm.model_dump(mode="json"),
                        "summary": a.summary.model_dump(),
                        "per_turn": {str(k): v for k, v in a.per_turn.items()},
                        "hit_rate_over_time": a.hit_rate_over_time,
                        "cost_per_hour": a.cost_per_hour,
                        "cost_per_completion": a.cost_per_completion,
                        "store_stats": a.store_stats, "faults_applied": a.faults_applied,
                        "records": [r.model_dump() for r in a.records]}
                 for name, a in run.arms.items()},
    }
