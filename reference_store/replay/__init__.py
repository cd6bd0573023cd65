"""Replay harness: multi-turn traces, a small real torch model behind an OpenAI-compatible
streaming server, local prefix caches and the shared store, and the figures a replay produces
(TTFT, hit rate, transfer, evictions, SLO goodput, cost per completion, break-even).

Start with ``python -m reference_store.replay run examples/replay-coding-agent.yaml`` or, to
record the run in the ledger, ``ledger run examples/replay-coding-agent.yaml``.
"""

from reference_store.replay.config import ConfigError, ReplayConfig, load_config, parse_config
from reference_store.replay.cost import CostComparison, CostModel, Deployment, compare
from reference_store.replay.engine import InstanceConfig, RequestStats, ServingInstance
from reference_store.replay.generators import (
                                               ChatParams,
                                               CodingAgentParams,
                                               DocQAParams,
                                               NoReuseParams,
                                               generate,
)
from reference_store.replay.metrics import SLO, RequestRecord, Summary, summarise
from reference_store.replay.model import ModelConfig, TinyTransformer
from reference_store.replay.replayer import HttpBackend, InProcessBackend, replay
from reference_store.replay.router import Router
from reference_store.replay.runner import ReplayRun, run_config
from reference_store.replay.trace import Session, SharedPrefix, Trace, Turn, materialise

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
