"""Serving instances (and, if asked, a reference-store cluster) as real local processes.

Every child prints one ``READY ...`` line when it serves; we wait for that line with a deadline
(never a fixed sleep) and always stop the children, even when the replay fails.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx

from replay.config import Arm, ReplayConfig
from replay.replayer import HttpBackend
from replay.trace import Trace

__all__ = [
    "READY_TIMEOUT_S",
    "ChildProcess",
    "run_with_processes",
    "serving_instances",
    "spawn",
    "store_cluster",
]

READY_TIMEOUT_S = 60.0
logger = logging.getLogger(__name__)


class ChildProcess:
    """A child started with ``python -m MODULE ARGS``; ``ready`` is its READY line's words.

    ``env`` adds to this process's environment; ``lines`` collects the child's output.
    ``prefix`` runs the interpreter through a command that must exec it in place, so that
    ``popen.pid`` is the child's own (e.g. ``["ip", "netns", "exec", NS]``).
    """

    def __init__(self, module: str, args: Sequence[str], *,
                 timeout_s: float = READY_TIMEOUT_S, wait: bool = True,
                 env: Mapping[str, str] | None = None, cwd: str | Path | None = None,
                 prefix: Sequence[str] = ()) -> None:
        full_env = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))
        self.popen = subprocess.Popen([*prefix, sys.executable, "-m", module, *args],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True, env=full_env, cwd=cwd)
        self.lines: list[str] = []
        self._q: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.module, self.timeout_s = module, timeout_s
        self.ready: list[str] = []
        if wait:
            self.wait_ready()

    def wait_ready(self) -> list[str]:
        """Block until the READY line (or raise RuntimeError after the deadline)."""
        if not self.ready:
            self.ready = self._wait_ready(self.module, self.timeout_s)
        return self.ready

    def _pump(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self.lines.append(line.rstrip("\n"))
            self._q.put(line)
        self._q.put(None)

    def _wait_ready(self, module: str, timeout_s: float) -> list[str]:
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._q.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            if line.startswith("READY"):
                return line.split()
        self.stop()
        tail = "\n".join(self.lines[-15:])
        raise RuntimeError(f"{module} did not become ready within {timeout_s:.0f} s:\n{tail}")

    @property
    def address(self) -> str:
        """The HOST:PORT a store process announces in its READY line."""
        return self.ready[2]

    def kill9(self) -> None:
        """SIGKILL, as a crash would; safe to call twice."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGKILL)
        self.popen.wait(timeout=10)

    def stop(self) -> None:
        """Terminate (then kill after 5 s); safe to call twice."""
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=5)
        if self.popen.stdout is not None:
            self.popen.stdout.close()


def spawn(stack: ExitStack, module: str, args: Sequence[str], *,
          wait: bool = True) -> ChildProcess:
    """Start a child whose stop is registered on ``stack``."""
    child = ChildProcess(module, args, wait=wait)
    stack.callback(child.stop)
    return child


class StoreCluster:
    """A reference-store master and one node on loopback that can be restarted mid-run.

    The master keeps its port across a restart (clients reconnect to the same address); a
    restarted node comes back empty, as a crashed cache node does.
    """

    def __init__(self, stack: ExitStack, memory_bytes: int) -> None:
        self._stack, self.memory_bytes = stack, memory_bytes
        self.master = self._start_master("0")
        self.address = self.master.ready[2]
        self.node = self._start_node()

    def _start_master(self, port: str) -> ChildProcess:
        return spawn(self._stack, "reference_store",
                     ["--log-level", "WARNING", "master", "--port", port])

    def _start_node(self) -> ChildProcess:
        return spawn(self._stack, "reference_store",
                     ["--log-level", "WARNING", "node", "--master", self.address,
                      "--memory", str(self.memory_bytes)])

    def restart_master(self) -> None:
        """Stop the master and start it again on the same port."""
        self.master.stop()
        self.master = self._start_master(self.address.rsplit(":", 1)[1])

    def restart_node(self) -> None:
        """Stop the node (its objects are lost) and start an empty one."""
        self.node.stop()
        self.node = self._start_node()


@contextmanager
def store_cluster(memory_bytes: int) -> Iterator[StoreCluster]:
    """A :class:`StoreCluster`, stopped on exit; ``.address`` is the master's."""
    with ExitStack() as stack:
        yield StoreCluster(stack, memory_bytes)


@contextmanager
def serving_instances(cfg: ReplayConfig, arm: Arm, store_master: str | None) -> Iterator[list[str]]:
    """Start ``arm.instances.count`` completion servers; yields their base URLs."""
    from replay.runner import model_config
    model_json = json.dumps(asdict(model_config(cfg)))
    with ExitStack() as stack:
        children = []
        for i in range(arm.instances.count):
            args = ["--port", "0", "--name", f"instance{i}", "--model-json", model_json,
                    "--local-cache-blocks", str(arm.instances.local_cache_blocks),
                    "--isolation", arm.instances.isolation]
            if store_master:
                args += ["--store-master", store_master, "--store-data-path",
                         arm.store.data_path]
            if cfg.model.torch_threads:
                args += ["--torch-threads", str(cfg.model.torch_threads)]
            # all start at once: their imports overlap instead of queueing
            children.append(spawn(stack, "replay.server", args, wait=False))
        yield [f"http://127.0.0.1:{c.wait_ready()[1]}" for c in children]


def _local_counters(urls: Sequence[str]) -> tuple[int, int]:
    """Local-cache inserts and evictions summed over the instances that still answer (a dead
    instance counts nothing: its requests fail and are recorded, the run goes on)."""
    inserted = evicted = 0
    for u in urls:
        try:
            local = httpx.get(f"{u}/stats", timeout=10).json()["local"]
        except httpx.HTTPError as exc:
            logger.warning("%s: no local-cache counters: %s", u, exc)
            continue
        inserted += local["inserted"]
        evicted += local["evicted"]
    return inserted, evicted


def run_with_processes(cfg: ReplayConfig, arm: Arm, trace: Trace,
                       run_async: Callable[..., Any]) -> tuple[Any, tuple[int, int]]:
    """Run one arm against server processes (and a store cluster for ``distributed``/auto)."""
    with ExitStack() as stack:
        master, cluster = None, None
        if arm.store.mode == "distributed":
            master = arm.store.address
            if master == "auto":
                cluster = stack.enter_context(store_cluster(arm.store.host_bytes))
                master = cluster.address
        urls = stack.enter_context(serving_instances(cfg, arm, master))
        backend = HttpBackend(urls, model=cfg.model.name)
        return asyncio.run(run_async(cfg, arm, trace, backend, lambda: _local_counters(urls),
                                     cluster))
