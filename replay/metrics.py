"""Per-request records and the figures a run reports.

Times are seconds. Percentiles use linear interpolation between closest ranks (numpy's default).
*Hit rate* is reused prompt tokens over prompt tokens; *eviction rate* is blocks evicted over
blocks inserted (local caches and store together); *SLO goodput* is completed requests whose
TTFT and end-to-end latency both meet the SLO, per hour of the run's wall time.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from reference_store.config import StrictModel

__all__ = ["SLO", "RequestRecord", "Summary", "hit_rate_over_time", "per_turn", "summarise"]


class SLO(StrictModel):
    """Latency targets a completed request must meet to count as useful."""

    label = "slo section"

    ttft_s: float = Field(default=2.0, gt=0)
    e2e_s: float = Field(default=10.0, gt=0)


class RequestRecord(BaseModel):
    """One replayed request as the client measured it, plus the server's own counters if any."""

    model_config = ConfigDict(extra="forbid")

    session_id: str
    tenant: str = "default"
    turn: int
    instance: int
    sent_s: float = Field(description="Send time, seconds since the run started.")
    ttft_s: float | None = None
    e2e_s: float | None = None
    ok: bool = True
    error: str | None = None
    prompt_tokens: int
    prefix_tokens: int = 0
    output_tokens: int = 0
    server: dict[str, Any] | None = None

    def server_int(self, name: str) -> int:
        return int((self.server or {}).get(name, 0))

    def server_float(self, name: str) -> float:
        return float((self.server or {}).get(name, 0.0))


class Summary(BaseModel):
    """The run's figures. ``None`` where the backend did not report the input (e.g. vLLM)."""

    requests: int
    completed: int
    failed: int
    duration_s: float
    p50_ttft_s: float | None
    p99_ttft_s: float | None
    p50_e2e_s: float | None
    p99_e2e_s: float | None
    throughput_rps: float
    output_tokens_per_s: float
    slo_met: int
    slo_met_per_hour: float
    prompt_tokens: int
    hit_rate: float | None = None
    skipped_prefill_tokens: int | None = None
    computed_prefill_tokens: int | None = None
    store_hit_tokens: int | None = None
    transfer_s_total: float | None = None
    p50_transfer_s: float | None = None
    transfer_gbps: float | None = None
    prefill_s_total: float | None = None
    prefill_s_per_request: float | None = None
    decode_s_per_token: float | None = None
    eviction_rate: float | None = None
    evicted_blocks: int | None = None
    store_errors: int | None = None


def _pct(values: Sequence[float], q: float) -> float | None:
    return float(np.percentile(values, q)) if values else None


def _server_part(done: list[RequestRecord], evictions: tuple[int, int] | None) -> dict[str, Any]:
    if not done or any(r.server is None for r in done):
        return {}
    s = {k: sum(r.server_int(k) for r in done) for k in
         ("local_hit_tokens", "store_hit_tokens", "computed_tokens", "transfer_bytes",
          "output_tokens", "store_errors")}
    transfer = sum(r.server_float("transfer_s") for r in done)
    with_transfer = [r.server_float("transfer_s") for r in done if r.server_int("store_hit_tokens")]
    prefill = sum(r.server_float("prefill_s") for r in done)
    decode = sum(r.server_float("decode_s") for r in done)
    decode_tokens = sum(max(0, r.server_int("output_tokens") - 1) for r in done)
    prompt = sum(r.prompt_tokens for r in done)
    skipped = s["local_hit_tokens"] + s["store_hit_tokens"]
    out: dict[str, Any] = {
        "hit_rate": skipped / prompt if prompt else 0.0, "skipped_prefill_tokens": skipped,
        "computed_prefill_tokens": s["computed_tokens"], "store_hit_tokens": s["store_hit_tokens"],
        "transfer_s_total": transfer, "p50_transfer_s": _pct(with_transfer, 50),
        "transfer_gbps": (s["transfer_bytes"] / transfer / 1e9) if transfer > 0 else None,
        "prefill_s_total": prefill, "prefill_s_per_request": prefill / len(done),
        "decode_s_per_token": decode / decode_tokens if decode_tokens else None}
    if evictions is not None:
        inserted, evicted = evictions
        out.update(eviction_rate=evicted / inserted if inserted else 0.0, evicted_blocks=evicted)
    return out


def summarise(records: Sequence[RequestRecord], duration_s: float, slo: SLO,
              evictions: tuple[int, int] | None = None) -> Summary:
    """Reduce request records to the run's figures.

    ``evictions`` is (blocks inserted, blocks evicted) over all caches, when known.

    Raises:
        ValueError: ``duration_s`` not positive.
    """
    if duration_s <= 0:
        raise ValueError("duration_s: must be positive")
    done = [r for r in records if r.ok and r.ttft_s is not None and r.e2e_s is not None]
    ttft = [r.ttft_s for r in done if r.ttft_s is not None]
    e2e = [r.e2e_s for r in done if r.e2e_s is not None]
    met = sum(1 for r in done if (r.ttft_s or 0) <= slo.ttft_s and (r.e2e_s or 0) <= slo.e2e_s)
    return Summary(
        requests=len(records), completed=len(done), failed=len(records) - len(done),
        duration_s=duration_s, p50_ttft_s=_pct(ttft, 50), p99_ttft_s=_pct(ttft, 99),
        p50_e2e_s=_pct(e2e, 50), p99_e2e_s=_pct(e2e, 99),
        throughput_rps=len(done) / duration_s,
        output_tokens_per_s=sum(r.output_tokens for r in done) / duration_s,
        slo_met=met, slo_met_per_hour=met / duration_s * 3600.0,
        prompt_tokens=sum(r.prompt_tokens for r in done),
        **_server_part(done, evictions))


def per_turn(records: Sequence[RequestRecord]) -> dict[int, dict[str, float]]:
    """Per turn index: hit rate, mean prefix share of the prompt, mean prefill and decode times."""
    groups: dict[int, list[RequestRecord]] = defaultdict(list)
    for r in records:
        if r.ok and r.server is not None:
            groups[r.turn].append(r)
    out: dict[int, dict[str, float]] = {}
    for turn, rs in sorted(groups.items()):
        prompt = sum(r.prompt_tokens for r in rs)
        hits = sum(r.server_int("local_hit_tokens") + r.server_int("store_hit_tokens") for r in rs)
        decode_tokens = sum(max(0, r.server_int("output_tokens") - 1) for r in rs)
        out[turn] = {
            "requests": float(len(rs)),
            "hit_rate": hits / prompt if prompt else 0.0,
            "prefix_share": sum(r.prefix_tokens for r in rs) / prompt if prompt else 0.0,
            "prefill_s": sum(r.server_float("prefill_s") for r in rs) / len(rs),
            "decode_s_per_token": (sum(r.server_float("decode_s") for r in rs) / decode_tokens
                                   if decode_tokens else 0.0),
        }
    return out


def hit_rate_over_time(records: Sequence[RequestRecord], window: int = 8) -> list[tuple[float, float]]:
    """(send time, hit rate of the last ``window`` requests) in send order."""
    rs = sorted((r for r in records if r.ok and r.server is not None), key=lambda r: r.sent_s)
    out = []
    for i in range(len(rs)):
        chunk = rs[max(0, i - window + 1): i + 1]
        prompt = sum(r.prompt_tokens for r in chunk)
        hits = sum(r.server_int("local_hit_tokens") + r.server_int("store_hit_tokens")
                   for r in chunk)
        out.append((rs[i].sent_s, hits / prompt if prompt else 0.0))
    return out
