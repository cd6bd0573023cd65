"""Compare a reproduction with the original run, metric by metric, within stated tolerances.

Only quantities that should survive a change of machine are *checked*: ratios (unit ``ratio``,
e.g. a TTFT speed-up measured within one run) within a relative tolerance, and rates of the
trace itself (unit ``fraction``, e.g. hit rate, eviction rate) within an absolute tolerance.
When the original recorded a 95% interval (a run in rounds), the tolerance is measured from
that interval, so a rerun inside the original's own spread always agrees.
Absolute times, throughputs and costs are *reported* side by side, never required to match.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel

__all__ = ["Comparison", "compare_metrics"]


class Comparison(BaseModel):
    """One metric of the original run next to its reproduction."""

    name: str
    unit: str
    original: float
    reproduced: float | None
    checked: bool
    tolerance: str | None
    ok: bool
    note: str = ""


def _nearest(b: float, a: float, interval: tuple[float, float] | None) -> tuple[float, str]:
    """The original value (or the end of its interval) nearest the rerun's, and its label."""
    if interval is None:
        return a, ""
    lo, hi = interval
    if lo <= b <= hi:
        return b, " (inside the original's 95% interval)"
    end = lo if b < lo else hi
    return end, f" from the original's 95% interval {lo:.4g}-{hi:.4g}"


def _check(name: str, unit: str, a: float, b: float, tol: Mapping[str, float],
           interval: tuple[float, float] | None = None) -> Comparison:
    """Within tolerance of the original value, or of its 95% interval when it has one."""
    ref, where = _nearest(b, a, interval)
    if unit == "ratio":
        t = tol.get("ratio", 0.35)
        diff = abs(b - ref) / abs(ref) if ref else abs(b)
        return Comparison(name=name, unit=unit, original=a, reproduced=b, checked=True,
                          tolerance=f"±{t:.0%} relative", ok=diff <= t,
                          note=f"relative difference {diff:.1%}{where}")
    t = tol.get("rate", 0.05)
    diff = abs(b - ref)
    return Comparison(name=name, unit=unit, original=a, reproduced=b, checked=True,
                      tolerance=f"±{t:g} absolute", ok=diff <= t,
                      note=f"absolute difference {diff:.3f}{where}")


def compare_metrics(original: Iterable[tuple[str, float, str]],
                    reproduced: Iterable[tuple[str, float, str]],
                    tolerances: Mapping[str, float],
                    checked: Sequence[str] | None = None,
                    intervals: Mapping[str, tuple[float, float]] | None = None
                    ) -> list[Comparison]:
    """Pair metrics by name: (name, value, unit) of the original and of the reproduction.

    ``tolerances`` has ``ratio`` (relative) and ``rate`` (absolute); ``checked`` lists
    shell-style name patterns to require (default: every ratio and fraction). ``intervals``
    (name -> the original's 95% interval, for runs measured in rounds) makes the tolerance
    apply to the distance from that interval rather than from the single original value.
    """
    again = {name: (value, unit) for name, value, unit in reproduced}
    out = []
    for name, value, unit in original:
        if checked is not None and not any(fnmatch.fnmatchcase(name, p) for p in checked):
            unit_for_check = "-"
        else:
            unit_for_check = unit
        if unit_for_check not in ("ratio", "fraction"):
            b = again.get(name, (None, unit))[0]
            out.append(Comparison(name=name, unit=unit, original=value, reproduced=b,
                                  checked=False, tolerance=None, ok=True,
                                  note="reported, not required to match"))
        elif name not in again:
            out.append(Comparison(name=name, unit=unit, original=value, reproduced=None,
                                  checked=True, tolerance=None, ok=False,
                                  note="missing from the reproduction"))
        else:
            out.append(_check(name, unit, value, again[name][0], tolerances,
                              (intervals or {}).get(name)))
    return out
