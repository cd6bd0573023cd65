"""The public API: each package's ``__all__`` is explicit, complete and importable."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

import ledger
import reference_store
import replay


def _modules(package):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        # migration steps are numbered scripts run by ledger.migrations, not API
        if not info.name.endswith("__main__") and ".migrations.m" not in info.name:
            yield info.name


@pytest.mark.parametrize("package", [ledger, reference_store, replay], ids=lambda p: p.__name__)
def test_every_module_declares_all_and_every_name_exists(package):
    for name in _modules(package):
        module = importlib.import_module(name)
        exported = getattr(module, "__all__", None)
        assert exported is not None, f"{name} has no __all__"
        for attr in exported:
            assert hasattr(module, attr), f"{name}.__all__ names {attr!r}, which is missing"


@pytest.mark.parametrize("package", [ledger, reference_store, replay], ids=lambda p: p.__name__)
def test_package_all_resolves(package):
    assert len(set(package.__all__)) == len(package.__all__)
    for attr in package.__all__:
        assert getattr(package, attr) is not None


@pytest.mark.parametrize("package", [reference_store, replay], ids=lambda p: p.__name__)
def test_lazy_exports_match_their_modules(package):
    exports = package._EXPORTS
    assert set(exports) == set(package.__all__)
    for attr, module in exports.items():
        assert getattr(importlib.import_module(module), attr) is getattr(package, attr)


def test_master_and_keys_do_not_import_torch():
    code = ("import sys, reference_store.master, reference_store.keys, reference_store.tenants, "
            "reference_store.client; "
            "sys.exit('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0


def test_store_and_replay_packages_load_neither_torch_nor_each_other():
    """The store does not need the replay harness; importing either package (not its
    torch-backed parts) loads no torch."""
    code = ("import sys, reference_store, replay, replay.config; "
            "bad = [m for m in ('torch', 'replay.runner', 'replay.model') if m in sys.modules]; "
            "sys.exit(repr(bad) if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], timeout=120, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    code = "import sys, reference_store; sys.exit('replay' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0
