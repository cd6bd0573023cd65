"""The client's writes: a batch put in rounds of ``PUT_START``, node writes, ``PUT_END``.

One round costs one ``PUT_START`` (the master places each object on ``replicas`` distinct
nodes, fewer with a warning when fewer live nodes are left, and grants the writes) and one
``PUT_END`` for the objects every replica took, or ``PUT_REVOKE`` for the others. Each node's
share goes one of two ways:

- one-sided, where the node offers a segment: ``NODE_RESERVE`` a chunk (arena offsets), write
  there, ``NODE_COMMIT`` (or abort); every chunk's reservation is sent up front;
- streamed: ``NODE_WRITE`` frames sent with scatter/gather from the caller's buffers.

A put whose node failed (a transient failure: a hang, a drop, a refused connection) is revoked,
the master hears which nodes failed, and a second round places it again, away from them.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from reference_store.client.batch import host_view, naming, transient
from reference_store.client.links import Links, Segment, submit
from reference_store.errors import ConnectionLost, InvalidParams, StoreError, TransferError
from reference_store.transport import messages as m
from reference_store.transport.local import AnyConnection

__all__ = ["Writes"]

logger = logging.getLogger(__name__)

Plan = dict[str, list[int]]  # node address -> the objects (batch indexes) it takes


class Writes:
    """Putting objects over a client's :class:`~reference_store.client.links.Links`."""

    def __init__(self, links: Links) -> None:
        self.links = links

    def batch_put(self, keys: Sequence[str], values: Sequence[Any], *, upsert: bool, pin: int,
                  replicas: int | None) -> list[StoreError | None]:
        """Put many objects; one error (or None) per key, in order. A put whose node failed
        is placed again, once.

        Raises:
            InvalidParams: keys and values differ in length, or a value is not a buffer.
            RpcError: the master cannot be reached.
        """
        if len(keys) != len(values):
            raise InvalidParams("keys and values must have the same length")
        views = [host_view(v, writable=False, field=f"values[{i}]") for i, v in enumerate(values)]
        batch = _PutBatch(self.links, keys, views, upsert=upsert, pin=pin,
                          replicas=replicas or self.links.options.replicas)
        todo = list(range(len(keys)))
        for last in (False, True):
            todo = batch.round(todo, last=last)
            if not todo:
                break
        return batch.errors


class _PutBatch:
    """One batch put: its keys and values, each object's error so far, and its rounds."""

    def __init__(self, links: Links, keys: Sequence[str], views: list[memoryview], *,
                 upsert: bool, pin: int, replicas: int) -> None:
        self.links, self.keys, self.views = links, keys, views
        self.upsert, self.pin, self.replicas = upsert, pin, replicas
        self.errors: list[StoreError | None] = [None] * len(keys)
        self.failed: set[int] = set()  # this round's objects that some node did not take

    def round(self, todo: list[int], *, last: bool) -> list[int]:
        """Put ``todo``; returns the objects to place again because a node failed (none when
        ``last``). The master hears which nodes failed, and places elsewhere."""
        since = time.monotonic()
        started = self._start(todo)
        plan = self._plan(started)
        self.failed = set()
        self._write(plan, started)
        begun = [i for i, r in started.items() if not r.code and not r.exists]
        suspects = self.links.suspects()
        bad_nodes = sorted(set(self.links.failed_since(since)) | {a for a in plan if a in suspects})
        self._finish([i for i in begun if i not in self.failed],
                     [i for i in begun if i in self.failed], bad_nodes)
        for i in todo:
            error = self.errors[i]
            if error is not None:
                self.errors[i] = naming(error, self.keys[i])
        if last or not bad_nodes:
            return []
        return [i for i in begun if i in self.failed and transient(self.errors[i])]

    def _start(self, todo: list[int]) -> dict[int, m.PutSlot]:
        """PUT_START: each object's slot (where to write, or why not)."""
        results = self.links.call_master(m.PutStart(
            keys=[self.keys[i] for i in todo], sizes=[self.views[i].nbytes for i in todo],
            upsert=self.upsert, replicas=self.replicas, pin=self.pin), m.PutStartReply).results
        return dict(zip(todo, results, strict=True))

    def _plan(self, started: dict[int, m.PutSlot]) -> Plan:
        """Which node takes which object; an object refused by the master gets its error."""
        plan: Plan = defaultdict(list)
        for i, res in started.items():
            self.errors[i] = None
            if res.code:
                self.errors[i] = m.item_error(res.code, res.error, self.keys[i])
            elif not res.exists:
                if len(res.nodes) < self.replicas:
                    logger.warning("object %r stored with %d of %d replicas (too few live nodes)",
                                   self.keys[i], len(res.nodes), self.replicas)
                for address in res.nodes:
                    plan[address].append(i)
        return plan

    def _write(self, plan: Plan, started: dict[int, m.PutSlot]) -> None:
        """Each node's share, one-sided where its segment allows, streamed otherwise."""
        records = {i: m.WriteRecord(object_id=started[i].object_id, ns=started[i].ns,
                                    tenant=started[i].tenant, key=self.keys[i],
                                    size=self.views[i].nbytes, pin=self.pin,
                                    grant=started[i].grant)
                   for idxs in plan.values() for i in idxs}
        streamed: Plan = {}
        for address, idxs in plan.items():
            try:
                seg = self.links.segment(address)
            except StoreError as exc:
                self.mark(idxs, exc)
                continue
            rest = idxs if seg is None else _OneSidedWrite(self, address, seg, records).run(idxs)
            if rest:
                streamed[address] = rest
        self._write_streamed(streamed, records)

    def _write_streamed(self, plan: Plan, records: dict[int, m.WriteRecord]) -> None:
        answers = self.links.frames(plan, lambda i: self.views[i].nbytes, lambda chunk: (
            m.Write(objects=[records[i] for i in chunk]), [self.views[i] for i in chunk], None),
            m.CodesReply)
        for chunk, answer in answers:
            if isinstance(answer, StoreError):
                self.mark(chunk, answer)
            else:
                self.mark_items(chunk, answer)

    def mark(self, idxs: Sequence[int], exc: StoreError) -> None:
        """Objects some node did not take, and why (a lost connection is a TransferError)."""
        for i in idxs:
            self.failed.add(i)
            self.errors[i] = exc if not isinstance(exc, ConnectionLost) else TransferError(str(exc))

    def mark_items(self, idxs: list[int], reply: m.CodesReply) -> None:
        """The objects of a batch reply that the node refused."""
        for i, error in zip(idxs, m.item_errors(reply, [self.keys[i] for i in idxs])):
            if error is not None:
                self.mark([i], error)

    def _finish(self, done: list[int], failed: list[int], bad_nodes: Sequence[str]) -> None:
        """PUT_END what every replica took (the master may still refuse one: a takeover),
        PUT_REVOKE the rest, telling the master which nodes failed."""
        if done:
            ended = self.links.call_master(m.PutEnd(keys=[self.keys[i] for i in done]),
                                           m.CodesReply)
            for i, error in zip(done, m.item_errors(ended, [self.keys[i] for i in done])):
                if error is not None:
                    self.errors[i] = error
        if failed:
            self.links.call_master(m.PutRevoke(keys=[self.keys[i] for i in failed],
                                               failed_nodes=list(bad_nodes)), m.CodesReply)


class _OneSidedWrite:
    """One node's share of a put round through its segment: reserve, write into the arena,
    commit, a chunk of about ``frame_bytes`` at a time while the node reserves the next ones.

    An object the node did not take is marked on the batch; :meth:`run` returns those to
    stream instead (too small to gain, not placed in the arena, or a stale segment).
    """

    def __init__(self, batch: _PutBatch, address: str, seg: Segment,
                 records: dict[int, m.WriteRecord]) -> None:
        self.batch, self.links, self.address, self.seg = batch, batch.links, address, seg
        self.records = records
        self.rest: list[int] = []

    def run(self, idxs: list[int]) -> list[int]:
        views = self.batch.views
        self.rest, idxs = self.links.split_small(idxs, [views[i].nbytes for i in idxs])
        try:
            conn = self.links.node(self.address)
        except StoreError as exc:
            self.batch.mark(idxs, exc)
            return self.rest
        chunks = self.links.chunks(idxs, [views[i].nbytes for i in idxs])
        # every chunk's reservation is asked for up front: the node works through them while
        # this thread copies the chunks whose answers are in
        reserved = [submit(conn, m.Reserve(objects=[self.records[i] for i in chunk]))
                    for chunk in chunks]
        commits = [self._chunk(conn, chunk, pending) for chunk, pending in zip(chunks, reserved)]
        for commit in commits:
            if commit is not None:
                self._committed(conn, *commit)
        return self.rest

    def _chunk(self, conn: AnyConnection, chunk: list[int],
               pending: Any) -> tuple[Any, list[int]] | None:
        """Write one reserved chunk; returns its pending commit (or abort) and the objects it
        commits, None when the reservation failed."""
        try:
            reply = self.links.answer(conn, pending, m.ReserveReply)
        except StoreError as exc:
            self.batch.mark(chunk, exc)
            return None
        direct, offsets = self._reserved(chunk, reply)
        ids = [self.records[i].object_id for i in direct]
        if reply.node_id != self.seg[0]:  # restarted with a new arena: look again
            self.links.forget_segment(self.address, self.seg)
            self.rest.extend(direct)
            return submit(conn, m.Commit(ids=[], abort=ids)), []
        try:
            self.seg[1].write(offsets, [self.batch.views[i] for i in direct])
        except StoreError as exc:
            self.batch.mark(direct, exc)
            return submit(conn, m.Commit(ids=[], abort=ids)), []
        return submit(conn, m.Commit(ids=ids)), direct

    def _reserved(self, chunk: list[int], reply: m.ReserveReply) -> tuple[list[int], list[int]]:
        """The chunk's objects placed in the arena, and their offsets; the others are marked
        (refused) or left to stream (no room in the arena's segment)."""
        direct, offsets = [], []
        errors = m.item_errors(reply, [self.batch.keys[i] for i in chunk])
        for i, error, off in zip(chunk, errors, reply.offsets, strict=True):
            if error is not None:
                self.batch.mark([i], error)
            elif off < 0:
                self.rest.append(i)
            else:
                direct.append(i)
                offsets.append(off)
        return direct, offsets

    def _committed(self, conn: AnyConnection, pending: Any, direct: list[int]) -> None:
        try:
            done = self.links.answer(conn, pending, m.CodesReply)
        except StoreError as exc:
            self.batch.mark(direct, exc)
            return
        self.batch.mark_items(direct, done)
