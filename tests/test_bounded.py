"""Bounded resources (issue 17, findings 4 and 8): an announced payload is not allocated before
its bytes arrive, the master takes no payloads, a frame has a total deadline, connections and
their threads are capped, nested metadata and impossible sizes get clear error frames.

Real master and node processes; memory and threads are read from /proc."""

from __future__ import annotations

import json
import socket
import threading
import time
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from cluster_fixtures import Cluster, cluster, wait_until

from reference_store.errors import InvalidParams, ProtocolError
from reference_store.transport import protocol as p
from reference_store.transport.tcp import Connection

pytestmark = pytest.mark.slow

GiB, MiB = 1 << 30, 1 << 20
BUDGET = 64 * MiB  # the node's --payload-budget: what all announcements together may cost


@pytest.fixture(scope="module")
def c() -> Iterator[Cluster]:
    with cluster(nodes=1, memory="8MiB",
                 master_args=("--frame-timeout", "1.5", "--max-connections", "64"),
                 node_args=("--frame-timeout", "1.5", "--max-connections", "64",
                            "--no-prefault", "--payload-budget", "64MiB")) as cl:
        cl.wait_nodes(1)
        yield cl


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _threads(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/task").iterdir()))


def _header(op: int, meta: bytes, payload_len: int) -> bytes:
    return p.HEADER.pack(p.MAGIC, p.VERSION, 0, op, 0, 7, len(meta), payload_len,
                         zlib.crc32(meta), 0) + meta


def _connect(address: str) -> socket.socket:
    host, port = address.rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=10)


def _response(sock: socket.socket) -> tuple[p.Header, dict[str, object]]:
    raw = b""
    while len(raw) < p.HEADER_SIZE:
        chunk = sock.recv(p.HEADER_SIZE - len(raw))
        assert chunk, "closed without an answer"
        raw += chunk
    header = p.decode_header(raw)
    meta = b""
    while len(meta) < header.meta_len:
        meta += sock.recv(header.meta_len - len(meta))
    return header, json.loads(meta)


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        while sock.recv(65536):
            pass
        return True
    except TimeoutError:
        return False
    except OSError:
        return True


@pytest.mark.parametrize("role", ["master", "node"])
def test_a_1_gib_announcement_does_not_raise_rss(c: Cluster, role: str) -> None:
    proc = c.master if role == "master" else c.nodes[0]
    before = _rss(proc.popen.pid)
    socks = [_connect(proc.address) for _ in range(4)]
    try:
        for s in socks:
            s.sendall(_header(p.Op.PING, b"{}", GiB) + b"x" * 1000)
        time.sleep(0.5)
        grown = _rss(proc.popen.pid) - before
        assert grown < BUDGET, f"{role} RSS grew by {grown >> 20} MiB"
    finally:
        for s in socks:
            s.close()


def _send_frame(address: str, payload_len: int, send: int) -> bool:
    """Announce a PING with ``payload_len`` bytes and really send ``send`` of them; True when
    the server answered (or closed) before all of them went."""
    with _connect(address) as s:
        try:
            s.sendall(_header(p.Op.PING, b"{}", payload_len))
            chunk = b"x" * MiB
            for _ in range(send // MiB):
                s.sendall(chunk)
            s.settimeout(5)
            s.recv(1)  # an answer, or b"" when closed
        except TimeoutError:
            return False
        except OSError:
            pass
        return True


class _PeakRss:
    """The most a process's RSS grew over a baseline while the block ran (sampled)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.base, self.peak = pid, _rss(pid), 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, _rss(self.pid) - self.base)

    def __enter__(self) -> _PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def test_a_1_gib_frame_really_sent_is_refused_within_the_budget(c: Cluster) -> None:
    """More than the whole in-flight budget: refused with an error frame before any buffer,
    although the peer keeps sending (256 MiB of it)."""
    node = c.nodes[0]
    with _PeakRss(node.popen.pid) as rss:
        assert _send_frame(node.address, GiB, 256 * MiB)
    assert rss.peak < BUDGET, f"node RSS grew by {rss.peak >> 20} MiB"
    with _connect(node.address) as s:
        s.sendall(_header(p.Op.PING, b"{}", GiB))
        header, meta = _response(s)
        assert header.status == ProtocolError.code and "in-flight budget" in str(meta["error"])


def test_parallel_large_frames_share_one_budget(c: Cluster) -> None:
    """Sixteen connections each send a 32 MiB frame at once (512 MiB together, eight times the
    64 MiB budget): the node's RSS never grows by more than the budget (plus a little for
    threads), frames wait for room or time out, and the node serves afterwards."""
    node = c.nodes[0]
    with _PeakRss(node.popen.pid) as rss, ThreadPoolExecutor(16) as pool:
        done = list(pool.map(lambda _: _send_frame(node.address, 32 * MiB, 32 * MiB), range(16)))
    assert all(done)
    assert rss.peak < BUDGET + 16 * MiB, f"node RSS grew by {rss.peak >> 20} MiB"
    assert Connection(node.address, timeout=5).call(p.Op.PING, {}).meta["ok"]


def test_the_master_refuses_payloads_with_an_error_frame(c: Cluster) -> None:
    with _connect(c.address) as s:
        s.sendall(_header(p.Op.PING, b"{}", 10) + b"0123456789")
        header, meta = _response(s)
        assert header.status == ProtocolError.code and "payload" in str(meta["error"])
        assert _closed_within(s, 5)


def test_a_frame_has_a_total_deadline(c: Cluster) -> None:
    """A slow sender (a byte every 0.2 s) is cut off once the frame deadline (1.5 s) passes,
    although every single read gets data."""
    for proc in (c.master, c.nodes[0]):
        with _connect(proc.address) as s:
            frame = _header(p.Op.PING, json.dumps({"pad": "x" * 100}).encode(), 0)
            started = time.monotonic()
            closed = False
            for byte in frame:
                try:
                    s.sendall(bytes([byte]))
                except OSError:
                    closed = True
                    break
                if _closed_within(s, 0.2):
                    closed = True
                    break
            took = time.monotonic() - started
            assert closed and took < 4, f"{proc.address}: open after {took:.1f} s"


def test_idle_connections_hold_a_bounded_number_of_threads(c: Cluster) -> None:
    node = c.nodes[0]
    base = _threads(node.popen.pid)
    socks: list[socket.socket] = []
    try:
        for _ in range(1000):
            try:
                socks.append(_connect(node.address))
            except OSError:
                break
        time.sleep(1.0)
        threads = _threads(node.popen.pid)
        assert threads - base <= 2 * 64 + 4, f"{threads - base} threads for 1000 connections"
    finally:
        for s in socks:
            s.close()
    # and the node serves again once they are gone
    wait_until(lambda: Connection(node.address, timeout=2).call(p.Op.PING, {}).meta["ok"],
               timeout=10, what="node serving again")


@pytest.mark.parametrize("role", ["master", "node"])
def test_deeply_nested_metadata_gets_an_error_frame(c: Cluster, role: str) -> None:
    proc = c.master if role == "master" else c.nodes[0]
    meta = b'{"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with _connect(proc.address) as s:
        s.sendall(_header(p.Op.PING, meta, 0))
        header, body = _response(s)
        assert header.status == ProtocolError.code and "nested" in str(body["error"])
    assert not any("RecursionError" in line or "Traceback" in line for line in proc.lines)


def test_impossible_sizes_get_clear_errors(c: Cluster) -> None:
    master = Connection(c.address, timeout=5.0)
    node = Connection(c.nodes[0].address, timeout=5.0)
    try:
        master.call(p.Op.HELLO, {"tenant": "default"})
        for size, why in ((-5, "positive"), (1 << 62, "larger than")):
            result = master.call(p.Op.PUT_START, {"keys": ["k"], "sizes": [size]}).meta
            assert result["results"][0]["code"] == InvalidParams.code, size
            assert why in result["results"][0]["error"], result
        for not_int in (1.5, True):  # not an integer: the frame is refused, the field named
            with pytest.raises(InvalidParams, match="field sizes/0: expected int, got"):
                master.call(p.Op.PUT_START, {"keys": ["k"], "sizes": [not_int]})
        rec = {"object_id": 1 << 40, "ns": "", "tenant": "default", "key": "k", "grant": ""}
        reply = node.call(p.Op.NODE_RESERVE, {"objects": [{**rec, "size": -1}]}).meta
        assert reply["codes"] == [InvalidParams.code]
        reply = node.call(p.Op.NODE_RESERVE, {"objects": [{**rec, "size": 1 << 60}]}).meta
        assert reply["codes"] and reply["codes"][0] < 0
        with pytest.raises(InvalidParams, match="size"):
            node.call(p.Op.NODE_WRITE, {"objects": [{**rec, "size": -1}]}, [b""])
        # JSON's non-standard Infinity is refused as it is decoded
        with pytest.raises(ProtocolError, match="Infinity"):
            master.call(p.Op.PUT_START, {"keys": ["k"], "sizes": [float("inf")]})
    finally:
        master.close()
        node.close()
    assert not any("MemoryError" in line or "OverflowError" in line or "Traceback" in line
                   for proc in (c.master, *c.nodes) for line in proc.lines)
