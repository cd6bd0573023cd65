"""Mooncake's master as an HTTP metadata server for Transfer Engine tests, and their helpers.

Light on purpose (no torch, no reference_store imports): the tests' child processes, which run
their test file as a script, import it too, and Mooncake is only ever loaded in a child.
"""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

__all__ = ["CHILD_TIMEOUT_S", "MASTER_BIN", "data", "free_port", "metadata_server", "sha",
           "wait_listening"]

MASTER_BIN = Path(sys.executable).parent / "mooncake_master"
CHILD_TIMEOUT_S = 60


def data(n: int, seed: int) -> bytes:
    """``n`` seeded random bytes."""
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8).tobytes()


def sha(buf: Any) -> str:
    return hashlib.sha256(buf).hexdigest()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int, *, timeout: float = 30.0) -> None:
    """Poll until something accepts on ``port`` (a small stand-in for cluster_fixtures'
    ``wait_until``, which would load torch in every child)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on port {port} after {timeout:.0f} s") from None
            time.sleep(0.05)


def engine_loads() -> tuple[bool, str]:
    """Ask a child whether mooncake.engine loads, so the test process never maps the library."""
    code = ("import json; from reference_store.transport.transfer_engine import engine_available;"
            " print(json.dumps(engine_available()))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=CHILD_TIMEOUT_S)
    lines = done.stdout.strip().splitlines()
    if not lines:
        return False, f"engine probe failed: {done.stderr.strip()[-500:]}"
    ok, why = json.loads(lines[-1])
    return bool(ok), str(why)


@contextmanager
def metadata_server() -> Iterator[str]:
    """The HTTP metadata URL of a ``mooncake_master`` started on free ports, killed on exit;
    skips the test (with the reason) where Mooncake is missing or cannot load."""
    if not MASTER_BIN.exists():
        pytest.skip(f"{MASTER_BIN} not installed")
    ok, why = engine_loads()
    if not ok:
        pytest.skip(why)
    http = free_port()
    master = subprocess.Popen(
        [str(MASTER_BIN), "--enable_http_metadata_server=true",
         f"--http_metadata_server_port={http}", f"--rpc_port={free_port()}",
         f"--metrics_port={free_port()}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(http)
        yield f"http://127.0.0.1:{http}/metadata"
    finally:
        master.kill()
        master.wait()
