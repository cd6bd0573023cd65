"""``python -m reference_store`` and the ``reference-store`` console script (:func:`entry`).

Without the ``store`` extra (numpy, torch, ...) it prints the one pip line to run and exits 2
instead of a traceback.
"""

from __future__ import annotations

import sys

__all__ = ["entry"]

#: what the store imports from outside the standard library and pydantic
_STORE_MODULES = frozenset({"numpy", "torch", "yaml", "cbor2", "xxhash", "prometheus_client"})


def entry(argv: list[str] | None = None) -> int:
    try:
        from reference_store.cli import main

        return main(argv)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in _STORE_MODULES:
            raise
        print(f"reference-store: needs the store extra (no module {exc.name!r}): "
              "pip install 'kv-evidence-ledger[store]'", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(entry())
