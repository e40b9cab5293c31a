"""The gateway's token verifier: a bearer token's ``Principal``, OAuth or caller token alike.

A bearer token shaped like a caller token (``ordergate.callers``) is verified with the host's
caller key — never looked up as an OAuth token — and anything else goes to the OAuth verifier;
a token is one kind or refused. Either way the request gets one ``Principal`` (its connection,
identity, profile name and kind of credential), resolved once: every MCP method and the
capability broker read that, never the token again.

- An OAuth access token acts for its connection: the identity is the connection's (hashed,
  ``GatewayBackend.identity``) and the profile the one chosen on the consent page, read from
  the connection's row once (it never changes) and then remembered.
- A caller token acts for the caller it names, with the profile it names. Whose upstream
  session it uses: the connection the token names (it must be live), or, on a gateway acting
  on the owner's one session, the owner's (a connection of its own, ``caller:NAME``, that
  holds nothing). A gateway where each connection keeps its own sealed session needs the
  connection named: a token that names none is refused.

A caller's identity on the record (``caller_identity``) is ``caller:NAME/PROFILE#MINT`` for a
token that names no connection, and ``caller:NAME/PROFILE#MINT@HASH`` for one bound to a
connection: ``MINT`` is the token's mint id (each token minted has its own), ``HASH`` the
first 32 hex digits of the SHA-256 of the connection id (as a connection's own identity is).
So two mints of one name are two identities, with their own filings, fills, paper orders and
budgets: a read-only token minted under a trader's name sees none of the trader's and spends
none of its budget; two people who each mint a ``nightly`` never see or cancel each other's.
``CALLER_PATTERN``, ``PROFILE_PATTERN`` and ``MINT_PATTERN`` allow none of ``/``, ``#`` and
``@``, so no identity can be spelled as another. The identity comes from the token only; the
gateway reads no identity header, so one a request sends changes nothing.

Every caller token is also checked against the ledger's denylist (``_caller_mints``), by its
mint id, on every request and uncached: a token revoked on any replica is refused at once on
all of them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from ordergate.callers import CallerClaims, CallerVerifier, looks_like_caller_token
from ordergate.gateway._caller_mints import is_revoked
from ordergate.gateway._owner import connection_digest
from ordergate.gateway.mcp import Credential, Principal
from ordergate.gateway.oauth import GatewayStore, Grant
from ordergate.gateway.oauth._records import ConnectionState
from ordergate.store import blocking

__all__ = ["CALLER_PREFIX", "BearerVerifier", "bearer_verifier", "caller_identity", "caller_name"]

CALLER_PREFIX = "caller:"
_REMEMBERED = 65536
TOUCH_EVERY_S = 60.0
"""How often, at most, a connection's "last used" is written while it is used."""
_log = logging.getLogger(__name__)


def caller_identity(claims: CallerClaims, connection_id: str | None) -> str:
    """The identity a caller's filings are recorded under (see the module docstring)."""
    own = f"{CALLER_PREFIX}{claims.caller}/{claims.profile}#{claims.mint_id}"
    if connection_id is None:
        return own
    return f"{own}@{connection_digest(connection_id)}"


def caller_name(identity: str) -> str | None:
    """``caller:NAME`` for a caller's identity (what a listing shows), else ``None``."""
    if not identity.startswith(CALLER_PREFIX):
        return None
    return identity.split("/", 1)[0]


def bearer_verifier(
    oauth: Callable[[str], Grant | None],
    callers: CallerVerifier | None,
    *,
    store: GatewayStore,
    identity: Callable[[str], str],
    needs_connection: bool,
    remember: int = _REMEMBERED,
    cached: Callable[[str], Grant | None] | None = None,
) -> BearerVerifier:
    """``verify(token)`` for the MCP endpoint and the capability broker. ``oauth`` is the
    authorization server's (a cache hit, or one indexed read), run in a worker thread unless
    ``cached`` (its cache alone, which never blocks) already holds the token's grant;
    ``identity`` maps a connection id to its identity on the record; ``remember`` bounds how
    many connections' principals are kept."""
    return BearerVerifier(
        oauth,
        callers,
        store=store,
        identity=identity,
        needs_connection=needs_connection,
        remember=remember,
        cached=cached,
    )


class BearerVerifier:
    """A ``Verify``: ``await verifier(token)`` is the token's principal or ``None``;
    ``verifier.known(token)`` answers from memory alone (see ``bearer_verifier``)."""

    def __init__(
        self,
        oauth: Callable[[str], Grant | None],
        callers: CallerVerifier | None,
        *,
        store: GatewayStore,
        identity: Callable[[str], str],
        needs_connection: bool,
        remember: int,
        cached: Callable[[str], Grant | None] | None,
    ) -> None:
        self._oauth = oauth
        self._callers = callers
        self._store = store
        self._identity = identity
        self._needs_connection = needs_connection
        self._remember = remember
        self._cached = cached
        # An OAuth token's principal is its connection's alone (the id, its identity and the
        # profile, which never changes): built once per connection, not once a request.
        self._principals: dict[str, Principal] = {}
        # When each connection's "last used" was last written (monotonic seconds): at most
        # once a ``TOUCH_EVERY_S`` a connection, so a busy agent costs one write a minute.
        self._touched: dict[str, float] = {}

    def known(self, token: str) -> Principal | None:
        """The principal of an OAuth access token whose grant the verification cache holds
        and whose connection's principal is remembered: what ``await self(token)`` answers
        then, without a read and without awaiting. ``None`` says only that the full
        verification must run (a caller token, a cache miss, or a token it would refuse)."""
        if self._cached is None or looks_like_caller_token(token):
            return None
        grant = self._cached(token)
        return None if grant is None else self._principals.get(grant.connection_id)

    async def _touch(self, connection_id: str) -> None:
        """Record that the connection is in use ("last used"), at most once a
        ``TOUCH_EVERY_S``; a failed write is logged and the request goes on."""
        now = time.monotonic()
        last = self._touched.get(connection_id)
        if last is not None and now - last < TOUCH_EVERY_S:
            return
        if len(self._touched) >= self._remember:
            self._touched.clear()
        self._touched[connection_id] = now
        try:
            await blocking(self._store.touch, connection_id)
        except Exception as error:  # never refuse a request for its bookkeeping
            _log.warning("could not record a connection's last use: %s", type(error).__name__)

    async def _connection_principal(self, connection_id: str) -> Principal:
        principal = self._principals.get(connection_id)
        if principal is not None:
            return principal
        connection = await blocking(self._store.connection, connection_id)
        principal = Principal(
            connection_id=connection_id,
            identity=self._identity(connection_id),
            profile=None if connection is None else connection.profile,
            credential=Credential.OAUTH,
        )
        if connection is not None:
            if len(self._principals) >= self._remember:
                self._principals.clear()
            self._principals[connection_id] = principal
        return principal

    async def __call__(self, token: str) -> Principal | None:
        if not looks_like_caller_token(token):
            grant = self._cached(token) if self._cached is not None else None
            if grant is None:
                grant = await blocking(self._oauth, token)
            if grant is None:
                return None
            await self._touch(grant.connection_id)
            return await self._connection_principal(grant.connection_id)
        if self._callers is None:
            return None  # this gateway has no caller key: it honours no caller token
        claims = self._callers.verify(token)
        if claims is None or await blocking(is_revoked, self._store.engine, claims.mint_id):
            return None
        bound: str | None = None
        if claims.connection is None:
            if self._needs_connection:
                return None
            connection_id = CALLER_PREFIX + claims.caller
        else:
            connection = await blocking(self._store.connection, claims.connection)
            if connection is None or connection.state != ConnectionState.LIVE:
                return None
            connection_id = bound = connection.id
        return Principal(
            connection_id=connection_id,
            identity=caller_identity(claims, bound),
            profile=claims.profile,
            credential=Credential.CALLER,
        )
