"""``Robinhood``: the facade ``connect`` hands out — a typed subclient per tool family.

Each family is imported the first time it is used, so a program that only reads quotes does
not build every family's response models at start-up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ordergate.client._caller import Caller
from ordergate.client._errors import ResponseParseError

if TYPE_CHECKING:
    from ordergate.client.accounts import AccountsClient
    from ordergate.client.advanced import AdvancedClient
    from ordergate.client.alerts import AlertsClient
    from ordergate.client.crypto import CryptoClient
    from ordergate.client.equity import EquityClient
    from ordergate.client.market import MarketClient
    from ordergate.client.options import OptionsClient
    from ordergate.client.research import ResearchClient
    from ordergate.client.scanner import ScannerClient
    from ordergate.client.watchlists import WatchlistsClient

__all__ = ["MAX_TOOL_PAGES", "Robinhood", "ServerInfo"]

# tools/list is drained page by page; a server that never stops paging is an error.
MAX_TOOL_PAGES = 100


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """The server's name and version, from the MCP handshake."""

    name: str
    version: str


class Robinhood:
    """One signed-in connection to Robinhood's Agentic Trading MCP.

    Every method of every family raises a ``ToolError`` subclass on failure; a business
    refusal (``BusinessError``) is never returned as a result.
    """

    def __init__(self, caller: Caller, *, server: ServerInfo | None = None) -> None:
        self._caller = caller
        self.server = server
        """Name and version from the handshake; ``None`` without a session (the fallback)."""

    def __repr__(self) -> str:
        session = getattr(self._caller, "session_id", None) is not None
        return f"Robinhood(session={session})"

    @property
    def session_id(self) -> str | None:
        """The MCP session id, or ``None`` when calls go without a session (the fallback)."""
        session_id: str | None = getattr(self._caller, "session_id", None)
        return session_id

    @property
    def protocol_version(self) -> str | None:
        """The MCP protocol version negotiated at the handshake."""
        version: str | None = getattr(self._caller, "protocol_version", None)
        return version

    async def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """Call any tool by its MCP name; its ``data`` (the escape hatch for untyped use)."""
        return await self._caller.call(name, arguments or {})

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool the server lists, draining ``tools/list`` pages (at most 100 pages).

        Raises ``ResponseParseError`` for a malformed page, a repeated cursor or a listing
        that never ends, and ``ToolError`` subclasses as any call does.
        """
        request = getattr(self._caller, "request", None)
        if request is None:
            raise TypeError("this connection cannot list tools (its caller has no request())")
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_TOOL_PAGES):
            result = await request("tools/list", {"cursor": cursor} if cursor else {})
            page = result.get("tools") if isinstance(result, dict) else None
            if not isinstance(page, list) or not all(isinstance(t, dict) for t in page):
                raise ResponseParseError("tools/list: malformed page", tool="tools/list")
            tools += page
            cursor = result.get("nextCursor")
            if not cursor:
                return tools
            if not isinstance(cursor, str) or cursor in seen:
                raise ResponseParseError("tools/list: repeated or bad cursor", tool="tools/list")
            seen.add(cursor)
        raise ResponseParseError("tools/list: more than 100 pages", tool="tools/list")

    @cached_property
    def accounts(self) -> AccountsClient:
        from ordergate.client.accounts import AccountsClient

        return AccountsClient(self._caller)

    @cached_property
    def equity(self) -> EquityClient:
        from ordergate.client.equity import EquityClient

        return EquityClient(self._caller)

    @cached_property
    def options(self) -> OptionsClient:
        from ordergate.client.options import OptionsClient

        return OptionsClient(self._caller)

    @cached_property
    def crypto(self) -> CryptoClient:
        from ordergate.client.crypto import CryptoClient

        return CryptoClient(self._caller)

    @cached_property
    def watchlists(self) -> WatchlistsClient:
        from ordergate.client.watchlists import WatchlistsClient

        return WatchlistsClient(self._caller)

    @cached_property
    def market(self) -> MarketClient:
        from ordergate.client.market import MarketClient

        return MarketClient(self._caller)

    @cached_property
    def research(self) -> ResearchClient:
        from ordergate.client.research import ResearchClient

        return ResearchClient(self._caller)

    @cached_property
    def scanner(self) -> ScannerClient:
        from ordergate.client.scanner import ScannerClient

        return ScannerClient(self._caller)

    @cached_property
    def alerts(self) -> AlertsClient:
        from ordergate.client.alerts import AlertsClient

        return AlertsClient(self._caller)

    @cached_property
    def advanced(self) -> AdvancedClient:
        from ordergate.client.advanced import AdvancedClient

        return AdvancedClient(self._caller)
