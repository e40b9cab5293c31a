"""``AuthorizationServer``: the one OAuth 2.1 authorization server, configured per server.

The sandbox venue's (``ordergate.sandbox.oauth``, the live venue's quirks) and the gateway's
(``ordergate.gateway.oauth``) are both this one set of handlers over a storage protocol
(``AuthorizationStore``), as the MCP SDK keeps one set of handlers over
``OAuthAuthorizationServerProvider``. What differs between them is configuration and hooks:

- paths (``Paths``): the venue's ``/oauth`` (its consent form posting back to it),
  ``/oauth2/token/``, ``/oauth/trading/register``; the gateway's ``/oauth/authorize``,
  ``/oauth/consent``, ``/oauth/token``, ``/oauth/register``, ``/oauth/revoke``;
- registration (``Registrar``): one shared client id whatever is sent (``SharedClient``,
  whose client registers no redirect URI, so the RFC 8252 rule alone applies), or a client
  of its own for each, matched exactly against what it registered (``OwnClients``);
- clients named by the URL of their metadata document (``ClientDocuments``, the CIMD draft:
  the gateway), beside registration;
- scopes (``internal``, ``gateway``), whether a request for more is narrowed to them
  (``narrow_scope``, RFC 6749 §3.3: the gateway) or refused (the venue, as the live server
  is captured), ``iss`` in authorization responses (RFC 9207: the gateway), a revocation
  endpoint (``TokenRevoker``: the gateway; the venue has none);
- the pages' wording (``ConsentPages``) and, for the gateway, the consent page's additions:
  the profile choice (``ProfileChoice``), the consent hook (``ConsentCheck``: the owner
  passphrase today) and the upstream sign-in before the code (``SignIn``: sealed custody);
- the store: the venue's in memory, the gateway's in the ledger's database. Lifetimes are the
  stores', and so is the hot path, verifying an access token.

Routes: RFC 9728 metadata at the path-specific and the bare well-known URL, RFC 8414 metadata,
registration, authorization (and consent), token, revocation where there is one, and the
sign-in hook's callback where there is one. Every ``POST`` body is capped.

What is used from the MCP SDK (``mcp.server.auth``), and what is not and why. Each SDK handler
was read against the rules this server must enforce:

- Used: the metadata models (``ProtectedResourceMetadata``, ``OAuthMetadata``) and their
  handlers (``ProtectedResourceMetadataHandler``, ``MetadataHandler``), and ``OAuthToken`` for
  the token response.
- ``AuthorizationHandler`` (authorize): answers errors before the redirect URI is trusted as
  JSON, where an HTML page is required; reads a missing ``code_challenge_method`` as S256,
  where a missing method must be refused; matches the redirect URI by ``AnyUrl`` equality,
  which normalises the URI (host case, dot segments) and leaves no port free on loopback
  (RFC 8252 §7.3); takes a parameter given twice; and has no consent step of its own (no
  page bound to a nonce, no profile choice, no consent hook). So: ``_rfc6749_authorize``.
- ``TokenHandler``: checks code and refresh-token expiry against the wall clock
  (``time.time()``), not the injected ``Clock``; has no place for a second presentation of a
  code or of a rotated refresh token to end what it produced, except as a side effect hidden
  in a ``load_*`` call; and never passes the request's ``resource`` to the provider. So:
  ``_rfc6749_token``, whose rules (``code_refusal``, ``refresh_refusal``) the store applies
  in the step that spends.
- ``RegistrationHandler``: defaults ``token_endpoint_auth_method`` to ``client_secret_post``
  and mints a client secret before the provider is asked, where every client here is public;
  stores redirect URIs normalised through ``AnyUrl``, so the registration no longer holds the
  string the client will send; and cannot answer everybody with one shared id, ignoring the
  request, as the venue must. So: ``_rfc7591``.
- ``RevocationHandler``: its request model requires a ``client_secret`` field, so it refuses
  every public client with 400. So: ``_rfc7009``.
- ``build_metadata`` / ``create_auth_routes``: advertise only secret-based client auth, and
  hard-wire the endpoint paths, where the venue's are the live server's.
- ``OAuthAuthorizationServerProvider``: its shape is kept (one async store behind every
  handler) but not the protocol itself: its models carry the raw code and token strings,
  which no store here keeps (only their SHA-256), and it has no consent pages.
  ``TokenVerifier``: its ``AccessToken`` carries the raw token too; each server has its own
  verifier.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from starlette.routing import BaseRoute, Route

from ordergate.core import ConfigError
from ordergate.oauth._cimd import ClientDocuments, WithClientDocuments
from ordergate.oauth._consent import ConsentCheck, ProfileChoice
from ordergate.oauth._pages import ConsentPages
from ordergate.oauth._rfc6749_authorize import AuthorizationEndpoint
from ordergate.oauth._rfc6749_token import TokenEndpoint
from ordergate.oauth._rfc7009 import RevocationEndpoint
from ordergate.oauth._rfc7591 import Registrar, RegistrationEndpoint
from ordergate.oauth._rfc8414 import authorization_server_metadata, metadata_route
from ordergate.oauth._rfc9728 import metadata_paths, protected_resource_routes, www_authenticate
from ordergate.oauth._signin import SignIn
from ordergate.oauth._storage import AuthorizationStore, TokenRevoker

__all__ = ["AuthorizationServer", "Paths", "check_lifetimes", "check_origin"]


@dataclass(frozen=True, slots=True)
class Paths:
    """Where the endpoints answer. ``consent`` is where the consent form posts (``None``:
    back to the authorization path, carrying the request); ``revocation`` is ``None`` for a
    server without a revocation endpoint."""

    authorization: str
    token: str
    registration: str
    consent: str | None = None
    revocation: str | None = None


def check_origin(url: str, *, key: str) -> None:
    """Raises ``ConfigError`` (``key``) unless ``url`` is ``scheme://host[:port]``."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(key, "must be an absolute http(s) URL")
    if parts.path or parts.query or parts.fragment:
        raise ConfigError(key, "must be scheme://host[:port], without path or trailing slash")


def check_lifetimes(lifetimes: Mapping[str, timedelta], *, access: str) -> None:
    """Raises ``ConfigError`` naming the first lifetime that is not positive, or the access
    token's (``access``) when it is shorter than a second (``expires_in`` counts seconds)."""
    for key, ttl in lifetimes.items():
        if ttl <= timedelta(0):
            raise ConfigError(key, "must be positive")
    if lifetimes[access] < timedelta(seconds=1):
        raise ConfigError(access, "must be at least one second (expires_in)")


class AuthorizationServer:
    """One authorization server's routes and 401 challenge.

    Raises ``ConfigError`` when ``issuer`` is not ``scheme://host[:port]``, when ``resource``
    is not a path under it, or when ``paths.revocation`` and ``revoker`` are not given
    together.
    """

    def __init__(
        self,
        *,
        issuer: str,
        resource: str,
        scopes: Sequence[str],
        paths: Paths,
        store: AuthorizationStore,
        registrar: Registrar,
        pages: ConsentPages,
        max_body_bytes: int,
        revoker: TokenRevoker | None = None,
        iss_parameter: bool = False,
        resource_name: str | None = None,
        profiles: ProfileChoice | None = None,
        consent_check: ConsentCheck | None = None,
        sign_in: SignIn | None = None,
        narrow_scope: bool = False,
        client_documents: ClientDocuments | None = None,
    ) -> None:
        check_origin(issuer, key="issuer")
        parts = urlsplit(resource)
        if not resource.startswith(issuer + "/") or parts.query or parts.fragment:
            raise ConfigError("resource", "must be a path on the issuer, without query or fragment")
        if (paths.revocation is None) != (revoker is None):
            raise ConfigError("revocation", "needs both a path and a revoker")
        self.issuer = issuer
        self.resource = resource
        self.metadata_url = issuer + metadata_paths(resource)[0]
        self._scopes = tuple(scopes)
        self._paths = paths
        self._registrar = registrar
        self._revoker = revoker
        self._max_body = max_body_bytes
        self._iss = iss_parameter
        self._resource_name = resource_name
        self._sign_in = sign_in
        self._documents = client_documents is not None
        if client_documents is not None:
            store = WithClientDocuments(store, client_documents)
        self._store = store
        self._authorize = AuthorizationEndpoint(
            store=store,
            pages=pages,
            issuer=issuer,
            resource=resource,
            scopes=self._scopes,
            action=paths.consent or paths.authorization,
            echo_request=paths.consent is None,
            iss_parameter=iss_parameter,
            profiles=profiles,
            consent_check=consent_check,
            sign_in=sign_in,
            narrow_scope=narrow_scope,
        )

    def www_authenticate(self, *, error: str | None = None) -> str:
        """The ``WWW-Authenticate`` value of a 401 from the protected resource (``error`` per
        RFC 6750 §3). Raises ``ValueError`` when ``error`` would break the header."""
        return www_authenticate(metadata_url=self.metadata_url, error=error)

    def routes(self) -> list[BaseRoute]:
        """Every route of the server, to mount at the app's root."""
        paths, cap = self._paths, self._max_body
        metadata = authorization_server_metadata(
            self.issuer,
            authorization_path=paths.authorization,
            token_path=paths.token,
            registration_path=paths.registration,
            revocation_path=paths.revocation,
            scopes=self._scopes,
            iss_parameter=self._iss,
            client_documents=self._documents,
        )
        routes: list[BaseRoute] = [
            *protected_resource_routes(
                resource=self.resource,
                issuer=self.issuer,
                scopes=self._scopes,
                resource_name=self._resource_name,
            ),
            metadata_route(metadata),
        ]
        registration = RegistrationEndpoint(registrar=self._registrar, scopes=self._scopes)
        token = TokenEndpoint(store=self._store, resource=self.resource, scopes=self._scopes)
        routes.append(
            Route(paths.registration, registration.handle, methods=["POST"], max_body_size=cap)
        )
        if paths.consent is None:
            routes.append(
                Route(
                    paths.authorization,
                    self._authorize.handle,
                    methods=["GET", "POST"],
                    max_body_size=cap,
                )
            )
        else:
            routes.append(Route(paths.authorization, self._authorize.show, methods=["GET"]))
            routes.append(
                Route(paths.consent, self._authorize.decide, methods=["POST"], max_body_size=cap)
            )
        routes.append(Route(paths.token, token.handle, methods=["POST"], max_body_size=cap))
        if paths.revocation is not None and self._revoker is not None:
            revocation = RevocationEndpoint(revoker=self._revoker)
            routes.append(
                Route(paths.revocation, revocation.handle, methods=["POST"], max_body_size=cap)
            )
        if self._sign_in is not None:
            routes.append(
                Route(
                    self._sign_in.callback_path,
                    self._sign_in.callback,
                    methods=["GET", "POST"],
                    max_body_size=cap,
                )
            )
        return routes
