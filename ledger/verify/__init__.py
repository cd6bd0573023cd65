"""``ledger verify``: every family of checks over an article, collected into one Report.

Each family is a function ``check(article) -> list[Finding]`` registered in :data:`CHECKS`;
adding a family is one line here.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable

from ..errors import DocumentError
from ..models import Article
from ..report import FileResult, Finding, Report, Severity
from ..schema import load_article
from .arithmetic import check_arithmetic
from .body import check_body
from .consistency import check_consistency
from .dates import check_dates
from .integrity import check_integrity
from .locate import body_locator

__all__ = ["CHECKS", "Check", "verify_article", "verify_file", "verify_paths", "expand_paths"]

Check = Callable[[Article], list[Finding]]

CHECKS: list[Check] = [
    check_integrity, check_dates, check_body, check_arithmetic, check_consistency,
]


def verify_article(article: Article) -> list[Finding]:
    findings: list[Finding] = []
    for check in CHECKS:
        findings.extend(check(article))
    return findings


def verify_file(path: str | Path) -> FileResult:
    result = FileResult(str(path))
    try:
        article, findings = load_article(path)
    except DocumentError as exc:
        result.unreadable = True
        result.findings.append(Finding(
            Severity.error, "unreadable", exc.message, "",
            file_line=exc.line, file_column=exc.column))
        return result
    result.findings.extend(findings)
    if article is not None:
        result.article_id = article.id
        result.findings.extend(_locate_in_file(path, article, verify_article(article)))
    return result


def _locate_in_file(path: str | Path, article: Article, findings: list[Finding]) -> list[Finding]:
    """Fill ``file_line``/``file_column`` of body findings: where the span sits in the file."""
    if not any(f.pointer == "/body" and f.line is not None for f in findings):
        return findings
    locate = body_locator(Path(path).read_text(encoding="utf-8"), article.body)
    if locate is None:
        return findings
    out = []
    for f in findings:
        if f.pointer == "/body" and f.line is not None and f.column is not None:
            offset = _body_offset(article.body, f.line, f.column)
            line, column = locate(offset)
            f = replace(f, file_line=line, file_column=column)
        out.append(f)
    return out


def _body_offset(body: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = body.index("\n", start) + 1
    return start + column - 1


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files as given; directories expand to the ``*.json`` files inside them, sorted."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        out.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    return out


def verify_paths(paths: Iterable[str | Path], *, strict: bool = False) -> Report:
    report = Report(strict=strict)
    for path in expand_paths(paths):
        report.add(verify_file(path))
    return report
