"""Replay harness: multi-turn traces, a small real torch model behind an OpenAI-compatible
streaming server, local prefix caches and the shared store, and the figures a replay produces
(TTFT, hit rate, transfer, evictions, SLO goodput, cost per completion, break-even).

Start with ``python -m replay run examples/replay-coding-agent.yaml`` or, to
record the run in the ledger, ``ledger run examples/replay-coding-agent.yaml``.

Public names load on first use (PEP 562): importing ``replay`` alone does not import torch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    "ChatParams": "replay.generators",
    "CodingAgentParams": "replay.generators",
    "compare": "replay.cost",
    "ConfigError": "replay.config",
    "CostComparison": "replay.cost",
    "CostModel": "replay.cost",
    "Deployment": "replay.cost",
    "DocQAParams": "replay.generators",
    "generate": "replay.generators",
    "HttpBackend": "replay.replayer",
    "InProcessBackend": "replay.replayer",
    "InstanceConfig": "replay.engine",
    "load_config": "replay.config",
    "materialise": "replay.trace",
    "ModelConfig": "replay.model",
    "NoReuseParams": "replay.generators",
    "parse_config": "replay.config",
    "replay": "replay.replayer",
    "ReplayConfig": "replay.config",
    "ReplayRun": "replay.runner",
    "RequestRecord": "replay.metrics",
    "RequestStats": "replay.engine",
    "Router": "replay.router",
    "run_config": "replay.runner",
    "ServingInstance": "replay.engine",
    "Session": "replay.trace",
    "SharedPrefix": "replay.trace",
    "SLO": "replay.metrics",
    "summarise": "replay.metrics",
    "Summary": "replay.metrics",
    "TinyTransformer": "replay.model",
    "Trace": "replay.trace",
    "Turn": "replay.trace",
}

__all__ = [
    "SLO",
    "ChatParams",
    "CodingAgentParams",
    "ConfigError",
    "CostComparison",
    "CostModel",
    "Deployment",
    "DocQAParams",
    "HttpBackend",
    "InProcessBackend",
    "InstanceConfig",
    "ModelConfig",
    "NoReuseParams",
    "ReplayConfig",
    "ReplayRun",
    "RequestRecord",
    "RequestStats",
    "Router",
    "ServingInstance",
    "Session",
    "SharedPrefix",
    "Summary",
    "TinyTransformer",
    "Trace",
    "Turn",
    "compare",
    "generate",
    "load_config",
    "materialise",
    "parse_config",
    "replay",
    "run_config",
    "summarise",
]

if TYPE_CHECKING:  # pragma: no cover
    from replay.config import ConfigError, ReplayConfig, load_config, parse_config
    from replay.cost import CostComparison, CostModel, Deployment, compare
    from replay.engine import InstanceConfig, RequestStats, ServingInstance
    from replay.generators import (
        ChatParams,
        CodingAgentParams,
        DocQAParams,
        NoReuseParams,
        generate,
    )
    from replay.metrics import SLO, RequestRecord, Summary, summarise
    from replay.model import ModelConfig, TinyTransformer
    from replay.replayer import HttpBackend, InProcessBackend, replay
    from replay.router import Router
    from replay.runner import ReplayRun, run_config
    from replay.trace import Session, SharedPrefix, Trace, Turn, materialise


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'replay' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
