"""The ledger's exception tree.

::

    LedgerError (Exception)
    ├── UsageError (LedgerError, ValueError)        bad arguments or configuration -> exit 2
    ├── DocumentError (LedgerError, ValueError)     a file that cannot be read or parsed -> exit 2
    ├── ExtractError (LedgerError)                  a saved page with no readable text -> exit 2
    ├── MissingExtra (LedgerError)                  an optional part is not installed -> exit 2
    ├── SchemaDriftError (LedgerError)              committed schemas differ from the models -> exit 1
    ├── DatabaseError (LedgerError)                 the database failed or refused -> exit 2
    │   ├── MigrationError                          ledger newer than this code, or a failed upgrade
    │   └── NotFound (DatabaseError, KeyError)      no such article, source, run, ...
    ├── SealedRunError (LedgerError)                a finished run cannot change
    └── IntegrityError (LedgerError)                the append-only log does not verify -> exit 3

Validation problems are not exceptions: checks return findings (see :mod:`ledger.verify`), and
only the caller decides whether they are fatal.
"""

from __future__ import annotations

__all__ = [
    "DatabaseError",
    "DocumentError",
    "ExtractError",
    "IntegrityError",
    "LedgerError",
    "MigrationError",
    "MissingExtra",
    "NotFound",
    "SchemaDriftError",
    "SealedRunError",
    "UsageError",
]


class LedgerError(Exception):
    """Base class of every error the ledger raises."""

    exit_code = 2


class UsageError(LedgerError, ValueError):
    exit_code = 2


class DocumentError(LedgerError, ValueError):
    """A document that cannot be read or parsed; ``line``/``column`` are 1-based when known."""

    exit_code = 2

    def __init__(self, path: str, message: str, line: int | None = None, column: int | None = None):
        where = f"{path}:{line}:{column}" if line is not None else path
        super().__init__(f"{where}: {message}")
        self.path, self.message, self.line, self.column = path, message, line, column


class ExtractError(LedgerError):
    """A saved page has no readable text (no text layer, too large, not the format it claims);
    the message is one line."""

    exit_code = 2


class MissingExtra(LedgerError):
    """A command needs an extra that is not installed; the message is the pip line to run."""

    exit_code = 2

    def __init__(self, extra: str, module: str | None = None):
        needs = f" (no module {module!r})" if module else ""
        super().__init__(f"needs the {extra} extra{needs}: pip install 'kv-evidence-ledger[{extra}]'")
        self.extra, self.module = extra, module


class SchemaDriftError(LedgerError):
    exit_code = 1


class DatabaseError(LedgerError):
    exit_code = 2


class MigrationError(DatabaseError):
    pass


class NotFound(DatabaseError, KeyError):
    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else "not found"


class SealedRunError(LedgerError):
    exit_code = 2


class IntegrityError(LedgerError):
    exit_code = 3
