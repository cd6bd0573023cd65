"""Fuzz the article parser and verifier: any input gives findings or a located input error,
never an exception escaping to the user."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.cli import main
from ledger.report import Severity
from ledger.verify import verify_file

SEED = Path(__file__).resolve().parent.parent / "claims" / "pct-2026-11-04-spotlight-mooncake-store.json"
SEED_TEXT = SEED.read_text(encoding="utf-8")
SEED_DATA = json.loads(SEED_TEXT)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += _paths(value, prefix + (index,))
    return out


SEED_PATHS = _paths(SEED_DATA)[1:]


def _mutate(data: Any, path: tuple[Any, ...], action: str, value: Any) -> Any:
    doc = copy.deepcopy(data)
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if action == "delete":
        del parent[last]
    elif action == "replace":
        parent[last] = value
    elif action == "add" and isinstance(parent, dict):
        parent[f"{last}_extra"] = value
    return doc


def _check(path: Path) -> None:
    result = verify_file(path)
    if result.unreadable:
        assert result.findings and result.findings[0].rule == "unreadable"
    for finding in result.findings:
        assert isinstance(finding.severity, Severity)
        assert finding.message
        assert finding.pointer == "" or finding.pointer.startswith("/")


@settings(max_examples=150)
@given(
    path=st.sampled_from(SEED_PATHS),
    action=st.sampled_from(["delete", "replace", "add"]),
    value=json_values,
)
def test_structural_mutations_give_findings_not_exceptions(tmp_path_factory, path, action, value):
    doc = _mutate(SEED_DATA, path, action, value)
    target = tmp_path_factory.mktemp("fuzz") / "article.json"
    target.write_text(json.dumps(doc), encoding="utf-8")
    _check(target)


@settings(max_examples=100)
@given(cut=st.integers(0, len(SEED_TEXT)), junk=st.binary(max_size=16))
def test_truncated_and_garbled_bytes_are_located_input_errors(tmp_path_factory, cut, junk):
    target = tmp_path_factory.mktemp("fuzz") / "article.json"
    target.write_bytes(SEED_TEXT.encode()[:cut] + junk)
    _check(target)


@settings(max_examples=40)
@given(body=st.text(max_size=400))
def test_any_body_text_verifies_without_exceptions(tmp_path_factory, body):
    doc = copy.deepcopy(SEED_DATA)
    doc["body"] = body
    target = tmp_path_factory.mktemp("fuzz") / "article.json"
    target.write_text(json.dumps(doc), encoding="utf-8")
    _check(target)


def test_cli_on_garbage_exits_2_without_traceback(tmp_path, capsys):
    target = tmp_path / "garbage.json"
    target.write_bytes(b"\xff\xfe{not json")
    assert main(["verify", str(target), "--format", "json"]) == 2
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    finding = json.loads(out.out)["findings"][0]
    assert finding["rule"] == "unreadable"
