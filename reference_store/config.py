"""Configuration: one strict pydantic base, one size parser, and every default defined once.

Every config of the store (the embedded :class:`StoreConfig`, the tenants file, the master's
and the node's settings) is a :class:`StrictModel`: frozen, keyword-only, and refusing unknown
keys with the nearest valid one named ("unknown key `qouta` in tenant `alice`; did you mean
`quota`?"), so that a typo never silently means "unlimited". Validation errors surface as one
:class:`~reference_store.errors.InvalidParams` whose message names every bad field.

Sizes are parsed one way everywhere (CLI flags, the tenants file, :meth:`StoreConfig.from_mapping`,
environment variables): an integer is bytes; a string is a number and a unit, case-insensitive:

=========================  ==========================================
``B``                      bytes
``KB`` ``MB`` ``GB`` ``TB``  decimal: 10^3, 10^6, 10^9, 10^12 bytes
``KiB`` ``MiB`` ``GiB`` ``TiB``  binary: 2^10, 2^20, 2^30, 2^40 bytes
=========================  ==========================================

A bare ``K``/``M``/``G``/``T`` is refused as ambiguous. Nothing in the store reads the
environment except :meth:`StoreConfig.from_env`, from a mapping the caller passes.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, ClassVar

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from reference_store.errors import InvalidParams

__all__ = [
    "DEFAULT_EVICTION",
    "DEFAULT_FRAME_TIMEOUT_S",
    "DEFAULT_HEARTBEAT_S",
    "DEFAULT_HIGH_WATERMARK",
    "DEFAULT_HOST_BYTES",
    "DEFAULT_LEASE_TTL_S",
    "DEFAULT_LOW_WATERMARK",
    "DEFAULT_MASTER_TIMEOUT_S",
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_NODE_TTL_S",
    "DEFAULT_PUT_TIMEOUT_S",
    "ENV_PREFIX",
    "Size",
    "StoreConfig",
    "StrictModel",
    "check_fits",
    "format_size",
    "parse_size",
]

DEFAULT_HOST_BYTES = 256 << 20
DEFAULT_LEASE_TTL_S = 10.0        # Mooncake's default lease
DEFAULT_PUT_TIMEOUT_S = 30.0      # an unfinished put may be taken over after this
DEFAULT_NODE_TTL_S = 5.0          # a node silent this long is dropped
DEFAULT_HEARTBEAT_S = 1.0
DEFAULT_FRAME_TIMEOUT_S = 30.0    # a peer must finish sending a frame within this
DEFAULT_MASTER_TIMEOUT_S = 30.0   # a node gives up on an unreachable master after this
DEFAULT_MAX_CONNECTIONS = 256     # connections a master or node serves at once
DEFAULT_HIGH_WATERMARK = 0.95
DEFAULT_LOW_WATERMARK = 0.90
DEFAULT_EVICTION = "lru"
ENV_PREFIX = "REFSTORE_"

_UNITS = {
    "": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
    "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40,
}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$")


# ------------------------------------------------------------------------------------ sizes


def _size_bytes(value: object) -> int:
    """Bytes for a size, or ValueError saying why not (no field name: callers add it)."""
    if isinstance(value, bool):
        raise ValueError(f"expected a size, got {value!r}")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"size must not be negative, got {value}")
        return value
    if not isinstance(value, str):
        raise ValueError(f"expected a size like 200GB or 2GiB, got {value!r}")
    match = _SIZE.match(value)
    unit = match.group(2).upper() if match else None
    if match is None or unit not in _UNITS:
        hint = f" (`{value.strip()}` is ambiguous: write {match.group(1)}{unit}B for 10^n or " \
               f"{match.group(1)}{unit}iB for 2^n)" if match and unit in ("K", "M", "G", "T") else ""
        raise ValueError(f"{value!r} is not a size like 200GB or 2GiB{hint}")
    number = float(match.group(1)) * _UNITS[unit]
    if not math.isfinite(number):
        raise ValueError(f"{value!r} is too large")
    return int(number)


def parse_size(value: int | str, *, field: str = "size") -> int:
    """Parse ``1048576``, ``"200GB"`` (10^9 bytes a GB) or ``"2GiB"`` (2^30 a GiB) into bytes.

    Raises:
        InvalidParams: the value is negative or not a size (the message names ``field``).
    """
    try:
        return _size_bytes(value)
    except ValueError as exc:
        raise InvalidParams(f"{field}: {exc}") from None


def format_size(nbytes: int) -> str:
    """Render bytes with a binary unit, e.g. ``1.5GiB``."""
    for unit, factor in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= factor:
            return f"{nbytes / factor:.4g}{unit}"
    return f"{nbytes}B"


Size = Annotated[int, BeforeValidator(_size_bytes)]
"""A field holding bytes, given as an int or a string with a unit (see the module docstring)."""


# ------------------------------------------------------------------------------ base model


def _pointer(loc: tuple[int | str, ...]) -> str:
    return "/" + "/".join(str(part) for part in loc)


def describe(exc: ValidationError, *, source: str,
             where: Callable[[tuple[int | str, ...]], str] = _pointer) -> str:
    """One line naming every problem in ``exc``; ``where`` renders an error's location."""
    parts: list[str] = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        if err["type"] == "unknown_key":
            parts.append(str(err["msg"]))
        elif err["type"] == "value_error" and "error" in err.get("ctx", {}):
            parts.append(f"{where(loc)}: {err['ctx']['error']}" if loc else str(err["ctx"]["error"]))
        else:
            parts.append(f"{where(loc)}: {err['msg']}" if loc else str(err["msg"]))
    return f"{source}: " + "; ".join(parts)


class StrictModel(BaseModel):
    """Base of every config: frozen, unknown keys refused with the nearest valid key named.

    Subclasses set ``label`` (what the message calls one of them, e.g. "tenant") and
    ``name_field`` (a field that names an instance, e.g. "name"). Build from untrusted data with
    :meth:`load`; direct construction validates too. Both raise
    :class:`~reference_store.errors.InvalidParams` with one line naming each bad field.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    label: ClassVar[str] = "config"
    name_field: ClassVar[str | None] = None

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise InvalidParams(describe(exc, source=type(self).__name__)) from None

    # Marks this wrapper as pydantic's own ``__init__``, so that validating a nested model
    # does not call it (which would turn the nested errors into one opaque value error).
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @model_validator(mode="before")
    @classmethod
    def _refuse_unknown_keys(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        known = set(cls.model_fields)
        unknown = [key for key in data if key not in known]
        if not unknown:
            return data
        name = data.get(cls.name_field) if cls.name_field else None
        where = f"{cls.label} `{name}`" if isinstance(name, str) else f"the {cls.label}"
        lines = [_unknown_key_line(str(key), where, sorted(known)) for key in unknown]
        raise PydanticCustomError("unknown_key", "; ".join(lines).replace("{", "{{").replace("}", "}}"))

    @classmethod
    def load(cls, data: Any, *, source: str | None = None) -> Any:
        """Validate a parsed document (a mapping) into this model.

        Raises:
            InvalidParams: unknown key, bad or missing value (``source: /path: why``).
        """
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise InvalidParams(describe(exc, source=source or cls.__name__)) from None

    def replace(self, **changes: Any) -> Any:
        """A copy with ``changes`` applied, validated again.

        Raises:
            InvalidParams: an unknown field or bad value.
        """
        return type(self).load({**dict(self), **changes})


def _unknown_key_line(key: str, where: str, known: list[str]) -> str:
    near = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if near:
        return f"unknown key `{key}` in {where}; did you mean `{near[0]}`?"
    return f"unknown key `{key}` in {where}; valid keys: {', '.join(known)}"


def read_document(path: str | os.PathLike[str], *, what: str) -> Any:
    """Parse a JSON (``.json``) or YAML file.

    Raises:
        InvalidParams: unreadable or malformed (the message names the file).
    """
    p = Path(path)
    try:
        text = p.read_text()
        return json.loads(text) if p.suffix == ".json" else yaml.safe_load(text)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise InvalidParams(f"{p}: cannot read {what} ({exc})") from exc


# ------------------------------------------------------------------------------ resources


def _memory_bytes() -> int:
    """Physical memory, or the cgroup's limit when that is lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for limit_file in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(limit_file).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            total = min(total, int(text))
    return total


def _disk_room(directory: Path) -> int:
    """Free bytes on the disk holding ``directory``, plus what files already there hold (a
    restarted store reuses them)."""
    existing = directory
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    held = sum(p.stat().st_size for p in directory.rglob("*") if p.is_file()) \
        if directory.is_dir() else 0
    return shutil.disk_usage(existing).free + held


def check_fits(*, host_bytes: int = 0, disk_dir: str | None = None, disk_bytes: int = 0) -> None:
    """Refuse sizes the machine cannot hold: host memory above physical memory (or the cgroup
    limit), a disk tier above the disk's free space.

    Raises:
        InvalidParams: one line naming the size, the flag and what the machine has.
    """
    memory = _memory_bytes()
    if host_bytes > memory:
        raise InvalidParams(f"host memory {format_size(host_bytes)} is more than this machine "
                            f"has ({format_size(memory)})")
    if disk_dir and disk_bytes:
        try:
            room = _disk_room(Path(disk_dir))
        except OSError as exc:
            raise InvalidParams(f"disk_dir: cannot inspect {disk_dir} ({exc})") from exc
        if disk_bytes > room:
            raise InvalidParams(f"disk size {format_size(disk_bytes)} is more than the free "
                                f"space under {disk_dir} ({format_size(room)})")


# ------------------------------------------------------------------------------ store config


class StoreConfig(StrictModel):
    """Sizes of the three tiers and the store's policies.

    A tier with 0 bytes is absent. Sizes take ints or strings (``host_bytes="2GiB"``).
    ``device`` picks the device tier's torch device (None: CUDA when present, else CPU);
    ``pin_host_memory`` None pins the host arena when CUDA is present. ``share_host_memory``
    puts the host arena in a memfd that other processes on this machine can map (a storage
    node's ``shm`` segment). ``drop_when_full`` False makes a full store refuse a put
    (StoreFull) instead of dropping an object from its last tier (a storage node: only the
    master decides what goes). ``disk_fsync`` False skips fsync (fast, NOT crash safe: for
    benchmarks of the write path only).

    Raises (on construction):
        InvalidParams: an unknown field or a field out of range, named in the message.
    """

    label: ClassVar[str] = "store config"

    device_bytes: Size = 0
    host_bytes: Size = DEFAULT_HOST_BYTES
    disk_dir: str | None = None
    disk_bytes: Size = 0
    lease_ttl_s: float = Field(default=DEFAULT_LEASE_TTL_S, ge=0)
    eviction: str = DEFAULT_EVICTION
    device: str | None = None
    pin_host_memory: bool | None = None
    share_host_memory: bool = False
    alignment: int = Field(default=64, gt=0)
    placement: str = "best_fit"
    disk_fsync: bool = True
    disk_verify_on_open: bool = True
    max_key_bytes: int = Field(default=4096, gt=0)
    drop_when_full: bool = True

    @model_validator(mode="after")
    def _consistent(self) -> StoreConfig:
        if self.disk_bytes and not self.disk_dir:
            raise ValueError("disk_dir: required when disk_bytes > 0")
        if not self.device_bytes and not self.host_bytes and not self.disk_bytes:
            raise ValueError("host_bytes: at least one of device_bytes, host_bytes, disk_bytes "
                             "must be > 0")
        if self.alignment & (self.alignment - 1):
            raise ValueError(f"alignment: must be a power of two, got {self.alignment}")
        return self

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, source: str = "config") -> StoreConfig:
        """Build from a dict (sizes as ints or strings), refusing unknown fields.

        Raises:
            InvalidParams: unknown field or bad value.
        """
        config: StoreConfig = cls.load(data, source=source)
        return config

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> StoreConfig:
        """Read a JSON (``.json``) or YAML file holding the fields.

        Raises:
            InvalidParams: unreadable or malformed file, unknown field or bad value.
        """
        data = read_document(path, what="store config")
        if not isinstance(data, dict):
            raise InvalidParams(f"{path}: expected a mapping of config fields")
        return cls.from_mapping(data, source=str(path))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *, prefix: str = ENV_PREFIX) -> StoreConfig:
        """Fields from ``{prefix}{FIELD}`` variables, e.g. ``REFSTORE_HOST_BYTES=2GiB``.

        Raises:
            InvalidParams: a variable that does not parse as its field's type (named).
        """
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for name in cls.model_fields:
            raw = env.get(prefix + name.upper())
            if raw is None:
                continue
            text = raw.strip()
            if name == "pin_host_memory" and text.lower() in ("", "none", "auto"):
                values[name] = None
            else:
                values[name] = text if text or name not in ("device", "disk_dir") else None
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            raise InvalidParams(describe(exc, source="environment", where=lambda loc: (
                f"{prefix}{str(loc[0]).upper()}" if loc else prefix))) from None
