"""Crash test: a forked child writing to the disk tier is killed with SIGKILL at random points.

After every kill the directory is reopened (index rebuilt) and checked:

* every object whose write the child acknowledged reads back intact, at the acknowledged
  version or the one write the child had in flight (an overwrite that got published but not
  acknowledged is complete, correct data);
* nothing else reads as data: every key in the rebuilt index carries exactly the bytes
  derived from (key, sequence number), which a torn or mixed file could not.

The child reports each acknowledgement through a pipe right after ``write`` returns; bytes in a
pipe survive the writer's death, so the parent reads every acknowledgement made before the kill.
"""

from __future__ import annotations

import hashlib
import os
import random
import signal
import struct
import time
from pathlib import Path

import pytest

from reference_store.tiers import byte_view
from reference_store.tiers.disk import DiskTier

KB = 1024
KEYS = 24
ROUNDS = 50
CAPACITY = 8 << 20


def _value(key_id: int, seq: int) -> bytes:
    head = struct.pack("<QI", seq, key_id)
    size = 1 + (seq * 7919) % (48 * KB)
    return head + hashlib.shake_128(head).digest(size)


def _child(root: Path, ack_fd: int, first_seq: int, seed: int) -> None:
    """Runs in the forked child; never returns."""
    try:
        tier = DiskTier(root, CAPACITY, fsync=True)
        rng = random.Random(seed)
        seq = first_seq
        while True:
            key_id = rng.randrange(KEYS)
            tier.write(f"key-{key_id}", byte_view(_value(key_id, seq)))
            os.write(ack_fd, struct.pack("<IQ", key_id, seq))  # 12 bytes: atomic on a pipe
            seq += 1
    finally:
        os._exit(0)


def _read_acks(fd: int, buffer: bytearray, until: float | None) -> None:
    """Append what the pipe holds to ``buffer``; with ``until`` None, read to EOF."""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            if until is None or time.monotonic() >= until:
                return
            time.sleep(0.0005)
            continue
        if not chunk:
            return
        buffer += chunk
        if until is not None:
            return


def _run_round(root: Path, first_seq: int, rng: random.Random) -> list[tuple[int, int]]:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read_fd)
        _child(root, write_fd, first_seq, rng.randrange(1 << 30))
    os.close(write_fd)
    os.set_blocking(read_fd, False)
    try:
        target = rng.randrange(0, 12)
        acks = bytearray()
        deadline = time.monotonic() + 20
        while len(acks) // 12 < target and time.monotonic() < deadline:
            _read_acks(read_fd, acks, time.monotonic() + 0.05)
        # land somewhere inside the next write (or just after it)
        spin_until = time.monotonic() + rng.random() * 0.004
        while time.monotonic() < spin_until:
            pass
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.set_blocking(read_fd, True)
    _read_acks(read_fd, acks, None)
    os.close(read_fd)
    assert len(acks) % 12 == 0, "a partial acknowledgement record in the pipe"
    return [struct.unpack_from("<IQ", acks, i) for i in range(0, len(acks), 12)]


def _verify(root: Path, acked: dict[int, int], in_flight: int) -> None:
    tier = DiskTier(root, CAPACITY, fsync=True, verify_on_open=True)
    try:
        present = {int(k.split("-")[1]): k for k in tier.keys()}  # noqa: SIM118
        assert set(acked) <= set(present), f"acknowledged keys missing: {set(acked) - set(present)}"
        for key_id, key in present.items():
            data = tier.read(key)
            seq, stored_id = struct.unpack_from("<QI", data)
            assert stored_id == key_id and data == _value(key_id, seq), f"{key} holds wrong bytes"
            assert seq == acked.get(key_id, -1) or seq == in_flight, (
                f"{key}: version {seq} is neither the acknowledged {acked.get(key_id)} nor in flight {in_flight}"
            )
        assert list((root / "tmp").iterdir()) == []
    finally:
        tier.close()


@pytest.mark.slow
def test_acknowledged_writes_survive_sigkill(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    acked: dict[int, int] = {}
    seq = 0
    total_acks = 0
    for _ in range(ROUNDS):
        acks = _run_round(tmp_path, seq, rng)
        for key_id, ack_seq in acks:
            acked[key_id] = ack_seq
        in_flight = seq + len(acks)  # the write the child was inside when it died
        _verify(tmp_path, acked, in_flight)
        # an unacknowledged but published write becomes the version to expect from now on
        probe = DiskTier(tmp_path, CAPACITY)
        for key in probe.keys():  # noqa: SIM118
            acked[int(key.split("-")[1])] = struct.unpack_from("<Q", probe.read(key))[0]
        probe.close()
        seq = in_flight + 1
        total_acks += len(acks)
    assert total_acks > ROUNDS  # the kills really landed between and inside writes
