"""The frame protocol: header layout, limits, checksums, and errors mapping both ways."""

from __future__ import annotations

import struct
import zlib

import pytest

from reference_store import errors
from reference_store.errors import (
    BufferTooSmall,
    ChecksumMismatch,
    InvalidParams,
    ProtocolError,
    StoreError,
)
from reference_store.transport import protocol as p


def _header(**over: int | bytes) -> bytes:
    fields: dict[str, int | bytes] = {
        "magic": p.MAGIC, "version": p.VERSION, "flags": 0, "opcode": int(p.Op.PING), "status": 0,
        "rid": 7, "meta_len": 0, "payload_len": 0, "meta_crc": 0, "digest": 0}
    fields.update(over)
    return p.HEADER.pack(*fields.values())


def test_header_round_trip_with_payload_hash() -> None:
    meta = p.encode_meta({"keys": ["a"]})
    payload = [b"abc", bytearray(b"defg"), memoryview(b"h")]
    raw, n = p.encode_header(opcode=p.Op.NODE_WRITE, request_id=42, meta=meta, payload=payload)
    h = p.decode_header(raw)
    assert (h.opcode, h.request_id, h.meta_len, h.payload_len, n) == (80, 42, len(meta), 8, 8)
    assert h.hashed and not h.is_response
    assert h.payload_hash == p.payload_hash([b"abcdefgh"])
    assert p.decode_meta(meta, h.meta_crc) == {"keys": ["a"]}


def test_a_trailer_header_leaves_the_hashes_to_the_bytes_after_the_payload() -> None:
    raw, n = p.encode_header(opcode=p.Op.NODE_WRITE, request_id=1, meta=b"",
                             payload=[b"abc", b"de"], trailer=True)
    h = p.decode_header(raw)
    assert (n, h.has_trailer, h.payload_hash, h.hashed) == (5, True, 0, False)
    parts = [(3, p.payload_hash([b"abc"])), (2, p.payload_hash([b"de"]))]
    trailer = p.encode_trailer(parts)
    assert len(trailer) == 4 + 2 * 16
    assert p.trailer_count(trailer[:4], 5) == 2
    assert p.decode_parts(trailer[4:], 5) == parts
    bare, _ = p.encode_header(opcode=p.Op.PING, request_id=1, meta=b"", trailer=True)
    assert not p.decode_header(bare).has_trailer  # no payload, nothing after it


@pytest.mark.parametrize("count, payload_len", [(0, 5), (6, 5), (p.MAX_TRAILER_PARTS + 1, 1 << 30)])
def test_a_trailer_count_that_cannot_be_is_refused(count: int, payload_len: int) -> None:
    with pytest.raises(ProtocolError, match="trailer"):
        p.trailer_count(p.TRAILER_COUNT.pack(count), payload_len)


@pytest.mark.parametrize("parts", [[(5, 1), (0, 2)], [(4, 1)], [(3, 1), (3, 2)]])
def test_trailer_parts_must_add_up_to_the_payload(parts: list[tuple[int, int]]) -> None:
    with pytest.raises(ProtocolError, match="trailer"):
        p.decode_parts(p.encode_trailer(parts)[4:], 5)


def test_a_hash_in_the_header_and_after_the_payload_is_refused() -> None:
    with pytest.raises(ProtocolError, match="flags"):
        p.decode_header(_header(flags=p.FLAG_HASHED | p.FLAG_TRAILER))


def test_header_is_42_bytes_network_order() -> None:
    assert p.HEADER_SIZE == 42
    raw = _header(rid=1)
    assert raw[:2] == b"RS" and raw[2] == 1
    assert struct.unpack("!Q", raw[10:18]) == (1,)


@pytest.mark.parametrize("over, field", [
    ({"magic": b"XX"}, "magic"),
    ({"version": 9}, "version"),
    ({"flags": 0x80}, "flags"),
    ({"meta_len": p.MAX_META_BYTES + 1}, "meta_len"),
    ({"payload_len": 1 << 40}, "payload_len"),
])
def test_bad_headers_name_the_field(over: dict[str, int | bytes], field: str) -> None:
    with pytest.raises(ProtocolError, match=field):
        p.decode_header(_header(**over))


def test_truncated_header_is_refused() -> None:
    with pytest.raises(ProtocolError, match="42 bytes"):
        p.decode_header(_header()[:-1])


def test_payload_limit_is_configurable() -> None:
    assert p.decode_header(_header(payload_len=100), max_payload=100).payload_len == 100
    with pytest.raises(ProtocolError, match="payload_len"):
        p.decode_header(_header(payload_len=101), max_payload=100)


def test_meta_checksum_and_shape() -> None:
    good = b'{"a":1}'
    with pytest.raises(ProtocolError, match="meta_crc"):
        p.decode_meta(good, zlib.crc32(good) ^ 1)
    with pytest.raises(ProtocolError, match="JSON"):
        p.decode_meta(b"{nope", zlib.crc32(b"{nope"))
    with pytest.raises(ProtocolError, match="object"):
        p.decode_meta(b"[1]", zlib.crc32(b"[1]"))
    assert p.decode_meta(b"", zlib.crc32(b"")) == {}


@pytest.mark.parametrize("cls", sorted(set(errors.ERROR_CODES.values()) | {BufferTooSmall,
                                                                          ChecksumMismatch},
                                       key=lambda c: c.__name__))
def test_every_error_class_maps_both_ways(cls: type[StoreError]) -> None:
    status, meta = p.error_meta(cls("boom"))
    assert status == cls.code
    with pytest.raises(StoreError) as info:
        p.raise_for_status(status, meta)
    assert type(info.value) is cls
    assert str(info.value) == "boom"


def test_class_name_cannot_override_the_code() -> None:
    # A peer naming a class whose code differs from the status gets the status's class.
    with pytest.raises(StoreError) as info:
        p.raise_for_status(InvalidParams.code, {"error": "x", "class": "ObjectNotFound"})
    assert type(info.value) is InvalidParams


def test_unknown_status_becomes_store_error_and_foreign_errors_are_internal() -> None:
    with pytest.raises(StoreError) as info:
        p.raise_for_status(-12345, {"error": "odd"})
    assert type(info.value) is StoreError
    assert p.status_of(RuntimeError("x")) == StoreError.code
    p.raise_for_status(0, {})  # OK status raises nothing
