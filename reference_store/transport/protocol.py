"""The reference store's binary frame protocol (version 1).

Every message, request or response, is one frame::

    offset size field
    0      2    magic        b"RS"
    2      1    version      1
    3      1    flags        bit 0: response; bit 1: payload hash present; bit 2: the
                                 payload's parts and their hashes follow the payload
    4      2    opcode       an :class:`Op`
    6      4    status       0, or a negative error code from ``reference_store.errors``
    10     8    request_id   chosen by the caller, echoed in the response
    18     4    meta_len     bytes of JSON metadata that follow the header (<= MAX_META_BYTES)
    22     8    payload_len  bytes of raw payload that follow the metadata (<= max_payload)
    30     4    meta_crc     zlib.crc32 of the metadata bytes
    34     8    payload_hash xxh3_64 of the payload (0 when bit 1 of flags is clear)

then ``meta_len`` bytes of UTF-8 JSON (an object) and ``payload_len`` bytes of payload (object
bytes, several objects back to back; the metadata says where each one ends).

With flag bit 2 (``payload_hash`` is then 0) a trailer follows the payload: a part count (4 bytes)
and, for each part (each object, as the sender laid them out), its size and xxh3_64 (8 + 8
bytes, big-endian). A sender hashes each piece just before it sends it, while the piece is in
the CPU's cache, instead of reading every payload once more to put its hash in the header; a
sender that already knows an object's hash (a node keeps the one it checked when the object
arrived) sends it without reading the object at all, and the reader checks the bytes end to
end. Receivers accept both forms; bits 1 and 2 together are refused.

A response with a non-zero ``status`` carries ``{"error": message}`` and is raised on the caller's
side as the exception class that ``reference_store.errors.error_from_code(status)`` names, so an
error raised on a server is the SAME class on the client.
"""

from __future__ import annotations

import enum
import json
import struct
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
import xxhash

from reference_store import errors
from reference_store.errors import ProtocolError, StoreError, error_from_code

__all__ = [
    "DEFAULT_MAX_PAYLOAD",
    "FLAG_HASHED",
    "FLAG_RESPONSE",
    "FLAG_TRAILER",
    "HEADER",
    "HEADER_SIZE",
    "MAGIC",
    "MAX_META_BYTES",
    "MAX_TRAILER_PARTS",
    "TRAILER_COUNT",
    "TRAILER_PART",
    "VERSION",
    "Buffer",
    "Frame",
    "Header",
    "Op",
    "OutMeta",
    "decode_header",
    "decode_meta",
    "decode_parts",
    "encode_header",
    "encode_meta",
    "encode_trailer",
    "error_meta",
    "payload_hash",
    "raise_for_status",
    "settled",
    "status_of",
    "trailer_count",
]

MAGIC = b"RS"
VERSION = 1
HEADER = struct.Struct("!2sBBHiQIQIQ")
HEADER_SIZE = HEADER.size
MAX_META_BYTES = 4 << 20
DEFAULT_MAX_PAYLOAD = 1 << 30
FLAG_RESPONSE = 0x01
FLAG_HASHED = 0x02
FLAG_TRAILER = 0x04
_KNOWN_FLAGS = FLAG_RESPONSE | FLAG_HASHED | FLAG_TRAILER
TRAILER_COUNT = struct.Struct("!I")  # parts in the trailer (FLAG_TRAILER)
TRAILER_PART = struct.Struct("!QQ")  # one part's size and xxh3_64
# a frame's objects are named in its metadata too, which MAX_META_BYTES bounds far below this
MAX_TRAILER_PARTS = MAX_META_BYTES // TRAILER_PART.size

Buffer = bytes | bytearray | memoryview
#: metadata to send: a typed message, or a plain JSON object
OutMeta = Mapping[str, Any] | msgspec.Struct


class Op(enum.IntEnum):
    """Operation codes. 1-49: client -> master; 50-79: node -> master; 80-99: any -> node."""

    PING = 1
    HELLO = 2
    PUT_START = 10
    PUT_END = 11
    PUT_REVOKE = 12
    LOCATE = 13
    EXISTS = 14
    REMOVE = 15
    REMOVE_ALL = 16
    LIST = 17
    STATS = 18
    NODE_REGISTER = 50
    NODE_HEARTBEAT = 51
    NODE_LEAVE = 52
    NODE_CHALLENGE = 53
    NODE_WRITE = 80
    NODE_READ = 81
    NODE_DELETE = 82
    NODE_LIST = 83
    NODE_SEGMENTS = 84
    NODE_RESERVE = 85
    NODE_COMMIT = 86
    NODE_PIN = 87
    NODE_UNPIN = 88


@dataclass(frozen=True, slots=True)
class Header:
    """A decoded frame header."""

    flags: int
    opcode: int
    status: int
    request_id: int
    meta_len: int
    payload_len: int
    meta_crc: int
    payload_hash: int

    @property
    def is_response(self) -> bool:
        return bool(self.flags & FLAG_RESPONSE)

    @property
    def hashed(self) -> bool:
        return bool(self.flags & FLAG_HASHED)

    @property
    def has_trailer(self) -> bool:
        """The payload's parts and their hashes follow the payload (see the module docs)."""
        return bool(self.flags & FLAG_TRAILER)


@dataclass(slots=True)
class Frame:
    """A decoded frame with its metadata and (when it was not scattered) its payload."""

    header: Header
    meta: dict[str, Any]
    payload: memoryview = field(default_factory=lambda: memoryview(b""))
    item_errors: dict[int, StoreError] = field(default_factory=dict)


def payload_hash(buffers: Iterable[Buffer]) -> int:
    """xxh3_64 of the buffers' concatenation (streamed, no join)."""
    h = xxhash.xxh3_64()
    for buf in buffers:
        h.update(buf)
    return h.intdigest()


def encode_meta(meta: OutMeta) -> bytes:
    """JSON-encode a metadata object (a dict, or a typed message) compactly."""
    if isinstance(meta, msgspec.Struct):
        return msgspec.json.encode(meta)
    return json.dumps(meta, separators=(",", ":")).encode()


_JSON = msgspec.json.Decoder()


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _why_not_json(raw: Buffer, exc: Exception) -> str:
    """Why metadata is not JSON, as the json module words it (it names a NaN or an Infinity
    and where it stands); msgspec's own words when the json module would take it."""
    try:
        json.loads(bytes(raw), parse_constant=_refuse_constant)
    except RecursionError:
        return "nested too deeply"
    except (UnicodeDecodeError, ValueError) as err:
        return str(err)
    return str(exc)


def decode_meta(raw: Buffer, expected_crc: int) -> dict[str, Any]:
    """Check and decode frame metadata.

    Raises:
        ProtocolError: the checksum does not match or the bytes are not a JSON object.
    """
    if zlib.crc32(raw) != expected_crc:
        raise ProtocolError("frame metadata checksum mismatch (field meta_crc)")
    if not raw:
        return {}
    try:
        # msgspec, not the json module: 2.3-2.6x faster on a batch's metadata (a LOCATE reply
        # of 256 objects, 42 KB: 704 -> 269 us), and as strict (no NaN, no Infinity, no
        # number out of range, no lone surrogate)
        meta = _JSON.decode(raw)
    except RecursionError:
        raise ProtocolError("frame metadata is nested too deeply (field meta)") from None
    except msgspec.DecodeError as exc:
        raise ProtocolError(f"frame metadata is not valid JSON: {_why_not_json(raw, exc)}") from exc
    if not isinstance(meta, dict):
        raise ProtocolError("frame metadata must be a JSON object")
    return meta


def encode_header(
    *,
    opcode: int,
    request_id: int,
    meta: bytes,
    payload: Sequence[Buffer] = (),
    status: int = 0,
    response: bool = False,
    hashed: bool = True,
    trailer: bool = False,
) -> tuple[bytes, int]:
    """Build a header for ``meta`` and ``payload``; returns (header bytes, payload length).

    With ``trailer`` (and a payload) the header announces a trailer of part hashes after the
    payload (:data:`FLAG_TRAILER`), which the caller sends; otherwise, with ``hashed``, the
    header carries the payload's hash."""
    payload_len = sum(memoryview(b).nbytes for b in payload)
    flags = FLAG_RESPONSE if response else 0
    digest = 0
    if trailer and payload_len:
        flags |= FLAG_TRAILER
    elif hashed and payload_len:
        flags |= FLAG_HASHED
        digest = payload_hash(payload)
    header = HEADER.pack(
        MAGIC, VERSION, flags, opcode, status, request_id, len(meta), payload_len,
        zlib.crc32(meta), digest,
    )
    return header, payload_len


def encode_trailer(parts: Sequence[tuple[int, int]]) -> bytes:
    """The trailer for ``parts``, each ``(size, xxh3_64)``."""
    flat = [x for part in parts for x in part]
    return struct.pack(f"!I{len(flat)}Q", len(parts), *flat)


def trailer_count(raw: Buffer, payload_len: int) -> int:
    """The part count that starts a trailer.

    Raises:
        ProtocolError: no part for a payload, more parts than payload bytes (every part has
            at least one), or more than MAX_TRAILER_PARTS.
    """
    (count,) = TRAILER_COUNT.unpack(raw)
    if count > min(payload_len, MAX_TRAILER_PARTS) or (payload_len and not count):
        raise ProtocolError(f"a trailer of {count} parts for a payload of {payload_len} bytes "
                            "(field trailer)")
    return count


def decode_parts(raw: Buffer, payload_len: int) -> list[tuple[int, int]]:
    """The ``(size, xxh3_64)`` of each part of a trailer (after its count).

    Raises:
        ProtocolError: an empty part, or sizes that do not add up to ``payload_len``.
    """
    parts = list(TRAILER_PART.iter_unpack(raw))
    sizes = [n for n, _ in parts]
    if (sizes and min(sizes) <= 0) or sum(sizes) != payload_len:
        raise ProtocolError("trailer part sizes do not add up to payload_len (field trailer)")
    return parts


def decode_header(raw: Buffer, *, max_payload: int = DEFAULT_MAX_PAYLOAD) -> Header:
    """Parse and validate a frame header.

    Raises:
        ProtocolError: bad magic, unsupported version, unknown flags, or a length over a limit.
    """
    if len(raw) != HEADER_SIZE:
        raise ProtocolError(f"frame header must be {HEADER_SIZE} bytes, got {len(raw)}")
    magic, version, flags, opcode, status, rid, meta_len, payload_len, meta_crc, digest = (
        HEADER.unpack(raw)
    )
    if magic != MAGIC:
        raise ProtocolError(f"bad frame magic {magic!r} (field magic)")
    if version != VERSION:
        raise ProtocolError(f"unsupported frame version {version} (field version; this is {VERSION})")
    if flags & ~_KNOWN_FLAGS:
        raise ProtocolError(f"unknown frame flags 0x{flags:02x} (field flags)")
    if flags & FLAG_HASHED and flags & FLAG_TRAILER:
        raise ProtocolError("a payload hash both in the header and after the payload "
                            "(field flags)")
    if meta_len > MAX_META_BYTES:
        raise ProtocolError(f"frame metadata of {meta_len} bytes exceeds {MAX_META_BYTES} (field meta_len)")
    if payload_len > max_payload:
        raise ProtocolError(f"frame payload of {payload_len} bytes exceeds {max_payload} (field payload_len)")
    return Header(flags, opcode, status, rid, meta_len, payload_len, meta_crc, digest)


def error_meta(exc: BaseException) -> tuple[int, dict[str, Any]]:
    """Status code and metadata describing ``exc`` for an error response."""
    return status_of(exc), {"error": str(exc) or type(exc).__name__, "class": type(exc).__name__}


def status_of(exc: BaseException) -> int:
    """The wire status for an exception (StoreError subclasses keep their code)."""
    if isinstance(exc, StoreError):
        return exc.code
    return StoreError.code


def raise_for_status(status: int, meta: dict[str, Any]) -> None:
    """Raise the error a response reports, as the same class the server raised.

    Raises:
        StoreError: the matching subclass when ``status`` is non-zero.
    """
    if status:
        message = str(meta.get("error", ""))
        cls = getattr(errors, str(meta.get("class", "")), None)
        # Several classes share a code (BufferTooSmall is an InvalidParams): the name picks the
        # exact one, but only among classes that really carry the status the frame reports.
        if isinstance(cls, type) and issubclass(cls, StoreError) and cls.code == status:
            raise cls(message)
        raise error_from_code(status, message)


def settled(frame: Frame | None, error: BaseException | None,
            item_errors: dict[int, StoreError]) -> Frame:
    """The answer to one request, as a connection (TCP or in-process) received it: ``frame``
    with the per-item errors found while receiving its payload.

    Raises:
        BaseException: ``error``, what ended the request before an answer came.
        StoreError: the error the answer reports, as the same class the server raised.
    """
    if error is not None:
        raise error
    assert frame is not None  # a request ends with an answer or an error
    raise_for_status(frame.header.status, frame.meta)
    frame.item_errors = item_errors
    return frame
