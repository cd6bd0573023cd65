"""The cost model and the comparison of two runs (the seed's 1.25 / 2.0 arithmetic)."""

from __future__ import annotations

from pathlib import Path

import pytest

from replay.cost import CostModel, Deployment, compare, hourly_cost

ROOT = Path(__file__).resolve().parents[1]


def test_seed_arithmetic_on_inputs() -> None:
    model = CostModel(currency="USD", accelerator_per_hour=4.0, operations_per_hour=1.0)
    c = compare(model, Deployment(instances=1), 100.0,
                Deployment(instances=1, store_memory_gib=1.0), 200.0)
    assert c.cost_ratio == pytest.approx(1.25)
    assert c.throughput_ratio == pytest.approx(2.0)
    assert c.cost_per_completion_ratio == pytest.approx(0.625)
    assert c.reduction == pytest.approx(0.375)
    assert c.reference_cost_per_completion == pytest.approx(0.04)
    assert c.candidate_cost_per_completion == pytest.approx(0.025)


def test_hourly_cost_counts_store_parts_only_with_a_store() -> None:
    model = CostModel(currency="EUR", accelerator_per_hour=2.0, cpu_memory_gib_per_hour=0.5,
                      disk_gib_per_hour=0.1, network_per_hour=0.3, operations_per_hour=0.2)
    assert hourly_cost(model, Deployment(instances=3)) == pytest.approx(6.0)
    dep = Deployment(instances=3, store_memory_gib=2.0, store_disk_gib=10.0)
    assert hourly_cost(model, dep) == pytest.approx(6.0 + 1.0 + 1.0 + 0.3 + 0.2)


def test_no_completion_meeting_the_slo_gives_no_ratio() -> None:
    model = CostModel(currency="USD", accelerator_per_hour=1.0)
    c = compare(model, Deployment(instances=1), 0.0, Deployment(instances=1), 10.0)
    assert c.throughput_ratio is None and c.reduction is None


def test_example_cost_model_loads() -> None:
    model = CostModel.from_file(ROOT / "examples" / "cost-model.yaml")
    assert model.currency == "USD" and model.accelerator_per_hour > 0


def test_bad_cost_model_files_name_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "c.yaml"
    bad.write_text("currency: dollars\naccelerator_per_hour: 1\n")
    with pytest.raises(ValueError, match="currency"):
        CostModel.from_file(bad)
    bad.write_text("currency: USD\naccelerator_per_hour: -1\n")
    with pytest.raises(ValueError, match="accelerator_per_hour"):
        CostModel.from_file(bad)
    with pytest.raises(ValueError, match="cannot read"):
        CostModel.from_file(tmp_path / "missing.yaml")
    with pytest.raises(ValueError, match="zero hourly cost"):
        compare(CostModel(currency="USD", accelerator_per_hour=0.0), Deployment(instances=1), 1,
                Deployment(instances=1), 1)
