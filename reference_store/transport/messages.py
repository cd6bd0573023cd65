"""The typed messages of the frame protocol: one request and one reply type per operation.

A frame's metadata is a JSON object (:mod:`reference_store.transport.protocol`); here each
operation's object gets a frozen msgspec Struct. A server decodes a request once, at its handler's
entry (:func:`decode_request`), and a client decodes a reply once, where the call returns
(:func:`call`). Past that boundary nothing reads a string key: a misspelt field is a type error,
and a malformed frame is answered with one :class:`~reference_store.errors.InvalidParams` that
names the field (``field objects/0/size: ...``). The JSON field names are the wire format; they
are the same as before the types existed, so frames written by hand in tests still work.

Strictness: integers are integers (``1.5`` and ``true`` are not sizes) and unknown fields are
refused; JSON's non-standard ``Infinity``/``NaN`` never get this far (the frame decoder refuses
them). msgspec, not pydantic: a batch of 16,384 small objects carries that many records in
each direction, and msgspec builds and checks them about ten times faster (measured: 1.5 against
15 us to build a record, 2.2 against 14.5 us to check one), which kept 4 KiB puts and gets at the
rate they had with plain dicts.

Batch replies carry one integer code per item (Mooncake's codes, 0 for success) and, beside
it, one message per item (``errors``), so that a client can raise, per key, the same class with
the server's words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol, TypeVar

import msgspec

from reference_store.errors import InvalidParams, StoreError, error_from_code
from reference_store.transport.protocol import Buffer, Frame, Op

__all__ = [
    "REQUESTS",
    "Challenge",
    "ChallengeReply",
    "CodesReply",
    "Commit",
    "Delete",
    "Exists",
    "ExistsReply",
    "Heartbeat",
    "Hello",
    "HelloReply",
    "KeysRequest",
    "Known",
    "Leave",
    "Link",
    "ListKeys",
    "ListReply",
    "Locate",
    "LocateReply",
    "Location",
    "Message",
    "NodeList",
    "NodeListReply",
    "NodeUsage",
    "ObjectRecord",
    "Pin",
    "PinReply",
    "Ping",
    "PingReply",
    "PutEnd",
    "PutRevoke",
    "PutSlot",
    "PutStart",
    "PutStartReply",
    "Read",
    "ReadReply",
    "Register",
    "RegisterReply",
    "Remove",
    "RemoveAll",
    "RemovedReply",
    "Request",
    "Reserve",
    "ReserveReply",
    "Segments",
    "SegmentsReply",
    "Stats",
    "StatsReply",
    "TenantUsage",
    "Unpin",
    "UnpinReply",
    "Write",
    "WriteRecord",
    "call",
    "decode",
    "decode_request",
    "failure",
    "item_error",
    "item_errors",
    "success",
]

R = TypeVar("R", bound="Message")


class Message(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of every message: immutable, strict types, no unknown fields."""


class Request(Message, frozen=True, kw_only=True):
    """A request; ``op`` is the opcode its frame carries."""

    op: ClassVar[Op]


# -------------------------------------------------------------------------------- shared parts


class ObjectRecord(Message, frozen=True, kw_only=True):
    """What a node keeps about an object besides its bytes, and reports to a master."""

    object_id: int
    tenant: str
    ns: str
    key: str
    size: int
    pin: int = 0


class WriteRecord(ObjectRecord, frozen=True, kw_only=True):
    """An object to write to a node, with the master's write grant."""

    grant: str | None = ""  # None (or a wrong one) is refused on a keyed cluster

    def record(self) -> ObjectRecord:
        """The part the node keeps (the grant is spent)."""
        return ObjectRecord(object_id=self.object_id, tenant=self.tenant, ns=self.ns,
                            key=self.key, size=self.size, pin=self.pin)


class CodesReply(Message, frozen=True, kw_only=True):
    """One code per item (0: done), and the message of each failed one ("" for done)."""

    codes: list[int]
    errors: list[str] = []


class KeysRequest(Request, frozen=True, kw_only=True):
    keys: list[str]


# -------------------------------------------------------------------------------- any server


class Ping(Request, frozen=True, kw_only=True):
    op = Op.PING


class PingReply(Message, frozen=True, kw_only=True):
    ok: bool
    role: str
    node_id: str = ""


# -------------------------------------------------------------------------------- client -> master


class Hello(Request, frozen=True, kw_only=True):
    op = Op.HELLO
    tenant: str = ""
    token: str | None = None


class HelloReply(Message, frozen=True, kw_only=True):
    client_id: str
    tenant: str
    isolation: bool
    lease_ttl_s: float


class PutStart(KeysRequest, frozen=True, kw_only=True):
    op = Op.PUT_START
    sizes: list[int]
    upsert: bool = False
    replicas: int = 1
    pin: int = 0


class PutSlot(Message, frozen=True, kw_only=True):
    """Where one object of a PUT_START goes (or why it does not, or that it already exists)."""

    code: int = 0
    error: str = ""
    exists: bool = False
    object_id: int = 0
    ns: str = ""
    tenant: str = ""
    nodes: list[str] = []
    grant: str = ""


class PutStartReply(Message, frozen=True, kw_only=True):
    results: list[PutSlot]


class PutEnd(KeysRequest, frozen=True, kw_only=True):
    op = Op.PUT_END


class PutRevoke(KeysRequest, frozen=True, kw_only=True):
    op = Op.PUT_REVOKE
    failed_nodes: list[str] = []


class Locate(KeysRequest, frozen=True, kw_only=True):
    op = Op.LOCATE
    lease: bool = True


class Location(Message, frozen=True, kw_only=True):
    """One object's replicas (a suspect node last) and its read grant, or why it is missing."""

    code: int = 0
    error: str = ""
    object_id: int = 0
    size: int = 0
    grant: str = ""
    nodes: list[str] = []
    lease_s: float = 0.0


class LocateReply(Message, frozen=True, kw_only=True):
    results: list[Location]


class Exists(KeysRequest, frozen=True, kw_only=True):
    op = Op.EXISTS


class ExistsReply(Message, frozen=True, kw_only=True):
    exists: list[int]


class Remove(KeysRequest, frozen=True, kw_only=True):
    op = Op.REMOVE
    force: bool = False


class RemoveAll(Request, frozen=True, kw_only=True):
    op = Op.REMOVE_ALL
    force: bool = False


class RemovedReply(Message, frozen=True, kw_only=True):
    """How many objects a REMOVE_ALL (master) or a NODE_DELETE (node) removed."""

    removed: int


class ListKeys(Request, frozen=True, kw_only=True):
    op = Op.LIST


class ListReply(Message, frozen=True, kw_only=True):
    keys: list[str]


class Stats(Request, frozen=True, kw_only=True):
    op = Op.STATS


class TenantUsage(Message, frozen=True, kw_only=True):
    quota: int | None
    usage: int


class NodeUsage(Message, frozen=True, kw_only=True):
    address: str
    capacity: int
    used: int


class StatsReply(Message, frozen=True, kw_only=True):
    node_count: int
    objects: int
    bytes: int
    tenants: dict[str, TenantUsage]
    evictions: int
    nodes: dict[str, NodeUsage] | None = None  # open mode only


# -------------------------------------------------------------------------------- node -> master


class Challenge(Request, frozen=True, kw_only=True):
    op = Op.NODE_CHALLENGE


class ChallengeReply(Message, frozen=True, kw_only=True):
    nonce: str


class Register(Request, frozen=True, kw_only=True):
    op = Op.NODE_REGISTER
    node_id: str
    address: str
    capacity: int
    alignment: int = 1
    objects: list[ObjectRecord] = []
    proof: str | None = None


class RegisterReply(Message, frozen=True, kw_only=True):
    drop: list[int] = []


class Heartbeat(Request, frozen=True, kw_only=True):
    op = Op.NODE_HEARTBEAT
    node_id: str


class Leave(Request, frozen=True, kw_only=True):
    op = Op.NODE_LEAVE
    node_id: str


class Known(Message, frozen=True, kw_only=True):
    """Whether the master knows the node (a heartbeat's or a goodbye's answer)."""

    known: bool


# -------------------------------------------------------------------------------- any -> node


class Write(Request, frozen=True, kw_only=True):
    """Objects whose bytes follow in the payload, back to back, in this order."""

    op = Op.NODE_WRITE
    objects: list[WriteRecord]


class Read(Request, frozen=True, kw_only=True):
    """Objects to send back, each with the size the master listed and a read grant."""

    op = Op.NODE_READ
    ids: list[int]
    sizes: list[int]
    grants: list[str | None] = []  # a missing grant is refused on a keyed cluster


class ReadReply(Message, frozen=True, kw_only=True):
    """Each object's size, or a negative code (the payload holds only the objects found)."""

    sizes: list[int]


class Delete(Request, frozen=True, kw_only=True):
    op = Op.NODE_DELETE
    ids: list[int]
    grants: list[str | None] = []  # a missing grant is refused on a keyed cluster


class NodeList(Request, frozen=True, kw_only=True):
    op = Op.NODE_LIST
    proof: str | None = None


class NodeListReply(Message, frozen=True, kw_only=True):
    objects: list[ObjectRecord]


class Segments(Request, frozen=True, kw_only=True):
    op = Op.NODE_SEGMENTS


class SegmentsReply(Message, frozen=True, kw_only=True):
    segments: list[dict[str, str | int]]  # each kind describes itself (always with "kind")
    node_id: str


class Reserve(Request, frozen=True, kw_only=True):
    op = Op.NODE_RESERVE
    objects: list[WriteRecord]


class ReserveReply(CodesReply, frozen=True, kw_only=True):
    """Per object: where it goes in the arena (-1: stream it instead, or see its code)."""

    offsets: list[int]
    node_id: str


class Commit(Request, frozen=True, kw_only=True):
    op = Op.NODE_COMMIT
    ids: list[int]
    abort: list[int] = []


class Pin(Read, frozen=True, kw_only=True):
    op = Op.NODE_PIN


class PinReply(ReadReply, frozen=True, kw_only=True):
    offsets: list[int]
    node_id: str


class Unpin(Request, frozen=True, kw_only=True):
    op = Op.NODE_UNPIN
    ids: list[int]


class UnpinReply(Message, frozen=True, kw_only=True):
    released: int


REQUESTS: dict[int, type[Request]] = {
    cls.op: cls for cls in (
        Ping, Hello, PutStart, PutEnd, PutRevoke, Locate, Exists, Remove, RemoveAll, ListKeys, Stats,
        Challenge, Register, Heartbeat, Leave, Write, Read, Delete, NodeList, Segments, Reserve,
        Commit, Pin, Unpin)
}


# -------------------------------------------------------------------------------- decoding


def decode(cls: type[R], meta: Mapping[str, Any]) -> R:
    """Validate ``meta`` as a ``cls``.

    Raises:
        InvalidParams: one line naming each bad field (``field sizes/0: ...``).
    """
    try:
        return msgspec.convert(meta, cls)
    except msgspec.ValidationError as exc:
        raise InvalidParams(f"bad {cls.__name__} message: {_describe(exc)}") from None


def decode_request(op: int, meta: Mapping[str, Any], served: Mapping[int, Any]) -> Request:
    """The typed request of a frame whose opcode is one of ``served``.

    Raises:
        ProtocolError: the opcode is not served here.  InvalidParams: a bad field, named.
    """
    from reference_store.errors import ProtocolError

    cls = REQUESTS.get(op)
    if cls is None or op not in served:
        raise ProtocolError(f"unknown opcode {op} here (field opcode)")
    return decode(cls, meta)


_AT = re.compile(r"^(?P<what>.*?)(?: - at `\$(?P<path>[^`]*)`)?$")
_NAMED = re.compile(r"^Object (?:contains unknown|missing required) field `(?P<name>[^`]*)`")


def _describe(exc: msgspec.ValidationError) -> str:
    """msgspec's message with its path as a JSON pointer: ``field objects/0/size: ...``."""
    found = _AT.match(str(exc))
    what, path = (found["what"], found["path"] or "") if found else (str(exc), "")
    parts = [p for p in re.split(r"[.\[\]]", path) if p]
    named = _NAMED.match(what)
    if named:  # an unknown or missing field: the pointer names the field itself
        parts.append(named["name"])
        what = "unknown field" if "unknown" in what else "required field missing"
    where = "/".join(parts) or "(the object)"
    return f"field {where}: {what.replace('`', '').lower()}"


class Link(Protocol):
    """What :func:`call` needs of a connection (TCP or in-process)."""

    def call(self, opcode: Op, meta: Any = None, payload: Sequence[Buffer] = (), *,
             into: Sequence[memoryview] | None = None, timeout: float | None = None) -> Frame:
        ...


def call(link: Link, request: Request, reply: type[R], payload: Sequence[Buffer] = (), *,
         into: Sequence[memoryview] | None = None, timeout: float | None = None) -> R:
    """Send ``request`` and decode its answer as ``reply``.

    Raises:
        StoreError: the server answered with an error (the same class), the call failed, or
            the reply does not decode (InvalidParams naming the field).
    """
    frame = link.call(request.op, request, payload, into=into, timeout=timeout)
    return decode(reply, frame.meta)


def item_error(code: int, message: str, key: str | None = None) -> StoreError:
    """The error one item of a batch reply reports, with its key named."""
    text = message or error_from_code(code).message
    if key is not None and repr(key) not in text:
        text = f"object {key!r}: {text}"
    return error_from_code(code, text)


def item_errors(reply: CodesReply, keys: Sequence[str | None]) -> list[StoreError | None]:
    """One error (or None) per item of a batch reply, each naming its key."""
    messages = reply.errors or [""] * len(reply.codes)
    return [item_error(code, msg, key) if code else None
            for code, msg, key in zip(reply.codes, messages, keys, strict=False)]


def failure(codes: list[int], errors: list[str], exc: StoreError) -> None:
    """Append one failed item to a batch reply under construction."""
    codes.append(exc.code)
    errors.append(str(exc))


def success(codes: list[int], errors: list[str]) -> None:
    """Append one done item to a batch reply under construction."""
    codes.append(0)
    errors.append("")
