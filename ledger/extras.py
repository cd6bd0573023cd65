"""Which extra of the distribution provides a module, so a command whose extra is missing can
say the one ``pip install 'kv-evidence-ledger[EXTRA]'`` line to run (pyproject.toml lists the
extras; tests/test_packaging.py keeps this table in step with it)."""

from __future__ import annotations

import importlib.util

from .errors import MissingExtra

__all__ = ["EXTRA_OF_MODULE", "missing_extra", "require"]

#: top-level module -> the extra that installs it
EXTRA_OF_MODULE: dict[str, str] = {
    "sqlmodel": "db",
    "sqlalchemy": "db",
    "rfc8785": "db",
    "prov": "db",
    "httpx": "db",
    "psycopg": "postgres",
    "selectolax": "sources",
    "pypdf": "sources",
    "warcio": "sources",
    "rapidfuzz": "sources",
    "markdown_it": "sources",
    "yaml": "sources",
    "numpy": "store",
    "torch": "store",
    "cbor2": "store",
    "xxhash": "store",
    "prometheus_client": "store",
    "matplotlib": "replay",
    "mooncake": "mooncake",
}


def missing_extra(exc: ModuleNotFoundError, wider: str | None = None) -> MissingExtra | None:
    """The :class:`MissingExtra` for an import that failed because an extra is not installed,
    or ``None`` when the module is not one an extra provides (a real bug: let it raise).
    ``wider`` names an extra that includes the module's own one (``replay`` includes ``db``)."""
    top = (exc.name or "").split(".")[0]
    extra = EXTRA_OF_MODULE.get(top)
    return MissingExtra(wider or extra, top) if extra else None


def require(extra: str, *modules: str) -> None:
    """Raise :class:`MissingExtra` unless every module can be imported (found, not loaded)."""
    for module in modules:
        if importlib.util.find_spec(module) is None:
            raise MissingExtra(extra, module)
