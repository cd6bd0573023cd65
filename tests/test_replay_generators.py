"""Trace generators: seeded, reproducible, and shaped like the traffic they name."""

from __future__ import annotations

import itertools

import pytest

from replay.generators import (
    ChatParams,
    CodingAgentParams,
    DocQAParams,
    NoReuseParams,
    generate,
)
from replay.trace import materialise

ALL = [CodingAgentParams(), ChatParams(), DocQAParams(), NoReuseParams()]


@pytest.mark.parametrize("params", ALL, ids=lambda p: p.kind)
def test_same_seed_same_trace_other_seed_other_trace(params: object) -> None:
    a, b = generate(params), generate(params)  # type: ignore[arg-type]
    c = generate(params.model_copy(update={"seed": 99}))  # type: ignore[attr-defined]
    assert a == b
    assert materialise(a, a.sessions[0])[0].prompt == materialise(b, b.sessions[0])[0].prompt
    assert materialise(a, a.sessions[0])[0].prompt != materialise(c, c.sessions[0])[0].prompt


def test_coding_agent_carries_the_whole_context_and_shares_the_system_prompt() -> None:
    trace = generate(CodingAgentParams(sessions=3, repos=2, turns=4, system_prompt_tokens=64,
                                       repo_context_tokens=32))
    s0, s1, s2 = (materialise(trace, s) for s in trace.sessions)
    assert s0[0].prompt[:64] == s1[0].prompt[:64]          # system prompt: everyone
    assert s0[0].prompt[:96] == s2[0].prompt[:96]          # repo0: sessions 0 and 2
    assert s0[0].prompt[64:96] != s1[0].prompt[64:96]      # different repositories
    for prev, nxt in itertools.pairwise(s0):
        assert nxt.prompt[:len(prev.prompt)] == prev.prompt
        assert prev.tool_delay_s > 0


def test_chat_tenants_have_their_own_system_prompts() -> None:
    trace = generate(ChatParams(tenants=2, sessions=4))
    tenants = {s.tenant for s in trace.sessions}
    assert tenants == {"tenant0", "tenant1"}
    assert all(s.prefix_id == s.tenant for s in trace.sessions)


def test_doc_qa_resends_the_document_not_the_answers() -> None:
    trace = generate(DocQAParams(document_tokens=200, questions=(3, 3)))
    turns = materialise(trace, trace.sessions[0])
    assert all(t.carried_tokens == 200 for t in turns)


def test_no_reuse_control_has_no_shared_prefix() -> None:
    trace = generate(NoReuseParams(sessions=5))
    assert not trace.prefixes
    assert all(len(s.turns) == 1 and s.turns[0].carried_tokens == 0 for s in trace.sessions)
    prompts = [materialise(trace, s)[0].prompt for s in trace.sessions]
    assert len({tuple(p[:16]) for p in prompts}) == 5


def test_bad_parameters_name_the_field() -> None:
    with pytest.raises(ValueError, match="sessions"):
        CodingAgentParams(sessions=0)


def test_chat_common_prefix_is_shared_across_tenants() -> None:
    trace = generate(ChatParams(tenants=2, sessions=2, common_prefix_tokens=32,
                                system_prompt_tokens=16))
    a, b = (materialise(trace, s)[0] for s in trace.sessions)
    assert a.tenant != b.tenant
    assert a.prompt[:32] == b.prompt[:32] and a.prompt[32:48] != b.prompt[32:48]
    assert a.carried_tokens == 48
