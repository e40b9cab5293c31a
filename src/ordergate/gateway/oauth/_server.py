"""``GatewayAuth``: the gateway's own OAuth 2.1 authorization server (owner mode), as one object.

It owns the store (``GatewayStore``: clients, consent pages, connections, codes, tokens in
the ledger's database), hands out the Starlette routes to mount at the app root, and gives
the MCP endpoint its ``AccessVerifier``.

Routes: RFC 9728 metadata at ``/.well-known/oauth-protected-resource/mcp`` (and the bare
well-known path), RFC 8414 metadata at ``/.well-known/oauth-authorization-server``, and
``/oauth/register``, ``/oauth/authorize`` (``GET``: the consent page), ``/oauth/consent``
(``POST``: its form), ``/oauth/token`` and ``/oauth/revoke``, and ``/oauth/callback`` when
the person signs in at the upstream for each connection (``sign_in``) (``_paths``, the paths the
gateway's rate limiter classes). Bodies are capped at 8 KB here too.

What is used from the MCP SDK (``mcp.server.auth``), and what is not and why. Each SDK
handler was read against the rules this server must enforce:

- Used: the metadata models (``ProtectedResourceMetadata``, ``OAuthMetadata``) and their
  handlers (``ProtectedResourceMetadataHandler``, ``MetadataHandler``), and ``OAuthToken``
  for the token response.
- ``AuthorizationHandler`` (authorize): answers errors before the redirect URI is trusted as
  JSON, where an HTML page is required; reads a missing ``code_challenge_method`` as S256,
  where a missing method must be refused; matches the redirect URI by ``AnyUrl`` equality,
  which normalises the URI (host case, dot segments) and leaves no port free on loopback
  (RFC 8252 §7.3); and takes a parameter given twice. So: ``_authorize``.
- ``TokenHandler``: checks code and refresh-token expiry against the wall clock
  (``time.time()``), not the injected ``Clock``; has no place for a second presentation of a
  code or of a rotated refresh token to end the connection, except as a side effect hidden in
  a ``load_*`` call; and never passes the request's ``resource`` to the provider. So:
  ``_token`` with ``_grants``.
- ``RegistrationHandler``: defaults ``token_endpoint_auth_method`` to ``client_secret_post``
  and mints a client secret before the provider is asked, where every client here is public;
  stores redirect URIs normalised through ``AnyUrl``, so the registration no longer holds the
  string the client will send. So: ``_register``.
- ``RevocationHandler``: its request model requires a ``client_secret`` field, so it refuses
  every public client with 400. So: ``_revoke``.
- ``build_metadata`` / ``create_auth_routes``: advertise only secret-based client auth.
- ``OAuthAuthorizationServerProvider``: not implemented, since none of the SDK routes that call
  it is used; ``TokenVerifier``: see ``_verifier``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from urllib.parse import urlsplit

from sqlalchemy import Engine
from starlette.routing import BaseRoute, Route

from ordergate.core import Clock, ConfigError, Secret
from ordergate.gateway.oauth._authorize import AuthorizationEndpoint, SignIn
from ordergate.gateway.oauth._metadata import metadata_routes
from ordergate.gateway.oauth._passphrase import OwnerPassphrase
from ordergate.gateway.oauth._paths import (
    AUTHORIZATION_PATH,
    CALLBACK_PATH,
    CONSENT_PATH,
    REGISTRATION_PATH,
    REVOCATION_PATH,
    TOKEN_PATH,
)
from ordergate.gateway.oauth._register import RegistrationEndpoint
from ordergate.gateway.oauth._revoke import RevocationEndpoint
from ordergate.gateway.oauth._store import GatewayStore
from ordergate.gateway.oauth._token import TokenEndpoint
from ordergate.gateway.oauth._verifier import AccessVerifier
from ordergate.oauth import metadata_paths
from ordergate.profiles import Profiles

__all__ = ["MAX_BODY_BYTES", "MCP_PATH", "GatewayAuth"]

MCP_PATH = "/mcp"
MAX_BODY_BYTES = 8192


def _check_public_url(public_url: str) -> None:
    parts = urlsplit(public_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError("public_url", "must be an absolute http(s) URL")
    if parts.path or parts.query or parts.fragment:
        raise ConfigError("public_url", "must be scheme://host[:port], without path or slash")


class GatewayAuth:
    """The gateway's authorization server.

    Raises ``ConfigError`` when ``public_url`` is not ``scheme://host[:port]``, when a
    lifetime is not positive (the access token's at least a second), or when
    ``require_passphrase`` is empty.
    """

    def __init__(
        self,
        engine: Engine,
        *,
        public_url: str,
        clock: Clock,
        require_passphrase: Secret | None = None,
        access_ttl: timedelta = timedelta(hours=1),
        refresh_ttl: timedelta = timedelta(days=30),
        code_ttl: timedelta = timedelta(minutes=5),
        consent_ttl: timedelta = timedelta(minutes=10),
        sign_in: Callable[[GatewayStore], SignIn] | None = None,
        profiles: Profiles | None = None,
    ) -> None:
        _check_public_url(public_url)
        for key, ttl in (
            ("access_ttl", access_ttl),
            ("refresh_ttl", refresh_ttl),
            ("code_ttl", code_ttl),
            ("consent_ttl", consent_ttl),
        ):
            if ttl <= timedelta(0):
                raise ConfigError(key, "must be positive")
        if access_ttl < timedelta(seconds=1):
            raise ConfigError("access_ttl", "must be at least one second (expires_in)")
        self._clock = clock
        self._issuer = public_url
        self._resource = public_url + MCP_PATH
        self._passphrase = (
            OwnerPassphrase(require_passphrase) if require_passphrase is not None else None
        )
        self.store = GatewayStore(
            engine,
            clock=clock,
            access_ttl=access_ttl,
            refresh_ttl=refresh_ttl,
            code_ttl=code_ttl,
            consent_ttl=consent_ttl,
        )
        self.sign_in = sign_in(self.store) if sign_in is not None else None
        self._profiles = profiles
        self.verifier = AccessVerifier(
            grants=self.store.grants,
            metadata_url=public_url + metadata_paths(self._resource)[0],
        )

    @property
    def issuer(self) -> str:
        return self._issuer

    @property
    def resource(self) -> str:
        """The MCP endpoint's URL: the only ``resource`` (RFC 8707) this server serves."""
        return self._resource

    def routes(self) -> list[BaseRoute]:
        """Every route of the authorization server, to mount at the app's root."""
        authorize = AuthorizationEndpoint(
            store=self.store,
            issuer=self._issuer,
            resource=self._resource,
            passphrase=self._passphrase,
            sign_in=self.sign_in,
            profiles=self._profiles,
        )
        routes: list[BaseRoute] = [*metadata_routes(resource=self._resource, issuer=self._issuer)]
        routes += [
            Route(
                REGISTRATION_PATH,
                RegistrationEndpoint(store=self.store, clock=self._clock).handle,
                methods=["POST"],
                max_body_size=MAX_BODY_BYTES,
            ),
            Route(AUTHORIZATION_PATH, authorize.show, methods=["GET"]),
            Route(CONSENT_PATH, authorize.decide, methods=["POST"], max_body_size=MAX_BODY_BYTES),
            Route(
                TOKEN_PATH,
                TokenEndpoint(grants=self.store.grants, resource=self._resource).handle,
                methods=["POST"],
                max_body_size=MAX_BODY_BYTES,
            ),
            Route(
                REVOCATION_PATH,
                RevocationEndpoint(grants=self.store.grants).handle,
                methods=["POST"],
                max_body_size=MAX_BODY_BYTES,
            ),
        ]
        if self.sign_in is not None:
            routes.append(Route(CALLBACK_PATH, self.sign_in.callback, methods=["GET"]))
        return routes
