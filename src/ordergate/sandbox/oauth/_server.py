"""``OAuthServer``: the sandbox venue's authorization server, as observed on the live one.

It is ``ordergate.oauth``'s one server configured with the live venue's quirks: authorize at
``/oauth`` (its consent form posting back there), token at ``/oauth2/token/`` (trailing
slash included), registration at ``/oauth/trading/register`` answering everybody with one
shared public client id and ignoring the request, the single scope ``internal``, no
revocation endpoint, no ``iss`` in authorization responses, access tokens of nine days and
refresh tokens of ninety; over an in-memory ``GrantStore``. It gives the MCP endpoint what it
needs to guard itself: ``verify_access_token`` and the ``WWW-Authenticate`` challenge.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta

from starlette.routing import BaseRoute

from ordergate.core import Clock, Secret
from ordergate.oauth import AuthorizationServer, Paths, SharedClient, check_lifetimes
from ordergate.sandbox.oauth._grants import SANDBOX_SUBJECT, AccessGrant, GrantStore, TokenPair
from ordergate.sandbox.oauth._pages import VenuePages
from ordergate.sandbox.oauth._users import UserSignIn

__all__ = ["SCOPE", "SHARED_CLIENT_ID", "OAuthServer"]

SHARED_CLIENT_ID = "5f3c9a1e-8b2d-4e6f-9a7c-1d0b3e5f7a92"
SCOPE = "internal"
PATHS = Paths(
    authorization="/oauth", token="/oauth2/token/", registration="/oauth/trading/register"
)

# Bodies these endpoints accept are a few hundred bytes; anything far larger is not a client.
_MAX_BODY_BYTES = 64 * 1024
# A consent page stays usable for five code lifetimes: long enough to read it, short enough
# that a page left open is not a standing invitation.
_CONSENT_TTL_FACTOR = 5


class OAuthServer:
    """The authorization server of the sandbox venue, as observed on the live one.

    Raises ``ConfigError`` when ``issuer`` is not ``scheme://host[:port]``, when ``resource``
    is not a path under it, or when a lifetime is not positive.
    """

    def __init__(
        self,
        *,
        issuer: str,
        resource: str,
        clock: Clock,
        access_token_ttl: timedelta = timedelta(days=9),
        refresh_token_ttl: timedelta = timedelta(days=90),
        code_ttl: timedelta = timedelta(minutes=1),
        client_id: str = SHARED_CLIENT_ID,
        passwords: Mapping[str, Secret] | None = None,
    ) -> None:
        """``passwords``: the named users' passwords by name, which the consent page then
        asks for (``UserSignIn``); ``None``: the one unnamed user, who signs in with a click."""
        check_lifetimes(
            {
                "access_token_ttl": access_token_ttl,
                "refresh_token_ttl": refresh_token_ttl,
                "code_ttl": code_ttl,
            },
            access="access_token_ttl",
        )
        self._client_id = client_id
        self._store = GrantStore(
            clock=clock,
            client_id=client_id,
            access_token_ttl=access_token_ttl,
            refresh_token_ttl=refresh_token_ttl,
            code_ttl=code_ttl,
            consent_ttl=code_ttl * _CONSENT_TTL_FACTOR,
        )
        self._server = AuthorizationServer(
            issuer=issuer,
            resource=resource,
            scopes=(SCOPE,),
            paths=PATHS,
            store=self._store,
            registrar=SharedClient(client_id),
            pages=VenuePages(),
            max_body_bytes=_MAX_BODY_BYTES,
            consent_check=UserSignIn(passwords) if passwords else None,
        )

    @property
    def issuer(self) -> str:
        return self._server.issuer

    @property
    def resource(self) -> str:
        return self._server.resource

    @property
    def client_id(self) -> str:
        return self._client_id

    def routes(self) -> list[BaseRoute]:
        """Every OAuth route: both metadata documents, registration, authorize, token."""
        return self._server.routes()

    def verify_access_token(self, token: str) -> AccessGrant | None:
        """The grant behind a bearer token; ``None`` if it is unknown, revoked or expired."""
        return self._store.verify_access_token(token)

    def www_authenticate(self, *, error: str | None = None) -> str:
        """The ``WWW-Authenticate`` value of a 401 from the MCP endpoint.

        Raises ``ValueError`` when ``error`` would break the header.
        """
        return self._server.www_authenticate(error=error)

    def mint_tokens(self, subject: str = SANDBOX_SUBJECT) -> TokenPair:
        """Issue an access + refresh pair for the user ``subject`` without the browser dance
        (benchmarks, admin)."""
        return self._store.mint(client_id=self._client_id, scope=SCOPE, subject=subject)

    def revoke_everything(self) -> int:
        """Fault knob: every token this server issued is revoked, as when the person
        disconnects the app at the venue. Returns how many token families there were."""
        return self._store.revoke_everything()

    def expire_access_tokens(self) -> int:
        """Fault knob: every live access token expires now. Returns how many there were."""
        return self._store.expire_access_tokens()
