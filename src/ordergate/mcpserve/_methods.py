"""What a server plugs into the transport: its methods, its handshake, its fault hooks.

The transport (``McpEndpoint``) owns HTTP, framing, JSON-RPC and sessions; a server supplies
``ServerMethods``: ``initialize`` (usually ``open_session`` with its own ``ServerInfo``) and
``call`` for every other request (``tools/list``, ``tools/call``, ``ping`` …), which gets
the principal the server's token verifier returned for the request's bearer token.
``TransportFaults`` lets a simulator (the sandbox venue) make the transport fail on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Protocol, TypeVar

from ordergate.mcpserve._results import Result
from ordergate.mcpserve._sessions import Session, SessionStore
from ordergate.mcpserve._stateless import SERVER_INFO_KEY, STATELESS_PROTOCOL_VERSIONS, Peer

__all__ = [
    "DROP",
    "LEGACY_PROTOCOL_VERSION",
    "MCP_PROTOCOL_VERSIONS",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "ServerInfo",
    "ServerMethods",
    "TransportFaults",
    "discovered",
    "open_session",
]

URL_ELICITATION_SINCE = "2025-11-25"
LEGACY_PROTOCOL_VERSION = "2025-03-26"
"""The oldest version spoken: no ``MCP-Protocol-Version`` header yet, JSON-RPC batches."""
# Newest first: an unknown requested version is answered with the newest a server speaks.
MCP_PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", LEGACY_PROTOCOL_VERSION)
"""Every version the transport speaks (the gateway's: every client people use connects)."""
SUPPORTED_PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18")
"""A server's default: the sandbox venue's, as the live venue it imitates (2025-11-25)."""

CAPABILITIES: Final = {"tools": {"listChanged": False}}
"""What every server here offers: tools, a list that does not change while a client is on."""

DROP: Final = 0
"""``TransportFaults.before`` asks for the connection to be dropped mid-answer."""

P_contra = TypeVar("P_contra", contravariant=True)


class ServerMethods(Protocol[P_contra]):
    """One server's MCP methods behind the shared transport."""

    @property
    def sessions(self) -> SessionStore: ...

    async def initialize(
        self, params: dict[str, Any], principal: P_contra
    ) -> tuple[dict[str, Any], Session]:
        """The ``initialize`` result (its ``instructions`` may depend on who asks) and the
        session it opened."""
        ...

    async def call(
        self, method: str, params: dict[str, Any], principal: P_contra, peer: Peer
    ) -> Result:
        """The result of one request (a dict, or one already encoded) from the client
        ``peer`` describes; raises ``RpcError`` for a protocol error. A server speaking the
        stateless era answers ``server/discover`` here (``discovered``)."""
        ...


class TransportFaults(Protocol):
    """Failures a simulator injects into the transport (counters, latency)."""

    async def before(self) -> int | None:
        """Before a POST is served: ``None`` to serve it, ``DROP`` to abandon the answer
        mid-response, or an HTTP error status to answer instead."""
        ...

    def drop_answer(self) -> bool:
        """After a request was processed: whether its answer is lost (the "unanswered" case)."""
        ...

    def malformed_sse(self) -> bool:
        """For an SSE answer: whether its event is cut short."""
        ...


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """What ``initialize`` says about the server."""

    name: str
    version: str
    instructions: str


def open_session(
    params: dict[str, Any],
    *,
    sessions: SessionStore,
    info: ServerInfo,
    now: datetime,
    versions: tuple[str, ...] = SUPPORTED_PROTOCOL_VERSIONS,
) -> tuple[dict[str, Any], Session]:
    """Negotiate the protocol version (the requested one when the server speaks it, else the
    newest of ``versions``), open a session and build the ``initialize`` result."""
    requested = params.get("protocolVersion")
    version = requested if requested in versions else versions[0]
    client = params.get("clientInfo")
    client_name = client.get("name", "") if isinstance(client, dict) else ""
    capabilities = params.get("capabilities")
    elicitation = capabilities.get("elicitation") if isinstance(capabilities, dict) else None
    session = sessions.open(
        protocol_version=version,
        client_name=str(client_name),
        now=now,
        # URL-mode elicitation came with 2025-11-25; declared, it is kept with the session.
        url_elicitation=version >= URL_ELICITATION_SINCE
        and isinstance(elicitation, dict)
        and isinstance(elicitation.get("url"), dict),
    )
    result = {
        "protocolVersion": version,
        "capabilities": CAPABILITIES,
        "serverInfo": {"name": info.name, "version": info.version},
        "instructions": info.instructions,
    }
    return result, session


def discovered(
    info: ServerInfo,
    *,
    versions: tuple[str, ...],
    stateless_versions: tuple[str, ...] = STATELESS_PROTOCOL_VERSIONS,
    ttl_ms: int = 0,
) -> dict[str, Any]:
    """The ``server/discover`` result (the stateless era's stand-in for ``initialize``): every
    version the server speaks, newest first, of both eras, the same capabilities and
    instructions, and the server's name in ``_meta``."""
    return {
        "resultType": "complete",
        "supportedVersions": [*stateless_versions, *versions],
        "capabilities": CAPABILITIES,
        "instructions": info.instructions,
        "ttlMs": ttl_ms,
        "cacheScope": "private",
        "_meta": {SERVER_INFO_KEY: {"name": info.name, "version": info.version}},
    }
