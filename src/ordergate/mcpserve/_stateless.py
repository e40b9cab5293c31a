"""MCP 2026-07-28, the stateless revision: which requests speak it, their envelope checked, and
the shape of its results.

A 2026-07-28 request stands alone: no ``initialize``, no ``Mcp-Session-Id``; its
``params._meta`` carries the protocol version (``io.modelcontextprotocol/protocolVersion``)
and the client's capabilities (``io.modelcontextprotocol/clientCapabilities``), and its
``MCP-Protocol-Version``, ``Mcp-Method`` and (for ``tools/call``, ``prompts/get``,
``resources/read``) ``Mcp-Name`` headers repeat what its body says. A server speaking both
eras on one endpoint decides per request (``is_stateless``): a request is of the stateless
era when its ``MCP-Protocol-Version`` header names a stateless version the server speaks, or
it carries the envelope's version in ``_meta`` (whatever version that names: one the server
does not speak is answered -32022), or it is ``server/discover`` (which only the stateless
era has); any other request is the handshake era's, as before (an unknown version in the
header of such a request is the handshake era's 400).

The envelope is checked as the specification's ladder orders it (``envelope``), the first
failure answering:

1. a routing header (``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name``) sent twice:
   -32020 (``HEADER_MISMATCH``: first-copy and last-copy readers would disagree);
2. ``params._meta`` missing, or without the version or the capabilities: -32602;
3. a header that does not say what the body says: -32020;
4. a version the server does not speak: -32022 (``UNSUPPORTED_PROTOCOL_VERSION``), its
   ``data`` ``{"supported": [...], "requested": ...}`` naming every version the server
   speaks, of both eras, so a client that can also shake hands knows it may.

Every result carries ``resultType`` (``"complete"`` unless the server said otherwise, as an
``InputRequiredResult`` does); a listing also ``ttlMs`` and ``cacheScope`` (``shaped``).
Errors answer with the HTTP status the specification gives their code (``http_status``).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ordergate.mcpserve._jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    RpcError,
)
from ordergate.mcpserve._results import EncodedResult, Result

__all__ = [
    "CAPABILITIES_KEY",
    "CLIENT_INFO_KEY",
    "HEADER_MISMATCH",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "SERVER_INFO_KEY",
    "STATELESS_PROTOCOL_VERSIONS",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "VERSION_KEY",
    "Peer",
    "envelope",
    "http_status",
    "is_stateless",
    "shaped",
]

STATELESS_PROTOCOL_VERSIONS: Final = ("2026-07-28",)
"""The stateless revisions, newest first."""

VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY: Final = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_KEY: Final = "io.modelcontextprotocol/serverInfo"

HEADER_MISMATCH: Final = -32020
MISSING_REQUIRED_CLIENT_CAPABILITY: Final = -32021
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022

_STATUS: Final = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    INVALID_PARAMS: 400,
    HEADER_MISMATCH: 400,
    MISSING_REQUIRED_CLIENT_CAPABILITY: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    METHOD_NOT_FOUND: 404,
}
_ROUTING = (b"mcp-protocol-version", b"mcp-method", b"mcp-name")
_NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
_LISTINGS = frozenset({"tools/list", "prompts/list", "resources/list", "resources/templates/list"})
_COMPLETE = b'{"resultType":"complete"'


@dataclass(frozen=True, slots=True)
class Peer:
    """The client as one request shows it: the protocol version it speaks, whether that is of
    the stateless era, the capabilities it declared (in this request's ``_meta``, or in the
    ``initialize`` of its session) and, in the handshake era, the session it is on."""

    protocol_version: str
    stateless: bool = False
    capabilities: Mapping[str, Any] = field(default_factory=dict)
    session_id: str | None = None

    def declares(self, capability: str, mode: str | None = None) -> bool:
        """Whether the client declared ``capability`` (and, with ``mode``, that mode of it:
        ``elicitation`` ``url``)."""
        declared = self.capabilities.get(capability)
        if not isinstance(declared, Mapping):
            return False
        return mode is None or isinstance(declared.get(mode), Mapping)


def is_stateless(
    header: bytes | None, message: Mapping[str, Any], *, speaks: tuple[str, ...]
) -> bool:
    """Whether a request belongs to the stateless era, for a server speaking ``speaks`` of it
    (none: every request is the handshake era's, as on a server that speaks only that)."""
    if not speaks:
        return False
    if header is not None and header.decode("latin-1") in speaks:
        return True
    if message.get("method") == "server/discover":
        return True
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and VERSION_KEY in meta


def envelope(
    message: Mapping[str, Any],
    raw_headers: list[tuple[bytes, bytes]],
    *,
    speaks: tuple[str, ...],
    every_version: tuple[str, ...],
) -> Peer:
    """The stateless request's ``Peer``; raises the ``RpcError`` of the first rung of the
    ladder it fails (see the module docstring). ``speaks``: the stateless versions the server
    speaks; ``every_version``: all it speaks, named in a -32022."""
    headers: dict[bytes, bytes] = {}
    for name, value in raw_headers:
        if name in _ROUTING and name in headers:
            raise RpcError(HEADER_MISMATCH, f"{name.decode()} header appears more than once")
        headers[name] = value
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict) or VERSION_KEY not in meta or CAPABILITIES_KEY not in meta:
        raise RpcError(
            INVALID_PARAMS,
            f"params._meta must carry {VERSION_KEY} and {CAPABILITIES_KEY}",
        )
    assert isinstance(params, dict)
    version = meta[VERSION_KEY]
    method = message.get("method")
    if _header(headers, b"mcp-protocol-version") != version:
        raise RpcError(HEADER_MISMATCH, "MCP-Protocol-Version does not match params._meta")
    if _header(headers, b"mcp-method") != method:
        raise RpcError(HEADER_MISMATCH, "Mcp-Method does not match the request's method")
    named = _NAMED.get(method) if isinstance(method, str) else None
    if (
        named is not None
        and params.get(named) is not None
        and _decoded(_header(headers, b"mcp-name")) != params.get(named)
    ):
        raise RpcError(HEADER_MISMATCH, f"Mcp-Name does not match params.{named}")
    # Equal to the header's text, the version is a string by now.
    assert isinstance(version, str)
    if version not in speaks:
        raise RpcError(
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            {"supported": list(every_version), "requested": version},
        )
    capabilities = meta[CAPABILITIES_KEY]
    return Peer(
        version, stateless=True, capabilities=capabilities if isinstance(capabilities, dict) else {}
    )


def _header(headers: dict[bytes, bytes], name: bytes) -> str | None:
    value = headers.get(name)
    return None if value is None else value.decode("latin-1")


def _decoded(value: str | None) -> str | None:
    """A header value, unwrapped from the ``=?base64?…?=`` form a client uses for one that is
    not plain printable ASCII (``None`` when that form is malformed)."""
    if value is None or not (value.startswith("=?base64?") and value.endswith("?=")):
        return value
    payload = value[9:-2]
    try:
        decoded = base64.b64decode(payload, validate=True)
        if base64.b64encode(decoded).decode("ascii") != payload:
            return None
        return decoded.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


def http_status(code: int) -> int:
    """The HTTP status a stateless request's error answers with (200 for a code the
    specification gives none)."""
    return _STATUS.get(code, 200)


def shaped(method: str, result: Result, *, ttl_ms: int) -> Result:
    """``result`` as the stateless era answers it: with ``resultType`` (kept when the server
    set one), and for a listing ``ttlMs`` and a ``private`` ``cacheScope`` (what it lists
    depends on who asks)."""
    if isinstance(result, EncodedResult):
        if method in _LISTINGS:
            result = result.decoded()
        elif result.json.startswith(b'{"resultType"'):
            return result
        elif result.json == b"{}":
            return EncodedResult(_COMPLETE + b"}")
        else:
            return EncodedResult(_COMPLETE + b"," + result.json[1:])
    shown = {"resultType": "complete", **result}
    if method in _LISTINGS:
        shown.setdefault("ttlMs", ttl_ms)
        shown.setdefault("cacheScope", "private")
    return shown
