"""The client's reads: locate with a lease, then read each object from one replica.

``LOCATE`` (one master call per batch) gives each object's id, size, replicas (a suspect one
last), a read grant and a lease. Each round then reads every object still to do from its next
replica not yet tried and not suspect (:meth:`Links.suspects
<reference_store.client.links.Links.suspects>`), one node's share at a time:

- one-sided, where the node offers a segment: ``NODE_PIN`` a chunk (offsets in the arena, safe
  from eviction), copy out, ``NODE_UNPIN``; every chunk's pin is sent up front;
- streamed: ``NODE_READ`` frames received straight into the caller's buffers.

An object whose replica failed goes to the next round; one with no replica left fails with
"no live replica". A read that completes after its lease ended asks the master again: the
object still listed under the same id was never evicted, so its bytes stand; otherwise the read
fails with :class:`~reference_store.errors.LeaseExpired` (the bytes may have been reused).
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reference_store.client.batch import host_view, naming
from reference_store.client.links import Links, Segment, submit
from reference_store.errors import (
    BufferTooSmall,
    InvalidParams,
    LeaseExpired,
    ObjectNotFound,
    StoreError,
)
from reference_store.transport import messages as m
from reference_store.transport.local import AnyConnection

__all__ = ["Located", "Reads"]

logger = logging.getLogger(__name__)

Outcomes = list[int | StoreError]  # per object: the size read, or why it failed


@dataclass(frozen=True, slots=True)
class Located:
    """A located object: its key, where the master says it is, and when its lease ends."""

    key: str
    where: m.Location
    deadline: float

    @property
    def size(self) -> int:
        return self.where.size

    @property
    def object_id(self) -> int:
        return self.where.object_id

    @property
    def nodes(self) -> list[str]:
        return self.where.nodes


class Reads:
    """Locating and reading objects over a client's :class:`~reference_store.client.links.Links`."""

    def __init__(self, links: Links) -> None:
        self.links = links

    def get(self, key: str) -> bytes:
        """The object's bytes. Raises: ObjectNotFound, LeaseExpired, TransferError, RpcError."""
        loc = self.locate([key], lease=True)[0]
        if isinstance(loc, StoreError):
            raise loc
        buf = bytearray(loc.size)
        result = self.read_located([loc], [memoryview(buf)])[0]
        if isinstance(result, StoreError):
            raise result
        return bytes(buf)

    def batch_get_into(self, keys: Sequence[str], dests: Sequence[Any]) -> Outcomes:
        """Read many objects into ``dests``; a size or an error per key, in order.

        Raises:
            InvalidParams: lengths differ or a destination is not a writable buffer.
        """
        if len(keys) != len(dests):
            raise InvalidParams("keys and dests must have the same length")
        views = [host_view(d, writable=True, field=f"dests[{i}]") for i, d in enumerate(dests)]
        located = self.locate(list(keys), lease=True)
        for i, loc in enumerate(located):
            if not isinstance(loc, StoreError) and loc.size > views[i].nbytes:
                located[i] = BufferTooSmall(
                    f"object {keys[i]!r} has {loc.size} bytes, buffer {views[i].nbytes}")
        return self.read_located(located, views)

    def locate(self, keys: list[str], *, lease: bool) -> list[Located | StoreError]:
        """Where each object is (leased when ``lease``), or why it cannot be read."""
        before = time.monotonic()
        results = self.links.call_master(m.Locate(keys=keys, lease=lease), m.LocateReply).results
        out: list[Located | StoreError] = []
        for key, res in zip(keys, results, strict=True):
            if res.code:
                out.append(m.item_error(res.code, res.error, key))
            else:
                out.append(Located(key, res, before + res.lease_s))
        return out

    def read_located(self, located: list[Located | StoreError],
                     views: list[memoryview]) -> Outcomes:
        """Read each located object into its view, replica after replica until one answers;
        an error passed in stays that object's outcome."""
        out: Outcomes = [
            loc if isinstance(loc, StoreError)
            else ObjectNotFound(f"object {loc.key!r}: no live replica") for loc in located]
        todo = [i for i, loc in enumerate(located) if not isinstance(loc, StoreError)]
        tried: dict[int, set[str]] = defaultdict(set)
        since = time.monotonic()
        while todo:
            plan = self._next_replicas(todo, located, tried)
            todo = self._read_round(plan, located, views, out) if plan else []
        self.links.report_failed(since)
        self._check_leases(located, out)
        for i, (loc, result) in enumerate(zip(located, out)):
            if isinstance(result, StoreError) and not isinstance(loc, StoreError):
                out[i] = naming(result, loc.key)
        return out

    def _next_replicas(self, todo: list[int], located: list[Located | StoreError],
                       tried: dict[int, set[str]]) -> dict[str, list[int]]:
        """Each object's next replica to read: in the master's order, neither tried yet nor a
        node that failed a call within ``NODE_SUSPECT_S`` (so a dead or hung node is waited
        for once, not by every read)."""
        suspect = self.links.suspects()
        plan: dict[str, list[int]] = defaultdict(list)
        for i in todo:
            loc = located[i]
            assert not isinstance(loc, StoreError)  # todo holds located objects only
            for address in loc.nodes:
                if address not in tried[i] and address not in suspect:
                    tried[i].add(address)
                    plan[address].append(i)
                    break
        return plan

    def _check_leases(self, located: list[Located | StoreError], out: Outcomes) -> None:
        """A read that ended after its lease: the master is asked again (renewing the lease).
        The same object id still listed means it was never evicted, so the bytes read stand;
        otherwise the read fails with LeaseExpired."""
        now = time.monotonic()
        late = {i: loc for i, loc in enumerate(located) if not isinstance(loc, StoreError)
                and isinstance(out[i], int) and now > loc.deadline}
        if not late:
            return
        again = self.locate([loc.key for loc in late.values()], lease=True)
        for (i, loc), fresh in zip(late.items(), again, strict=True):
            if isinstance(fresh, StoreError) or fresh.object_id != loc.object_id:
                out[i] = LeaseExpired("the read lease ended before the read completed, and "
                                      "the object has changed since")

    def _read_round(self, plan: dict[str, list[int]], located: list[Any],
                    views: list[memoryview], out: Outcomes) -> list[int]:
        """Read each node's share once; returns the objects to try on their next replica."""
        retry: list[int] = []
        streamed: dict[str, list[int]] = {}
        for address, idxs in plan.items():
            try:
                seg = self.links.segment(address)
            except StoreError as exc:
                for i in idxs:
                    out[i] = exc
                continue
            rest = idxs if seg is None else _OneSidedRead(
                self.links, address, seg, located, views, out, retry).run(idxs)
            if rest:
                streamed[address] = rest
        return retry + self._read_streamed(streamed, located, views, out)

    def _read_streamed(self, plan: dict[str, list[int]], located: list[Any],
                       views: list[memoryview], out: Outcomes) -> list[int]:
        """NODE_READ frames straight into ``views``; returns the objects to try elsewhere."""
        retry: list[int] = []
        answers = self.links.frames(plan, lambda i: located[i].size, lambda chunk: (
            m.Read(**_read_fields(located, chunk)), [], [views[i] for i in chunk]), m.ReadReply)
        for chunk, answer in answers:
            if isinstance(answer, StoreError):
                retry.extend(chunk)
                continue
            for i, size in zip(chunk, answer.sizes):
                if size >= 0:
                    out[i] = size
                else:
                    retry.append(i)
        return retry


class _OneSidedRead:
    """One node's share of a read round through its segment: pin, copy out of the arena,
    unpin, a chunk at a time while the node pins the next chunks.

    Each object ends in ``out`` (read), in ``retry`` (try the next replica) or in the list
    :meth:`run` returns (stream it instead: too small, not in the arena, or a stale segment).
    """

    def __init__(self, links: Links, address: str, seg: Segment, located: list[Any],
                 views: list[memoryview], out: Outcomes, retry: list[int]) -> None:
        self.links, self.address, self.seg = links, address, seg
        self.located, self.views, self.out, self.retry = located, views, out, retry
        self.rest: list[int] = []

    def run(self, idxs: list[int]) -> list[int]:
        self.rest, idxs = self.links.split_small(idxs, [self.located[i].size for i in idxs])
        try:
            conn = self.links.node(self.address)
        except StoreError as exc:
            logger.info("node %s unreachable: %s", self.address, exc)
            self.retry.extend(idxs)
            return self.rest
        chunks = self.links.chunks(idxs, [self.located[i].size for i in idxs])
        pinned = [submit(conn, m.Pin(**_read_fields(self.located, chunk)))  # all up front
                  for chunk in chunks]
        unpins = [self._chunk(conn, chunk, pending) for chunk, pending in zip(chunks, pinned)]
        for pending in unpins:
            if pending is None:
                continue
            try:
                self.links.answer(conn, pending, m.UnpinReply)
            except StoreError as exc:  # the pins end with the connection anyway
                logger.info("unpin on %s failed: %s", self.address, exc)
        return self.rest

    def _chunk(self, conn: AnyConnection, chunk: list[int], pending: Any) -> Any:
        """Copy out one pinned chunk; returns its pending unpin (None when nothing is held)."""
        try:
            reply = self.links.answer(conn, pending, m.PinReply)
        except StoreError as exc:
            logger.info("pin on %s failed: %s", self.address, exc)
            self.retry.extend(chunk)
            return None
        held, offsets = [], []
        for i, size, off in zip(chunk, reply.sizes, reply.offsets):
            if size < 0:
                self.retry.append(i)
            elif off < 0:
                self.rest.append(i)
            else:
                held.append(i)
                offsets.append(off)
        if reply.node_id != self.seg[0]:  # restarted with a new arena: look again
            self.links.forget_segment(self.address, self.seg)
            self.rest.extend(held)
        else:
            self._copy(held, offsets)
        if not held:
            return None
        return submit(conn, m.Unpin(ids=[self.located[i].object_id for i in held]))

    def _copy(self, held: list[int], offsets: list[int]) -> None:
        try:
            self.seg[1].read(offsets, [self.views[i][:self.located[i].size] for i in held])
        except StoreError as exc:
            logger.info("one-sided read from %s failed: %s", self.address, exc)
            self.retry.extend(held)
            return
        for i in held:
            self.out[i] = self.located[i].size


def _read_fields(located: list[Any], chunk: list[int]) -> dict[str, list[Any]]:
    """What NODE_READ and NODE_PIN name: each object's id, expected size and grant."""
    return {"ids": [located[i].object_id for i in chunk],
            "sizes": [located[i].size for i in chunk],
            "grants": [located[i].where.grant for i in chunk]}
