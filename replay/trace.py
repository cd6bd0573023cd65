"""The trace format: multi-turn sessions described by token counts, materialised reproducibly.

A trace never stores token ids. It stores counts, and the ids are drawn from a seeded generator
keyed by (trace seed, prefix id) for shared prefixes and (trace seed, session id, turn) for new
and output tokens, so the same trace always yields the same prompts (and so the same block
hashes) on every machine.

Turn semantics: a session keeps a running *context*, initially the tokens of its shared prefix
(system prompt plus, for an agent, repository context). Turn ``k`` sends the prompt
``context[:carried_tokens] + new(new_tokens)``; the server answers ``output_tokens`` tokens; the
context becomes ``prompt + recorded_output``, and the client waits ``tool_delay_s`` before the
next turn. The recorded output tokens (not the model's own) are carried over, as a replay of a
recorded transcript does.
"""

from __future__ import annotations

import hashlib
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "TRACE_FORMAT_VERSION",
    "Session",
    "SharedPrefix",
    "Trace",
    "Turn",
    "TurnRequest",
    "materialise",
    "prefix_tokens",
]

TRACE_FORMAT_VERSION: Literal[1] = 1


class Turn(BaseModel):
    """One request of a session."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    carried_tokens: int = Field(ge=0, description="Tokens of the running context sent again.")
    new_tokens: int = Field(ge=0, description="Fresh tokens appended (user message, tool output).")
    output_tokens: int = Field(ge=1, description="Tokens the server must generate.")
    tool_delay_s: float = Field(
        default=0.0, ge=0.0, description="Client-side pause after the answer, before the next turn.")


class SharedPrefix(BaseModel):
    """A prefix (system prompt, repository context, document) shared by several sessions."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    tokens: int = Field(ge=0, description="Own tokens, appended after the parent's.")
    parent: str | None = Field(default=None, description="Prefix this one extends.")


class Session(BaseModel):
    """A conversation: an optional shared prefix and its turns, in order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    tenant: str = Field(default="default", min_length=1)
    prefix_id: str | None = None
    start_s: float = Field(default=0.0, ge=0.0, description="Offset of the first turn.")
    turns: list[Turn] = Field(min_length=1)


class Trace(BaseModel):
    """A replayable workload."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format_version: Literal[1] = TRACE_FORMAT_VERSION
    name: str = Field(min_length=1)
    kind: str = Field(default="custom", description="Generator that made it, or 'custom'.")
    seed: int = 0
    vocab_size: int = Field(default=4096, ge=16)
    prefixes: list[SharedPrefix] = Field(default_factory=list)
    sessions: list[Session] = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> Trace:
        ids: set[str] = set()
        for i, p in enumerate(self.prefixes):
            if p.id in ids:
                raise ValueError(f"prefixes[{i}].id: duplicate prefix id {p.id!r}")
            if p.parent is not None and p.parent not in ids:
                raise ValueError(f"prefixes[{i}].parent: {p.parent!r} must be listed before it")
            ids.add(p.id)
        seen: set[str] = set()
        for i, s in enumerate(self.sessions):
            if s.id in seen:
                raise ValueError(f"sessions[{i}].id: duplicate session id {s.id!r}")
            seen.add(s.id)
            if s.prefix_id is not None and s.prefix_id not in ids:
                raise ValueError(f"sessions[{i}].prefix_id: unknown prefix {s.prefix_id!r}")
            self._check_turns(i, s)
        return self

    def _check_turns(self, i: int, session: Session) -> None:
        context = self.prefix_len(session.prefix_id)
        for j, t in enumerate(session.turns):
            if t.carried_tokens > context:
                raise ValueError(
                    f"sessions[{i}].turns[{j}].carried_tokens: {t.carried_tokens} exceeds the "
                    f"running context of {context} tokens")
            if t.carried_tokens + t.new_tokens == 0:
                raise ValueError(f"sessions[{i}].turns[{j}]: empty prompt")
            context = t.carried_tokens + t.new_tokens + t.output_tokens

    def prefix_len(self, prefix_id: str | None) -> int:
        """Length in tokens of a shared prefix (0 for ``None``)."""
        return sum(p.tokens for p in self.prefix_chain(prefix_id))

    def prefix_chain(self, prefix_id: str | None) -> list[SharedPrefix]:
        """The prefix and its ancestors, outermost first."""
        by_id = {p.id: p for p in self.prefixes}
        chain: list[SharedPrefix] = []
        while prefix_id is not None:
            chain.append(by_id[prefix_id])
            prefix_id = by_id[prefix_id].parent
        return chain[::-1]

    @property
    def request_count(self) -> int:
        """Number of turns over all sessions."""
        return sum(len(s.turns) for s in self.sessions)


class TurnRequest(BaseModel):
    """A materialised turn: the exact prompt token ids and what to ask of the server."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    tenant: str
    turn: int
    prompt: list[int]
    output_tokens: int
    tool_delay_s: float
    carried_tokens: int
    prefix_tokens: int


def _draw(seed: int, label: str, n: int, vocab: int) -> list[int]:
    digest = hashlib.sha256(f"{seed}/{label}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    return [int(x) for x in rng.integers(0, vocab, size=n)]


def prefix_tokens(trace: Trace, prefix_id: str | None) -> list[int]:
    """The token ids of a shared prefix (with its ancestors'), as every session using it sees."""
    out: list[int] = []
    for p in trace.prefix_chain(prefix_id):
        out += _draw(trace.seed, f"prefix/{p.id}", p.tokens, trace.vocab_size)
    return out


def materialise(trace: Trace, session: Session) -> list[TurnRequest]:
    """Expand one session into its requests with concrete token ids.

    Token ids depend only on the trace seed, the prefix id, the session id and the turn index.
    """
    context = prefix_tokens(trace, session.prefix_id)
    plen = len(context)
    out: list[TurnRequest] = []
    for k, t in enumerate(session.turns):
        new = _draw(trace.seed, f"new/{session.id}/{k}", t.new_tokens, trace.vocab_size)
        prompt = context[: t.carried_tokens] + new
        out.append(TurnRequest(
            session_id=session.id, tenant=session.tenant, turn=k, prompt=prompt,
            output_tokens=t.output_tokens, tool_delay_s=t.tool_delay_s,
            carried_tokens=t.carried_tokens, prefix_tokens=min(plen, t.carried_tokens)))
        recorded = _draw(trace.seed, f"out/{session.id}/{k}", t.output_tokens, trace.vocab_size)
        context = prompt + recorded
    return out
