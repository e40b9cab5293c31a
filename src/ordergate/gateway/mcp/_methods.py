"""``GatewayMethods``: the gateway's MCP methods (``initialize``, ``ping``, ``tools/list``,
``tools/call``) for the shared transport, over a ``GatewayBackend``.

Every request arrives with the ``Principal`` the gateway's verifier resolved for its token,
and so with its connection, identity and profile; everything a call reads or writes is that
connection's:

- ``tools/list``: the upstream's list for the connection (kept ten minutes) with the equity
  order tool as the gateway serves it, plus ``gate_how``, ``gate_record``, ``gate_disconnect``;
- both only within the connection's profile (``_profiles``): a tool it does not permit is
  not listed, and a call to one is refused with the permission it lacks;
- ``tools/call``: routed by the words of the tool's name (``_routing``) to one handler per
  route — ``_read.forward`` (reads, reviews), ``_order.order`` (the equity order tool
  through the guard), ``_option_order`` (the option order tool through the guard, and its
  review), ``_option_replace`` (its replace: a new filing through the guard),
  ``_crypto_order`` (the crypto order tool through the guard, and its preview),
  ``_cancel.cancel`` (only the connection's own orders), ``_gate`` (the gateway's own
  tools); everything else is refused with a plain sentence and nothing is
  sent. Each handler runs under the one refusal wrapper (``_refusing``).

Results use the venue's envelope (``_answers``). Errors are fixed sentences: no token and no
upstream text reaches the agent or the log (only exception types are logged).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from datetime import timedelta
from typing import Any

from ordergate import __version__
from ordergate.core import Clock
from ordergate.gateway._tool_lists import SharedToolLists
from ordergate.gateway.mcp._answers import plain, refusal, sentence
from ordergate.gateway.mcp._backend import GatewayBackend
from ordergate.gateway.mcp._call import OUTSIDE_MCP, Call, Desk
from ordergate.gateway.mcp._cancel import cancel
from ordergate.gateway.mcp._capability import capability
from ordergate.gateway.mcp._catalog import Catalog, Listing
from ordergate.gateway.mcp._crypto_order import crypto_order, crypto_preview
from ordergate.gateway.mcp._exercise import option_exercise
from ordergate.gateway.mcp._gate import GATE_HANDLERS
from ordergate.gateway.mcp._held_answers import REFUSED, HeldAnswers
from ordergate.gateway.mcp._option_order import option_order, option_review
from ordergate.gateway.mcp._option_replace import option_replace
from ordergate.gateway.mcp._order import order
from ordergate.gateway.mcp._paper import BOOK_READS, FORWARD, REFUSE, on_book, paper_entry
from ordergate.gateway.mcp._principal import Principal
from ordergate.gateway.mcp._profiles import (
    needs,
    profile_instructions,
    refusal_for,
    visible_to,
)
from ordergate.gateway.mcp._read import forward, forward_unchanged
from ordergate.gateway.mcp._refusing import Failure, answering, refuse, step
from ordergate.gateway.mcp._routing import Route, route
from ordergate.mcpserve import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    MCP_PROTOCOL_VERSIONS,
    METHOD_NOT_FOUND,
    STATELESS_PROTOCOL_VERSIONS,
    Peer,
    Result,
    RpcError,
    ServerInfo,
    Session,
    SessionStore,
    discovered,
    open_session,
)
from ordergate.profiles import Profile

__all__ = ["GATEWAY_INFO", "MAX_OPEN_PROPOSALS", "GatewayMethods"]

logger = logging.getLogger(__name__)

MAX_OPEN_PROPOSALS = 5
LISTING_TTL_MS = 60_000
"""How long a client may keep the tool list it read (the stateless era's ``ttlMs``): a
minute, so a profile the owner narrows reaches the agent's list soon."""

GATEWAY_INFO = ServerInfo(
    name="ordergate-gateway",
    version=__version__,
    instructions=(
        "The ordergate gateway in front of a Robinhood Agentic Trading account. Reads pass "
        "through; every equity order is filed, checked against the owner's policy and placed "
        "only as filed. Call gate_how for what is allowed and your limits."
    ),
)

Handler = Callable[[Call], Awaitable[Result]]
HANDLERS: Mapping[Route, Handler] = {
    Route.FORWARD: forward,
    Route.ORDER: order,
    Route.OPTION_ORDER: option_order,
    Route.OPTION_REVIEW: option_review,
    Route.OPTION_REPLACE: option_replace,
    Route.OPTION_EXERCISE: option_exercise,
    Route.CRYPTO_ORDER: crypto_order,
    Route.CRYPTO_PREVIEW: crypto_preview,
    Route.CANCEL: cancel,
}

LIST_UNREADABLE = Failure(
    "upstream tool list",
    "UPSTREAM_UNAVAILABLE",
    "The gateway could not read the broker's tool list, so nothing was sent.",
)


class GatewayMethods:
    """The gateway's ``ServerMethods``. ``profiles`` are the profiles this gateway defines,
    by name; ``max_open`` caps each identity's unfinished filings; ``sessions`` and
    ``tool_lists``, what they share of MCP sessions and upstream tool lists; ``held``, how an
    order held for the owner answers a client that takes URL elicitations (``_held_answers``)
    (``SignedSessions``, ``SharedToolLists``)."""

    def __init__(
        self,
        backend: GatewayBackend,
        *,
        clock: Clock,
        profiles: Mapping[str, Profile],
        sessions: SessionStore | None = None,
        tools_ttl: timedelta = timedelta(minutes=10),
        max_open: int = MAX_OPEN_PROPOSALS,
        info: ServerInfo = GATEWAY_INFO,
        tool_lists: SharedToolLists | None = None,
        held: HeldAnswers | None = None,
    ) -> None:
        if max_open < 1:
            raise ValueError("max_open must be at least 1")
        self._profiles = profiles
        self._clock = clock
        self._sessions = sessions if sessions is not None else SessionStore()
        self._info = info
        read = backend.upstream_tools
        catalog = Catalog(
            read if tool_lists is None else tool_lists.reading(read), clock=clock, ttl=tools_ttl
        )
        self._desk = Desk(backend=backend, catalog=catalog, max_open=max_open, held=held)

    @property
    def sessions(self) -> SessionStore:
        return self._sessions

    def profile(self, principal: Principal) -> Profile | None:
        """The profile ``principal`` acts under (``None``: not defined here, so it fails
        closed)."""
        name = principal.profile
        return None if name is None else self._profiles.get(name)

    def _info_for(self, principal: Principal) -> ServerInfo:
        """The gateway's info, its ``instructions`` adding the connection's profile and, when
        the profile has one, its system prompt."""
        info = self._info
        profile = self.profile(principal)
        if profile is not None:
            info = replace(info, instructions=profile_instructions(info.instructions, profile))
        return info

    async def initialize(
        self, params: dict[str, Any], principal: Principal
    ) -> tuple[dict[str, Any], Session]:
        """The handshake, at any version of ``MCP_PROTOCOL_VERSIONS`` the client asks for
        (2025-03-26 included)."""
        return open_session(
            params,
            sessions=self._sessions,
            info=self._info_for(principal),
            now=self._clock.now(),
            versions=MCP_PROTOCOL_VERSIONS,
        )

    async def call(
        self, method: str, params: dict[str, Any], principal: Principal, peer: Peer = OUTSIDE_MCP
    ) -> Result:
        """Answer one request for the principal's connection, at the version ``peer``
        speaks; ``RpcError`` for protocol errors. ``server/discover`` (the stateless era's)
        says what ``initialize`` says, and every version of both eras."""
        if method == "ping" and not peer.stateless:  # the stateless era removed ping
            return {}
        if method == "server/discover" and peer.stateless:
            return discovered(
                self._info_for(principal),
                versions=MCP_PROTOCOL_VERSIONS,
                stateless_versions=STATELESS_PROTOCOL_VERSIONS,
                ttl_ms=LISTING_TTL_MS,
            )
        if method not in ("tools/call", "tools/list"):
            raise RpcError(METHOD_NOT_FOUND, "Method not found")
        if not principal.connection_id:
            # A verifier that names no connection: serve nothing rather than guess one.
            raise RpcError(INTERNAL_ERROR, "The gateway could not tell which connection this is.")
        if method == "tools/list":
            return await self._list_tools(principal, params)
        return await answering(self._call_tool(principal, params, peer))

    def plain_read(
        self, principal: Principal, params: dict[str, Any]
    ) -> tuple[str, dict[str, Any]] | None:
        """The tool name and arguments of a ``tools/call`` (``params``) that ``call`` would
        forward to the upstream unchanged, decided from memory alone, without awaiting: the
        principal names a connection, the tool is on its listing (read within ``tools_ttl``)
        and not the gateway's own, its route (decided already) is ``FORWARD``, the
        principal's profile permits it, its guard is open, and in paper mode the read is one
        paper mode forwards (never one the paper engine answers, never one it refuses; a
        quote read where the paper market adds no slippage is forwarded: ``on_book``).
        ``None`` for anything else: ``call`` decides it (and refuses what it refuses). What
        it returns is answered by ``read``."""
        connection_id = principal.connection_id
        name = params.get("name")
        if not connection_id or not isinstance(name, str) or not name or name in GATE_HANDLERS:
            return None
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        elif not isinstance(arguments, dict):
            return None
        listing = self._desk.catalog.fresh(connection_id)
        if listing is None:
            return None
        descriptor = listing.by_name.get(name)
        decided = listing.decided.get(name)
        if descriptor is None or decided is None or decided[0].route is not Route.FORWARD:
            return None
        if refusal_for(self.profile(principal), descriptor, decided[1]) is not None:
            return None
        guard = self._desk.backend.open_guard(connection_id)
        if guard is None or (
            guard.paper and on_book(guard, name, listing.paper.get(name)) != FORWARD
        ):
            return None
        return name, arguments

    def answered_here(self, principal: Principal, method: str, params: object) -> bool:
        """Whether the gateway answers this request itself, without a call to the upstream
        (decided from memory alone, for the rate limit: ``_budget``): the handshake,
        ``ping``, the tool list (from its cache; a stale one is read again at most once a
        ``tools_ttl``), the gateway's own tools, and in paper mode a read of the paper book
        alone (``BOOK_READS``: the book's prices are read upstream at most once a
        ``QUOTE_REUSE``, however often it is read) or one it refuses. Anything else (another
        engine read may price what it names upstream), and anything it cannot tell, goes
        upstream."""
        if method in ("initialize", "ping", "tools/list", "server/discover"):
            return True
        if method != "tools/call" or not isinstance(params, dict):
            return False
        name = params.get("name")
        if not isinstance(name, str):
            return False
        if name in GATE_HANDLERS:
            return True
        guard = self._desk.backend.open_guard(principal.connection_id)
        if guard is None or not guard.paper:
            return False
        return name in BOOK_READS or paper_entry(name, None) == REFUSE

    async def read(self, principal: Principal, name: str, arguments: dict[str, Any]) -> Result:
        """``call``'s answer to a ``tools/call`` that ``plain_read`` found plain: the
        upstream's answer forwarded unchanged, under the same refusal wrapper."""
        return await answering(
            forward_unchanged(self._desk.backend, principal.connection_id, name, arguments)
        )

    async def capability(
        self, principal: Principal, permission: str, body: object
    ) -> tuple[int, dict[str, Any]]:
        """One call through the capability broker: the HTTP status and the JSON answer
        (``_capability``)."""
        return await capability(self, principal, permission, body)

    async def listing(self, principal: Principal) -> Listing:
        """The connection's upstream list (raises what the upstream raised)."""
        return await self._desk.catalog.listing(principal.connection_id)

    async def _list_tools(self, principal: Principal, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("cursor") is not None:
            raise RpcError(INVALID_PARAMS, "invalid cursor")  # one page: no cursor is ours
        try:
            listing = await self.listing(principal)
        except Exception as error:  # the upstream's failure, as a fixed protocol error
            logger.warning("upstream tool list failed: %s", type(error).__name__)
            raise RpcError(
                INTERNAL_ERROR, "The gateway could not read the broker's tool list."
            ) from None
        return {"tools": visible_to(self.profile(principal), listing)}

    async def _call_tool(self, principal: Principal, params: dict[str, Any], peer: Peer) -> Result:
        name = params.get("name")
        if not isinstance(name, str) or not name:
            raise RpcError(INVALID_PARAMS, "params.name must be a tool name")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return refusal("INVALID_ARGUMENT", "The arguments must be a JSON object.")
        profile = self.profile(principal)
        state = params.get("requestState") if peer.stateless else None
        gate = GATE_HANDLERS.get(name)
        if gate is not None:
            if state is not None:
                raise RpcError(INVALID_PARAMS, REFUSED)  # only a held order issues one
            return await gate(Call(self._desk, principal, profile, name, arguments, peer=peer))
        listing = self._desk.catalog.fresh(principal.connection_id)
        if listing is None:  # once every ``tools_ttl``: read the list again
            listing = await step(self.listing(principal), LIST_UNREADABLE)
        descriptor = listing.by_name.get(name)
        if descriptor is None:
            shown = plain(name)
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {shown}" if shown else "Unknown tool")
        decided = listing.decided.get(name)
        if decided is None:  # once per listed tool and listing: both are pure of the listing
            decided = listing.decided[name] = (
                route(descriptor, order_tool=listing.order_tool),
                needs(descriptor, listing.order_tool),
            )
        routing, wanted = decided
        handler = HANDLERS.get(routing.route)
        if handler is None:
            refuse(routing.code, routing.message)
        refused = refusal_for(profile, descriptor, wanted)
        if refused is not None:
            refuse("PROFILE_REFUSED", sentence(refused))
        if state is not None and routing.route not in (Route.ORDER, Route.OPTION_EXERCISE):
            raise RpcError(INVALID_PARAMS, REFUSED)  # only a held order issues one
        call = Call(
            self._desk, principal, profile, name, arguments, listing, descriptor, peer, state
        )
        return await handler(call)
