"""Tenants: who may connect, which namespace they see, and how many bytes they may hold.

Policy file (YAML)::

    version: 1
    isolation: strict          # strict: identity is (tenant, key); off: one shared namespace
    admin_token_env: STORE_ADMIN_TOKEN   # the admin endpoint's token (no token: no endpoint)
    cluster_key_env: STORE_CLUSTER_KEY   # the secret nodes prove (or cluster_key_file: PATH)
    tenants:
      - name: alice
        quota: 200GB             # bytes, or a size with B/KB/MB/GB/TB (x1000) or KiB/MiB/GiB/TiB
        token_env: ALICE_TOKEN   # the token is read from this environment variable, or
      - name: bob
        quota: 10GiB
        token_file: /etc/refstore/bob.token   # from the first line of this file

A literal ``token:`` is accepted too (for tests), but environment variables or files keep secrets
out of policy files. Only SHA-256 digests of tokens are kept in memory; tokens are never logged.
Without a policy file there is one open namespace, no tokens and no quotas (Mooncake's default).
Quotas count stored bytes, replicas included.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from reference_store.config import Size, StrictModel, format_size, parse_size, read_document
from reference_store.errors import (
    AuthenticationFailed,
    InvalidParams,
    TenantNotRegistered,
)

__all__ = [
    "DEFAULT_TENANT",
    "ClusterKey",
    "Tenant",
    "TenantEntry",
    "TenantPolicy",
    "TenantsFile",
    "format_size",
    "parse_size",
]

DEFAULT_TENANT = "default"
CLOCK_SKEW_S = 2.0  # how far a node's clock may be behind the master's for grant expiry


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


class TenantEntry(StrictModel):
    """One tenant as written in the tenants file: a name, a quota, and where its token is."""

    label: ClassVar[str] = "tenant"
    name_field: ClassVar[str | None] = "name"

    name: str = Field(min_length=1)
    quota: Size | None = None
    token_env: str | None = None
    token_file: str | None = None
    token: str | None = None

    @field_validator("name")
    @classmethod
    def _printable(cls, name: str) -> str:
        if not name.isprintable():
            raise ValueError("must be printable")
        return name

    @model_validator(mode="after")
    def _has_token(self) -> TenantEntry:
        if not (self.token_env or self.token_file or self.token):
            raise ValueError(f"tenant `{self.name}` needs token_env, token_file or token")
        return self


class TenantsFile(StrictModel):
    """The tenants file (see the module docstring)."""

    label: ClassVar[str] = "tenants file"

    version: Literal[1]
    isolation: Literal["strict", "off"] = "strict"
    admin_token_env: str | None = None
    admin_token_file: str | None = None
    admin_token: str | None = None
    cluster_key_env: str | None = None
    cluster_key_file: str | None = None
    tenants: list[TenantEntry] = Field(min_length=1)

    @field_validator("isolation", mode="before")
    @classmethod
    def _yaml_bool(cls, value: Any) -> Any:
        if isinstance(value, bool):  # YAML 1.1 reads a bare off/on as a boolean
            return "strict" if value else "off"
        return value

    @model_validator(mode="after")
    def _unique_names(self) -> TenantsFile:
        seen: set[str] = set()
        for i, entry in enumerate(self.tenants):
            if entry.name in seen:
                raise ValueError(f"/tenants/{i}/name `{entry.name}` is repeated")
            seen.add(entry.name)
        return self


@dataclass
class Tenant:
    """One tenant: its quota (None: unlimited), token digest, and bytes held now."""

    name: str
    quota: int | None
    token_digest: bytes | None
    usage: int = 0

    def __repr__(self) -> str:  # never show the digest either
        return f"Tenant(name={self.name!r}, quota={self.quota}, usage={self.usage})"


class TenantPolicy:
    """Tenants, their tokens and quotas, and byte accounting (thread-safe)."""

    def __init__(
        self, tenants: Mapping[str, Tenant] | None = None, *, isolation: bool = True,
        admin_token_digest: bytes | None = None,
    ) -> None:
        self.open = tenants is None
        self.isolation = isolation and not self.open
        self._tenants: dict[str, Tenant] = dict(tenants or {})
        self._admin = admin_token_digest
        self._lock = threading.Lock()
        #: the cluster key the tenants file names (``cluster_key_env``/``cluster_key_file``)
        self.cluster_key: ClusterKey | None = None
        if self.open:
            self._tenants[DEFAULT_TENANT] = Tenant(DEFAULT_TENANT, None, None)

    @classmethod
    def open_policy(cls) -> TenantPolicy:
        """No tenants file: one namespace, no tokens, no quotas."""
        return cls(None, isolation=False)

    @classmethod
    def from_file(cls, path: str | Path, env: Mapping[str, str] | None = None) -> TenantPolicy:
        """Load a policy file.

        Raises:
            InvalidParams: unreadable file, an unknown key or a bad field (the message names it).
        """
        doc = read_document(path, what="tenants file")
        return cls.from_dict(doc, env=os.environ if env is None else env, source=str(path))

    @classmethod
    def from_dict(
        cls, doc: Any, *, env: Mapping[str, str], source: str = "tenants",
    ) -> TenantPolicy:
        """Build a policy from a parsed document (see the module docstring for the shape).

        Raises:
            InvalidParams: an unknown key, a bad or missing field, named with its location.
        """
        spec: TenantsFile = TenantsFile.load(doc, source=source)
        tenants: dict[str, Tenant] = {}
        for i, entry in enumerate(spec.tenants):
            token = _secret(entry.token_env, entry.token_file, entry.token, env=env,
                            where=f"{source}: /tenants/{i}/token")
            if not token:
                raise InvalidParams(f"{source}: /tenants/{i}: the token of tenant "
                                    f"`{entry.name}` is empty")
            tenants[entry.name] = Tenant(entry.name, entry.quota, _digest(token))
        admin = _secret(spec.admin_token_env, spec.admin_token_file, spec.admin_token, env=env,
                        where=f"{source}: /admin_token")
        cluster = _secret(spec.cluster_key_env, spec.cluster_key_file, None, env=env,
                          where=f"{source}: /cluster_key")
        policy = cls(tenants, isolation=spec.isolation == "strict",
                     admin_token_digest=_digest(admin) if admin else None)
        if cluster is not None:
            policy.cluster_key = ClusterKey.from_secret(cluster.encode(),
                                                        where=f"{source}: /cluster_key")
        return policy

    def authenticate(self, name: str, token: str | None) -> Tenant:
        """Check a connecting client's tenant and token.

        Raises:
            TenantNotRegistered: no such tenant.
            AuthenticationFailed: missing or wrong token.
        """
        if self.open:
            return self._tenants[DEFAULT_TENANT]
        tenant = self._tenants.get(name)
        if tenant is None:
            raise TenantNotRegistered(f"tenant {name!r} is not registered")
        if tenant.token_digest is None or token is None or not hmac.compare_digest(
            tenant.token_digest, _digest(token)
        ):
            raise AuthenticationFailed(f"missing or wrong token for tenant {name!r}")
        return tenant

    @property
    def admin_enabled(self) -> bool:
        """Whether an admin token is configured (without one the admin endpoint is off)."""
        return self._admin is not None

    def check_admin(self, token: str | None) -> bool:
        """True when ``token`` is the admin token (compared in constant time); always False
        when none is configured."""
        if self._admin is None or token is None:
            return False
        return hmac.compare_digest(self._admin, _digest(token))

    def namespace(self, tenant: str) -> str:
        """The namespace a tenant's keys live in ('' when isolation is off)."""
        return tenant if self.isolation else ""

    def get(self, name: str) -> Tenant:
        """Raises: TenantNotRegistered."""
        tenant = self._tenants.get(name)
        if tenant is None:
            raise TenantNotRegistered(f"tenant {name!r} is not registered")
        return tenant

    def names(self) -> list[str]:
        return sorted(self._tenants)

    def set_quota(self, name: str, quota: int | None) -> None:
        """Change a tenant's quota at run time. Raises: TenantNotRegistered."""
        with self._lock:
            self.get(name).quota = quota

    def room(self, name: str) -> int | None:
        """Bytes the tenant may still add (None: unlimited)."""
        tenant = self.get(name)
        return None if tenant.quota is None else tenant.quota - tenant.usage

    def charge(self, name: str, nbytes: int) -> None:
        with self._lock:
            self.get(name).usage += nbytes

    def refund(self, name: str, nbytes: int) -> None:
        with self._lock:
            tenant = self.get(name)
            tenant.usage = max(0, tenant.usage - nbytes)

    def quota_of(self, name: str) -> dict[str, int | None]:
        """One tenant's quota and usage. Raises: TenantNotRegistered."""
        tenant = self.get(name)
        return {"quota": tenant.quota, "usage": tenant.usage}

    def quotas(self) -> dict[str, dict[str, int | None]]:
        """Quota and usage per tenant."""
        return {t.name: {"quota": t.quota, "usage": t.usage} for t in self._tenants.values()}


def _secret(var: str | None, path: str | None, literal: str | None, *,
            env: Mapping[str, str], where: str) -> str | None:
    """A secret from an environment variable, the first line of a file, or a literal."""
    if var is not None:
        if var not in env:
            raise InvalidParams(f"{where}_env: environment variable {var} is not set")
        return env[var]
    if path is not None:
        try:
            return Path(path).read_text().splitlines()[0].strip()
        except (OSError, IndexError) as exc:
            raise InvalidParams(f"{where}_file: cannot read a token: {exc}") from exc
    return literal


class ClusterKey:
    """A secret shared by the master and its nodes (``cluster_key_env`` in the tenants file,
    or ``--cluster-key-file``/``--cluster-key-env`` on the command line).

    Nodes prove it to join: the master sends a fresh nonce (``NODE_CHALLENGE``) and the node
    answers ``HMAC(key, "register:<nonce>:<node id>")``, so a proof cannot be replayed.
    The master hands a client a *grant* for each object it may write or read (and sends one
    with each delete): ``<expiry ms>.<HMAC(key, "<purpose>:<id>:<size>:<expiry ms>")>``. A node
    recomputes it, so a grant is good for one purpose, one object, one size and a limited time:
    a 1-byte write grant cannot write 256 MiB, a read grant cannot write, and anyone who can
    reach a node without a grant gets nothing. Without a key (the open mode) nodes trust the
    network; the master refuses to start that way when tenants are configured.
    """

    def __init__(self, secret: bytes | None) -> None:
        self._secret = secret

    @classmethod
    def from_file(cls, path: str | Path | None) -> ClusterKey:
        """Read the key (the whole file, at least 16 bytes); None gives the open mode.

        Raises:
            InvalidParams: unreadable or too short.
        """
        if path is None:
            return cls(None)
        try:
            secret = Path(path).read_bytes().strip()
        except OSError as exc:
            raise InvalidParams(f"--cluster-key-file: cannot read {path}: {exc}") from exc
        return cls.from_secret(secret, where="--cluster-key-file")

    @classmethod
    def from_secret(cls, secret: bytes, *, where: str = "cluster key") -> ClusterKey:
        """A key from its bytes (at least 16).

        Raises:
            InvalidParams: too short (the message names ``where``).
        """
        secret = secret.strip()
        if len(secret) < 16:
            raise InvalidParams(f"{where}: the key must be at least 16 bytes")
        return cls(secret)

    @property
    def enabled(self) -> bool:
        return self._secret is not None

    def _mac(self, message: str) -> str:
        assert self._secret is not None
        return hmac.new(self._secret, message.encode(), hashlib.sha256).hexdigest()[:32]

    def grant(self, object_id: int, *, size: int, purpose: str, ttl_s: float,
              now: float | None = None) -> str:
        """A grant to ``purpose`` (write, read, delete) ``size`` bytes of ``object_id`` for
        ``ttl_s`` seconds ('' in the open mode)."""
        if self._secret is None:
            return ""
        expiry = int(((time.time() if now is None else now) + ttl_s) * 1000)
        return f"{expiry}.{self._mac(f'{purpose}:{object_id}:{size}:{expiry}')}"

    def check(self, object_id: int, grant: object, *, size: int, purpose: str,
              now: float | None = None) -> bool:
        """Whether ``grant`` allows ``purpose`` on ``size`` bytes of ``object_id`` now (always
        True in the open mode). Clocks may differ by :data:`CLOCK_SKEW_S`."""
        if self._secret is None:
            return True
        if not isinstance(grant, str) or grant.count(".") != 1:
            return False
        expiry_text, mac = grant.split(".")
        if not expiry_text.isdigit():
            return False
        now_ms = ((time.time() if now is None else now) - CLOCK_SKEW_S) * 1000
        good = hmac.compare_digest(mac, self._mac(f"{purpose}:{object_id}:{size}:{expiry_text}"))
        return good and int(expiry_text) >= now_ms

    def proof(self, purpose: str) -> str:
        """A proof of holding the key for ``purpose`` (e.g. a challenge); '' in the open mode."""
        return self._mac(f"proof:{purpose}") if self._secret is not None else ""

    def check_proof(self, purpose: str, proof: object) -> bool:
        if self._secret is None:
            return True
        return isinstance(proof, str) and hmac.compare_digest(proof, self._mac(f"proof:{purpose}"))
