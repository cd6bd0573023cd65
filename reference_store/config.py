"""Configuration of one embedded store: a frozen, keyword-only dataclass.

Nothing in the store reads the environment; :meth:`StoreConfig.from_env` does it once, from a
mapping the caller passes (``os.environ`` by default), and :meth:`StoreConfig.from_file` reads
JSON or YAML.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from reference_store.errors import InvalidParams

__all__ = [
    "DEFAULT_EVICTION",
    "DEFAULT_HOST_BYTES",
    "DEFAULT_LEASE_TTL_S",
    "ENV_PREFIX",
    "StoreConfig",
]

DEFAULT_HOST_BYTES = 256 << 20
DEFAULT_LEASE_TTL_S = 10.0  # Mooncake's default lease
DEFAULT_EVICTION = "lru"
ENV_PREFIX = "REFSTORE_"


@dataclass(frozen=True, kw_only=True, slots=True)
class StoreConfig:
    """Sizes of the three tiers and the store's policies.

    A tier with 0 bytes is absent. ``device`` picks the device tier's torch device (None: CUDA
    when present, else CPU); ``pin_host_memory`` None pins the host arena when CUDA is present.
    ``share_host_memory`` puts the host arena in a memfd that other processes on this machine can
    map (a storage node's ``shm`` segment).
    ``disk_fsync`` False skips fsync (fast, NOT crash safe: for benchmarks of the write path only).

    Raises (on construction):
        InvalidParams: a field out of range, named in the message.
    """

    device_bytes: int = 0
    host_bytes: int = DEFAULT_HOST_BYTES
    disk_dir: str | None = None
    disk_bytes: int = 0
    lease_ttl_s: float = DEFAULT_LEASE_TTL_S
    eviction: str = DEFAULT_EVICTION
    device: str | None = None
    pin_host_memory: bool | None = None
    share_host_memory: bool = False
    alignment: int = 64
    placement: str = "best_fit"
    disk_fsync: bool = True
    disk_verify_on_open: bool = True
    max_key_bytes: int = 4096

    def __post_init__(self) -> None:
        for name in ("device_bytes", "host_bytes", "disk_bytes"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise InvalidParams(f"{name}: must be a non-negative integer, got {value!r}")
        if self.disk_bytes and not self.disk_dir:
            raise InvalidParams("disk_dir: required when disk_bytes > 0")
        if not self.device_bytes and not self.host_bytes and not self.disk_bytes:
            raise InvalidParams("host_bytes: at least one of device_bytes, host_bytes, disk_bytes must be > 0")
        if not isinstance(self.lease_ttl_s, (int, float)) or self.lease_ttl_s < 0:
            raise InvalidParams(f"lease_ttl_s: must be a number >= 0, got {self.lease_ttl_s!r}")
        if not isinstance(self.alignment, int) or self.alignment <= 0 or self.alignment & (self.alignment - 1):
            raise InvalidParams(f"alignment: must be a positive power of two, got {self.alignment!r}")
        if not isinstance(self.max_key_bytes, int) or self.max_key_bytes <= 0:
            raise InvalidParams(f"max_key_bytes: must be a positive integer, got {self.max_key_bytes!r}")

    def replace(self, **changes: Any) -> StoreConfig:
        """A copy with ``changes`` applied (validated again)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, source: str = "config") -> StoreConfig:
        """Build from a dict, rejecting unknown fields.

        Raises:
            InvalidParams: unknown field or bad value.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidParams(f"{source}: unknown field(s) {unknown}; known: {sorted(known)}")
        return cls(**dict(data))

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> StoreConfig:
        """Read a JSON (``.json``) or YAML file holding the fields.

        Raises:
            InvalidParams: unreadable or malformed file, unknown field or bad value.
        """
        p = Path(path)
        try:
            text = p.read_text()
            data = json.loads(text) if p.suffix == ".json" else yaml.safe_load(text)
        except (OSError, ValueError, yaml.YAMLError) as exc:
            raise InvalidParams(f"{p}: cannot read store config ({exc})") from exc
        if not isinstance(data, dict):
            raise InvalidParams(f"{p}: expected a mapping of config fields")
        return cls.from_mapping(data, source=str(p))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *, prefix: str = ENV_PREFIX) -> StoreConfig:
        """Fields from ``{prefix}{FIELD}`` variables, e.g. ``REFSTORE_HOST_BYTES=1073741824``.

        Raises:
            InvalidParams: a variable that does not parse as its field's type.
        """
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            raw = env.get(prefix + f.name.upper())
            if raw is not None:
                values[f.name] = _parse_env(f.name, raw, f.default)
        return cls(**values)


def _parse_env(name: str, raw: str, default: Any) -> Any:
    text = raw.strip()
    try:
        if isinstance(default, bool) or name == "pin_host_memory":
            if name == "pin_host_memory" and text.lower() in ("", "none", "auto"):
                return None
            if text.lower() in ("1", "true", "yes", "on"):
                return True
            if text.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError("expected true/false")
        if isinstance(default, int):
            return int(text)
        if isinstance(default, float):
            return float(text)
    except ValueError as exc:
        raise InvalidParams(f"{ENV_PREFIX}{name.upper()}: cannot parse {raw!r} ({exc})") from None
    return text or None
