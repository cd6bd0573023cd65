"""``python -m replay``. Without the ``replay`` extra it prints the one pip line to run and
exits 2 instead of a traceback."""

from __future__ import annotations

import sys

from reference_store.extras import STORE_MODULES, run_with_extra

__all__ = ["entry"]

#: what the harness imports beyond the store's own modules
_REPLAY_MODULES = STORE_MODULES | {"matplotlib", "httpx", "sqlalchemy", "sqlmodel", "rfc8785",
                                   "prov"}


def entry(argv: list[str] | None = None) -> int:
    return run_with_extra("replay.cli", argv, prog="python -m replay", extra="replay",
                          modules=_REPLAY_MODULES)


if __name__ == "__main__":
    sys.exit(entry())
