"""Findings carry context: the sentence they sit in, a hint and the trace tried, in JSON too."""

from __future__ import annotations

import json
from pathlib import Path

from verify_fixtures import replace_body, verify_mutant

from ledger.report import Finding, Report, Severity


def test_new_fields_are_optional_and_absent_from_json_when_unset() -> None:
    data = Finding(Severity.error, "x", "message", "/body").to_dict()
    assert set(data) == {"severity", "rule", "message", "pointer"}


def test_trace_is_json_and_does_not_break_hashing() -> None:
    f = Finding(Severity.warning, "x", "m", "/body", sentence="It rose 5%.",
                hint="nearest evidence: 4 (F1)", trace=({"origin": "fact", "value": "4"},))
    assert hash(f) == hash(Finding(Severity.warning, "x", "m", "/body", sentence="It rose 5%.",
                                   hint="nearest evidence: 4 (F1)"))
    data = f.to_dict()
    assert data["trace"] == [{"origin": "fact", "value": "4"}]
    assert data["sentence"] == "It rose 5%." and data["hint"].startswith("nearest")


def test_body_finding_carries_its_sentence_in_json(tmp_path: Path) -> None:
    _, result = verify_mutant(tmp_path, lambda d: replace_body(d, "to 92.2%", "to 95.2%"))
    found = [f for f in result.findings if f.rule == "untraced-figure"]
    assert found and "95.2%" in (found[0].sentence or "")
    report = Report()
    report.add(result)
    payload = json.loads(report.to_json())
    assert any("95.2%" in f.get("sentence", "") for f in payload["findings"])


def test_mislabel_shows_the_evidence_it_traced_to(tmp_path: Path) -> None:
    _, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, "a 46-fold reduction in median time to first token", "a 46-fold increase in throughput"))
    found = next(f for f in result.findings if f.rule == "mislabeled-figure")
    assert found.trace and any(step.get("verdict") == "match"
                               and "median_ttft_speedup" in str(step.get("evidence"))
                               for step in found.trace)
