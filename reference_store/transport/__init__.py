"""Transports for the reference store: the frame protocol, TCP, and Mooncake's Transfer Engine."""

from reference_store.transport.protocol import Frame, Op
from reference_store.transport.tcp import Connection, Server, ServerContext

__all__ = ["Connection", "Frame", "Op", "Server", "ServerContext"]
