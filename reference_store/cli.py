"""``reference-store``: run a master or a storage node of the reference store.

Exit codes: 0 clean stop, 1 the node could not register (master unreachable within
``--master-timeout``, or it refused the node), 2 usage or input error (bad size, unreadable
tenants file, impossible arguments).
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import signal
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

from pydantic import SecretStr

from reference_store.config import (
    DEFAULT_FRAME_TIMEOUT_S,
    DEFAULT_HEARTBEAT_S,
    DEFAULT_HIGH_WATERMARK,
    DEFAULT_LEASE_TTL_S,
    DEFAULT_LOW_WATERMARK,
    DEFAULT_MASTER_TIMEOUT_S,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_NODE_TTL_S,
    DEFAULT_PUT_TIMEOUT_S,
    parse_size,
)
from reference_store.errors import InvalidParams, StoreError
from reference_store.master import Master, MasterConfig
from reference_store.metrics import MetricsServer
from reference_store.node import Node, NodeConfig
from reference_store.tenants import ClusterKey, TenantPolicy
from reference_store.transport.budget import DEFAULT_PAYLOAD_BUDGET

__all__ = ["build_parser", "main"]

logger = logging.getLogger(__name__)

SIZE_UNITS = "KB/MB/GB/TB are powers of 1000, KiB/MiB/GiB/TiB powers of 1024"

MASTER_EXAMPLE = """example:
  reference-store master --port 50051 --tenants tenants.yaml --state-dir /var/lib/refstore \\
      --metrics-port 9003
  curl http://127.0.0.1:9003/health"""

NODE_EXAMPLE = """example:
  reference-store node --master 127.0.0.1:50051 --memory 2GiB --disk /mnt/nvme/refstore \\
      --disk-size 20GiB
example, also offering the arena over Mooncake's Transfer Engine (RDMA NIC mlx5_0):
  reference-store node --master 10.0.0.1:50051 --memory 64GiB --advertise-host 10.0.0.7 \\
      --te-metadata http://10.0.0.1:8080/metadata --te-protocol rdma --te-device mlx5_0"""


FSCK_EXAMPLE = """example:
  STORE_ADMIN_TOKEN=... reference-store fsck --metrics 127.0.0.1:9003
exit 0: the master's table and the nodes agree; 1: differences (listed); 2: not reachable"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reference-store", description="Run a reference-store master or storage node.",
        epilog=f"{MASTER_EXAMPLE}\n{NODE_EXAMPLE}\n{FSCK_EXAMPLE}", formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log-level", default="INFO", help="logging level (default INFO)")
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("master", help="metadata server (no object bytes pass through it)",
                       epilog=MASTER_EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    m.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    m.add_argument("--port", type=int, required=True, help="RPC port (0: pick a free one)")
    m.add_argument("--tenants", help="tenants policy YAML (default: one open namespace)")
    m.add_argument("--state-dir", help="directory for state that must survive restarts")
    m.add_argument("--metrics-port", type=int, help="HTTP port for /metrics, /health and admin")
    m.add_argument("--metrics-host", default="127.0.0.1",
                   help="address of that HTTP server (default 127.0.0.1, whatever --host is: the "
                   "admin endpoint stays off the network unless you put it there)")
    m.add_argument("--lease-ttl", type=float, default=DEFAULT_LEASE_TTL_S,
                   help=f"read lease seconds ({DEFAULT_LEASE_TTL_S:g})")
    m.add_argument("--put-timeout", type=float, default=DEFAULT_PUT_TIMEOUT_S,
                   help="seconds before an unfinished put may be taken over "
                        f"({DEFAULT_PUT_TIMEOUT_S:g})")
    m.add_argument("--node-ttl", type=float, default=DEFAULT_NODE_TTL_S,
                   help=f"seconds without heartbeat before a node is dropped ({DEFAULT_NODE_TTL_S:g})")
    m.add_argument("--frame-timeout", type=float, default=DEFAULT_FRAME_TIMEOUT_S,
                   help=f"seconds a peer may take to finish sending a frame ({DEFAULT_FRAME_TIMEOUT_S:g})")
    m.add_argument("--max-connections", type=int, default=DEFAULT_MAX_CONNECTIONS,
                   help=f"connections served at once; more are closed ({DEFAULT_MAX_CONNECTIONS})")
    m.add_argument("--cluster-key-file",
                   help="secret shared with the nodes: object grants and node registration")
    m.add_argument("--high-watermark", type=float, default=DEFAULT_HIGH_WATERMARK,
                   help="background eviction starts above this fraction of capacity "
                        f"({DEFAULT_HIGH_WATERMARK:g})")
    m.add_argument("--low-watermark", type=float, default=DEFAULT_LOW_WATERMARK,
                   help=f"background eviction stops below this fraction ({DEFAULT_LOW_WATERMARK:g})")
    f = sub.add_parser("fsck", help="compare the master's object table with every node",
                       epilog=FSCK_EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    f.add_argument("--metrics", required=True, metavar="HOST:PORT",
                   help="the master's metrics/admin address (its --metrics-port)")
    f.add_argument("--admin-token-env", default="STORE_ADMIN_TOKEN", metavar="VAR",
                   help="environment variable holding the admin token (STORE_ADMIN_TOKEN)")
    n = sub.add_parser("node", help="storage node (holds object bytes)", epilog=NODE_EXAMPLE,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    n.add_argument("--master", required=True, help="master address HOST:PORT")
    n.add_argument("--memory", required=True,
                   help=f"host memory to contribute, e.g. 2GiB ({SIZE_UNITS})")
    n.add_argument("--disk", help="directory for the disk tier")
    n.add_argument("--disk-size", default="0", help="disk tier size, e.g. 20GiB (needs --disk)")
    n.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    n.add_argument("--port", type=int, default=0, help="data port (default: a free one)")
    n.add_argument("--advertise-host", help="host clients use to reach this node")
    n.add_argument("--max-connections", type=int, default=DEFAULT_MAX_CONNECTIONS,
                   help=f"connections served at once; more are closed ({DEFAULT_MAX_CONNECTIONS})")
    n.add_argument("--payload-budget", default=str(DEFAULT_PAYLOAD_BUDGET >> 20) + "MiB",
                   metavar="SIZE",
                   help="payload buffers all connections may hold at once; a larger frame is "
                        "refused, others wait for room (default %(default)s; writes received "
                        "straight into the arena take none)")
    n.add_argument("--cluster-key-file", help="the master's cluster key (same file)")
    n.add_argument("--cluster-key-env", metavar="VAR",
                   help="read the cluster key from environment variable VAR instead")
    n.add_argument("--no-prefault", action="store_true",
                   help="do not touch the memory arena at start (faster start, slower first writes)")
    n.add_argument("--no-shm", action="store_true",
                   help="do not offer the memory arena to clients on this machine as shared "
                        "memory (they then stream bytes over TCP)")
    n.add_argument("--te-metadata",
                   help="offer the arena over Mooncake's Transfer Engine, with this metadata "
                        "server (e.g. http://HOST:8080/metadata from mooncake_master "
                        "--enable_http_metadata_server=true)")
    n.add_argument("--te-hostname",
                   help="the engine's segment name (default: --advertise-host or --host)")
    n.add_argument("--te-protocol", default="tcp", choices=("tcp", "rdma"),
                   help="Transfer Engine protocol (default tcp)")
    n.add_argument("--te-device", default="", help="RDMA NIC(s) for --te-protocol rdma")
    n.add_argument("--master-timeout", type=float, default=DEFAULT_MASTER_TIMEOUT_S,
                   help="seconds to keep retrying an unreachable master at start, with "
                        f"backoff, before exiting 1 ({DEFAULT_MASTER_TIMEOUT_S:g})")
    n.add_argument("--heartbeat", type=float, default=DEFAULT_HEARTBEAT_S,
                   help=f"heartbeat seconds ({DEFAULT_HEARTBEAT_S:g})")
    n.add_argument("--frame-timeout", type=float, default=DEFAULT_FRAME_TIMEOUT_S,
                   help=f"seconds a peer may take to finish sending a frame ({DEFAULT_FRAME_TIMEOUT_S:g})")
    return parser


def _catch_stop_signals() -> threading.Event:
    """An event SIGINT and SIGTERM set, installed before READY so that a stop signal that
    arrives right after it still ends the process cleanly (a node says goodbye)."""
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop


def _run_master(args: argparse.Namespace) -> int:
    stop = _catch_stop_signals()
    policy = TenantPolicy.from_file(args.tenants) if args.tenants else TenantPolicy.open_policy()
    master = Master(MasterConfig(
        host=args.host, port=args.port, lease_ttl_s=args.lease_ttl, put_timeout_s=args.put_timeout,
        node_ttl_s=args.node_ttl, frame_timeout_s=args.frame_timeout, state_dir=args.state_dir,
        max_connections=args.max_connections,
        high_watermark=args.high_watermark, low_watermark=args.low_watermark,
    ), policy, _master_key(args, policy))
    server = master.serve()
    gc.freeze()  # start-up objects (torch is imported by the package) leave the GC's scans
    http = None
    if args.metrics_port is not None:
        http = MetricsServer(master, host=args.metrics_host, port=args.metrics_port).start()
    # One parseable line so that scripts can learn the ports chosen for port 0.
    print(f"READY master {server.address} metrics {http.port if http else '-'}", flush=True)
    stop.wait()
    if http:
        http.stop()
    master.stop()
    return 0


def _master_key(args: argparse.Namespace, policy: TenantPolicy) -> ClusterKey:
    """``--cluster-key-file``, else the key the tenants file names, else none."""
    if args.cluster_key_file:
        return ClusterKey.from_file(args.cluster_key_file)
    return policy.cluster_key or ClusterKey(None)


def _env_secret(var: str | None, flag: str) -> SecretStr | None:
    if var is None:
        return None
    if not os.environ.get(var):
        raise InvalidParams(f"{flag}: environment variable {var} is not set")
    return SecretStr(os.environ[var])


def _engine_config(args: argparse.Namespace) -> Any:
    if not args.te_metadata:
        return None
    from reference_store.transport.transfer_engine import EngineConfig

    return EngineConfig(local_hostname=args.te_hostname or args.advertise_host or args.host,
                        metadata_server=args.te_metadata, protocol=args.te_protocol,
                        device_name=args.te_device)


def _run_node(args: argparse.Namespace) -> int:
    stop = _catch_stop_signals()
    node = Node(NodeConfig(
        master=args.master, memory_bytes=parse_size(args.memory, field="--memory"),
        disk_dir=args.disk, disk_bytes=parse_size(args.disk_size, field="--disk-size"),
        host=args.host, port=args.port, advertise_host=args.advertise_host,
        heartbeat_s=args.heartbeat, frame_timeout_s=args.frame_timeout,
        max_connections=args.max_connections,
        payload_budget_bytes=parse_size(args.payload_budget, field="--payload-budget"),
        prefault=not args.no_prefault, cluster_key_file=args.cluster_key_file,
        cluster_key=_env_secret(args.cluster_key_env, "--cluster-key-env"),
        share_memory=not args.no_shm, transfer_engine=_engine_config(args),
    ))
    node.serve()
    try:
        node.wait_registered(args.master_timeout, cancel=stop)
    except StoreError as exc:
        node.stop()
        if stop.is_set():  # stopped on purpose before it registered
            return 0
        print(f"reference-store node: error: {exc}", file=sys.stderr)
        return 1
    gc.freeze()
    # READY only once registered: a script that waits for it can use the node at once.
    print(f"READY node {node.address} id {node.node_id}", flush=True)
    stop.wait()
    node.stop()
    return 0


def _run_fsck(args: argparse.Namespace) -> int:
    token = os.environ.get(args.admin_token_env, "")
    req = urllib.request.Request(f"http://{args.metrics}/api/v1/fsck",
                                 headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            report = json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        detail = json.loads(exc.read() or b"{}").get("error", exc.reason)
        raise InvalidParams(f"the master refused fsck ({exc.code}): {detail}") from None
    except (OSError, ValueError) as exc:
        raise InvalidParams(f"cannot reach the master at {args.metrics}: {exc}") from None
    print(f"{report['nodes']} node(s), {report['objects']} object(s): "
          f"{len(report['missing'])} missing, {len(report['orphans'])} orphaned, "
          f"{len(report['unreachable'])} node(s) unreachable")
    for item in report["missing"]:
        print(f"missing  node {item['node']}  object {item['object_id']}  key {item['key']!r}")
    for item in report["orphans"]:
        print(f"orphan   node {item['node']}  object {item['object_id']}")
    for item in report["unreachable"]:
        print(f"unreachable  node {item['node']}: {item['error']}")
    return 0 if report["ok"] else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``reference-store`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        run = {"master": _run_master, "node": _run_node, "fsck": _run_fsck}[args.command]
        return run(args)
    except StoreError as exc:
        print(f"reference-store {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"reference-store {args.command}: error: {exc}", file=sys.stderr)
        return 2
