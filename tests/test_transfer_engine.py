"""The Transfer Engine transport, for real: two processes, Mooncake's master as the HTTP metadata
server, protocol "tcp" (no RDMA NIC on this machine; "rdma" is the same calls with a device name
and is NOT exercised here). Skipped, with the reason, where Mooncake cannot load.

Run as ``python tests/test_transfer_engine.py peer METADATA HOSTNAME`` it is the remote peer:
it registers a 4 MiB buffer, prints its address, then answers "sha" with its buffer's digest.
"""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from cluster_fixtures import wait_until

from reference_store.errors import InvalidParams, TransferError
from reference_store.transport.transfer_engine import (
    EngineConfig,
    TransferEngineTransport,
    engine_available,
)

MiB = 1 << 20
AVAILABLE, WHY = engine_available()
MASTER_BIN = Path(sys.executable).parent / "mooncake_master"
pytestmark = [pytest.mark.mooncake]
needs_engine = pytest.mark.skipif(not AVAILABLE or not MASTER_BIN.exists(),
                                  reason=WHY or f"{MASTER_BIN} not installed")


def _pattern(n: int) -> np.ndarray:
    return (np.arange(n, dtype=np.uint64) * 2654435761 % 251).astype(np.uint8)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_config_is_validated() -> None:
    with pytest.raises(InvalidParams, match="device_name"):
        EngineConfig(local_hostname="h", metadata_server="m", protocol="rdma")
    with pytest.raises(InvalidParams, match="protocol"):
        EngineConfig(local_hostname="h", metadata_server="m", protocol="carrier-pigeon")
    assert EngineConfig(local_hostname="h", metadata_server="m", protocol="rdma",
                        device_name="mlx5_0").device_name == "mlx5_0"


@pytest.fixture(scope="module")
def metadata() -> Iterator[str]:
    if not AVAILABLE or not MASTER_BIN.exists():
        pytest.skip(WHY or f"{MASTER_BIN} not installed")
    http = _free_port()
    master = subprocess.Popen(
        [str(MASTER_BIN), "--enable_http_metadata_server=true",
         f"--http_metadata_server_port={http}", f"--rpc_port={_free_port()}",
         f"--metrics_port={_free_port()}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: socket.create_connection(("127.0.0.1", http), timeout=1).close() or True,
                   what="HTTP metadata server")
        yield f"http://127.0.0.1:{http}/metadata"
    finally:
        master.kill()
        master.wait()


@pytest.fixture(scope="module")
def peer(metadata: str) -> Iterator[tuple[subprocess.Popen[str], dict[str, int | str]]]:
    proc = subprocess.Popen([sys.executable, __file__, "peer", metadata, "127.0.0.2"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("transfer-engine peer exited before it was ready")
        yield proc, json.loads(line)
    finally:
        proc.kill()
        proc.wait()


@needs_engine
def test_one_sided_read_and_write_between_processes(
        metadata: str, peer: tuple[subprocess.Popen[str], dict[str, int | str]]) -> None:
    proc, info = peer
    local = TransferEngineTransport(EngineConfig(local_hostname="127.0.0.1",
                                                 metadata_server=metadata, protocol="tcp"))
    try:
        buf = np.zeros(4 * MiB, dtype=np.uint8)
        addr = local.register(buf)
        remote, session = int(info["addr"]), str(info["session"])
        local.read(session, addr, remote, 4 * MiB)
        assert np.array_equal(buf, _pattern(4 * MiB))
        rng = np.random.default_rng(7)
        buf[MiB:2 * MiB] = rng.integers(0, 256, MiB, dtype=np.uint8)
        local.batch_write(session, [addr + MiB, addr + MiB + 4096], [remote + MiB, remote + MiB + 4096],
                          [4096, MiB - 4096])
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("sha\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == hashlib.sha256(buf.tobytes()).hexdigest()
        with pytest.raises(InvalidParams, match="registered"):
            local.read(session, addr + 4 * MiB, remote, 16)  # outside the registered buffer
        with pytest.raises(TransferError):
            local.read("127.0.0.99", addr, remote, 16)  # no such peer
        local.unregister(addr)
        with pytest.raises(InvalidParams):
            local.unregister(addr)
    finally:
        local.close()


def _serve_peer(metadata: str, hostname: str) -> None:
    engine = TransferEngineTransport(EngineConfig(local_hostname=hostname,
                                                  metadata_server=metadata, protocol="tcp"))
    buf = _pattern(4 * MiB)
    addr = engine.register(buf)
    print(json.dumps({"session": engine.session_id, "addr": addr}), flush=True)
    for line in sys.stdin:
        if line.strip() == "sha":
            print(hashlib.sha256(buf.tobytes()).hexdigest(), flush=True)


if __name__ == "__main__" and len(sys.argv) == 4 and sys.argv[1] == "peer":
    _serve_peer(sys.argv[2], sys.argv[3])
