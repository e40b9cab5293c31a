"""``Principal``: who one request acts for, resolved once by the gateway's token verifier.

The verifier (``ordergate.gateway._callers.bearer_verifier``) maps a bearer token to a
``Principal`` or to nothing; every MCP method and the capability broker then read the type,
never probe an object for attributes. ``session_owner`` is what an MCP session the request
opens is bound to, so another principal cannot use or end it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Credential", "Principal", "Verify"]


class Credential(StrEnum):
    """The kind of bearer token a request carried."""

    OAUTH = "oauth"
    """A gateway access token: its connection's own identity and profile."""
    CALLER = "caller"
    """A caller token (``ordergate.callers``): the identity and profile it names."""


@dataclass(frozen=True, slots=True)
class Principal:
    """``connection_id``: whose upstream session the request uses; ``identity``: what its
    filings are recorded under; ``profile``: the profile's name (``None``: none is named, so
    the request fails closed); ``credential``: the kind of token."""

    connection_id: str
    identity: str
    profile: str | None
    credential: Credential

    @property
    def session_owner(self) -> str:
        """The key an MCP session opened by this principal is bound to: the connection, and
        for a caller token the identity too (two callers on one connection are two)."""
        if self.credential is Credential.CALLER:
            return f"{self.credential}|{self.connection_id}|{self.identity}"
        return f"{self.credential}|{self.connection_id}"


Verify = Callable[[str], Awaitable[Principal | None]]
"""The gateway's verifier: a bearer token's principal, or ``None`` for a token it refuses."""
