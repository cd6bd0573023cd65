"""The public API: each package's ``__all__`` is explicit, complete and importable."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

import ledger
import reference_store


def _modules(package):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        # migration steps are numbered scripts run by ledger.migrations, not API
        if not info.name.endswith("__main__") and ".migrations.m" not in info.name:
            yield info.name


@pytest.mark.parametrize("package", [ledger, reference_store], ids=lambda p: p.__name__)
def test_every_module_declares_all_and_every_name_exists(package):
    for name in _modules(package):
        module = importlib.import_module(name)
        exported = getattr(module, "__all__", None)
        assert exported is not None, f"{name} has no __all__"
        for attr in exported:
            assert hasattr(module, attr), f"{name}.__all__ names {attr!r}, which is missing"


@pytest.mark.parametrize("package", [ledger, reference_store], ids=lambda p: p.__name__)
def test_package_all_resolves(package):
    assert len(set(package.__all__)) == len(package.__all__)
    for attr in package.__all__:
        assert getattr(package, attr) is not None


def test_store_exports_match_their_modules():
    from reference_store import _EXPORTS

    assert set(_EXPORTS) == set(reference_store.__all__)
    for attr, module in _EXPORTS.items():
        assert getattr(importlib.import_module(module), attr) is getattr(reference_store, attr)


def test_master_and_keys_do_not_import_torch():
    code = ("import sys, reference_store.master, reference_store.keys, reference_store.tenants; "
            "sys.exit('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0
