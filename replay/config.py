"""Replay configuration files (YAML or JSON): what to replay, on what, and how to judge it.

A config names a trace (a generator with parameters, a trace file, or a vLLM multi-turn
conversation file), the model, the instances, routing, the store, warmth, the SLO and a cost
model, and one or more *arms*: variants of the same replay (e.g. cold vs warm, without vs with the
shared store) run one after another on the same trace in the same invocation, so that their
ratios come from one run. An arm overrides ``routing``, ``warmth``, ``store``, ``instances`` or
``delay_scale``.

Example (``examples/replay-coding-agent.yaml``)::

    name: coding-agent-small
    trace: {generator: {kind: coding_agent, sessions: 4, turns: 6}}
    instances: {count: 2, local_cache_blocks: 128}
    routing: round_robin
    arms:
      - {name: no_store, store: {mode: none}}
      - {name: shared_store, store: {mode: embedded}}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field, ValidationError, model_validator

from reference_store.config import Size, StrictModel
from replay.cost import CostModel
from replay.generators import GeneratorParams
from replay.metrics import SLO
from replay.router import RoutingPolicy

__all__ = [
    "Arm",
    "ArmSection",
    "ConfigError",
    "FaultSection",
    "InstancesSection",
    "ModelSection",
    "ReplayConfig",
    "ReproduceSection",
    "StoreSection",
    "TraceSection",
    "load_config",
    "parse_config",
]


class ConfigError(ValueError):
    """A replay config that cannot be read or is invalid; the message names the field."""


class _Section(StrictModel):
    """A part of the config: frozen; an unknown key is refused with the nearest valid one named
    ("unknown key `routng` in arm `store`; did you mean `routing`?")."""


class ModelSection(_Section):
    label = "model section"

    name: str = "tiny-rope-2l-128"
    layers: int = Field(default=2, ge=1)
    heads: int = Field(default=4, ge=1)
    width: int = Field(default=128, ge=2)
    vocab_size: int = Field(default=4096, ge=16)
    block_size: int = Field(default=16, ge=1)
    seed: int = 0
    dtype: Literal["float32", "bfloat16", "float16"] = "float32"
    torch_threads: int | None = Field(default=None, ge=1)


class TraceSection(_Section):
    """Exactly one of ``generator``, ``file`` or ``vllm_multiturn``."""

    label = "trace section"

    generator: GeneratorParams | None = Field(default=None, discriminator="kind")
    file: str | None = None
    vllm_multiturn: str | None = None
    vllm_output_tokens: int = Field(default=16, ge=1)

    @model_validator(mode="after")
    def _one(self) -> TraceSection:
        given = [x for x in (self.generator, self.file, self.vllm_multiturn) if x is not None]
        if len(given) != 1:
            raise ValueError("trace: give exactly one of generator, file, vllm_multiturn")
        return self


class InstancesSection(_Section):
    label = "instances section"
    count: int = Field(default=2, ge=1)
    local_cache_blocks: int = Field(default=256, ge=0)
    isolation: Literal["shared", "salt"] = "shared"
    mode: Literal["in_process", "processes"] = "in_process"


class StoreSection(_Section):
    """``none``: local caches only; ``embedded``: one EmbeddedStore shared in this process;
    ``distributed``: the reference store's client, ``address`` of its master, moving bytes by
    ``data_path`` (see :class:`reference_store.client.StoreClient`). Sizes are bytes, or a
    string with a unit as :mod:`reference_store.config` reads them (``"16MiB"``, ``"2GB"``)."""

    label = "store section"
    mode: Literal["none", "embedded", "distributed"] = "none"
    host_bytes: Size = Field(default=256 << 20, ge=0)
    disk_bytes: Size = Field(default=0, ge=0)
    address: str | None = None
    data_path: Literal["auto", "tcp", "shm"] = "auto"


class FaultSection(_Section):
    label = "fault"
    after_requests: int = Field(ge=0)
    instance: int = Field(default=0, ge=0)
    action: Literal["restart_instance", "restart_store_node", "restart_store_master"] = \
        "restart_instance"


class ReproduceSection(_Section):
    """What ``ledger reproduce`` requires of a rerun: ratios within ``ratio_tolerance``
    (relative), rates within ``rate_tolerance`` (absolute), for the metrics named in ``metrics``
    (shell-style patterns; default: every ratio and rate)."""

    label = "reproduce section"

    ratio_tolerance: float = Field(default=0.35, gt=0)
    rate_tolerance: float = Field(default=0.05, gt=0)
    metrics: list[str] | None = None


class IntervalSection(_Section):
    """How tight the run's 95% intervals should be: after ``rounds``, more rounds (arms
    alternating) are replayed until each metric named in ``metrics`` has an interval no wider
    than ``relative_width`` times its median, or ``max_rounds`` is reached. The summary reports
    the width reached either way. ``metrics`` defaults to ``reproduce.metrics``."""

    label = "interval section"

    max_rounds: int | None = Field(default=None, ge=2)
    relative_width: float = Field(default=0.5, gt=0)
    metrics: list[str] | None = None


class ArmSection(_Section):
    label, name_field = "arm", "name"
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    routing: RoutingPolicy | None = None
    warmth: Literal["cold", "warm"] | None = None
    store: StoreSection | None = None
    instances: InstancesSection | None = None
    delay_scale: float | None = Field(default=None, ge=0)
    faults: list[FaultSection] | None = None


class ReplayConfig(_Section):
    label = "replay config"
    name: str = Field(min_length=1)
    description: str | None = None
    trace: TraceSection
    model: ModelSection = ModelSection()
    instances: InstancesSection = InstancesSection()
    routing: RoutingPolicy = "round_robin"
    warmth: Literal["cold", "warm"] = "cold"
    store: StoreSection = StoreSection()
    delay_scale: float = Field(default=0.1, ge=0)
    max_concurrency: int | None = Field(default=None, ge=1)
    rounds: int = Field(default=1, ge=1, description="Replays per arm, arms alternating; "
                        "records are pooled.")
    slo: SLO = SLO()
    cost_model: CostModel | str | None = None
    faults: list[FaultSection] = Field(default_factory=list)
    arms: list[ArmSection] = Field(default_factory=lambda: [ArmSection(name="main")])
    compare: tuple[str, str] | None = Field(
        default=None, description="Arm names (reference, candidate) for the cost comparison.")
    reproduce: ReproduceSection = ReproduceSection()
    interval: IntervalSection = IntervalSection()

    @model_validator(mode="after")
    def _check(self) -> ReplayConfig:
        names = [a.name for a in self.arms]
        if len(set(names)) != len(names):
            raise ValueError("arms: arm names must be unique")
        if self.compare is not None:
            for n in self.compare:
                if n not in names:
                    raise ValueError(f"compare: unknown arm {n!r}")
        for arm in (self.arm(n) for n in names):
            if arm.store.mode == "embedded" and arm.instances.mode == "processes":
                raise ValueError(f"arms.{arm.name}: an embedded store is shared only by "
                                 "in_process instances; use store.mode distributed")
            if arm.store.mode == "distributed" and not arm.store.address:
                raise ValueError(f"arms.{arm.name}.store.address: required for distributed")
            store_faults = [f for f in arm.faults if f.action != "restart_instance"]
            if store_faults and not (arm.store.mode == "distributed"
                                     and arm.store.address == "auto"):
                raise ValueError(f"arms.{arm.name}.faults: {store_faults[0].action} needs the "
                                 "store cluster this run starts (store.mode distributed, "
                                 "address auto)")
            if any(f.instance >= arm.instances.count for f in arm.faults):
                raise ValueError(f"arms.{arm.name}.faults: instance out of range")
        return self

    def arm(self, name: str) -> Arm:
        """The effective settings of one arm (its overrides applied)."""
        a = next(x for x in self.arms if x.name == name)
        return Arm(name=a.name, routing=a.routing or self.routing,
                   warmth=a.warmth or self.warmth, store=a.store or self.store,
                   instances=a.instances or self.instances,
                   delay_scale=self.delay_scale if a.delay_scale is None else a.delay_scale,
                   faults=self.faults if a.faults is None else a.faults)


class Arm(_Section):
    """One arm with every setting resolved."""

    name: str
    routing: RoutingPolicy
    warmth: Literal["cold", "warm"]
    store: StoreSection
    instances: InstancesSection
    delay_scale: float
    faults: list[FaultSection]


def _errors(exc: ValidationError) -> str:
    parts = []
    for e in exc.errors():
        loc = ".".join(str(x) for x in e["loc"])
        if e["type"] == "unknown_key":  # the message names the key and the near one
            parts.append(f"{loc}: {e['msg']}" if loc else str(e["msg"]))
        else:
            parts.append(f"{loc or '(top)'}: {e['msg']}")
    return "; ".join(parts)


def parse_config(data: Any, *, base_dir: Path | None = None) -> ReplayConfig:
    """Validate a parsed document; a string ``cost_model`` is loaded relative to ``base_dir``.

    Raises:
        ConfigError: every problem found, each with its field path.
    """
    try:
        cfg = ReplayConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"replay config: {_errors(exc)}") from None
    if isinstance(cfg.cost_model, str):
        path = Path(cfg.cost_model)
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        try:
            cost = CostModel.from_file(path)
        except ValueError as exc:
            raise ConfigError(f"cost_model: {exc}") from None
        cfg = cfg.model_copy(update={"cost_model": cost})
    return cfg


def load_config(path: str | Path) -> ReplayConfig:
    """Read a YAML or JSON replay config.

    Raises:
        ConfigError: unreadable file, bad YAML/JSON, or invalid content.
    """
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read: {exc.strerror}") from None
    try:
        data = json.loads(text) if p.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{p}: not valid {'JSON' if p.suffix == '.json' else 'YAML'}: "
                          f"{exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: the top level must be a mapping")
    try:
        return parse_config(data, base_dir=p.parent)
    except ConfigError as exc:
        raise ConfigError(f"{p}: {exc}") from None
