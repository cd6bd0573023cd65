"""Report formats for CI: SARIF 2.1.0 (GitHub code scanning), JUnit XML, GitHub annotations.

Every format renders the same :class:`~ledger.report.Report`, so the exit code, the summary and
each format agree. Locations point into the JSON file as written (``file_line``/``file_column``,
filled by ``ledger verify``): a body finding at its span inside the escaped body string, any
other finding at the value its JSON pointer names (the pointer is also in the message).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from .report import Finding, Report, Severity

__all__ = ["RULES", "SARIF_SCHEMA", "to_github", "to_junit", "to_sarif"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_URI = "https://kv-evidence-ledger.invalid/docs/verify"

#: Every rule id ``ledger verify`` emits, with a one-line description.
RULES: dict[str, str] = {
    "unreadable": "The file cannot be read or parsed as JSON.",
    "schema": "The document does not fit the article schema.",
    "duplicate-id": "An id is used more than once.",
    "dangling-reference": "A source, fact or measurement reference does not resolve.",
    "dangling-citation": "A [S#] citation marker names a source that is not in sources.",
    "date-order": "Dates are out of order (retrieval, publication, observation, id).",
    "untraced-figure": "A figure in the body traces to no evidence in the article.",
    "mislabeled-figure": "A figure is described as a different metric than the one it traces to.",
    "unattributed-figure": "An author-reported figure is not attributed to its authors.",
    "conflated-experiments": "Figures of two different experiments are joined as one result.",
    "guardrail": "The body breaks one of the article's pre-publication guardrails.",
    "unchecked-guardrail": "A guardrail cannot be checked by machine; a person must check it.",
    "arithmetic": "A computation, equation or claim percentage does not recompute.",
    "word-count": "editorial_word_count does not match the body.",
    "independence-contradiction": "A fact claims independent verification the scope denies.",
}
_SARIF_LEVEL = {Severity.error: "error", Severity.warning: "warning", Severity.note: "note"}
_GITHUB_LEVEL = {Severity.error: "error", Severity.warning: "warning", Severity.note: "notice"}


def _uri(path: str) -> str:
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.relative_to(Path.cwd())
        except ValueError:
            return p.as_uri()
    return p.as_posix()


def _relative(path: str) -> str:
    p = Path(path)
    if p.is_absolute():
        try:
            return p.relative_to(Path.cwd()).as_posix()
        except ValueError:
            return p.as_posix()
    return p.as_posix()


def _message(f: Finding) -> str:
    where = f" (at {f.pointer})" if f.pointer and f.pointer != "/body" else ""
    return f.message + where


def _region(f: Finding) -> dict[str, int]:
    if f.file_line is None or f.file_column is None:
        return {"startLine": 1}
    region = {"startLine": f.file_line, "startColumn": f.file_column}
    if f.column is not None and f.end_column is not None:
        region["endColumn"] = f.file_column + (f.end_column - f.column)
    return region


def _sarif_result(path: str, f: Finding, rule_index: dict[str, int]) -> dict[str, Any]:
    return {
        "ruleId": f.rule,
        "ruleIndex": rule_index[f.rule],
        "level": _SARIF_LEVEL[f.severity],
        "message": {"text": _message(f)},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": _uri(path)},
                "region": _region(f),
            },
            "logicalLocations": [{"fullyQualifiedName": f.pointer or "/", "kind": "member"}],
        }],
    }


def _sarif_rules(report: Report) -> list[dict[str, Any]]:
    ids = list(RULES) + sorted({f.rule for _, f in report.findings} - set(RULES))
    return [{
        "id": rule,
        "name": "".join(part.title() for part in rule.split("-")),
        "shortDescription": {"text": RULES.get(rule, rule)},
        "defaultConfiguration": {"level": "warning" if rule == "unchecked-guardrail" else "error"},
    } for rule in ids]


def to_sarif(report: Report) -> str:
    """SARIF 2.1.0 with one run; GitHub code scanning accepts it as uploaded."""
    from . import __version__

    rules = _sarif_rules(report)
    rule_index = {r["id"]: i for i, r in enumerate(rules)}
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "ledger verify", "version": __version__, "informationUri": TOOL_URI,
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": [_sarif_result(p, f, rule_index) for p, f in report.findings],
            "properties": {"summary": report.summary, "exitCode": report.exit_code},
        }],
    }
    return json.dumps(doc, indent=2)


def _fails(report: Report, f: Finding) -> bool:
    return f.severity is Severity.error or (report.strict and f.severity is Severity.warning)


def to_junit(report: Report) -> str:
    """JUnit XML: one test suite per file, one test case per finding (or one passing case)."""
    root = ET.Element("testsuites", name="ledger verify")
    total = failed = 0
    for result in report.files:
        suite = ET.SubElement(root, "testsuite", name=result.path)
        cases = result.findings or []
        failures = 0
        for f in cases:
            where = f"body {f.line}:{f.column}" if f.line is not None else (f.pointer or "/")
            case = ET.SubElement(suite, "testcase", classname=result.path,
                                 name=f"{f.rule} at {where}")
            if _fails(report, f):
                failures += 1
                node = ET.SubElement(case, "failure", message=f.message, type=f.rule)
                node.text = f"{f.severity.value}: {f.message}"
            else:
                ET.SubElement(case, "system-out").text = f"{f.severity.value}: {f.message}"
        if not cases:
            ET.SubElement(suite, "testcase", classname=result.path, name="verify")
        suite.set("tests", str(max(len(cases), 1)))
        suite.set("failures", str(failures))
        suite.set("errors", "1" if result.unreadable else "0")
        total, failed = total + max(len(cases), 1), failed + failures
    root.set("tests", str(total))
    root.set("failures", str(failed))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def to_github(report: Report) -> str:
    """GitHub workflow commands: ``::error file=F,line=L,col=C,endColumn=E,title=T::message``."""
    lines = []
    for path, f in report.findings:
        props = [f"file={_escape_property(_relative(path))}"]
        region = _region(f)
        props.append(f"line={region['startLine']}")
        if "startColumn" in region:
            props.append(f"col={region['startColumn']}")
        if "endColumn" in region:
            props.append(f"endColumn={region['endColumn']}")
        props.append(f"title={_escape_property('ledger ' + f.rule)}")
        lines.append(f"::{_GITHUB_LEVEL[f.severity]} {','.join(props)}::"
                     f"{_escape_data(_message(f))}")
    lines.append(_escape_data(report.summary))
    return "\n".join(lines)
