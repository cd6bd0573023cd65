"""SARIF 2.1.0, JUnit XML and GitHub annotations render the same Report, pointing into the file."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from verify_fixtures import SEED, replace_body, verify_mutant

from ledger.formats import RULES, to_github, to_junit, to_sarif
from ledger.report import Finding, Report, Severity
from ledger.verify import verify_paths

# The part of SARIF 2.1.0 that GitHub code scanning requires of an upload.
SARIF_SUBSET = {
    "type": "object",
    "required": ["$schema", "version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["tool", "results"],
            "properties": {
                "columnKind": {"const": "unicodeCodePoints"},
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object", "required": ["name", "rules"],
                    "properties": {"rules": {"type": "array", "items": {
                        "type": "object", "required": ["id", "shortDescription"]}}}}}},
                "results": {"type": "array", "items": {
                    "type": "object", "required": ["ruleId", "message", "locations", "level"],
                    "properties": {
                        "level": {"enum": ["error", "warning", "note"]},
                        "message": {"type": "object", "required": ["text"]},
                        "locations": {"type": "array", "minItems": 1, "items": {
                            "type": "object", "required": ["physicalLocation"],
                            "properties": {"physicalLocation": {
                                "type": "object", "required": ["artifactLocation", "region"],
                                "properties": {
                                    "artifactLocation": {"type": "object", "required": ["uri"]},
                                    "region": {"type": "object", "required": ["startLine"],
                                               "properties": {"startLine": {"minimum": 1}}},
                                }}}}},
                    }}},
            }}},
    },
}


@pytest.fixture
def mutant_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Report, Path]:
    def mutate(doc):
        replace_body(doc, "a 46-fold reduction in median time to first token",
                     "a 46-fold increase in throughput")
        doc["corrections"][3].pop("rule")
    monkeypatch.chdir(tmp_path)
    verify_mutant(tmp_path, mutate)
    path = Path("mutant.json")
    return verify_paths([path]), tmp_path / path


def test_sarif_fits_what_code_scanning_requires(mutant_report) -> None:
    report, _ = mutant_report
    doc = json.loads(to_sarif(report))
    jsonschema.validate(doc, SARIF_SUBSET)
    run = doc["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert set(RULES) <= set(ids)
    for result in run["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"]
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels["guardrail"] == "error" and levels["unchecked-guardrail"] == "warning"


def test_sarif_region_points_at_the_figure_in_the_file(mutant_report) -> None:
    report, path = mutant_report
    doc = json.loads(to_sarif(report))
    lines = path.read_text(encoding="utf-8").splitlines()
    (result,) = [r for r in doc["runs"][0]["results"] if r["ruleId"] == "mislabeled-figure"]
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "mutant.json"
    region = loc["region"]
    line = lines[region["startLine"] - 1]
    # a mislabel spans the figure and the label it contradicts
    assert line[region["startColumn"] - 1:region["endColumn"] - 1] == "46-fold increase in throughput"


def test_junit_counts_failures_and_keeps_warnings_as_output(mutant_report) -> None:
    report, _ = mutant_report
    root = ET.fromstring(to_junit(report))
    suite = root.find("testsuite")
    assert suite is not None
    failures = suite.findall("testcase/failure")
    assert int(suite.get("failures")) == len(failures) == report.count(Severity.error)
    assert {f.get("type") for f in failures} >= {"mislabeled-figure", "guardrail"}
    assert suite.findall("testcase/system-out")  # the unchecked guardrail, not a failure
    strict = Report(files=report.files, strict=True)
    assert int(ET.fromstring(to_junit(strict)).get("failures")) == len(failures) + 1


def test_junit_clean_file_has_one_passing_case() -> None:
    root = ET.fromstring(to_junit(verify_paths([SEED])))
    cases = root.findall("testsuite/testcase")
    assert len(cases) == 1 and cases[0].find("failure") is None


def test_github_annotations(mutant_report) -> None:
    report, _ = mutant_report
    lines = to_github(report).splitlines()
    pattern = re.compile(r"^::(error|warning|notice) file=[^,]+,line=\d+(,col=\d+(,endColumn=\d+)?)?,"
                         r"title=ledger [a-z-]+::.+$")
    assert all(pattern.match(line) for line in lines[:-1]), lines
    assert lines[-1].startswith("FAILED")
    assert any(line.startswith("::error file=mutant.json,line=") and ",col=" in line
               for line in lines)


def test_github_escapes_newlines_and_separators() -> None:
    report = Report()
    from ledger.report import FileResult
    report.add(FileResult("a,b:c.json", [Finding(Severity.warning, "schema", "two\nlines 100%")]))
    (line, _) = to_github(report).splitlines()
    assert line.startswith("::warning file=a%2Cb%3Ac.json,line=1,")
    assert line.endswith("::two%0Alines 100%25")


def test_pointer_findings_point_at_their_value_in_the_file(tmp_path: Path) -> None:
    _, result = verify_mutant(tmp_path, lambda d: d.update(editorial_word_count=560),
                              recount=False)
    (finding,) = [f for f in result.findings if f.rule == "word-count"]
    line = (tmp_path / "mutant.json").read_text(encoding="utf-8").splitlines()[finding.file_line - 1]
    assert line[finding.file_column - 1:].startswith("560")
