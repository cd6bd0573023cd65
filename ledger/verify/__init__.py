"""``ledger verify``: every family of checks over an article, collected into one Report.

Each family is a function ``check(article) -> list[Finding]`` registered in :data:`CHECKS`;
adding a family is one line here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ..errors import DocumentError
from ..models import Article
from ..report import FileResult, Finding, Report, Severity
from ..schema import load_article
from .arithmetic import check_arithmetic
from .body import check_body
from .consistency import check_consistency
from .dates import check_dates
from .grounding import check_quotes
from .integrity import check_integrity
from .locate import locate_findings
from .namefigures import check_name_figures
from .scope import article_scope
from .units import check_inference_units, check_name_units

__all__ = ["CHECKS", "MAX_BODY_CHARS", "Check", "expand_paths", "verify_article", "verify_file", "verify_paths"]

Check = Callable[[Article], list[Finding]]

#: The longest body ``ledger verify`` checks, in characters (about 30,000 words; the desk's
#: articles run to a few thousand). Verification time is linear in the body, about 1.5 s per
#: 100,000 characters of figure-dense prose; a longer body is refused as input, not hung on.
MAX_BODY_CHARS = 200_000

CHECKS: list[Check] = [
    check_integrity, check_dates, check_body, check_arithmetic, check_consistency, check_quotes,
    check_inference_units, check_name_units, check_name_figures,
]


def verify_article(article: Article, extra_checks: Sequence[Check] = ()) -> list[Finding]:
    """Every finding for ``article``: the registered checks, then ``extra_checks`` (such as the
    check of measurements against a ledger database)."""
    findings: list[Finding] = []
    with article_scope():  # the checks share what they read from the article (scope.py)
        for check in [*CHECKS, *extra_checks]:
            findings.extend(check(article))
    return findings


def verify_file(path: str | Path, extra_checks: Sequence[Check] = ()) -> FileResult:
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
    if article is not None and len(article.body) > MAX_BODY_CHARS:
        result.unreadable = True
        result.findings.append(Finding(
            Severity.error, "unreadable",
            f"refused: the body is {len(article.body):,} characters; the maximum "
            f"is {MAX_BODY_CHARS:,} (ledger.verify.MAX_BODY_CHARS)", "/body"))
        return result
    if article is not None:
        result.article_id = article.id
        result.findings.extend(verify_article(article, extra_checks))
    if result.findings:  # point every finding into the file as written
        text = Path(path).read_text(encoding="utf-8")
        result.findings = locate_findings(text, article.body if article else None,
                                          result.findings)
    return result


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files as given; directories expand to the ``*.json`` files inside them, sorted."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        out.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    return out


def verify_paths(paths: Iterable[str | Path], *, strict: bool = False,
                 extra_checks: Sequence[Check] = ()) -> Report:
    report = Report(strict=strict)
    for path in expand_paths(paths):
        report.add(verify_file(path, extra_checks))
    return report
