"""The reference store's exception tree.

Every error has an integer ``code`` taken from Mooncake Store's ``ErrorCode`` where Mooncake has
one, so that a server can send the code over the wire and the client raises the SAME class, and
so that the Mooncake-shaped facade can return the integer a Mooncake script expects.

::

    StoreError (Exception)                        -1    INTERNAL_ERROR
    ├── StoreFull                                 -200  NO_AVAILABLE_HANDLE
    ├── InvalidKey (StoreError, ValueError)       -400  INVALID_KEY
    ├── InvalidParams (StoreError, ValueError)    -600  INVALID_PARAMS
    │   └── BufferTooSmall                        -600
    ├── ObjectNotFound (StoreError, KeyError)     -704  OBJECT_NOT_FOUND
    ├── ObjectAlreadyExists                       -705  OBJECT_ALREADY_EXISTS
    ├── ObjectHasLease                            -706  OBJECT_HAS_LEASE
    ├── LeaseExpired                              -707  LEASE_EXPIRED
    ├── PinnedObject                              -708  (ours: pinned objects cannot be removed)
    ├── TransferError                             -800  TRANSFER_FAIL
    │   └── ChecksumMismatch                      -801  CHECKSUM_MISMATCH
    ├── RpcError                                  -900  RPC_FAIL
    │   ├── RpcTimeout (RpcError, TimeoutError)   -901  RPC_TIMEOUT
    │   ├── ProtocolError                         -910  (ours: malformed or unsupported frame)
    │   └── ConnectionLost                        -911  (ours: peer closed mid-call)
    ├── NotReady                                  -950  (ours: call before setup / after close)
    ├── TenantQuotaExceeded                       -1700 TENANT_QUOTA_EXCEEDED
    ├── TenantNotRegistered                       -1701 TENANT_NOT_REGISTERED
    ├── TenantNotEmpty                            -1702 TENANT_NOT_EMPTY
    └── AuthenticationFailed                      -1710 (ours: missing or wrong tenant token)
"""

from __future__ import annotations

__all__ = [
    "ERROR_CODES",
    "AuthenticationFailed",
    "BufferTooSmall",
    "ChecksumMismatch",
    "ConnectionLost",
    "InvalidKey",
    "InvalidParams",
    "LeaseExpired",
    "NotReady",
    "ObjectAlreadyExists",
    "ObjectHasLease",
    "ObjectNotFound",
    "PinnedObject",
    "ProtocolError",
    "RpcError",
    "RpcTimeout",
    "StoreError",
    "StoreFull",
    "TenantNotEmpty",
    "TenantNotRegistered",
    "TenantQuotaExceeded",
    "TransferError",
    "error_from_code",
]


class StoreError(Exception):
    """Base class of every error the reference store raises."""

    code: int = -1
    code_name: str = "INTERNAL_ERROR"

    def __init__(self, message: str = "") -> None:
        super().__init__(message or self.code_name)
        self.message = message or self.code_name

    def __str__(self) -> str:  # KeyError would otherwise repr() the message
        return self.message


class StoreFull(StoreError):
    """No space could be found, even after evicting everything evictable."""

    code, code_name = -200, "NO_AVAILABLE_HANDLE"


class InvalidKey(StoreError, ValueError):
    code, code_name = -400, "INVALID_KEY"


class InvalidParams(StoreError, ValueError):
    code, code_name = -600, "INVALID_PARAMS"


class BufferTooSmall(InvalidParams):
    """The destination buffer cannot hold the object."""


class ObjectNotFound(StoreError, KeyError):
    code, code_name = -704, "OBJECT_NOT_FOUND"


class ObjectAlreadyExists(StoreError):
    code, code_name = -705, "OBJECT_ALREADY_EXISTS"


class ObjectHasLease(StoreError):
    code, code_name = -706, "OBJECT_HAS_LEASE"


class LeaseExpired(StoreError):
    code, code_name = -707, "LEASE_EXPIRED"


class PinnedObject(StoreError):
    code, code_name = -708, "OBJECT_PINNED"


class TransferError(StoreError):
    code, code_name = -800, "TRANSFER_FAIL"


class ChecksumMismatch(TransferError):
    code, code_name = -801, "CHECKSUM_MISMATCH"


class RpcError(StoreError):
    code, code_name = -900, "RPC_FAIL"


class RpcTimeout(RpcError, TimeoutError):
    code, code_name = -901, "RPC_TIMEOUT"


class ProtocolError(RpcError):
    code, code_name = -910, "PROTOCOL_ERROR"


class ConnectionLost(RpcError):
    code, code_name = -911, "CONNECTION_LOST"


class NotReady(StoreError):
    code, code_name = -950, "NOT_READY"


class TenantQuotaExceeded(StoreError):
    code, code_name = -1700, "TENANT_QUOTA_EXCEEDED"


class TenantNotRegistered(StoreError):
    code, code_name = -1701, "TENANT_NOT_REGISTERED"


class TenantNotEmpty(StoreError):
    code, code_name = -1702, "TENANT_NOT_EMPTY"


class AuthenticationFailed(StoreError):
    code, code_name = -1710, "AUTHENTICATION_FAILED"


def _collect() -> dict[int, type[StoreError]]:
    table: dict[int, type[StoreError]] = {}
    stack: list[type[StoreError]] = [StoreError]
    while stack:
        cls = stack.pop()
        table.setdefault(cls.code, cls)  # a subclass sharing its parent's code maps to the parent
        stack.extend(cls.__subclasses__())
    return table


ERROR_CODES: dict[int, type[StoreError]] = _collect()


def error_from_code(code: int, message: str = "") -> StoreError:
    """Rebuild the exception a peer reported as ``code`` (unknown codes become StoreError)."""
    return ERROR_CODES.get(code, StoreError)(message)
