"""Measurements against the ledger: each cited run exists, is sealed, and holds the figure.

The verify package never opens a database itself: the caller passes ``lookup`` (run id -> Run
or None), so ``ledger verify --db URL`` checks the link from prose to a dated run, and a check
without a ledger says once that it could not.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from ..figures import quantize
from ..models import Article, Measurement, Run, RunStatus
from ..report import Finding, Severity

__all__ = ["RunLookup", "measurement_check"]

RunLookup = Callable[[str], Run | None]


def _decimals(value: float | int) -> int:
    exponent = Decimal(repr(value)).as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def _same_at_printed_precision(stated: float | int, measured: float) -> bool:
    places = _decimals(stated)
    return quantize(Decimal(repr(measured)), places) == quantize(Decimal(repr(stated)), places)


def _check_one(m: Measurement, run: Run | None, where: str) -> list[Finding]:
    def error(rule: str, message: str, field: str) -> list[Finding]:
        return [Finding(Severity.error, rule, message, f"{where}/{field}")]

    if run is None:
        return error("unknown-run", f"measurement {m.id} cites run {m.run_id}, which is not in "
                     "the ledger", "run_id")
    if run.status is not RunStatus.finished:
        return error("unsealed-run", f"measurement {m.id} cites run {m.run_id}, whose status is "
                     f"{run.status.value}; only finished (sealed) runs are evidence", "run_id")
    if m.derived_from is not None:  # computed from other measurements: see derived-figure
        return []
    metric = next((x for x in run.metrics if x.name == m.metric), None)
    if metric is None:
        names = ", ".join(sorted(x.name for x in run.metrics)) or "none"
        return error("run-mismatch", f"run {m.run_id} has no metric {m.metric!r} "
                     f"(it has: {names})", "metric")
    if not _same_at_printed_precision(m.value, metric.value):
        return error("run-mismatch", f"measurement {m.id} states {m.value} but run {m.run_id} "
                     f"measured {m.metric} = {metric.value}", "value")
    if metric.unit != m.unit:
        return error("run-mismatch", f"measurement {m.id} says {m.unit!r} but run {m.run_id} "
                     f"records {m.metric} in {metric.unit!r}", "unit")
    ended = run.ended_at or run.started_at
    if ended.date() != m.measured_at:
        return error("run-mismatch", f"measurement {m.id} is dated {m.measured_at} but run "
                     f"{m.run_id} ended on {ended.date()} (UTC)", "measured_at")
    return []


def measurement_check(lookup: RunLookup | None) -> Callable[[Article], list[Finding]]:
    """A check of every measurement against the ledger; with no ledger, one note per article."""

    def check(article: Article) -> list[Finding]:
        measurements = article.measurements or []
        if not measurements:
            return []
        if lookup is None:
            return [Finding(Severity.note, "runs-not-checked",
                            f"{len(measurements)} measurement(s) cite ledger runs; pass --db (or "
                            "set LEDGER_DB_URL) to check them against the ledger",
                            "/measurements")]
        findings: list[Finding] = []
        for i, m in enumerate(measurements):
            findings += _check_one(m, lookup(m.run_id), f"/measurements/{i}")
        return findings

    return check
