"""The master's settings."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, model_validator

from reference_store.config import (
    DEFAULT_FRAME_TIMEOUT_S,
    DEFAULT_HIGH_WATERMARK,
    DEFAULT_LEASE_TTL_S,
    DEFAULT_LOW_WATERMARK,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_NODE_TTL_S,
    DEFAULT_PUT_TIMEOUT_S,
    StrictModel,
)

__all__ = ["MasterConfig"]


class MasterConfig(StrictModel):
    """Master settings (all times in seconds).

    Raises (on construction):
        InvalidParams: an unknown field or a value out of range, named.
    """

    label: ClassVar[str] = "master config"

    host: str = "127.0.0.1"
    port: int = Field(default=0, ge=0, le=65535)
    lease_ttl_s: float = Field(default=DEFAULT_LEASE_TTL_S, ge=0)
    put_timeout_s: float = Field(default=DEFAULT_PUT_TIMEOUT_S, gt=0)
    node_ttl_s: float = Field(default=DEFAULT_NODE_TTL_S, gt=0)
    high_watermark: float = Field(default=DEFAULT_HIGH_WATERMARK, gt=0, le=1)
    low_watermark: float = Field(default=DEFAULT_LOW_WATERMARK, gt=0, le=1)
    frame_timeout_s: float = Field(default=DEFAULT_FRAME_TIMEOUT_S, gt=0)
    max_connections: int = Field(default=DEFAULT_MAX_CONNECTIONS, gt=0)
    state_dir: str | None = None

    @model_validator(mode="after")
    def _watermarks(self) -> MasterConfig:
        if self.low_watermark > self.high_watermark:
            raise ValueError("low_watermark: must not exceed high_watermark")
        return self
