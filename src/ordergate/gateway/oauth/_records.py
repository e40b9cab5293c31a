"""What the gateway's own records are: its scope, connections and the grants of access tokens.

Clients, authorizations in flight, token pairs and refusals are the shared server's records
(``ordergate.oauth``). None of these holds a credential's value.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

__all__ = [
    "SCOPE",
    "Connection",
    "ConnectionKind",
    "ConnectionState",
    "Grant",
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
