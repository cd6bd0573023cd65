"""The Mooncake-shaped facade: one script, run unchanged against the real Mooncake Store and
against the reference store, must observe the same return codes and values.

Run as ``python tests/test_compat_mooncake.py scenario IMPL MASTER METADATA`` it prints the
observations of one implementation as JSON (in a child process, because Mooncake 0.3.13 can
crash on ``close()``, and so that both runs start from a clean process).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from cluster_fixtures import Cluster, cluster, wait_until

ROOT = Path(__file__).resolve().parents[1]
# the segment a scenario client contributes, and the address it gives for it (test_multihost
# runs the scenario on another host than the master's)
SEGMENT = int(os.environ.get("COMPAT_SEGMENT_BYTES", 64 << 20))
LOCAL_HOSTNAME = os.environ.get("COMPAT_LOCAL_HOSTNAME", "127.0.0.1")

# What Mooncake 0.3.13 returned for this scenario on this machine (re-checked by
# test_same_results_as_real_mooncake whenever Mooncake can run).
EXPECTED: dict[str, Any] = {
    "health_before": 1, "setup": 0, "put": [0, 0], "get": "hello", "exist": [1, 0],
    "batch_exist": [1, 0], "get_missing": "", "size": [5, -704], "register": 0,
    "get_into": [5, "hello", -704, -600], "remove": [-706, -704], "batch_remove": [0, -704, -704],
    "put_from": 0, "get_pf": "0123456789abcdef", "batch_put_from": [0, 0],
    "batch_get_into": [8, 8, -704], "got_b": "0123456789abcdef",
    "upsert": [0, 0, 0], "get_up": "cc", "put_tensor": 0, "tensor_equal": True,
    "tensor_missing": None, "unregister": [0, -600], "health": 0,
}


def _setup(store: Any, master: str, metadata: str) -> int:
    deadline = time.monotonic() + 60
    while True:
        rc = store.setup(LOCAL_HOSTNAME, metadata, SEGMENT, 16 << 20, "tcp", "", master)
        if rc == 0 or time.monotonic() > deadline:
            return int(rc)
        time.sleep(0.2)


def scenario(impl: str, master: str, metadata: str) -> dict[str, Any]:
    """The calls a Mooncake user script makes, in order, with what each returned."""
    if impl == "mooncake":
        from mooncake.store import MooncakeDistributedStore
    else:
        from reference_store.compat.mooncake import MooncakeDistributedStore
    s = MooncakeDistributedStore()
    out: dict[str, Any] = {"health_before": s.health_check(), "setup": _setup(s, master, metadata)}
    out["put"] = [s.put("a", b"hello"), s.put("a", b"world")]
    out["get"] = s.get("a").decode()
    out["exist"] = [s.is_exist("a"), s.is_exist("zz")]
    out["batch_exist"] = s.batch_is_exist(["a", "zz"])
    out["get_missing"] = s.get("zz").decode()
    out["size"] = [s.get_size("a"), s.get_size("zz")]
    buf = np.zeros(16, dtype=np.uint8)
    ptr = buf.ctypes.data
    out["register"] = s.register_buffer(ptr, 16)
    out["get_into"] = [s.get_into("a", ptr, 16), bytes(buf[:5]).decode(),
                       s.get_into("zz", ptr, 16), s.get_into("a", ptr, 2)]
    out["remove"] = [s.remove("a"), s.remove("zz")]
    out["batch_remove"] = s.batch_remove(["a", "a", "zz"], True)
    src = np.frombuffer(b"0123456789abcdef", dtype=np.uint8).copy()
    s.register_buffer(src.ctypes.data, 16)
    out["put_from"] = s.put_from("pf", src.ctypes.data, 16)
    out["get_pf"] = s.get("pf").decode()
    out["batch_put_from"] = s.batch_put_from(["b1", "b2"], [src.ctypes.data, src.ctypes.data + 8],
                                             [8, 8])
    buf[:] = 0
    out["batch_get_into"] = s.batch_get_into(["b1", "b2", "zz"], [ptr, ptr + 8, ptr], [8, 8, 8])
    out["got_b"] = bytes(buf).decode()
    out["upsert"] = [s.upsert("up", b"aa"), s.upsert("up", b"bb"), s.upsert("up", b"cc")]
    out["get_up"] = s.get("up").decode()
    t = torch.arange(10, dtype=torch.float32).reshape(2, 5)
    out["put_tensor"] = s.put_tensor("t", t)
    got = s.get_tensor("t")
    out["tensor_equal"] = bool(got is not None and torch.equal(got, t))
    out["tensor_missing"] = s.get_tensor("nope")
    out["unregister"] = [s.unregister_buffer(ptr), s.unregister_buffer(12345)]
    out["health"] = s.health_check()
    if impl != "mooncake":
        out["close"] = s.close()
        out["health_after_close"] = s.health_check()
    return out


def _run_scenario(impl: str, master: str, metadata: str = "") -> dict[str, Any]:
    proc = subprocess.run([sys.executable, __file__, "scenario", impl, master, metadata],
                          capture_output=True, text=True, timeout=180, cwd=ROOT, check=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise RuntimeError(f"{impl} scenario printed no result (rc {proc.returncode}): "
                           f"{proc.stderr[-3000:]}")
    return json.loads(lines[-1])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def bare() -> Iterator[Cluster]:
    """A master with no nodes: facade clients bring their own segments, like Mooncake's."""
    with cluster(nodes=0) as c:
        yield c


def test_reference_store_gives_mooncakes_results(bare: Cluster) -> None:
    got = _run_scenario("reference", bare.address)
    assert got.pop("close") == 0 and got.pop("health_after_close") == 1
    assert got == EXPECTED


@pytest.mark.mooncake
@pytest.mark.slow
def test_same_results_as_real_mooncake() -> None:
    pytest.importorskip("mooncake.store", reason="mooncake-transfer-engine-non-cuda not loadable")
    binary = Path(sys.executable).parent / "mooncake_master"
    if not binary.exists():
        pytest.skip("mooncake_master binary not installed next to the interpreter")
    http, rpc, metrics = _free_port(), _free_port(), _free_port()
    master = subprocess.Popen(
        [str(binary), "--enable_http_metadata_server=true", f"--http_metadata_server_port={http}",
         f"--rpc_port={rpc}", f"--metrics_port={metrics}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: socket.create_connection(("127.0.0.1", rpc), timeout=1).close() or True,
                   what="mooncake_master rpc port")
        got = _run_scenario("mooncake", f"127.0.0.1:{rpc}", f"http://127.0.0.1:{http}/metadata")
    finally:
        master.kill()
        master.wait()
    assert got == EXPECTED


def test_before_setup_and_bad_setup_return_codes(bare: Cluster) -> None:
    from reference_store.compat.mooncake import MooncakeDistributedStore

    s = MooncakeDistributedStore()
    assert s.put("k", b"v") == -950 and s.get("k") == b"" and s.is_exist("k") == -1
    assert s.get_into("k", 0, 0) == -950 and s.remove_all() == -950
    os.environ.pop("REFERENCE_STORE_TOKEN", None)
    # nothing listens on this port: RPC failure, not a crash
    assert s.setup("127.0.0.1", "", 0, 0, "tcp", "", f"127.0.0.1:{_free_port()}") == -911
    assert s.health_check() == 1


def test_dict_setup_pure_client_close_and_resetup(bare: Cluster) -> None:
    from reference_store.compat.mooncake import MooncakeDistributedStore

    owner = MooncakeDistributedStore()
    assert owner.setup({"local_hostname": "127.0.0.1", "global_segment_size": 8 << 20,
                        "master_server_addr": bare.address}) == 0
    pure = MooncakeDistributedStore()
    assert pure.setup("127.0.0.1", "", 0, 0, "tcp", "", bare.address) == 0
    assert pure.setup("127.0.0.1", "", 0, 0, "tcp", "", bare.address) == -600  # twice
    assert pure.put("dk", b"v" * 100) == 0 and owner.get("dk") == b"v" * 100
    assert pure.close() == 0 and pure.health_check() == 1
    assert pure.setup("127.0.0.1", "", 0, 0, "tcp", "", bare.address) == 0
    assert pure.get("dk") == b"v" * 100
    owner.close()  # the segment owner leaves: its objects become misses
    wait_until(lambda: pure.is_exist("dk") == 0, what="segment dropped after node ttl")
    assert pure.get("dk") == b"" and pure.put("dk2", b"x") == -200  # no segment left
    pure.close()


def test_health_check_reports_master_down() -> None:
    from reference_store.compat.mooncake import MooncakeDistributedStore

    with cluster(nodes=0) as c:
        s = MooncakeDistributedStore()
        assert s.setup("127.0.0.1", "", 0, 0, "tcp", "", c.address) == 0
        assert s.health_check() == 0
        c.master.kill9()
        assert s.health_check() == 2
        s.close()


if __name__ == "__main__" and len(sys.argv) >= 5 and sys.argv[1] == "scenario":
    result = scenario(sys.argv[2], sys.argv[3], sys.argv[4])
    print(json.dumps(result), flush=True)
    os._exit(0)  # skip interpreter teardown: Mooncake 0.3.13 may crash in its destructors


@pytest.mark.slow  # the refused segment waits out its registration timeout
def test_a_contributed_segment_proves_the_cluster_key(tmp_path: Path) -> None:
    """Against a master with a cluster key, a Mooncake script's segment joins with the key
    (``cluster_key=`` or ``$REFERENCE_STORE_CLUSTER_KEY``), and without it is refused."""
    from reference_store.compat.mooncake import MooncakeDistributedStore

    secret = "k" * 64
    key_file = tmp_path / "cluster.key"
    key_file.write_text(secret + "\n")
    with cluster(nodes=0, master_args=("--cluster-key-file", str(key_file))) as keyed:
        outsider = MooncakeDistributedStore()
        assert outsider.setup("127.0.0.1", "", 8 << 20, 0, "tcp", "", keyed.address) == -950
        owner = MooncakeDistributedStore()
        assert owner.setup({"local_hostname": "127.0.0.1", "global_segment_size": 8 << 20,
                            "master_server_addr": keyed.address, "cluster_key": secret}) == 0
        try:
            assert owner.put("keyed", b"v" * 100) == 0 and owner.get("keyed") == b"v" * 100
        finally:
            owner.close()
