"""Start a reference-store cluster as real processes on loopback, and always stop it.

Processes print one ``READY ...`` line once they serve; readiness is polled from that line and
then from the master's own view (nodes registered), each with a deadline, never a fixed sleep.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reference_store.client import StoreClient
from replay.cluster import ChildProcess

__all__ = [
    "READY_TIMEOUT_S",
    "Cluster",
    "Proc",
    "cluster",
    "expected_value",
    "run_worker",
    "spawn_worker",
    "start_master",
    "start_node",
    "wait_until",
    "worker_result",
]

READY_TIMEOUT_S = 30.0
ROOT = Path(__file__).resolve().parents[1]


def wait_until(predicate: Callable[[], Any], *, timeout: float = READY_TIMEOUT_S,
               interval: float = 0.05, what: str = "condition") -> Any:
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last_exc: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception as exc:  # noqa: BLE001 - keep polling until the deadline
            last_exc = exc
        time.sleep(interval)
    raise TimeoutError(f"{what} not reached within {timeout:.0f} s (last error: {last_exc})")


#: A store process (master or node) with its READY line parsed and its output captured.
Proc = ChildProcess


def _launch(args: list[str], env: dict[str, str] | None = None,
            log_level: str = "WARNING") -> Proc:
    """Start ``python -m reference_store ARGS`` without waiting for it to be ready."""
    return ChildProcess("reference_store", ["--log-level", log_level, *args], env=env, cwd=ROOT,
                        timeout_s=READY_TIMEOUT_S, wait=False)


def _spawn(args: list[str], env: dict[str, str] | None = None, log_level: str = "WARNING") -> Proc:
    proc = _launch(args, env, log_level)
    proc.wait_ready()
    return proc


def start_master(*extra: str, port: int = 0, env: dict[str, str] | None = None,
                 log_level: str = "WARNING") -> Proc:
    """Start a master on 127.0.0.1 (a free port unless ``port``); returns once it serves."""
    return _spawn(["master", "--port", str(port), "--metrics-port", "0", *extra], env, log_level)


def start_node(master: str, memory: str = "64MiB", *extra: str) -> Proc:
    """Start a storage node that registers with ``master``."""
    return _spawn(["node", "--master", master, "--memory", memory, "--heartbeat", "0.2", *extra])


@dataclass
class Cluster:
    master: Proc
    nodes: list[Proc]
    master_args: tuple[str, ...] = ()
    env: dict[str, str] | None = None
    log_level: str = "WARNING"
    clients: list[StoreClient] = field(default_factory=list)

    @property
    def address(self) -> str:
        return self.master.address

    @property
    def metrics_port(self) -> int:
        return int(self.master.ready[4])

    def client(self, **kwargs: Any) -> StoreClient:
        c = StoreClient(self.address, timeout=10.0, **kwargs)
        self.clients.append(c)
        return c

    def wait_nodes(self, count: int, client: StoreClient | None = None) -> None:
        """Wait until the master lists ``count`` nodes."""
        probe = client or self.client()
        wait_until(lambda: probe.stats()["node_count"] == count, what=f"{count} nodes registered")

    def restart_master(self) -> None:
        """kill -9 the master and start a new one on the same port."""
        port = int(self.address.rsplit(":", 1)[1])
        self.master.kill9()
        self.master = wait_until(lambda: start_master(*self.master_args, port=port, env=self.env,
                                                          log_level=self.log_level),
                                 what="master restart on the same port")

    def stop(self) -> None:
        for c in self.clients:
            c.close()
        procs = [*self.nodes, self.master]
        for p in procs:  # signal all first, then wait: shutdowns overlap
            if p.popen.poll() is None:
                p.popen.terminate()
        for p in procs:
            p.stop()


@contextmanager
def cluster(nodes: int = 2, memory: str = "64MiB", master_args: tuple[str, ...] = (),
            env: dict[str, str] | None = None, node_args: tuple[str, ...] = (),
            log_level: str = "WARNING") -> Iterator[Cluster]:
    """A master and ``nodes`` storage nodes, all real processes; everything stopped on exit."""
    master = start_master("--node-ttl", "1.5", *master_args, env=env, log_level=log_level)
    c = Cluster(master, [], master_args=("--node-ttl", "1.5", *master_args), env=env,
                log_level=log_level)
    try:
        args = ["node", "--master", master.address, "--memory", memory, "--heartbeat", "0.2",
                *node_args]
        launched = [_launch(args) for _ in range(nodes)]  # start in parallel: imports are slow
        c.nodes.extend(launched)  # so that teardown stops them all
        for proc in launched:
            proc.wait_ready()
        yield c
    finally:
        c.stop()


# --------------------------------------------------------------------------------------------
# a client workload run as a separate process: ``python tests/cluster_fixtures.py worker ...``


def expected_value(key: str, size: int) -> bytes:
    """The only bytes ``key`` may ever hold in the workloads: derived from the key itself."""
    import hashlib

    seed = hashlib.sha256(key.encode()).digest()
    return (seed * (size // len(seed) + 1))[:size]


def run_worker(master: str, name: str, rounds: int, size: int, peers: list[str],
               stop_file: str | None = None) -> dict[str, int]:
    """Put own keys, read own and peers' keys; count hits, misses, errors and WRONG bytes.
    The tenant token, where the master has tenants, comes from ``REFERENCE_STORE_TOKEN``."""
    from reference_store.errors import StoreError

    counts = {"puts": 0, "put_errors": 0, "hits": 0, "misses": 0, "read_errors": 0, "wrong": 0}
    client = StoreClient(master, timeout=10.0, token=os.environ.get("REFERENCE_STORE_TOKEN"))
    buf = bytearray(size)
    try:
        for i in range(rounds):
            if stop_file and os.path.exists(stop_file):
                break
            key = f"{name}/{i}"
            errs = client.batch_put([key], [expected_value(key, size)])
            counts["puts" if errs[0] is None else "put_errors"] += 1
            for reader in [name, *peers]:
                probe = f"{reader}/{i // 2}"
                result = client.batch_get_into([probe], [buf])[0]
                if isinstance(result, StoreError):
                    counts["misses" if result.code == -704 else "read_errors"] += 1
                elif bytes(buf[:result]) != expected_value(probe, size):
                    counts["wrong"] += 1
                else:
                    counts["hits"] += 1
    finally:
        client.close()
    return counts


def spawn_worker(master: str, name: str, rounds: int, size: int, peers: list[str],
                 stop_file: str | None = None,
                 prefix: Sequence[str] = ()) -> subprocess.Popen[str]:
    """Start :func:`run_worker` in a child process; it prints one JSON line of counts.
    ``prefix`` runs it through a command such as ``ip netns exec NS``."""
    args = [*prefix, sys.executable, str(Path(__file__)), "worker", master, name, str(rounds), str(size),
            ",".join(peers), stop_file or ""]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)


def worker_result(popen: subprocess.Popen[str], timeout: float = 120.0) -> dict[str, int]:
    import json

    out, err = popen.communicate(timeout=timeout)
    if popen.returncode != 0:
        raise RuntimeError(f"worker failed ({popen.returncode}): {err[-2000:]}")
    return json.loads(out.strip().splitlines()[-1])


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "worker":
    import json

    _, _, m, n, r, s, peers_arg, stop = sys.argv[:8]
    result = run_worker(m, n, int(r), int(s), [x for x in peers_arg.split(",") if x], stop or None)
    print(json.dumps(result), flush=True)
