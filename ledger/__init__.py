"""The evidence ledger: article models, verification, persistence and the ``ledger`` CLI."""

from __future__ import annotations

from .errors import (
    DatabaseError,
    DocumentError,
    IntegrityError,
    LedgerError,
    MigrationError,
    NotFound,
    SchemaDriftError,
    SealedRunError,
    UsageError,
)
from .models import Article, Measurement, Run, RunMetric
from .report import Finding, Report, Severity
from .schema import load_article
from .verify import verify_article, verify_paths

__all__ = [
    "Article",
    "DatabaseError",
    "DocumentError",
    "Finding",
    "IntegrityError",
    "Ledger",
    "LedgerError",
    "Measurement",
    "MigrationError",
    "NotFound",
    "Report",
    "Run",
    "RunMetric",
    "RunRecorder",
    "SchemaDriftError",
    "SealedRunError",
    "Severity",
    "UsageError",
    "load_article",
    "verify_article",
    "verify_paths",
]

__version__ = "0.1.0"

_LAZY = {"Ledger": "ledger.db", "RunRecorder": "ledger.runs"}


def __getattr__(name: str) -> object:
    # The database layer (sqlalchemy) loads on first use, so `ledger verify` starts fast.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ledger' has no attribute {name!r}")
