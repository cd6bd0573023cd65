"""Importing vLLM multi-turn benchmark conversation files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.trace import materialise
from replay.vllm_import import (
    ConversationFormatError,
    import_conversations,
    load_conversations,
)

SYSTEM = "You are a careful assistant. " * 8

CONVS = [
    {"id": "c1", "messages": [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "x" * 40},
        {"role": "assistant", "content": "y" * 20},
        {"role": "user", "content": "z" * 8},
        {"role": "assistant", "content": "w" * 12}]},
    {"id": "c2", "messages": [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "hello"}]},
    {"id": "c3", "messages": [{"role": "assistant", "content": "no user turn"}]},
]


def test_turns_carry_the_conversation_and_system_prompts_are_shared(tmp_path: Path) -> None:
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(CONVS))
    trace = load_conversations(path, default_output_tokens=7)
    assert [s.id for s in trace.sessions] == ["c1", "c2"]  # c3 has no user message
    assert len(trace.prefixes) == 1
    sys_tokens = trace.prefixes[0].tokens
    c1 = trace.sessions[0].turns
    assert (c1[0].carried_tokens, c1[0].new_tokens, c1[0].output_tokens) == (sys_tokens, 10, 5)
    assert (c1[1].carried_tokens, c1[1].new_tokens, c1[1].output_tokens) == (sys_tokens + 15, 2, 3)
    assert trace.sessions[1].turns[0].output_tokens == 7  # no assistant reply: the default
    p1 = materialise(trace, trace.sessions[0])[0].prompt
    p2 = materialise(trace, trace.sessions[1])[0].prompt
    assert p1[:sys_tokens] == p2[:sys_tokens]


@pytest.mark.parametrize("data, where", [
    ({}, "top level"),
    ([{"id": "a"}], "[0]"),
    ([{"messages": [{"role": "robot", "content": "hi"}]}], "[0].messages[0].role"),
    ([{"messages": [{"role": "user", "content": 5}]}], "[0].messages[0].content"),
    ([{"messages": [{"role": "assistant", "content": "x"}]}], "no conversation"),
])
def test_malformed_conversations_are_located(data: object, where: str) -> None:
    with pytest.raises(ConversationFormatError) as info:
        import_conversations(data)
    assert where in str(info.value)


def test_unreadable_and_non_json_files(tmp_path: Path) -> None:
    with pytest.raises(ConversationFormatError, match="cannot read"):
        load_conversations(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("[{")
    with pytest.raises(ConversationFormatError, match="line 1"):
        load_conversations(bad)
