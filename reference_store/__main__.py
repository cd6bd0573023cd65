"""``python -m reference_store`` and the ``reference-store`` console script (:func:`entry`).

Without the ``store`` extra (numpy, torch, ...) it prints the one pip line to run and exits 2
instead of a traceback.
"""

from __future__ import annotations

import sys

from reference_store.extras import STORE_MODULES, run_with_extra

__all__ = ["entry"]


def entry(argv: list[str] | None = None) -> int:
    return run_with_extra("reference_store.cli", argv, prog="reference-store", extra="store",
                          modules=STORE_MODULES)


if __name__ == "__main__":
    sys.exit(entry())
