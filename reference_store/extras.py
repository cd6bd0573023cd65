"""Console entry points that name a missing extra in one line instead of a traceback.

Shared by ``reference-store`` (``python -m reference_store``) and ``python -m replay``, whose
imports are optional extras of the distribution.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable

__all__ = ["STORE_MODULES", "run_with_extra"]

#: what the store imports from outside the standard library and pydantic
STORE_MODULES = frozenset({"numpy", "torch", "yaml", "cbor2", "xxhash", "prometheus_client"})


def run_with_extra(cli: str, argv: list[str] | None, *, prog: str, extra: str,
                   modules: Iterable[str]) -> int:
    """Run ``cli.main(argv)``; when one of ``modules`` is missing, print the pip line for
    ``extra`` and return 2 (any other missing module is a real bug and propagates)."""
    try:
        main = importlib.import_module(cli).main
        return int(main(argv))
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in frozenset(modules):
            raise
        print(f"{prog}: needs the {extra} extra (no module {exc.name!r}): "
              f"pip install 'kv-evidence-ledger[{extra}]'", file=sys.stderr)
        return 2
