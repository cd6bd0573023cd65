"""Read a ``vllm bench serve --save-result`` JSON file into run metrics.

vLLM writes one JSON object with scalar results (``duration``, ``completed``, ``failed``,
``request_throughput``, ``request_goodput``, ``output_throughput``, ``total_token_throughput``,
``total_input_tokens``, ``total_output_tokens``), latency statistics named
``{mean|median|std|pNN}_{ttft|tpot|itl|e2el}_ms``, run settings (``date`` as
``YYYYMMDD-HHMMSS``, ``backend``, ``model_id``, ``num_prompts``, ``request_rate``,
``max_concurrency``, ...) and, with detailed results, per-request lists (``ttfts``, ...), which
are not copied into the run.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel

__all__ = ["BenchFormatError", "BenchResult", "load_bench_result", "parse_bench_result"]

_LATENCY = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el)_ms$")
_SCALARS: dict[str, tuple[str, str, str]] = {
    # key: (metric name, unit, aggregation)
    "duration": ("duration", "s", "sum"),
    "completed": ("completed", "requests", "sum"),
    "failed": ("failed", "requests", "sum"),
    "total_input_tokens": ("total_input_tokens", "tokens", "sum"),
    "total_output_tokens": ("total_output_tokens", "tokens", "sum"),
    "request_throughput": ("request_throughput", "requests/s", "rate"),
    "request_goodput": ("request_goodput", "requests/s", "rate"),
    "output_throughput": ("output_throughput", "tokens/s", "rate"),
    "total_token_throughput": ("total_token_throughput", "tokens/s", "rate"),
}
_SETTINGS = ("backend", "endpoint_type", "label", "model_id", "tokenizer_id", "num_prompts",
             "request_rate", "burstiness", "max_concurrency")


class BenchFormatError(ValueError):
    """Not a vLLM bench result; the message names the key."""


class BenchResult(BaseModel):
    """Metrics, settings and the run date of one benchmark result."""

    metrics: list[tuple[str, float, str, str, int]]
    settings: dict[str, Any]
    started_at: dt.datetime | None
    duration_s: float | None
    model_id: str | None


def _number(data: dict[str, Any], key: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BenchFormatError(f"{key}: expected a number, got {type(value).__name__}")
    return float(value)


def _latency_name(match: re.Match[str]) -> tuple[str, str]:
    stat, what = match.group(1), match.group(2)
    agg = {"median": "p50"}.get(stat, stat).replace(".", "_")
    return f"{agg}_{what}", agg


def _date(data: dict[str, Any]) -> dt.datetime | None:
    raw = data.get("date")
    if raw is None:
        return None
    try:
        return dt.datetime.strptime(str(raw), "%Y%m%d-%H%M%S").replace(tzinfo=dt.UTC)
    except ValueError:
        raise BenchFormatError(f"date: expected YYYYMMDD-HHMMSS, got {raw!r}") from None


def parse_bench_result(data: Any) -> BenchResult:
    """Metrics (name, value, unit, aggregation, samples) and settings of a parsed result.

    vLLM records ``date`` in the benchmark machine's local time without a zone; it is read as
    UTC and said so in the settings.

    Raises:
        BenchFormatError: not an object, no ``completed`` count, or a non-numeric figure.
    """
    if not isinstance(data, dict):
        raise BenchFormatError("top level: expected a JSON object")
    completed = _number(data, "completed")
    if completed is None:
        raise BenchFormatError("completed: missing (is this a `vllm bench serve` result?)")
    n = int(completed)
    metrics = []
    for key, (name, unit, agg) in _SCALARS.items():
        value = _number(data, key)
        if value is not None:
            metrics.append((name, value, unit, agg, n))
    for key in sorted(data):
        match = _LATENCY.match(key)
        value = _number(data, key) if match else None
        if match and value is not None:
            name, agg = _latency_name(match)
            metrics.append((f"{name}", value, "ms", agg, n))
    settings = {k: data[k] for k in _SETTINGS if k in data}
    settings["date_timezone_assumed"] = "UTC"
    return BenchResult(metrics=metrics, settings=settings, started_at=_date(data),
                       duration_s=_number(data, "duration"),
                       model_id=str(data["model_id"]) if data.get("model_id") else None)


def load_bench_result(path: str | Path) -> BenchResult:
    """Read and parse a result file.

    Raises:
        BenchFormatError: unreadable, not JSON, or not a bench result.
    """
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BenchFormatError(f"{p}: cannot read: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise BenchFormatError(f"{p}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None
    try:
        return parse_bench_result(data)
    except BenchFormatError as exc:
        raise BenchFormatError(f"{p}: {exc}") from None
