"""The MCP methods the venue answers: initialize, ping, tools/list (paginated), tools/call.

Served by the shared transport (``ordergate.mcpserve.McpEndpoint``) at ``/mcp/trading``.
"""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ordergate.mcpserve import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    Peer,
    RpcError,
    ServerInfo,
    Session,
    SessionStore,
    open_session,
)
from ordergate.sandbox.tools import ToolTable, UnknownTool, VenueError, error_result

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = ["Methods", "ServerIdentity"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ServerIdentity:
    name: str = "robinhood-trading"
    version: str = "1.7.0"
    instructions: str = (
        "Sandbox venue: simulated Robinhood Agentic trading. No real account, no real money. "
        "Call get_accounts first; only the account with agentic_allowed=true can trade."
    )


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"tools:{offset}".encode()).decode().rstrip("=")


def _decode_cursor(cursor: object) -> int:
    if not isinstance(cursor, str):
        raise RpcError(INVALID_PARAMS, "cursor must be a string")
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        prefix, _, number = text.partition(":")
        offset = int(number)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise RpcError(INVALID_PARAMS, "invalid cursor") from None
    if prefix != "tools" or offset < 0:
        raise RpcError(INVALID_PARAMS, "invalid cursor")
    return offset


class Methods:
    def __init__(
        self,
        *,
        venue: Venue,
        tools: ToolTable,
        sessions: SessionStore,
        page_size: int,
        identity: ServerIdentity,
        venues: Mapping[str, Venue] | None = None,
    ) -> None:
        """``venue``: the clock's and the knobs'; ``venues``: each user's venue state by the
        ``subject`` of their tokens, a tool call answered from its caller's only (``None``:
        every call from ``venue``)."""
        self.venue = venue
        self.venues = venues
        self.tools = tools
        self.sessions = sessions
        self.page_size = page_size
        self.identity = identity

    async def initialize(
        self, params: dict[str, Any], principal: object
    ) -> tuple[dict[str, Any], Session]:
        identity = self.identity
        info = ServerInfo(identity.name, identity.version, identity.instructions)
        return open_session(params, sessions=self.sessions, info=info, now=self.venue.now())

    async def call(
        self, method: str, params: dict[str, Any], principal: object, peer: Peer
    ) -> dict[str, Any]:
        """Answer one request (any signed-in principal may, at either version the venue
        speaks: ``peer`` changes nothing); raises ``RpcError`` for protocol errors."""
        if method == "tools/call":
            return self._call_tool(params, self._venue_of(principal))
        if method == "tools/list":
            return self._list_tools(params)
        if method == "ping":
            return {}
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")

    def _list_tools(self, params: dict[str, Any]) -> dict[str, Any]:
        cursor = params.get("cursor")
        offset = 0 if cursor is None else _decode_cursor(cursor)
        if offset > len(self.tools):
            raise RpcError(INVALID_PARAMS, "invalid cursor")
        unlisted = self.venue.faults.unlisted_tools
        tools, following = self.tools.page(offset, self.page_size, unlisted=unlisted)
        result: dict[str, Any] = {"tools": tools}
        if following is not None:
            result["nextCursor"] = _encode_cursor(following)
        return result

    def _venue_of(self, principal: object) -> Venue:
        """The venue state of the user ``principal`` (an ``AccessGrant``) was issued to."""
        if self.venues is None:
            return self.venue
        venue = self.venues.get(str(getattr(principal, "subject", "")))
        if venue is None:  # a token of a user the venue does not have: fail closed
            raise RpcError(INTERNAL_ERROR, "the token's user has no accounts here")
        return venue

    def _call_tool(self, params: dict[str, Any], venue: Venue) -> dict[str, Any]:
        name = params.get("name")
        if not isinstance(name, str) or not name:
            raise RpcError(INVALID_PARAMS, "params.name must be a tool name")
        now = venue.sync()
        limiter = venue.faults.rate_limiter
        if limiter is not None and not limiter.allow(now):
            return error_result(
                VenueError("RATE_LIMITED", "Too many requests; retry after a few seconds.")
            )
        try:
            return self.tools.call(
                venue, name, params.get("arguments"), unlisted=venue.faults.unlisted_tools
            )
        except UnknownTool as error:
            raise RpcError(INVALID_PARAMS, str(error)) from None
        except Exception:
            # Fail closed: an unexpected fault is a protocol error, never a success.
            logger.exception("tool %s failed inside the venue", name)
            raise RpcError(INTERNAL_ERROR, f"internal error in {name}") from None
