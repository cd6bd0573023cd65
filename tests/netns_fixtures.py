"""A reference-store cluster spread over Linux network namespaces: one host per role.

Each role (master, node1, node2, client) gets its own network namespace with one veth link to a
bridge in a hub namespace, on 10.77.0.0/24. Nothing is added to the caller's own namespace, so
the only way between the roles is real TCP over those links. Names carry this process's pid and
a random tag: a crashed run cannot block the next one, and the next run deletes what a dead
process left behind. Processes run under ``ip netns exec`` and bind their namespace's address;
readiness comes from each process's READY line (a node prints it once registered) and from the
client's view of the master, polled with a deadline.

Client steps run on the client host through ``tests/netns_client.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cluster_fixtures import READY_TIMEOUT_S, Proc, wait_until

from replay.cluster import ChildProcess

__all__ = [
    "ROLES",
    "Hosts",
    "MultiHost",
    "hosts",
    "multihost",
    "netns_unavailable",
]

ROOT = Path(__file__).resolve().parents[1]
CLIENT_SCRIPT = Path(__file__).with_name("netns_client.py")
SUBNET = "10.77.0"
#: role -> last octet of its address
ROLES = {"master": 1, "node1": 2, "node2": 3, "client": 4}
_PREFIX = "kvmh"
_STALE = re.compile(rf"^{_PREFIX}(\d+)x[0-9a-f]+-")


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=20, check=False)
    if check and proc.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {proc.stderr.strip()}")
    return proc


def netns_unavailable() -> str | None:
    """Why network namespaces cannot be used here, or None when they can."""
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns add); this run is not root"
    if shutil.which("ip") is None:
        return "iproute2's ip command is not installed"
    probe = f"{_PREFIX}{os.getpid()}x{secrets.token_hex(3)}-probe"
    made = _ip("netns", "add", probe, check=False)
    if made.returncode != 0:
        return f"ip netns add fails here: {made.stderr.strip()}"
    _ip("netns", "del", probe, check=False)
    return None


def _sweep_stale() -> None:
    """Delete namespaces left by runs whose process is gone, and stop what still runs there."""
    listing = _ip("netns", "list", check=False).stdout
    for line in listing.splitlines():
        name = line.split()[0] if line.split() else ""
        m = _STALE.match(name)
        if m and not Path(f"/proc/{m.group(1)}").exists():
            _delete(name)


def _delete(ns: str) -> None:
    """SIGKILL what still runs in ``ns`` (only this fixture's runs start processes there), then
    delete it with its links."""
    for pid in _ip("netns", "pids", ns, check=False).stdout.split():
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)
    _ip("netns", "del", ns, check=False)


@dataclass
class Hosts:
    """The namespaces of one run: ``ns[role]`` and ``addr[role]``."""

    tag: str
    ns: dict[str, str] = field(default_factory=dict)
    addr: dict[str, str] = field(default_factory=dict)

    def prefix(self, role: str) -> list[str]:
        """The command prefix that runs a program on ``role``'s host."""
        return ["ip", "netns", "exec", self.ns[role]]

    def rx_bytes(self, role: str) -> int:
        """Bytes received on ``role``'s link so far (the kernel's counter for its veth)."""
        out = subprocess.run([*self.prefix(role), "cat", "/sys/class/net/eth0/statistics/rx_bytes"],
                             capture_output=True, text=True, timeout=20, check=True).stdout
        return int(out.strip())


@contextmanager
def hosts() -> Iterator[Hosts]:
    """Create a hub with a bridge and one namespace per role, linked to it; always delete them."""
    _sweep_stale()
    h = Hosts(tag=f"{_PREFIX}{os.getpid()}x{secrets.token_hex(3)}")
    hub = f"{h.tag}-hub"
    made = [hub]
    try:
        _ip("netns", "add", hub)
        _ip("-n", hub, "link", "add", "br0", "type", "bridge")
        _ip("-n", hub, "link", "set", "br0", "up")
        for i, (role, octet) in enumerate(ROLES.items()):
            ns = f"{h.tag}-{role}"
            _ip("netns", "add", ns)
            made.append(ns)
            _ip("link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", f"p{i}",
                "netns", hub)
            _ip("-n", hub, "link", "set", f"p{i}", "master", "br0", "up")
            _ip("-n", ns, "addr", "add", f"{SUBNET}.{octet}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            h.ns[role], h.addr[role] = ns, f"{SUBNET}.{octet}"
        yield h
    finally:
        for ns in reversed(made):  # a test that failed half-way may have left a process
            _delete(ns)


TENANTS = """\
version: 1
isolation: strict
admin_token_env: STORE_ADMIN_TOKEN
tenants:
  - name: default
    token_env: REFERENCE_STORE_TOKEN
"""


@dataclass
class MultiHost:
    """Store processes on the hosts of :func:`hosts`; clients act from the client host.

    Unless ``secure`` is off, the master has one tenant (``default``, whose token clients read
    from ``REFERENCE_STORE_TOKEN``), an admin token for fsck, and a cluster key shared with the
    nodes.
    """

    hosts: Hosts
    tmp: Path
    node_memory: str = "64MiB"
    master: Proc | None = None
    nodes: dict[str, Proc] = field(default_factory=dict)
    port: int = 0
    secrets: dict[str, str] = field(default_factory=dict)
    secure: bool = True

    def __post_init__(self) -> None:
        self.secrets = {"REFERENCE_STORE_TOKEN": secrets.token_hex(16),
                        "STORE_ADMIN_TOKEN": secrets.token_hex(16)}
        (self.tmp / "cluster.key").write_text(secrets.token_hex(32))
        (self.tmp / "tenants.yaml").write_text(TENANTS)

    @property
    def address(self) -> str:
        assert self.master is not None
        return self.master.address

    def _store(self, role: str, args: list[str], env: dict[str, str] | None = None) -> Proc:
        return ChildProcess("reference_store", ["--log-level", "WARNING", *args], cwd=ROOT, env=env,
                            timeout_s=READY_TIMEOUT_S, wait=False, prefix=self.hosts.prefix(role))

    def client_prefix(self, host: str = "client") -> list[str]:
        """Runs a program on ``host`` with the tenant's token in its environment."""
        token = self.secrets["REFERENCE_STORE_TOKEN"]
        return [*self.hosts.prefix(host), "env", f"REFERENCE_STORE_TOKEN={token}"]

    def _secured(self, master: bool) -> list[str]:
        if not self.secure:
            return []
        key = ["--cluster-key-file", str(self.tmp / "cluster.key")]
        return ["--tenants", str(self.tmp / "tenants.yaml"), *key] if master else key

    def start_master(self) -> Proc:
        """Start the master on its host (the same port as before after a restart)."""
        self.master = self._store("master", [
            "master", "--host", self.hosts.addr["master"], "--port", str(self.port),
            "--metrics-host", self.hosts.addr["master"], "--metrics-port", "0", "--node-ttl", "1.5", *self._secured(True)], env=self.secrets)
        self.master.wait_ready()
        self.port = int(self.address.rsplit(":", 1)[1])
        return self.master

    def launch_node(self, role: str) -> Proc:
        """Start a node on ``role``'s host; it streams over TCP only (``--no-shm``)."""
        proc = self._store(role, [
            "node", "--master", self.address, "--host", self.hosts.addr[role], "--no-shm",
            "--memory", self.node_memory, "--heartbeat", "0.2", "--no-prefault",
            *self._secured(False)])
        self.nodes[role] = proc
        return proc

    def start_node(self, role: str) -> Proc:
        proc = self.launch_node(role)
        proc.wait_ready()  # printed once registered with the master
        return proc

    def restart_master(self) -> None:
        """kill -9 the master and start a new one on the same host and port."""
        assert self.master is not None
        self.master.kill9()
        wait_until(self.start_master, what="master restart on the same port")

    def client(self, cmd: str, host: str = "client", **kwargs: Any) -> dict[str, Any]:
        """Run one client step on ``host``; its JSON result."""
        args = [*self.client_prefix(host), sys.executable, str(CLIENT_SCRIPT), cmd,
                json.dumps({"master": self.address, **kwargs})]
        proc = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=ROOT,
                              check=False)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        if proc.returncode != 0 or not lines:
            raise RuntimeError(f"client {cmd} failed (rc {proc.returncode}): "
                               f"{proc.stderr[-3000:]}")
        result: dict[str, Any] = json.loads(lines[-1])
        return result

    def wait_nodes(self, count: int) -> None:
        """Wait until the client, from its host, sees ``count`` nodes registered."""
        self.client("wait_nodes", count=count, timeout=READY_TIMEOUT_S)

    def fsck(self) -> subprocess.CompletedProcess[str]:
        """``reference-store fsck`` from the client host (the admin endpoint binds ``--metrics-host``)."""
        assert self.master is not None
        admin = self.secrets["STORE_ADMIN_TOKEN"]
        return subprocess.run(
            [*self.hosts.prefix("client"), "env", f"STORE_ADMIN_TOKEN={admin}", sys.executable,
             "-m", "reference_store", "fsck", "--metrics",
             f"{self.hosts.addr['master']}:{self.master.ready[4]}"],
            capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)

    def stop(self) -> None:
        procs = [*self.nodes.values(), *([self.master] if self.master else [])]
        for p in procs:  # signal all first, then wait: shutdowns overlap
            if p.popen.poll() is None:
                p.popen.terminate()
        for p in procs:
            p.stop()


@contextmanager
def multihost(h: Hosts, tmp: Path, nodes: tuple[str, ...] = ("node1", "node2"),
              node_memory: str = "64MiB", secure: bool = True) -> Iterator[MultiHost]:
    """A master and ``nodes`` on their hosts (``secure=False``: open mode, no tenants and no
    cluster key); always stopped."""
    mh = MultiHost(h, tmp, node_memory=node_memory, secure=secure)
    try:
        mh.start_master()
        for proc in [mh.launch_node(role) for role in nodes]:  # start in parallel
            proc.wait_ready()
        yield mh
    finally:
        mh.stop()
