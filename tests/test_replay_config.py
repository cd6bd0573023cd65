"""Replay config files: examples load, errors name the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from replay.config import ConfigError, load_config, parse_config
from replay.cost import CostModel

ROOT = Path(__file__).resolve().parents[1]
MIN = {"name": "x", "trace": {"generator": {"kind": "no_reuse"}}}


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("replay-*.yaml")),
                         ids=lambda p: p.name)
def test_example_configs_load(path: Path) -> None:
    cfg = load_config(path)
    assert cfg.arms
    assert isinstance(cfg.cost_model, CostModel)  # the relative cost model path was resolved


def test_arm_overrides_apply() -> None:
    cfg = parse_config({**MIN, "routing": "least_loaded", "warmth": "cold",
                        "arms": [{"name": "a"}, {"name": "b", "warmth": "warm",
                                                 "store": {"mode": "embedded"}}]})
    a, b = cfg.arm("a"), cfg.arm("b")
    assert (a.warmth, a.store.mode, a.routing) == ("cold", "none", "least_loaded")
    assert (b.warmth, b.store.mode, b.routing) == ("warm", "embedded", "least_loaded")
    assert b.store.data_path == "auto"  # the store client's default


@pytest.mark.parametrize("change, field", [
    ({"routing": "random"}, "routing"),
    ({"trace": {"generator": {"kind": "nope"}}}, "trace.generator"),
    ({"trace": {}}, "trace"),
    ({"instances": {"count": 0}}, "instances.count"),
    ({"arms": [{"name": "a"}, {"name": "a"}]}, "arm names must be unique"),
    ({"arms": [{"name": "a"}], "compare": ["a", "b"]}, "compare: unknown arm 'b'"),
    ({"arms": [{"name": "a", "store": {"mode": "embedded"},
                "instances": {"mode": "processes"}}]}, "arms.a"),
    ({"arms": [{"name": "a", "store": {"mode": "distributed"}}]}, "arms.a.store.address"),
    ({"store": {"mode": "distributed", "address": "auto", "data_path": "rdma"}},
     "store.data_path"),
    ({"colour": "red"}, "colour"),
])
def test_invalid_configs_name_the_field(change: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config({**MIN, **change})
    assert field in str(info.value)


def test_unreadable_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    bad.write_text("- a list\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(bad)
    js = tmp_path / "c.json"
    js.write_text('{"name": "x", "trace": {"generator": {"kind": "no_reuse"}}, '
                  '"cost_model": "nowhere.yaml"}')
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(js)


@pytest.mark.parametrize("change, message", [
    ({"routng": "round_robin"},
     "unknown key `routng` in the replay config; did you mean `routing`?"),
    ({"slo": {"ttft": 2}}, "slo: unknown key `ttft` in the slo section; did you mean `ttft_s`?"),
    ({"trace": {"generator": {"kind": "coding_agent", "sesions": 2}}},
     "unknown key `sesions` in the generator; did you mean `sessions`?"),
    ({"arms": [{"name": "warm", "warmht": "warm"}]},
     "arms.0: unknown key `warmht` in arm `warm`; did you mean `warmth`?"),
    ({"store": {"mode": "embedded", "host_byte": 1}},
     "store: unknown key `host_byte` in the store section; did you mean `host_bytes`?"),
    ({"cost_model": {"currency": "USD", "accelerator_per_hr": 1}},
     "did you mean `accelerator_per_hour`?"),
])
def test_a_typo_is_refused_with_the_key_and_the_near_one(change: dict[str, object],
                                                         message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config({**MIN, **change})
    assert message in str(info.value)


def test_store_sizes_take_the_stores_units() -> None:
    cfg = parse_config({**MIN, "store": {"mode": "embedded", "host_bytes": "16MiB",
                                         "disk_bytes": "1GB"}})
    assert (cfg.store.host_bytes, cfg.store.disk_bytes) == (16 << 20, 10**9)
    with pytest.raises(ConfigError, match="store.host_bytes"):
        parse_config({**MIN, "store": {"mode": "embedded", "host_bytes": "16M"}})
