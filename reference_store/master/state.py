"""What the master keeps on disk: the quotas changed at run time (``state_dir/quotas.json``).

Written to a fresh file, fsynced, then switched in atomically, so that a crash leaves the old
file or the new one, never half of one.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from reference_store.tenants import TenantPolicy

__all__ = ["QuotaFile"]

logger = logging.getLogger(__name__)


class QuotaFile:
    """The quotas of ``state_dir`` (nothing is kept without one)."""

    def __init__(self, state_dir: str | None) -> None:
        self._dir = Path(state_dir) if state_dir else None

    def _path(self) -> Path | None:
        if self._dir is None:
            return None
        self._dir.mkdir(parents=True, exist_ok=True)
        return self._dir / "quotas.json"

    def save(self, tenants: TenantPolicy) -> None:
        """Write every tenant's quota."""
        path = self._path()
        if path is None:
            return
        tmp = path.with_suffix(".tmp")
        quotas = {n: q["quota"] for n, q in tenants.quotas().items()}
        with open(tmp, "w") as fh:
            json.dump(quotas, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)

    def load(self, tenants: TenantPolicy) -> None:
        """Set the saved quotas of the tenants still configured; an unreadable file is logged
        and ignored (the configured quotas stand)."""
        path = self._path()
        if path is None or not path.exists():
            return
        try:
            quotas = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            logger.error("ignoring unreadable state file %s: %s", path, exc)
            return
        for name, quota in quotas.items():
            if name in tenants.names():
                tenants.set_quota(name, quota)
