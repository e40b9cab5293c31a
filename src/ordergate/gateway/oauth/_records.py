"""What the gateway's authorization server hands around: clients, authorizations in flight,
connections, grants, token pairs and refusals.

Records that stand for a credential never hold its value, with one exception: ``TokenPair``,
which exists only between minting and the token response, and whose ``repr`` hides both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from ordergate.oauth import ErrorCode

__all__ = [
    "SCOPE",
    "Authorization",
    "Client",
    "Connection",
    "ConnectionKind",
    "ConnectionState",
    "Grant",
    "Refusal",
    "TokenPair",
]

# The one scope: use of the gateway's MCP endpoint as the connection's owner.
SCOPE = "gateway"


class ConnectionKind(StrEnum):
    OWNER = "owner"  # acts on the owner's own upstream session (``ordergate login``)
    SEALED = "sealed"  # holds an upstream session of its own, sealed


class ConnectionState(StrEnum):
    LIVE = "live"
    DEAD = "dead"  # the upstream revoked it; nothing it holds is usable
    ERASED = "erased"  # its tokens and upstream session are gone; only the row remains


@dataclass(frozen=True, slots=True)
class Client:
    """A registered (public) client."""

    client_id: str
    client_name: str
    redirect_uris: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Authorization:
    """A validated authorization request: what a consent nonce and then a code are bound to.
    ``redirect_uri`` is the one the request named (on loopback its port may differ from the
    registration's)."""

    client_id: str
    redirect_uri: str
    code_challenge: str
    state: str | None
    resource: str | None
    profile: str | None = None
    """The profile the person chose for the connection (``None`` until they have)."""


@dataclass(frozen=True, slots=True)
class Connection:
    """A client's standing access: what its tokens act on and whether it still may."""

    id: str
    client_id: str
    kind: ConnectionKind
    profile: str
    state: ConnectionState
    created_at: datetime
    last_used_at: datetime


@dataclass(frozen=True, slots=True)
class Grant:
    """What a valid gateway access token stands for."""

    connection_id: str
    client_id: str
    scopes: tuple[str, ...]
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class TokenPair:
    """A freshly minted access and refresh token, on its way into a token response."""

    access_token: str = field(repr=False)
    refresh_token: str = field(repr=False)
    expires_in: int


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a token request was refused (RFC 6749 §5.2)."""

    error: ErrorCode
    description: str
