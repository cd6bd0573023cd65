"""Cost model: hourly infrastructure cost, cost per completed request meeting the SLO, and the
comparison of two runs.

The seed article's illustrative arithmetic -- hourly cost x1.25, useful throughput x2.0, so cost
per completion x(1.25 / 2.0) = 0.625, a 37.5% reduction -- is :func:`compare` applied to measured
inputs: the hourly cost of each arm from this file, the useful throughput (completions meeting the
SLO per hour) from the replay.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reference_store.config import StrictModel

__all__ = [
    "CostComparison",
    "CostModel",
    "Deployment",
    "compare",
    "cost_per_completion",
    "hourly_cost",
]


class CostModel(StrictModel):
    """Hourly prices. Accelerator cost is per serving instance; the others apply to the store."""

    label = "cost model"

    currency: str = Field(pattern=r"^[A-Z]{3}$")
    accelerator_per_hour: float = Field(ge=0, description="Per serving instance.")
    cpu_memory_gib_per_hour: float = Field(default=0.0, ge=0)
    disk_gib_per_hour: float = Field(default=0.0, ge=0)
    network_per_hour: float = Field(default=0.0, ge=0, description="Store network, flat.")
    operations_per_hour: float = Field(default=0.0, ge=0, description="Running the store, flat.")
    source: str | None = Field(default=None, description="Where the prices come from.")

    @classmethod
    def from_file(cls, path: str | Path) -> CostModel:
        """Read a cost model file (YAML or JSON).

        Raises:
            ValueError: unreadable file or invalid content, naming the field.
        """
        p = Path(path)
        try:
            text = p.read_text()
            data = json.loads(text) if p.suffix == ".json" else yaml.safe_load(text)
            return cls.model_validate(data)
        except OSError as exc:
            raise ValueError(f"cost model {p}: cannot read: {exc.strerror}") from None
        except (yaml.YAMLError, json.JSONDecodeError) as exc:
            raise ValueError(f"cost model {p}: not parseable: {exc}") from None
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(x) for x in first["loc"])
            raise ValueError(f"cost model {p}: {loc + ': ' if loc else ''}{first['msg']}") \
                from None


class Deployment(BaseModel):
    """What a run used: instances, and the store's capacity (0 when there is no store)."""

    model_config = ConfigDict(frozen=True)

    instances: int = Field(ge=1)
    store_memory_gib: float = Field(default=0.0, ge=0)
    store_disk_gib: float = Field(default=0.0, ge=0)

    @property
    def has_store(self) -> bool:
        return self.store_memory_gib > 0 or self.store_disk_gib > 0


def hourly_cost(model: CostModel, dep: Deployment) -> float:
    """Total infrastructure cost per hour of a deployment."""
    cost = dep.instances * model.accelerator_per_hour
    if dep.has_store:
        cost += dep.store_memory_gib * model.cpu_memory_gib_per_hour
        cost += dep.store_disk_gib * model.disk_gib_per_hour
        cost += model.network_per_hour + model.operations_per_hour
    return cost


def cost_per_completion(cost_per_hour: float, slo_met_per_hour: float) -> float | None:
    """Cost of one completed request meeting the SLO; ``None`` when none met it."""
    return cost_per_hour / slo_met_per_hour if slo_met_per_hour > 0 else None


class CostComparison(BaseModel):
    """Candidate relative to reference: the seed's cost-ratio / throughput-ratio arithmetic."""

    currency: str
    reference_cost_per_hour: float
    candidate_cost_per_hour: float
    reference_slo_per_hour: float
    candidate_slo_per_hour: float
    cost_ratio: float
    throughput_ratio: float | None
    cost_per_completion_ratio: float | None
    reduction: float | None
    reference_cost_per_completion: float | None
    candidate_cost_per_completion: float | None


def compare(model: CostModel, ref: Deployment, ref_slo_per_hour: float, cand: Deployment,
            cand_slo_per_hour: float) -> CostComparison:
    """Compare two measured runs.

    Raises:
        ValueError: the reference deployment costs nothing (no ratio can be formed).
    """
    rc, cc = hourly_cost(model, ref), hourly_cost(model, cand)
    if rc <= 0:
        raise ValueError("cost model: the reference deployment has zero hourly cost")
    cost_ratio = cc / rc
    tput = cand_slo_per_hour / ref_slo_per_hour if ref_slo_per_hour > 0 else None
    cpc = cost_ratio / tput if tput else None
    return CostComparison(
        currency=model.currency, reference_cost_per_hour=rc, candidate_cost_per_hour=cc,
        reference_slo_per_hour=ref_slo_per_hour, candidate_slo_per_hour=cand_slo_per_hour,
        cost_ratio=cost_ratio, throughput_ratio=tput, cost_per_completion_ratio=cpc,
        reduction=None if cpc is None else 1.0 - cpc,
        reference_cost_per_completion=cost_per_completion(rc, ref_slo_per_hour),
        candidate_cost_per_completion=cost_per_completion(cc, cand_slo_per_hour))
