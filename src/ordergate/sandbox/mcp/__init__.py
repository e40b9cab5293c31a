"""The venue's MCP server: streamable HTTP, sessions, JSON-RPC methods."""

from ordergate.sandbox.mcp._endpoint import McpEndpoint, TokenVerifier
from ordergate.sandbox.mcp._framing import Framing
from ordergate.sandbox.mcp._methods import SUPPORTED_PROTOCOL_VERSIONS, Methods, ServerIdentity
from ordergate.sandbox.mcp._sessions import Session, SessionStore

__all__ = [
    "SUPPORTED_PROTOCOL_VERSIONS",
    "Framing",
    "McpEndpoint",
    "Methods",
    "ServerIdentity",
    "Session",
    "SessionStore",
    "TokenVerifier",
]
