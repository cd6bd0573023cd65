"""``python -m replay``. Without the ``replay`` extra it prints the one pip line to run and
exits 2 instead of a traceback."""

from __future__ import annotations

import sys

__all__ = ["entry"]

#: what the harness imports from outside the standard library and pydantic
_REPLAY_MODULES = frozenset({"numpy", "torch", "yaml", "cbor2", "xxhash", "prometheus_client",
                             "matplotlib", "httpx", "sqlalchemy", "sqlmodel", "rfc8785", "prov"})


def entry(argv: list[str] | None = None) -> int:
    try:
        from replay.cli import main

        return main(argv)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in _REPLAY_MODULES:
            raise
        print(f"python -m replay: needs the replay extra (no module {exc.name!r}): "
              "pip install 'kv-evidence-ledger[replay]'", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(entry())
