"""Seeded trace generators: coding agent, multi-tenant chat, long-document Q&A, no-reuse control.

Every generator is a pure function of its parameters (the seed included): the same call returns
an identical trace on every machine. Parameters are pydantic models so a replay config can hold
them as data and report a bad field by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
from pydantic import Field

from reference_store.config import StrictModel
from replay.trace import Session, SharedPrefix, Trace, Turn

__all__ = [
    "GENERATORS",
    "ChatParams",
    "CodingAgentParams",
    "DocQAParams",
    "GeneratorParams",
    "NoReuseParams",
    "coding_agent",
    "generate",
    "long_document_qa",
    "multi_tenant_chat",
    "no_reuse",
]


class _Params(StrictModel):
    label = "generator"

    seed: int = 0
    vocab_size: int = Field(default=4096, ge=16)
    arrival_gap_s: float = Field(default=0.0, ge=0.0, description="Gap between session starts.")


class CodingAgentParams(_Params):
    """A coding agent: one long system prompt for all, repository context per repo, many turns."""

    kind: Literal["coding_agent"] = "coding_agent"
    sessions: int = Field(default=4, ge=1)
    repos: int = Field(default=2, ge=1)
    turns: int = Field(default=6, ge=1)
    system_prompt_tokens: int = Field(default=256, ge=0)
    repo_context_tokens: int = Field(default=512, ge=0)
    first_message_tokens: int = Field(default=64, ge=1)
    tool_output_tokens: tuple[int, int] = (32, 160)
    output_tokens: tuple[int, int] = (8, 24)
    tool_delay_s: tuple[float, float] = (0.05, 0.3)


class ChatParams(_Params):
    """Chat for several tenants, each with its own system prompt; short user turns."""

    kind: Literal["multi_tenant_chat"] = "multi_tenant_chat"
    tenants: int = Field(default=3, ge=1)
    sessions: int = Field(default=6, ge=1)
    turns: tuple[int, int] = (2, 5)
    system_prompt_tokens: int = Field(default=192, ge=0)
    common_prefix_tokens: int = Field(
        default=0, ge=0, description="A prefix every tenant's system prompt starts with.")
    user_tokens: tuple[int, int] = (16, 96)
    output_tokens: tuple[int, int] = (8, 32)
    think_time_s: tuple[float, float] = (0.1, 0.5)


class DocQAParams(_Params):
    """Questions against a few long documents; each session asks a few questions of one."""

    kind: Literal["long_document_qa"] = "long_document_qa"
    documents: int = Field(default=2, ge=1)
    document_tokens: int = Field(default=1024, ge=1)
    sessions: int = Field(default=6, ge=1)
    questions: tuple[int, int] = (1, 3)
    question_tokens: tuple[int, int] = (16, 48)
    output_tokens: tuple[int, int] = (8, 32)
    think_time_s: tuple[float, float] = (0.05, 0.2)


class NoReuseParams(_Params):
    """Control: single-turn requests with unrelated prompts; a cache cannot help."""

    kind: Literal["no_reuse"] = "no_reuse"
    sessions: int = Field(default=8, ge=1)
    prompt_tokens: tuple[int, int] = (256, 768)
    output_tokens: tuple[int, int] = (8, 24)


GeneratorParams = CodingAgentParams | ChatParams | DocQAParams | NoReuseParams


def _rng(seed: int, kind: str) -> np.random.Generator:
    return np.random.default_rng([seed, sum(kind.encode())])


def _int(rng: np.random.Generator, lo_hi: tuple[int, int]) -> int:
    lo, hi = lo_hi
    return int(rng.integers(lo, max(lo, hi) + 1))


def _float(rng: np.random.Generator, lo_hi: tuple[float, float]) -> float:
    return round(float(rng.uniform(*lo_hi)), 4)


def _trace(p: _Params, name: str, prefixes: list[SharedPrefix], sessions: list[Session]) -> Trace:
    return Trace(name=name, kind=p.kind, seed=p.seed, vocab_size=p.vocab_size,  # type: ignore[attr-defined]
                 prefixes=prefixes, sessions=sessions)


def coding_agent(p: CodingAgentParams) -> Trace:
    """Agent sessions: each turn carries the whole context back plus a tool's output."""
    rng = _rng(p.seed, p.kind)
    prefixes = [SharedPrefix(id="system", tokens=p.system_prompt_tokens)]
    prefixes += [SharedPrefix(id=f"repo{r}", tokens=p.repo_context_tokens, parent="system")
                 for r in range(p.repos)]
    sessions = []
    for i in range(p.sessions):
        context = p.system_prompt_tokens + p.repo_context_tokens
        turns = []
        for k in range(p.turns):
            new = p.first_message_tokens if k == 0 else _int(rng, p.tool_output_tokens)
            out = _int(rng, p.output_tokens)
            turns.append(Turn(carried_tokens=context, new_tokens=new, output_tokens=out,
                              tool_delay_s=_float(rng, p.tool_delay_s)))
            context += new + out
        sessions.append(Session(id=f"agent{i}", prefix_id=f"repo{i % p.repos}",
                                start_s=i * p.arrival_gap_s, turns=turns))
    return _trace(p, f"coding-agent-s{p.seed}", prefixes, sessions)


def multi_tenant_chat(p: ChatParams) -> Trace:
    """Chat sessions spread over tenants; each tenant has its own system prompt."""
    rng = _rng(p.seed, p.kind)
    common = [SharedPrefix(id="common", tokens=p.common_prefix_tokens)] \
        if p.common_prefix_tokens else []
    parent = "common" if common else None
    prefixes = common + [SharedPrefix(id=f"tenant{t}", tokens=p.system_prompt_tokens,
                                      parent=parent) for t in range(p.tenants)]
    sessions = []
    for i in range(p.sessions):
        context, turns = p.common_prefix_tokens + p.system_prompt_tokens, []
        for _ in range(_int(rng, p.turns)):
            new, out = _int(rng, p.user_tokens), _int(rng, p.output_tokens)
            turns.append(Turn(carried_tokens=context, new_tokens=new, output_tokens=out,
                              tool_delay_s=_float(rng, p.think_time_s)))
            context += new + out
        t = i % p.tenants
        sessions.append(Session(id=f"chat{i}", tenant=f"tenant{t}", prefix_id=f"tenant{t}",
                                start_s=i * p.arrival_gap_s, turns=turns))
    return _trace(p, f"multi-tenant-chat-s{p.seed}", prefixes, sessions)


def long_document_qa(p: DocQAParams) -> Trace:
    """Each question resends the document alone (not the earlier answers) plus the question."""
    rng = _rng(p.seed, p.kind)
    prefixes = [SharedPrefix(id=f"doc{d}", tokens=p.document_tokens) for d in range(p.documents)]
    sessions = []
    for i in range(p.sessions):
        turns = [Turn(carried_tokens=p.document_tokens, new_tokens=_int(rng, p.question_tokens),
                      output_tokens=_int(rng, p.output_tokens),
                      tool_delay_s=_float(rng, p.think_time_s))
                 for _ in range(_int(rng, p.questions))]
        sessions.append(Session(id=f"qa{i}", prefix_id=f"doc{i % p.documents}",
                                start_s=i * p.arrival_gap_s, turns=turns))
    return _trace(p, f"long-document-qa-s{p.seed}", prefixes, sessions)


def no_reuse(p: NoReuseParams) -> Trace:
    """Independent single-turn prompts with no shared prefix."""
    rng = _rng(p.seed, p.kind)
    sessions = [Session(id=f"once{i}", start_s=i * p.arrival_gap_s,
                        turns=[Turn(carried_tokens=0, new_tokens=_int(rng, p.prompt_tokens),
                                    output_tokens=_int(rng, p.output_tokens))])
                for i in range(p.sessions)]
    return _trace(p, f"no-reuse-s{p.seed}", [], sessions)


GENERATORS: dict[str, Callable[..., Trace]] = {
    "coding_agent": coding_agent,
    "multi_tenant_chat": multi_tenant_chat,
    "long_document_qa": long_document_qa,
    "no_reuse": no_reuse,
}


def generate(params: GeneratorParams) -> Trace:
    """Build the trace that ``params`` describe (dispatch on ``params.kind``)."""
    return GENERATORS[params.kind](params)
