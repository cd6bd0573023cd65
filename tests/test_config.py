"""Configs: unknown keys refused with the near one named, one size parser everywhere, defaults
defined once, and sizes the machine cannot hold refused at start."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reference_store.config import (
    DEFAULT_LEASE_TTL_S,
    StoreConfig,
    StrictModel,
    check_fits,
    parse_size,
)
from reference_store.embedded import EmbeddedStore
from reference_store.errors import InvalidParams
from reference_store.master import MasterConfig
from reference_store.node import NodeConfig
from reference_store.tenants import TenantPolicy

ROOT = Path(__file__).resolve().parents[1]
TiB = 1 << 40


def _tenants(**extra: object) -> dict[str, object]:
    return {"version": 1, "tenants": [{"name": "alice", "token": "a", **extra}]}


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reference_store", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


# ------------------------------------------------------------------------------ sizes


@pytest.mark.parametrize("text, expected", [
    (1024, 1024), ("200GB", 200 * 10**9), ("2GiB", 2 << 30), ("1.5MiB", 3 << 19), ("7", 7),
    ("64 kib", 64 << 10), ("10KB", 10_000), ("1TB", 10**12), ("1TiB", TiB), (4.0, 4),
])
def test_one_size_parser_decimal_and_binary_units(text: int | str, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad, why", [
    ("3M", "ambiguous: write 3MB"), ("Infinity", "not a size"), (float("inf"), "expected a size"),
    ("-1GB", "not a size"), (-3, "negative"), (True, "expected a size"), ("1" * 400 + "TB", "too large"),
])
def test_bad_sizes_name_the_field_and_why(bad: object, why: str) -> None:
    with pytest.raises(InvalidParams, match=f"^--memory: .*{why}"):
        parse_size(bad, field="--memory")  # type: ignore[arg-type]


def test_store_config_from_mapping_takes_size_strings() -> None:
    config = StoreConfig.from_mapping({"host_bytes": "2GiB", "disk_dir": "/tmp/x",
                                       "disk_bytes": "1GB"})
    assert (config.host_bytes, config.disk_bytes) == (2 << 30, 10**9)
    assert config.lease_ttl_s == DEFAULT_LEASE_TTL_S
    assert StoreConfig(host_bytes="4MiB").host_bytes == 4 << 20  # type: ignore[arg-type]
    assert StoreConfig.from_env({"REFSTORE_HOST_BYTES": "3MiB"}).host_bytes == 3 << 20


# ------------------------------------------------------------------------------ unknown keys


def test_tenant_typo_names_the_key_the_tenant_and_the_near_one() -> None:
    with pytest.raises(InvalidParams) as info:
        TenantPolicy.from_dict(_tenants(qouta="10GB"), env={}, source="t.yaml")
    assert str(info.value) == ("t.yaml: unknown key `qouta` in tenant `alice`; "
                               "did you mean `quota`?")


def test_top_level_typo_is_refused() -> None:
    with pytest.raises(InvalidParams, match="unknown key `isolaton` in the tenants file; "
                                            "did you mean `isolation`"):
        TenantPolicy.from_dict({**_tenants(), "isolaton": "off"}, env={})


def test_every_config_refuses_unknown_keys_with_a_hint() -> None:
    with pytest.raises(InvalidParams, match="unknown key `host_bytez`.*did you mean `host_bytes`"):
        StoreConfig.from_mapping({"host_bytez": 1})
    with pytest.raises(InvalidParams, match="unknown key `lease_ttl`.*did you mean `lease_ttl_s`"):
        MasterConfig(lease_ttl=1)  # type: ignore[call-arg]
    with pytest.raises(InvalidParams, match="unknown key `memory_byte`.*did you mean `memory_bytes`"):
        NodeConfig.load({"master": "127.0.0.1:1", "memory_bytes": 1, "memory_byte": 2})
    with pytest.raises(InvalidParams, match="unknown key `zzz`.*valid keys: .*memory_bytes"):
        NodeConfig.load({"master": "127.0.0.1:1", "memory_bytes": 1, "zzz": 2})


def test_strict_model_is_the_shared_base() -> None:
    for cls in (StoreConfig, MasterConfig, NodeConfig):
        assert issubclass(cls, StrictModel)
    config = MasterConfig(port=5)
    assert config.replace(node_ttl_s=2.0).node_ttl_s == 2.0 and config.node_ttl_s != 2.0
    with pytest.raises(InvalidParams, match="low_watermark"):
        MasterConfig(low_watermark=0.99, high_watermark=0.5)


def test_typo_in_the_tenants_file_fails_the_master_at_start(tmp_path: Path) -> None:
    path = tmp_path / "tenants.yaml"
    path.write_text("version: 1\ntenants:\n  - name: alice\n    token: a\n    qouta: 10GB\n")
    result = _cli("master", "--port", "0", "--tenants", str(path))
    assert result.returncode == 2, result.stderr
    line = result.stderr.strip().splitlines()[-1]
    assert "unknown key `qouta` in tenant `alice`; did you mean `quota`?" in line
    assert "Traceback" not in result.stderr


# ------------------------------------------------------------------------------ node arguments


@pytest.mark.parametrize("master, extra, why", [
    ("localhost", {}, "'localhost' is not HOST:PORT"),
    ("127.0.0.1:99999", {}, "is not HOST:PORT"),
    ("127.0.0.1:5", {"disk_bytes": "1GiB"}, "a disk size needs a disk directory"),
])
def test_impossible_node_settings_are_refused(master: str, extra: dict[str, object],
                                              why: str) -> None:
    with pytest.raises(InvalidParams, match=why):
        NodeConfig.load({"master": master, "memory_bytes": "1MiB", **extra})


@pytest.mark.parametrize("args, why", [
    (["--master", "localhost", "--memory", "1MiB"], "not HOST:PORT"),
    (["--master", "127.0.0.1:1", "--memory", "1MiB", "--disk-size", "1GiB"], "--disk"),
    (["--master", "127.0.0.1:1", "--memory", "3M"], "--memory: .*ambiguous"),
    (["--master", "127.0.0.1:1", "--memory", "1000TiB"], "more than this machine has"),
])
def test_node_cli_refuses_impossible_arguments_at_start(args: list[str], why: str) -> None:
    result = _cli("node", *args)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("reference-store node: error: ")
    import re

    assert re.search(why, lines[0]), lines[0]


# ------------------------------------------------------------------------------ machine limits


def test_host_tier_larger_than_memory_is_refused() -> None:
    with pytest.raises(InvalidParams, match="more than this machine has"):
        EmbeddedStore(StoreConfig(host_bytes=1000 * TiB))


def test_disk_tier_larger_than_free_space_is_refused(tmp_path: Path) -> None:
    free = shutil.disk_usage(tmp_path).free
    with pytest.raises(InvalidParams, match="more than the free space"):
        check_fits(disk_dir=str(tmp_path / "store"), disk_bytes=free * 2)
    check_fits(disk_dir=str(tmp_path / "store"), disk_bytes=1 << 20)  # fits


@pytest.mark.parametrize("args, why", [
    (["--port", "70000"], "/port: Input should be less than or equal to 65535"),
    (["--port", "0", "--high-watermark", "0.5", "--low-watermark", "0.9"],
     "low_watermark: must not exceed high_watermark"),
    (["--port", "0", "--node-ttl", "0"], "/node_ttl_s: Input should be greater than 0"),
])
def test_master_cli_refuses_impossible_arguments_at_start(args: list[str], why: str) -> None:
    result = _cli("master", *args)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("reference-store master: error: ")
    assert why in lines[0], lines[0]
