"""The MCP ``initialize`` handshake as two plain JSON-RPC POSTs over the client's own HTTP.

All the client needs from a session is its id, the negotiated protocol version and the
server's name and version; everything after the handshake already goes out as plain POSTs
(``JsonRpcCaller``). So the handshake does not import the MCP SDK (``ClientSession`` and its
hundreds of pydantic models cost about a second at start), and does what the SDK's
``ClientSession.initialize`` does on the wire: offer the newest handshake revision, refuse an
answer naming a revision this client does not speak, then send
``notifications/initialized`` with the session's headers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx2

from ordergate.client._envelope import decode_body
from ordergate.client._jsonrpc import ACCEPT

__all__ = ["HANDSHAKE_VERSIONS", "Handshake", "MCPError", "handshake"]

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The revisions negotiated by ``initialize`` (the MCP SDK's ``HANDSHAKE_PROTOCOL_VERSIONS``),
oldest first; the newest is offered."""


class MCPError(Exception):
    """The venue did not complete the handshake: an HTTP error, a JSON-RPC error, or an answer
    that is not an ``InitializeResult`` (named as the SDK names its own, so logs read alike).
    The message names what was wrong, never a header or token."""


@dataclass(frozen=True, slots=True)
class Handshake:
    session_id: str | None
    protocol_version: str
    server_name: str
    server_version: str


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise MCPError(f"the initialize result has no {field}")
    return value


async def _post(
    http: httpx2.AsyncClient, url: str, message: dict[str, Any], headers: dict[str, str]
) -> httpx2.Response:
    body = json.dumps(message, separators=(",", ":")).encode()
    response = await http.post(url, content=body, headers=headers)
    if response.status_code >= 300:
        raise MCPError(f"HTTP {response.status_code} to {message['method']}")
    return response


async def handshake(http: httpx2.AsyncClient, url: str, *, name: str, version: str) -> Handshake:
    """``initialize`` then ``notifications/initialized``; raises ``MCPError`` (or the HTTP
    layer's own error) when no session results."""
    headers = {"accept": ACCEPT, "content-type": "application/json"}
    request = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": HANDSHAKE_VERSIONS[-1],
            "capabilities": {},
            "clientInfo": {"name": name, "version": version},
        },
    }
    response = await _post(http, url, request, headers)
    message = decode_body(
        response.content, response.headers.get("content-type", ""), tool="initialize"
    )
    error = message.get("error")
    if error is not None:
        text = error.get("message") if isinstance(error, dict) else None
        raise MCPError(str(text or "the venue refused initialize"))
    result = message.get("result")
    if not isinstance(result, dict):
        raise MCPError("the initialize answer has no result")
    protocol = _text(result.get("protocolVersion"), "protocolVersion")
    if protocol not in HANDSHAKE_VERSIONS:
        raise MCPError(f"unsupported protocol version from the server: {protocol}")
    info = result.get("serverInfo")
    if not isinstance(info, dict):
        raise MCPError("the initialize result has no serverInfo")
    session = Handshake(
        session_id=response.headers.get("mcp-session-id") or None,
        protocol_version=protocol,
        server_name=_text(info.get("name"), "serverInfo.name"),
        server_version=_text(info.get("version"), "serverInfo.version"),
    )
    headers["mcp-protocol-version"] = protocol
    if session.session_id is not None:
        headers["mcp-session-id"] = session.session_id
    await _post(http, url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
    return session
