"""``OAuthServer``: the sandbox venue's OAuth 2.1 authorization server, as one object.

It owns the grant store and hands out the Starlette routes of every OAuth endpoint, and gives
the MCP endpoint what it needs to guard itself: ``verify_access_token`` and the
``WWW-Authenticate`` challenge.

Why not the MCP SDK's ``OAuthAuthorizationServerProvider`` and ``create_auth_routes``: the
live server's paths (``/oauth``, ``/oauth2/token/``, ``/oauth/trading/register``) and its
registration (one shared id, request ignored) differ from what those routes hard-wire, and
the SDK's token models hold the raw token string, which this server never keeps.
"""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

from starlette.routing import Route

from ordergate.core import Clock, ConfigError
from ordergate.oauth import METADATA_PATH, metadata_paths, www_authenticate
from ordergate.sandbox.oauth._authorize import AuthorizationEndpoint
from ordergate.sandbox.oauth._grants import AccessGrant, GrantStore, TokenPair
from ordergate.sandbox.oauth._rfc7591 import (
    SHARED_CLIENT_ID,
    SUPPORTED_SCOPE,
    RegistrationEndpoint,
)
from ordergate.sandbox.oauth._rfc8414 import (
    AUTHORIZATION_PATH,
    REGISTRATION_PATH,
    TOKEN_PATH,
    AuthorizationServerMetadataEndpoint,
)
from ordergate.sandbox.oauth._rfc9728 import ProtectedResourceMetadataEndpoint
from ordergate.sandbox.oauth._token import TokenEndpoint

__all__ = ["OAuthServer"]

# Bodies these endpoints accept are a few hundred bytes; anything far larger is not a client.
_MAX_BODY_BYTES = 64 * 1024
# A consent page stays usable for five code lifetimes: long enough to read it, short enough
# that a page left open is not a standing invitation.
_CONSENT_TTL_FACTOR = 5


def _check_issuer(issuer: str) -> None:
    parts = urlsplit(issuer)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError("issuer", "must be an absolute http(s) URL")
    if parts.path or parts.query or parts.fragment:
        raise ConfigError("issuer", "must be scheme://host[:port], without path or trailing slash")


def _check_resource(resource: str, issuer: str) -> None:
    parts = urlsplit(resource)
    if not resource.startswith(issuer + "/") or parts.query or parts.fragment:
        raise ConfigError("resource", "must be a path on the issuer, without query or fragment")


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
    ) -> None:
        _check_issuer(issuer)
        _check_resource(resource, issuer)
        for key, ttl in (
            ("access_token_ttl", access_token_ttl),
            ("refresh_token_ttl", refresh_token_ttl),
            ("code_ttl", code_ttl),
        ):
            if ttl <= timedelta(0):
                raise ConfigError(key, "must be positive")
        if access_token_ttl < timedelta(seconds=1):
            raise ConfigError("access_token_ttl", "must be at least one second (expires_in)")
        self._issuer = issuer
        self._resource = resource
        self._client_id = client_id
        self._store = GrantStore(
            clock=clock,
            access_token_ttl=access_token_ttl,
            refresh_token_ttl=refresh_token_ttl,
            code_ttl=code_ttl,
            consent_ttl=code_ttl * _CONSENT_TTL_FACTOR,
        )
        self._prm_paths = metadata_paths(resource)
        self._metadata_url = issuer + self._prm_paths[0]

    @property
    def issuer(self) -> str:
        return self._issuer

    @property
    def resource(self) -> str:
        return self._resource

    @property
    def client_id(self) -> str:
        return self._client_id

    def routes(self) -> list[Route]:
        """Every OAuth route: both metadata documents, registration, authorize, token."""
        prm = ProtectedResourceMetadataEndpoint(resource=self._resource, issuer=self._issuer)
        routes = [Route(path, prm.handle, methods=["GET"]) for path in self._prm_paths]
        routes += [
            Route(
                METADATA_PATH,
                AuthorizationServerMetadataEndpoint(issuer=self._issuer).handle,
                methods=["GET"],
            ),
            Route(
                REGISTRATION_PATH,
                RegistrationEndpoint(client_id=self._client_id).handle,
                methods=["POST"],
                max_body_size=_MAX_BODY_BYTES,
            ),
            Route(
                AUTHORIZATION_PATH,
                AuthorizationEndpoint(
                    store=self._store, client_id=self._client_id, resource=self._resource
                ).handle,
                methods=["GET", "POST"],
                max_body_size=_MAX_BODY_BYTES,
            ),
            Route(
                TOKEN_PATH,
                TokenEndpoint(
                    store=self._store, client_id=self._client_id, resource=self._resource
                ).handle,
                methods=["POST"],
                max_body_size=_MAX_BODY_BYTES,
            ),
        ]
        return routes

    def verify_access_token(self, token: str) -> AccessGrant | None:
        """The grant behind a bearer token; ``None`` if it is unknown, revoked or expired."""
        return self._store.verify_access_token(token)

    def www_authenticate(self, *, error: str | None = None) -> str:
        """The ``WWW-Authenticate`` value of a 401 from the MCP endpoint.

        Raises ``ValueError`` when ``error`` would break the header.
        """
        return www_authenticate(metadata_url=self._metadata_url, error=error)

    def mint_tokens(self) -> TokenPair:
        """Issue an access + refresh pair without the browser dance (benchmarks, admin)."""
        pair = self._store.issue_tokens(
            family=self._store.new_family(), client_id=self._client_id, scope=SUPPORTED_SCOPE
        )
        # A family that has never had a code cannot have been revoked.
        assert pair is not None
        return pair

    def revoke_everything(self) -> int:
        """Fault knob: every token this server issued is revoked, as when the person
        disconnects the app at the venue. Returns how many token families there were."""
        return self._store.revoke_everything()

    def expire_access_tokens(self) -> int:
        """Fault knob: every live access token expires now. Returns how many there were."""
        return self._store.expire_access_tokens()
