"""Findings and the one Report object that drives both the printed summary and the exit code."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

__all__ = ["EXIT_FINDINGS", "EXIT_INPUT", "EXIT_OK", "FileResult", "Finding", "Report", "Severity"]

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT = 0, 1, 2


class Severity(str, Enum):
    error = "error"
    warning = "warning"
    note = "note"


@dataclass(frozen=True)
class Finding:
    """One problem. ``pointer`` is an RFC 6901 JSON pointer into the document.

    For findings in the body, ``line`` and ``column`` (1-based, in Unicode code points) locate
    the span in the body text, ``end_column`` is exclusive, and ``file_line``/``file_column``
    locate the same place in the JSON file itself (inside the escaped string).

    Optional context (absent from ``to_dict`` when unset, so older consumers are unaffected):
    ``sentence`` is the body sentence that holds the span; ``hint`` is a short suggestion such
    as ``nearest evidence: 46 (F4)``; ``trace`` lists what the checker tried, one dict per
    candidate piece of evidence (``origin``, ``pointer``, ``value``, ``kind``, ``unit``,
    ``verdict``...), so an editor can see why a figure was or was not matched.
    """

    severity: Severity
    rule: str
    message: str
    pointer: str = ""
    line: int | None = None
    column: int | None = None
    end_column: int | None = None
    file_line: int | None = None
    file_column: int | None = None
    sentence: str | None = None
    hint: str | None = None
    trace: tuple[dict[str, Any], ...] | None = field(default=None, hash=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["severity"] = self.severity.value
        if self.trace is not None:
            data["trace"] = [dict(t) for t in self.trace]
        return {k: v for k, v in data.items() if v is not None and v != ""} | {"pointer": self.pointer}


@dataclass
class FileResult:
    """The findings for one file; ``unreadable`` when it could not be read or parsed at all."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    unreadable: bool = False
    article_id: str | None = None

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)


@dataclass
class Report:
    files: list[FileResult] = field(default_factory=list)
    strict: bool = False

    def add(self, result: FileResult) -> None:
        self.files.append(result)

    @property
    def findings(self) -> Iterable[tuple[str, Finding]]:
        for result in self.files:
            for finding in result.findings:
                yield result.path, finding

    def count(self, severity: Severity) -> int:
        return sum(r.count(severity) for r in self.files)

    @property
    def failed(self) -> bool:
        return self.count(Severity.error) > 0 or (self.strict and self.count(Severity.warning) > 0)

    @property
    def exit_code(self) -> int:
        if any(r.unreadable for r in self.files):
            return EXIT_INPUT
        return EXIT_FINDINGS if self.failed else EXIT_OK

    @property
    def summary(self) -> str:
        errors, warnings = self.count(Severity.error), self.count(Severity.warning)
        unreadable = sum(r.unreadable for r in self.files)
        verdict = "FAILED" if self.exit_code else "OK"
        text = f"{verdict}: {len(self.files)} file(s), {errors} error(s), {warnings} warning(s)"
        if unreadable:
            text += f", {unreadable} unreadable"
        if self.strict and warnings:
            text += " (--strict: warnings fail)"
        return text

    def to_json(self) -> str:
        findings = [{"file": path} | f.to_dict() for path, f in self.findings]
        return json.dumps(
            {"summary": self.summary, "exit_code": self.exit_code, "findings": findings}, indent=2
        )

    def to_text(self) -> str:
        lines = []
        for path, f in self.findings:
            where = path
            if f.file_line is not None:
                where += f":{f.file_line}:{f.file_column}"
            if f.line is not None:
                where += f" body {f.line}:{f.column}"
            where += f" {f.pointer}" if f.pointer else ""
            lines.append(f"{where}: {f.severity.value} [{f.rule}] {f.message}")
        lines.append(self.summary)
        return "\n".join(lines)
