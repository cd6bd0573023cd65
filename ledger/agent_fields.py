"""The seed article's agent fields: what every measurement a buyer-focused article cites must
carry, so two figures can be compared (model, engine, hardware, cache tiers, routing, warmth,
SLO, cost, source and date). A run stores them in ``Run.agent_fields``; an article lists the ones
it relies on in ``Article.agent_fields``."""

from __future__ import annotations

from collections.abc import Iterable

from .errors import UsageError

__all__ = ["AGENT_FIELDS", "parse_field_args"]

#: The fields the seed article asks every measurement to carry, in its order.
AGENT_FIELDS: tuple[str, ...] = (
    "model_and_revision", "serving_engine_revision", "cache_connector_revision",
    "hardware_and_gpu_count", "prefill_decode_topology", "cache_capacity_by_tier",
    "tenant_isolation_policy", "request_mix", "routing_policy", "cache_warmth",
    "prefix_reuse_rate", "transfer_latency", "eviction_rate", "p50_ttft", "p99_ttft",
    "end_to_end_latency", "completed_requests_meeting_slo_per_hour",
    "total_infrastructure_cost_per_hour", "currency", "source_url", "retrieved_at",
)


def parse_field_args(items: Iterable[str]) -> dict[str, str]:
    """``KEY=VALUE`` command-line items as agent fields; raises :class:`UsageError` naming the
    item when it is malformed or KEY is not an agent field."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or key not in AGENT_FIELDS:
            raise UsageError(f"--field {item!r}: expected KEY=VALUE with KEY one of "
                             f"{', '.join(AGENT_FIELDS)}")
        out[key] = value
    return out
