"""Caller tokens at the gateway: who a caller-bound token speaks for, beside OAuth tokens.

A bearer token shaped like a caller token (``ordergate.callers``) is verified with the host's
caller key — never looked up as an OAuth token — and anything else goes to the OAuth verifier;
a token is one kind or refused. A verified caller becomes a ``CallerPrincipal``: its identity
on the record is ``caller:NAME`` and its profile the one the token names. The identity comes
from the token only; the gateway reads no identity header, so one a request sends changes
nothing.

Whose upstream session a caller acts on: the connection the token names (it must be live),
or, on a gateway acting on the owner's one session, the owner's (a connection of its own,
``caller:NAME``, that holds nothing). A gateway where each connection keeps its own sealed
session needs the connection named: a token that names none is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ordergate.callers import CallerVerifier, looks_like_caller_token
from ordergate.gateway.oauth import GatewayStore, Grant
from ordergate.gateway.oauth._records import ConnectionState

__all__ = ["CallerPrincipal", "bearer_verifier"]

CALLER_PREFIX = "caller:"


@dataclass(frozen=True, slots=True)
class CallerPrincipal:
    """A request made with a verified caller token."""

    connection_id: str
    identity: str
    profile: str
    caller: str


def bearer_verifier(
    oauth: Callable[[str], Grant | None],
    callers: CallerVerifier | None,
    *,
    store: GatewayStore,
    needs_connection: bool,
) -> Callable[[str], Grant | CallerPrincipal | None]:
    """``verify(token)`` for the MCP endpoint and the capability broker."""

    def verify(token: str) -> Grant | CallerPrincipal | None:
        if not looks_like_caller_token(token):
            return oauth(token)
        if callers is None:
            return None  # this gateway has no caller key: it honours no caller token
        claims = callers.verify(token)
        if claims is None:
            return None
        if claims.connection is None:
            if needs_connection:
                return None
            connection_id = CALLER_PREFIX + claims.caller
        else:
            connection = store.connection(claims.connection)
            if connection is None or connection.state != ConnectionState.LIVE:
                return None
            connection_id = connection.id
        return CallerPrincipal(
            connection_id=connection_id,
            identity=CALLER_PREFIX + claims.caller,
            profile=claims.profile,
            caller=claims.caller,
        )

    return verify
