"""The trace format: materialisation, validation with located errors, the committed schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from replay.cli import trace_schema
from replay.trace import Session, SharedPrefix, Trace, Turn, materialise

ROOT = Path(__file__).resolve().parents[1]


def _trace(**kw: object) -> Trace:
    base: dict[str, object] = {
        "name": "t", "seed": 3, "vocab_size": 100,
        "prefixes": [SharedPrefix(id="sys", tokens=20), SharedPrefix(id="repo", tokens=12,
                                                                   parent="sys")],
        "sessions": [Session(id="a", prefix_id="repo", turns=[
            Turn(carried_tokens=32, new_tokens=5, output_tokens=4, tool_delay_s=0.1),
            Turn(carried_tokens=41, new_tokens=7, output_tokens=2)])]}
    base.update(kw)
    return Trace.model_validate(base)


def test_turn_carries_previous_prompt_and_recorded_output() -> None:
    trace = _trace()
    first, second = materialise(trace, trace.sessions[0])
    assert len(first.prompt) == 37 and len(second.prompt) == 48
    assert second.prompt[:37] == first.prompt  # the whole first prompt comes back
    assert first.prefix_tokens == 32 and first.tool_delay_s == 0.1


def test_sessions_sharing_a_prefix_share_its_tokens_only() -> None:
    trace = _trace(sessions=[
        Session(id="a", prefix_id="repo", turns=[Turn(carried_tokens=32, new_tokens=3,
                                                      output_tokens=1)]),
        Session(id="b", prefix_id="sys", turns=[Turn(carried_tokens=20, new_tokens=3,
                                                     output_tokens=1)])])
    a, b = (materialise(trace, s)[0].prompt for s in trace.sessions)
    assert a[:20] == b[:20]
    assert a[20:23] != b[20:23]


def test_materialise_is_reproducible_and_seeded() -> None:
    t1, t2, t3 = _trace(), _trace(), _trace(seed=4)
    p1 = materialise(t1, t1.sessions[0])[1].prompt
    assert p1 == materialise(t2, t2.sessions[0])[1].prompt
    assert p1 != materialise(t3, t3.sessions[0])[1].prompt
    assert max(p1) < 100


@pytest.mark.parametrize("change, where", [
    ({"sessions": [{"id": "a", "prefix_id": "nope",
                    "turns": [{"carried_tokens": 0, "new_tokens": 1, "output_tokens": 1}]}]},
     "sessions[0].prefix_id"),
    ({"sessions": [{"id": "a", "turns": [{"carried_tokens": 5, "new_tokens": 1,
                                          "output_tokens": 1}]}]},
     "sessions[0].turns[0].carried_tokens"),
    ({"sessions": [{"id": "a", "turns": [{"carried_tokens": 0, "new_tokens": 1,
                                          "output_tokens": 1}]},
                   {"id": "a", "turns": [{"carried_tokens": 0, "new_tokens": 1,
                                          "output_tokens": 1}]}]},
     "sessions[1].id"),
    ({"prefixes": [{"id": "x", "tokens": 1, "parent": "later"}, {"id": "later", "tokens": 1}]},
     "prefixes[0].parent"),
])
def test_invalid_traces_name_the_field(change: dict[str, object], where: str) -> None:
    with pytest.raises(ValidationError) as info:
        _trace(**change)
    assert where in str(info.value)


def test_negative_counts_and_unknown_fields_are_rejected() -> None:
    with pytest.raises(ValidationError, match="output_tokens"):
        Turn(carried_tokens=0, new_tokens=1, output_tokens=0)
    with pytest.raises(ValidationError, match="extra"):
        Turn.model_validate({"carried_tokens": 0, "new_tokens": 1, "output_tokens": 1, "x": 1})


def test_json_round_trip() -> None:
    trace = _trace()
    assert Trace.model_validate_json(trace.model_dump_json()) == trace


def test_committed_schema_matches_the_model() -> None:
    committed = json.loads((ROOT / "schemas" / "trace.schema.json").read_text())
    assert committed == trace_schema(), \
        "regenerate: python -m replay schema > schemas/trace.schema.json"


def test_schema_validates_a_trace_and_rejects_a_bad_one() -> None:
    import jsonschema
    schema = trace_schema()
    jsonschema.validate(json.loads(_trace().model_dump_json()), schema)
    bad = json.loads(_trace().model_dump_json())
    bad["sessions"][0]["turns"][0]["new_tokens"] = -1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


@st.composite
def _sessions(draw: st.DrawFn) -> Trace:
    prefix = draw(st.integers(0, 40))
    turns, context = [], prefix
    for _ in range(draw(st.integers(1, 5))):
        carried = draw(st.integers(0, context))
        new = draw(st.integers(0 if carried else 1, 30))
        out = draw(st.integers(1, 10))
        turns.append(Turn(carried_tokens=carried, new_tokens=new, output_tokens=out))
        context = carried + new + out
    return Trace(name="p", seed=draw(st.integers(0, 5)), vocab_size=64,
                 prefixes=[SharedPrefix(id="p", tokens=prefix)],
                 sessions=[Session(id="s", prefix_id="p", turns=turns)])


@given(_sessions())
def test_every_prompt_is_the_carried_context_plus_new_tokens(trace: Trace) -> None:
    reqs = materialise(trace, trace.sessions[0])
    turns = trace.sessions[0].turns
    for k, (req, turn) in enumerate(zip(reqs, turns)):
        assert len(req.prompt) == turn.carried_tokens + turn.new_tokens
        assert all(0 <= t < 64 for t in req.prompt)
        if k:
            prev = reqs[k - 1]
            carried_from_prev = min(turn.carried_tokens, len(prev.prompt))
            assert req.prompt[:carried_from_prev] == prev.prompt[:carried_from_prev]
    assert materialise(trace, trace.sessions[0]) == reqs
