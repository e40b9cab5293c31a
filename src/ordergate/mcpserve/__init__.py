"""A fast streamable-HTTP MCP transport on raw ASGI, shared by every MCP server ordergate runs.

The sandbox venue (``/mcp/trading``) and the gateway (``/mcp``) each plug their own methods
(``ServerMethods``: ``initialize``, ``tools/list``, ``tools/call`` …) and their own token
verifier into one ``McpEndpoint``, which owns the rest: HTTP, JSON and SSE framing,
JSON-RPC, sessions, protocol versions (``MCP_PROTOCOL_VERSIONS``, by the handshake; beside
them, where a server speaks it, the stateless 2026-07-28, ``STATELESS_PROTOCOL_VERSIONS``,
chosen per request: ``is_stateless``, ``envelope``, ``shaped``, ``discovered``), admission (a
server's rate limit, ``Admit``), DNS-rebinding checks (``HostPolicy``; ``HostCheck`` for
every route of an app), the request body cap and the nesting bound (``loads_json``).
"""

from ordergate.mcpserve._endpoint import (
    DEFAULT_MAX_BODY,
    RATE_LIMITED,
    Admit,
    Challenge,
    McpEndpoint,
    async_verifier,
)
from ordergate.mcpserve._framing import Framing, choose_framing
from ordergate.mcpserve._json import (
    MAX_JSON_DEPTH,
    dumps_decimal_numbers,
    dumps_decimal_strings,
    loads_json,
)
from ordergate.mcpserve._jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    RpcError,
)
from ordergate.mcpserve._methods import (
    DROP,
    MCP_PROTOCOL_VERSIONS,
    SUPPORTED_PROTOCOL_VERSIONS,
    ServerInfo,
    ServerMethods,
    TransportFaults,
    discovered,
    open_session,
)
from ordergate.mcpserve._rebinding import HostCheck, HostPolicy
from ordergate.mcpserve._results import (
    Asking,
    EncodedResult,
    Result,
    encoded_tool_result,
    error_result,
    tool_result,
)
from ordergate.mcpserve._sessions import Session, SessionStore
from ordergate.mcpserve._stateless import (
    HEADER_MISMATCH,
    STATELESS_PROTOCOL_VERSIONS,
    UNSUPPORTED_PROTOCOL_VERSION,
    Peer,
    envelope,
    is_stateless,
    shaped,
)
from ordergate.mcpserve._versions import version_problem

__all__ = [
    "DEFAULT_MAX_BODY",
    "DROP",
    "HEADER_MISMATCH",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "MAX_JSON_DEPTH",
    "MCP_PROTOCOL_VERSIONS",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "RATE_LIMITED",
    "STATELESS_PROTOCOL_VERSIONS",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "Admit",
    "Asking",
    "Challenge",
    "EncodedResult",
    "Framing",
    "HostCheck",
    "HostPolicy",
    "McpEndpoint",
    "Peer",
    "Result",
    "RpcError",
    "ServerInfo",
    "ServerMethods",
    "Session",
    "SessionStore",
    "TransportFaults",
    "async_verifier",
    "choose_framing",
    "discovered",
    "dumps_decimal_numbers",
    "dumps_decimal_strings",
    "encoded_tool_result",
    "envelope",
    "error_result",
    "is_stateless",
    "loads_json",
    "open_session",
    "shaped",
    "tool_result",
    "version_problem",
]
