"""The append-only log: canonical entries, RFC 6962 hashing, tree heads and proofs.

Every write to the ledger is one entry ``{"seq", "kind", "subject", "recorded_at", "data"}``
serialised as RFC 8785 canonical JSON. Its leaf hash is ``SHA-256(0x00 || entry)`` and interior
nodes are ``SHA-256(0x01 || left || right)`` (RFC 6962 section 2.1), so the tree head
``(size, root)`` commits to every entry in order. Each row also stores a hash chain
``c_i = SHA-256(c_{i-1} || leaf_i)`` (``c_-1`` is 32 zero bytes), which lets an audit name the
first bad entry without any outside data. A checkpoint (the tree head written to a file that is
committed to git) is what makes a rewrite of the whole database detectable.

Appends are serialised: the writer locks the single :class:`~ledger.tables.LogHead` row (``SELECT
... FOR UPDATE`` on PostgreSQL; SQLite transactions are ``BEGIN IMMEDIATE``), so concurrent
processes can never give two entries the same ``seq`` or fork the chain.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import rfc8785
from sqlalchemy import Connection, insert, select, update

from .errors import IntegrityError, UsageError
from .tables import LogEntry, LogHead, sql_table

__all__ = [
    "GENESIS",
    "Appender",
    "AuditResult",
    "TreeHead",
    "Visitor",
    "audit_log",
    "canonical_json",
    "chain_hash",
    "consistency_proof",
    "find_nul",
    "inclusion_proof",
    "leaf_hash",
    "lock_head",
    "merkle_root",
    "node_hash",
    "read_head",
    "utc_now",
    "verify_consistency",
    "verify_inclusion",
]

logger = logging.getLogger(__name__)

#: The chain value before the first entry.
GENESIS = bytes(32)


def utc_now() -> str:
    """The current time as RFC 3339 UTC with microseconds (``2026-11-29T20:31:02.123456Z``)."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def canonical_json(value: Any) -> bytes:
    """RFC 8785 canonical JSON. Raises :class:`UsageError` for values JSON cannot hold."""
    try:
        return rfc8785.dumps(value)
    except (rfc8785.CanonicalizationError, TypeError, ValueError) as exc:
        raise UsageError(f"cannot canonicalise entry as JSON: {exc}") from exc


def leaf_hash(entry: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def chain_hash(previous: bytes, leaf: bytes) -> bytes:
    return hashlib.sha256(previous + leaf).digest()


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """RFC 6962 Merkle Tree Hash over leaf hashes, in one pass with a stack of full subtrees."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    stack: list[tuple[int, bytes]] = []
    for leaf in leaves:
        size, digest = 1, leaf
        while stack and stack[-1][0] == size:
            _, left = stack.pop()
            size, digest = size * 2, node_hash(left, digest)
        stack.append((size, digest))
    digest = stack[-1][1]
    for _, left in reversed(stack[:-1]):
        digest = node_hash(left, digest)
    return digest


def _split(n: int) -> int:
    """The largest power of two strictly below ``n`` (n >= 2)."""
    return 1 << ((n - 1).bit_length() - 1)


def inclusion_proof(index: int, leaves: Sequence[bytes]) -> list[bytes]:
    """RFC 6962 audit path for leaf ``index`` in the tree over ``leaves``."""
    if not 0 <= index < len(leaves):
        raise UsageError(f"leaf {index} is outside a tree of size {len(leaves)}")
    if len(leaves) == 1:
        return []
    k = _split(len(leaves))
    if index < k:
        return inclusion_proof(index, leaves[:k]) + [merkle_root(leaves[k:])]
    return inclusion_proof(index - k, leaves[k:]) + [merkle_root(leaves[:k])]


def _lsb(x: int) -> bool:
    return bool(x & 1)


def verify_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes], root: bytes) -> bool:
    """RFC 9162 section 2.1.3.2: does ``proof`` place ``leaf`` at ``index`` under ``root``?"""
    if index >= size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if _lsb(fn) or fn == sn:
            r = node_hash(p, r)
            while not _lsb(fn) and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def _subproof(m: int, leaves: Sequence[bytes], complete: bool) -> list[bytes]:
    n = len(leaves)
    if m == n:
        return [] if complete else [merkle_root(leaves)]
    k = _split(n)
    if m <= k:
        return _subproof(m, leaves[:k], complete) + [merkle_root(leaves[k:])]
    return _subproof(m - k, leaves[k:], False) + [merkle_root(leaves[:k])]


def consistency_proof(old_size: int, leaves: Sequence[bytes]) -> list[bytes]:
    """RFC 6962 proof that the tree over ``leaves`` extends its first ``old_size`` leaves."""
    if not 0 < old_size <= len(leaves):
        raise UsageError(f"no consistency proof from size {old_size} to {len(leaves)}")
    return _subproof(old_size, leaves, True)


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes,
                       proof: Sequence[bytes]) -> bool:
    """RFC 9162 section 2.1.4.2: does ``proof`` show the new tree extends the old one?"""
    if old_size == new_size:
        return not proof and old_root == new_root
    if old_size == 0 or old_size > new_size or not proof:
        return False
    path = list(proof)
    if old_size & (old_size - 1) == 0:
        path.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while _lsb(fn):
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if _lsb(fn) or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not _lsb(fn) and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return fr == old_root and sr == new_root and sn == 0


@dataclass(frozen=True)
class TreeHead:
    """A signed-off state of the log: its size, Merkle root and chain head (hex)."""

    size: int
    root: str
    chain: str
    time: str

    def to_dict(self) -> dict[str, Any]:
        return {"log": "kv-evidence-ledger", "size": self.size, "root": self.root,
                "chain": self.chain, "time": self.time}

    @classmethod
    def from_dict(cls, data: Any, where: str = "checkpoint") -> TreeHead:
        """Raises :class:`UsageError` naming the field that is missing or malformed."""
        if not isinstance(data, dict):
            raise UsageError(f"{where}: a checkpoint must be a JSON object")
        size = data.get("size")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise UsageError(f"{where}: field 'size' must be a non-negative integer")
        values = {}
        for name in ("root", "chain"):
            value = data.get(name)
            if not isinstance(value, str) or len(value) != 64 or not _is_hex(value):
                raise UsageError(f"{where}: field {name!r} must be 64 hex digits")
            values[name] = value
        time = data.get("time")
        if not isinstance(time, str):
            raise UsageError(f"{where}: field 'time' must be an RFC 3339 string")
        return cls(size, values["root"], values["chain"], time)


def _is_hex(text: str) -> bool:
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return True


def find_nul(value: Any, pointer: str = "") -> str | None:
    """The JSON pointer of the first string (or key) in ``value`` holding U+0000, or None.

    PostgreSQL text cannot hold NUL and SQLite can; refusing it before any write makes the two
    back ends accept and refuse the same documents.
    """
    if isinstance(value, str):
        return pointer if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}"
            if "\x00" in str(key):
                return here
            found = find_nul(item, here)
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = find_nul(item, f"{pointer}/{i}")
            if found is not None:
                return found
    return None


# --- appending ----------------------------------------------------------------------------------


def read_head(conn: Connection, *, for_update: bool = False) -> tuple[int, bytes]:
    """The head row as ``(size, chain)``, created empty if missing; locked when ``for_update``."""
    table = sql_table(LogHead)
    query = select(table.c.size, table.c.chain_hash).where(table.c.id == 1)
    if for_update:
        query = query.with_for_update()
    row = conn.execute(query).first()
    if row is None:
        conn.execute(insert(table).values(id=1, size=0, chain_hash=GENESIS.hex(), updated_at=utc_now()))
        return 0, GENESIS
    return int(row.size), bytes.fromhex(row.chain_hash)


def lock_head(conn: Connection) -> Appender:
    """Lock the log for this transaction and return an appender positioned at its end."""
    size, chain = read_head(conn, for_update=True)
    return Appender(conn, size, chain)


@dataclass
class Appender:
    """Appends entries inside one locked transaction; :meth:`close` advances the head row."""

    conn: Connection
    size: int
    chain: bytes
    appended: list[int] = field(default_factory=list)

    def append(self, kind: str, subject: str, data: dict[str, Any], *,
               recorded_at: str | None = None) -> int:
        """Append one entry; returns its ``seq``. Raises :class:`UsageError` for non-JSON data."""
        seq, when = self.size, recorded_at or utc_now()
        nul = find_nul(data)
        if nul is not None:
            raise UsageError(f"{kind} {subject}: field {nul or '/'} contains a NUL character "
                             "(U+0000), which the ledger refuses on every database")
        payload = canonical_json(
            {"seq": seq, "kind": kind, "subject": subject, "recorded_at": when, "data": data})
        leaf = leaf_hash(payload)
        self.chain = chain_hash(self.chain, leaf)
        self.conn.execute(insert(sql_table(LogEntry)).values(
            seq=seq, kind=kind, subject=subject, recorded_at=when,
            payload=payload.decode("utf-8"), leaf_hash=leaf.hex(), chain_hash=self.chain.hex()))
        self.size += 1
        self.appended.append(seq)
        return seq

    def close(self) -> None:
        if not self.appended:
            return
        table = sql_table(LogHead)
        self.conn.execute(update(table).where(table.c.id == 1).values(
            size=self.size, chain_hash=self.chain.hex(), updated_at=utc_now()))
        logger.debug("appended entries %s", self.appended)


# --- auditing -----------------------------------------------------------------------------------


@dataclass
class AuditResult:
    """What an audit found. ``ok`` is False exactly when ``bad_entry``/``problem`` are set."""

    size: int
    root: str
    chain: str
    checked: int
    bad_entry: int | None = None
    problem: str | None = None
    checkpoint: TreeHead | None = None
    consistency_proof: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.problem is None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"ok": self.ok, "size": self.size, "root": self.root,
                                "chain": self.chain, "checked": self.checked}
        if not self.ok:
            data |= {"bad_entry": self.bad_entry, "problem": self.problem}
        if self.checkpoint is not None:
            data["checkpoint"] = self.checkpoint.to_dict()
            data["consistency_proof"] = self.consistency_proof
        return data

    def raise_for_problem(self) -> None:
        """Raises :class:`IntegrityError` (exit 3) when the audit failed."""
        if not self.ok:
            raise IntegrityError(self.problem)


def _iter_entries(conn: Connection, batch: int = 5000) -> Iterator[Any]:
    table = sql_table(LogEntry)
    last = -1
    while True:
        rows = conn.execute(select(table).where(table.c.seq > last)
                            .order_by(table.c.seq).limit(batch)).all()
        if not rows:
            return
        yield from rows
        last = rows[-1].seq


#: Called with ``(seq, decoded payload)`` for each entry that verified.
Visitor = Callable[[int, dict[str, Any]], None]


def _entry_problem(row: Any, expected: int, previous: bytes,
                   visit: Visitor | None = None) -> tuple[str | None, bytes, bytes]:
    """Check one row; returns (problem or None, its leaf hash, its chain value)."""
    payload = row.payload.encode("utf-8")
    leaf = leaf_hash(payload)
    chain = chain_hash(previous, leaf)
    if row.seq != expected:
        return f"entry {expected} is missing (the next stored entry is {row.seq})", leaf, chain
    if leaf.hex() != row.leaf_hash:
        return f"entry {expected} ({row.kind} {row.subject}): payload does not match its leaf hash", leaf, chain
    try:
        body = json.loads(payload)
    except ValueError:
        return f"entry {expected}: payload is not JSON", leaf, chain
    if ((body.get("seq"), body.get("kind"), body.get("subject"), body.get("recorded_at"))
            != (row.seq, row.kind, row.subject, row.recorded_at)):
        return (f"entry {expected}: payload names seq/kind/subject/recorded_at other than its "
                "row"), leaf, chain
    if chain.hex() != row.chain_hash:
        return (f"entry {expected} ({row.kind} {row.subject}): hash chain breaks here "
                "(an earlier entry was altered, removed or reordered)"), leaf, chain
    if visit is not None:
        visit(expected, body)
    return None, leaf, chain


def audit_log(conn: Connection, checkpoint: TreeHead | None = None, *,
              visit: Visitor | None = None) -> AuditResult:
    """Recompute every leaf, the chain and the root; check the head row and the checkpoint.

    Linear in the number of entries; ``visit`` sees each verified entry's payload. Never
    raises for a bad log: the result says what failed (call
    :meth:`AuditResult.raise_for_problem` to turn it into :class:`IntegrityError`).
    """
    leaves: list[bytes] = []
    chain, problem, bad = GENESIS, None, None
    for row in _iter_entries(conn):
        problem, leaf, chain = _entry_problem(row, len(leaves), chain, visit)
        if problem is not None:
            bad = len(leaves)
            break
        leaves.append(leaf)
    result = AuditResult(len(leaves), merkle_root(leaves).hex(), chain.hex(), len(leaves),
                         bad, problem, checkpoint)
    if problem is None:
        _check_head(conn, result)
    if result.ok and checkpoint is not None:
        _check_checkpoint(result, leaves, checkpoint)
    return result


def _check_head(conn: Connection, result: AuditResult) -> None:
    size, chain = read_head(conn)
    if size > result.size:
        result.bad_entry = result.size
        result.problem = (f"entry {result.size} is missing: the log head records {size} entries "
                          f"but only {result.size} are stored (truncated)")
    elif size < result.size:
        result.bad_entry = size
        result.problem = (f"entry {size}: the log head records {size} entries but {result.size} "
                          "are stored (entries were added without advancing the head)")
    elif chain.hex() != result.chain:
        result.bad_entry = max(size - 1, 0)
        result.problem = "the log head's chain hash does not match the stored entries"


def _check_checkpoint(result: AuditResult, leaves: list[bytes], head: TreeHead) -> None:
    if head.size > result.size:
        result.bad_entry = result.size
        result.problem = (f"entry {result.size} is missing: the checkpoint of {head.time} covers "
                          f"{head.size} entries, the log holds {result.size} (truncated)")
        return
    if head.size == 0:
        return
    old_root = merkle_root(leaves[:head.size])
    if old_root.hex() != head.root:
        result.bad_entry = 0
        result.problem = (f"the log does not extend the checkpoint of {head.time}: its first "
                          f"{head.size} entries (0..{head.size - 1}) no longer hash to the "
                          "checkpoint root (history was rewritten)")
        return
    result.consistency_proof = [p.hex() for p in consistency_proof(head.size, leaves)]
