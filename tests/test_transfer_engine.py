"""The Transfer Engine transport, for real: separate processes, Mooncake's master as the HTTP
metadata server, protocol "tcp" (no RDMA NIC on this machine; "rdma" is the same calls with a
device name and is NOT exercised here). Skipped, with the reason, where Mooncake cannot load.

Mooncake 0.3.13 can crash the process on calls before setup, on close and at interpreter exit, so
this test process never starts an engine: every engine lives in a child, run as this file, that
prints its results as one JSON line and leaves with ``os._exit(0)``:

``python tests/test_transfer_engine.py peer METADATA HOSTNAME``
    registers a 4 MiB buffer, prints its session and address, then answers "sha" with its
    buffer's digest.
``python tests/test_transfer_engine.py node METADATA HOSTNAME SIZE``
    exports a SIZE-byte torch arena with ``TeExport``, prints ``describe()``, then answers
    "sha OFF LEN" with the digest of that arena range.
``python tests/test_transfer_engine.py client METADATA HOSTNAME SCENARIO``
    reads one JSON line of arguments, runs SCENARIO (``raw``: the transport's own calls against a
    peer; ``te``: ``attach_te``/``TePeer`` against a node), prints one JSON line of results.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import traceback
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from mooncake_fixtures import (
    CHILD_TIMEOUT_S,
    MASTER_BIN,
    free_port,
    metadata_server,
    wait_listening,
)
from mooncake_fixtures import data as _data
from mooncake_fixtures import sha as _sha

from reference_store.errors import InvalidParams
from reference_store.transport.transfer_engine import (
    EngineConfig,
    TeExport,
    TransferEngineTransport,
    attach_te,
)

MiB = 1 << 20
pytestmark = [pytest.mark.mooncake]
needs_engine = pytest.mark.skipif(not MASTER_BIN.exists(), reason=f"{MASTER_BIN} not installed")

# The node's arena and what the ``te`` scenario puts in it: (offset, length, seed), unaligned.
ARENA_BYTES = 8 * MiB
STAGING_BYTES = 1 * MiB
STAGED = [(13, 1000, 1), (5000, 70001, 2), (200_003, 4096, 3)]
DIRECT = [(300_001, 12345, 4), (400_000, 1, 5), (500_007, 65536, 6)]
BIG = (1_000_003, 2 * MiB + MiB // 2 + 7, 7)  # 2.5 staging buffers: three batches
MANY = [(4 * MiB + 20 * i, 17, 100 + i) for i in range(300)]  # more than one batch submission


def _pattern(n: int) -> np.ndarray:
    return (np.arange(n, dtype=np.uint64) * 2654435761 % 251).astype(np.uint8)


def test_config_is_validated() -> None:
    with pytest.raises(InvalidParams, match="device_name"):
        EngineConfig(local_hostname="h", metadata_server="m", protocol="rdma")
    with pytest.raises(InvalidParams, match="protocol"):
        EngineConfig(local_hostname="h", metadata_server="m", protocol="carrier-pigeon")
    assert EngineConfig(local_hostname="h", metadata_server="m", protocol="rdma",
                        device_name="mlx5_0").device_name == "mlx5_0"


@pytest.fixture(scope="module")
def metadata() -> Iterator[str]:
    with metadata_server() as url:
        yield url


def _serving_child(*args: str) -> Iterator[tuple[subprocess.Popen[str], dict[str, Any]]]:
    proc = subprocess.Popen([sys.executable, __file__, *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line:
            proc.kill()
            _out, err = proc.communicate()
            raise RuntimeError(f"{args[0]} child exited before it was ready: {err[-2000:]}")
        yield proc, json.loads(line)
    finally:
        proc.kill()
        proc.wait()


def _ask(proc: subprocess.Popen[str], line: str) -> str:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    return proc.stdout.readline().strip()


def _run_client(metadata: str, hostname: str, scenario: str, args: dict[str, Any]
                ) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "client", metadata, hostname, scenario],
                          input=json.dumps(args) + "\n", capture_output=True, text=True,
                          timeout=CHILD_TIMEOUT_S)
    lines = done.stdout.strip().splitlines()
    assert lines, f"client {scenario} printed nothing (rc {done.returncode}): {done.stderr[-2000:]}"
    result: dict[str, Any] = json.loads(lines[-1])
    assert "crash" not in result, f"client {scenario} failed: {result['crash']}"
    return result


@pytest.fixture(scope="module")
def peer(metadata: str) -> Iterator[tuple[subprocess.Popen[str], dict[str, Any]]]:
    yield from _serving_child("peer", metadata, "127.0.0.2")


@pytest.fixture(scope="module")
def node(metadata: str) -> Iterator[tuple[subprocess.Popen[str], dict[str, Any]]]:
    yield from _serving_child("node", metadata, "127.0.0.3", str(ARENA_BYTES))


@pytest.fixture(scope="module")
def te_run(metadata: str, node: tuple[subprocess.Popen[str], dict[str, Any]]) -> dict[str, Any]:
    return _run_client(metadata, "127.0.0.4", "te", {"desc": node[1]})


@needs_engine
def test_one_sided_read_and_write_between_processes(
        metadata: str, peer: tuple[subprocess.Popen[str], dict[str, Any]]) -> None:
    proc, info = peer
    out = _run_client(metadata, "127.0.0.1", "raw", info)
    assert out["read_matches"]
    assert _ask(proc, "sha") == out["written_sha"]
    assert out["outside"].startswith("InvalidParams") and "registered" in out["outside"]
    assert out["no_peer"].startswith("TransferError")
    assert out["unregister_twice"].startswith("InvalidParams")


@needs_engine
def test_te_export_describes_the_registered_arena(
        node: tuple[subprocess.Popen[str], dict[str, Any]], te_run: dict[str, Any]) -> None:
    desc = node[1]
    assert desc["kind"] == "te" and desc["session"] == "127.0.0.3"
    assert desc["size"] == ARENA_BYTES and desc["protocol"] == "tcp"
    assert isinstance(desc["base"], int) and desc["base"] > 0
    assert te_run["export_registered"] == [True, False]  # registered, then unregistered by close


@needs_engine
def test_te_peer_round_trips_objects_through_staging(
        node: tuple[subprocess.Popen[str], dict[str, Any]], te_run: dict[str, Any]) -> None:
    expected = [_sha(_data(n, seed)) for _off, n, seed in STAGED]
    assert te_run["staged_read"] == expected
    assert [_ask(node[0], f"sha {off} {n}") for off, n, _seed in STAGED] == expected
    assert te_run["staged_counts"] == [0, 2 * sum(n for _o, n, _s in STAGED)]  # nothing direct


@needs_engine
def test_te_peer_moves_client_registered_memory_without_staging(
        node: tuple[subprocess.Popen[str], dict[str, Any]], te_run: dict[str, Any]) -> None:
    expected = [_sha(_data(n, seed)) for _off, n, seed in DIRECT]
    assert te_run["direct_read"] == expected
    assert [_ask(node[0], f"sha {off} {n}") for off, n, _seed in DIRECT] == expected
    assert te_run["direct_counts"] == [2 * sum(n for _o, n, _s in DIRECT), 0]  # nothing staged


@needs_engine
def test_te_peer_chunks_transfers_larger_than_staging(
        node: tuple[subprocess.Popen[str], dict[str, Any]], te_run: dict[str, Any]) -> None:
    off, n, seed = BIG
    assert n > STAGING_BYTES
    assert te_run["big_read"] == _sha(_data(n, seed))
    assert _ask(node[0], f"sha {off} {n}") == _sha(_data(n, seed))
    many = b"".join(_data(n, seed) for _off, n, seed in MANY)
    assert te_run["many_read"] == _sha(many)
    assert _ask(node[0], f"sha {MANY[0][0]} {20 * len(MANY)}") == _sha(
        b"".join(_data(n, seed) + bytes(3) for _off, n, seed in MANY))


@needs_engine
def test_te_peer_refuses_bad_ranges_and_views(te_run: dict[str, Any]) -> None:
    past_end, negative = te_run["out_of_range"]
    assert past_end == f"TransferError: te segment 127.0.0.3: range {ARENA_BYTES - 10}+20 is " \
                       f"outside the {ARENA_BYTES}-byte arena"
    assert negative.startswith("TransferError") and "range -1+4" in negative
    assert te_run["read_into_bytes"].startswith("InvalidParams: views[0]")
    assert te_run["unreachable"].startswith("TransferError: te segment 127.0.0.99")
    assert te_run["after_close"] == "TransferError: te segment 127.0.0.3: closed"


@needs_engine
def test_attach_te_refuses_unusable_descriptions(te_run: dict[str, Any]) -> None:
    assert te_run["refused"] == {"rdma": True, "no_base": True, "kind": True, "size_str": True,
                                 "not_a_dict": True}
    assert te_run["staging_zero"].startswith("InvalidParams: staging_bytes")


# --- children: everything below runs only in child processes -----------------------------------


def _outcome(fn: Callable[[], Any]) -> str:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - reported to the test, which asserts on it
        return f"{type(exc).__name__}: {exc}"
    return "no error"


def _engine(metadata: str, hostname: str) -> TransferEngineTransport:
    return TransferEngineTransport(EngineConfig(local_hostname=hostname, metadata_server=metadata,
                                                protocol="tcp"))


def _serve_peer(metadata: str, hostname: str) -> None:
    engine = _engine(metadata, hostname)
    buf = _pattern(4 * MiB)
    addr = engine.register(buf)
    print(json.dumps({"session": engine.session_id, "addr": addr}), flush=True)
    for line in sys.stdin:
        if line.strip() == "sha":
            print(_sha(buf.tobytes()), flush=True)


def _serve_node(metadata: str, hostname: str, size: int) -> None:
    import torch

    engine = _engine(metadata, hostname)
    arena = torch.zeros(size, dtype=torch.uint8)
    export = TeExport(engine, arena)
    print(json.dumps(export.describe()), flush=True)
    for line in sys.stdin:
        words = line.split()
        if len(words) == 3 and words[0] == "sha":
            off, n = int(words[1]), int(words[2])
            print(_sha(arena[off:off + n].numpy().tobytes()), flush=True)


def _scenario_raw(engine: TransferEngineTransport, info: dict[str, Any]) -> dict[str, Any]:
    buf = np.zeros(4 * MiB, dtype=np.uint8)
    addr = engine.register(buf)
    remote, session = int(info["addr"]), str(info["session"])
    engine.read(session, addr, remote, 4 * MiB)
    out: dict[str, Any] = {"read_matches": bool(np.array_equal(buf, _pattern(4 * MiB)))}
    buf[MiB:2 * MiB] = np.random.default_rng(7).integers(0, 256, MiB, dtype=np.uint8)
    engine.batch_write(session, [addr + MiB, addr + MiB + 4096],
                       [remote + MiB, remote + MiB + 4096], [4096, MiB - 4096])
    out["written_sha"] = _sha(buf.tobytes())
    out["outside"] = _outcome(lambda: engine.read(session, addr + 4 * MiB, remote, 16))
    out["no_peer"] = _outcome(lambda: engine.read("127.0.0.99", addr, remote, 16))
    engine.unregister(addr)
    out["unregister_twice"] = _outcome(lambda: engine.unregister(addr))
    return out


def _refusals(engine: TransferEngineTransport, desc: dict[str, Any]) -> dict[str, bool]:
    return {
        "rdma": attach_te({**desc, "protocol": "rdma"}, engine) is None,
        "no_base": attach_te({k: v for k, v in desc.items() if k != "base"}, engine) is None,
        "kind": attach_te({**desc, "kind": "shm"}, engine) is None,
        "size_str": attach_te({**desc, "size": str(desc["size"])}, engine) is None,
        "not_a_dict": attach_te([desc], engine) is None,  # type: ignore[arg-type]
    }


def _scenario_te(engine: TransferEngineTransport, args: dict[str, Any]) -> dict[str, Any]:
    desc = args["desc"]
    out: dict[str, Any] = {"refused": _refusals(engine, desc),
                           "staging_zero": _outcome(lambda: attach_te(desc, engine,
                                                                      staging_bytes=0))}
    peer = attach_te(desc, engine, staging_bytes=STAGING_BYTES)
    assert peer is not None
    # Staged: the sources are read-only ``bytes``, the destinations plain bytearrays.
    peer.write([o for o, _n, _s in STAGED], [memoryview(_data(n, s)) for _o, n, s in STAGED])
    back = [bytearray(n) for _o, n, _s in STAGED]
    peer.read([o for o, _n, _s in STAGED], [memoryview(b) for b in back])
    out["staged_read"] = [_sha(b) for b in back]
    out["staged_counts"] = [peer.bytes_direct, peer.bytes_staged]
    # Direct: both sides inside one client-registered buffer (sources first, then destinations).
    total = sum(n for _o, n, _s in DIRECT)
    reg = np.zeros(2 * total, dtype=np.uint8)
    engine.register(reg)
    src, dst, pos = [], [], 0
    for _o, n, s in DIRECT:
        reg[pos:pos + n] = np.frombuffer(_data(n, s), dtype=np.uint8)
        src.append(reg.data[pos:pos + n])
        dst.append(reg.data[total + pos:total + pos + n])
        pos += n
    before = [peer.bytes_direct, peer.bytes_staged]
    peer.write([o for o, _n, _s in DIRECT], src)
    peer.read([o for o, _n, _s in DIRECT], dst)
    out["direct_read"] = [_sha(v) for v in dst]
    out["direct_counts"] = [peer.bytes_direct - before[0], peer.bytes_staged - before[1]]
    off, n, seed = BIG
    peer.write([off], [memoryview(_data(n, seed))])
    big = bytearray(n)
    peer.read([off], [memoryview(big)])
    out["big_read"] = _sha(big)
    peer.write([o for o, _n, _s in MANY], [memoryview(_data(n, s)) for _o, n, s in MANY])
    many = [bytearray(n) for _o, n, _s in MANY]
    peer.read([o for o, _n, _s in MANY], [memoryview(b) for b in many])
    out["many_read"] = _sha(b"".join(many))
    size = int(desc["size"])
    out["out_of_range"] = [_outcome(lambda: peer.write([size - 10], [memoryview(bytes(20))])),
                           _outcome(lambda: peer.read([-1], [memoryview(bytearray(4))]))]
    out["read_into_bytes"] = _outcome(lambda: peer.read([0], [memoryview(b"abcd")]))
    lost = attach_te({**desc, "session": "127.0.0.99"}, engine, staging_bytes=4096)
    assert lost is not None
    out["unreachable"] = _outcome(lambda: lost.write([0], [memoryview(b"x")]))
    peer.close()
    peer.close()
    out["after_close"] = _outcome(lambda: peer.write([0], [memoryview(b"x")]))
    arena = np.zeros(4096, dtype=np.uint8)
    export = TeExport(engine, arena)
    base = export.describe()["base"]
    registered = engine.is_registered(base, 4096)
    export.close()
    export.close()
    out["export_registered"] = [registered, engine.is_registered(base, 4096)]
    return out


def _client(metadata: str, hostname: str, scenario: str) -> None:
    args = json.loads(sys.stdin.readline())
    try:
        engine = _engine(metadata, hostname)
        run = {"raw": _scenario_raw, "te": _scenario_te}[scenario]
        result = run(engine, args)
    except BaseException as exc:  # noqa: BLE001 - reported to the test instead of a crash
        result = {"crash": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(result), flush=True)


def _child_main(argv: list[str]) -> None:
    try:
        if argv[0] == "peer":
            _serve_peer(argv[1], argv[2])
        elif argv[0] == "node":
            _serve_node(argv[1], argv[2], int(argv[3]))
        else:
            _client(argv[1], argv[2], argv[3])
    except BaseException:  # noqa: BLE001 - os._exit below would swallow the traceback
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        os._exit(0)  # skip Mooncake's teardown, which can crash the interpreter


if __name__ == "__main__" and len(sys.argv) >= 4 and sys.argv[1] in ("peer", "node", "client"):
    _child_main(sys.argv[1:])
