"""One ``tools/call`` as its handler sees it: who makes it, what it names, what it may use.

``Call`` is built once per call by ``GatewayMethods`` from the request's ``Principal``: its
profile resolved by name, and for an upstream tool the connection's listing and the tool's
descriptor. ``Desk`` holds what every call shares: the backend, the catalog and the
open-filings cap.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ordergate.execution import Guard
from ordergate.gateway.mcp._backend import GatewayBackend
from ordergate.gateway.mcp._catalog import Catalog, Listing
from ordergate.gateway.mcp._held_answers import HeldAnswers
from ordergate.gateway.mcp._principal import Principal
from ordergate.mcpserve import Peer
from ordergate.profiles import PolicyOverrides, Profile

__all__ = ["OUTSIDE_MCP", "Call", "Desk"]

OUTSIDE_MCP = Peer("")
"""The peer of a call that comes by no MCP request (the capability broker's HTTP API): it
declares nothing, so it gets the handshake era's answers."""


@dataclass(slots=True)
class Desk:
    """What every call shares."""

    backend: GatewayBackend
    catalog: Catalog
    max_open: int
    held: HeldAnswers | None = None
    """How an order held for the owner answers a client that can take a URL elicitation
    (``None``: no console to send the owner to, so as to any other client)."""


@dataclass(frozen=True, slots=True)
class Call:
    """``profile``: the principal's, ``None`` when this gateway does not define it.
    ``listing`` and ``descriptor``: the connection's upstream list and the called tool's
    entry on it (``None`` for the gateway's own tools)."""

    desk: Desk
    principal: Principal
    profile: Profile | None
    name: str
    arguments: dict[str, Any]
    listing: Listing | None = None
    descriptor: Mapping[str, Any] | None = None
    peer: Peer = OUTSIDE_MCP
    """The client as its request shows it (its version, era, declared capabilities)."""
    request_state: object = None
    """The ``requestState`` a stateless client's retry carries (``None``: a first call)."""

    @property
    def connection_id(self) -> str:
        return self.principal.connection_id

    @property
    def identity(self) -> str:
        return self.principal.identity

    async def guard(self) -> Guard:
        """The connection's guard under its profile's policy overrides (which only tighten)."""
        guard = await self.desk.backend.guard(self.connection_id)
        profile = self.profile
        if profile is None or profile.overrides == PolicyOverrides():
            return guard
        return guard.narrowed(profile.overrides.apply(guard.policy))
