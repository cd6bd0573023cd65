"""A server's in-flight payload budget: every payload buffer its connections hold counts against
one limit, so that peers announcing (and sending) large frames cannot together take more memory
than that, however many connections they open.

A frame whose payload goes straight to its final place (a node's :class:`~.tcp.Landing` in its
arena) takes no buffer and is not counted. The others are received into a per-connection
:class:`Scratch` buffer, which must first get its size from the budget: a frame larger than
the whole budget is refused, and one that cannot get room before its frame deadline is dropped
with its connection. A connection keeps its buffer between frames (no fresh pages to fault in
for the next one) only while it is small and the budget is less than half used.
"""

from __future__ import annotations

import logging
import mmap
import threading
import time

__all__ = ["DEFAULT_KEEP_SCRATCH", "DEFAULT_PAYLOAD_BUDGET", "PayloadBudget", "PayloadBuffer",
           "Scratch", "payload_buffer"]

logger = logging.getLogger(__name__)

DEFAULT_PAYLOAD_BUDGET = 512 << 20  # bytes of payload buffers a server holds at once
DEFAULT_KEEP_SCRATCH = 16 << 20     # a buffer this small is kept for the connection's next frame
_LAZY_MIN = 1 << 20  # payload buffers this large are mapped lazily (see payload_buffer)
PayloadBuffer = bytearray | mmap.mmap


def payload_buffer(nbytes: int) -> PayloadBuffer:
    """A writable buffer of ``nbytes`` whose memory is committed only as bytes arrive: an
    announced size costs nothing until the peer really sends it (a ``bytearray`` zero-fills,
    and so touches, every page at once)."""
    if nbytes < _LAZY_MIN:
        return bytearray(nbytes)
    return mmap.mmap(-1, nbytes)


class PayloadBudget:
    """A byte count shared by a server's connections (thread-safe)."""

    def __init__(self, limit: int) -> None:
        if limit < 0:
            raise ValueError(f"payload budget: must be >= 0 bytes, got {limit}")
        self.limit = limit
        self.used = 0
        self._cond = threading.Condition()

    def acquire(self, nbytes: int, deadline: float) -> bool:
        """Take ``nbytes``, waiting for room until ``deadline`` (``time.monotonic()``); False
        when the room did not come (or can never come: more than the whole budget)."""
        if nbytes > self.limit:
            return False
        with self._cond:
            while self.used + nbytes > self.limit:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            self.used += nbytes
            return True

    def release(self, nbytes: int) -> None:
        """Give back ``nbytes`` taken by :meth:`acquire`."""
        if nbytes:
            with self._cond:
                self.used -= nbytes
                self._cond.notify_all()

    def pressed(self) -> bool:
        """More than half of the budget is taken: buffers are given back, not kept."""
        return self.used * 2 > self.limit


class Scratch:
    """One connection's payload buffer, its size charged to a :class:`PayloadBudget`."""

    def __init__(self, budget: PayloadBudget, keep: int = DEFAULT_KEEP_SCRATCH) -> None:
        self._budget, self._keep = budget, keep
        self.buf: PayloadBuffer = bytearray(0)
        self.size = 0

    def fit(self, nbytes: int, deadline: float) -> bool:
        """Make the buffer at least ``nbytes`` long; False when the budget has no room for it
        by ``deadline`` (the buffer is then empty)."""
        if nbytes <= self.size:
            return True
        self.drop()
        if not self._budget.acquire(nbytes, deadline):
            return False
        self.buf, self.size = payload_buffer(nbytes), nbytes
        return True

    def done(self) -> None:
        """The frame is answered: keep the buffer for the next one, or give it back."""
        if self.size > self._keep or self._budget.pressed():
            self.drop()

    def drop(self) -> None:
        """Free the buffer and its share of the budget (idempotent)."""
        if isinstance(self.buf, mmap.mmap):
            try:
                self.buf.close()  # unmapped now, not whenever the collector gets to it
            except BufferError:  # a view still points into it: freed with that view
                logger.debug("scratch buffer still viewed; freed later")
        self._budget.release(self.size)
        self.buf, self.size = bytearray(0), 0
