"""``GatewayAuth``: the gateway's own OAuth 2.1 authorization server (owner mode), as one object.

It is ``ordergate.oauth``'s one server (whose docstring says, handler by handler, why the MCP
SDK's own handlers are not used) configured as the gateway: a public client of its own for
each registration, its redirect URIs matched exactly (https, loopback, or an app's private-use
scheme, RFC 8252 §7.1); the scope ``gateway``, a request for more narrowed to it (RFC 6749
§3.3: ``offline_access`` beside it is left out, not refused); clients named by the URL of
their metadata document (CIMD, ``ordergate.oauth.ClientDocuments``) beside registered ones;
RFC 9207 ``iss`` in every authorization response; revocation (RFC 7009); the gateway's
pages; and the consent page's additions: the profile choice, the consent hook (the owner
passphrase where one is required, or any ``ConsentCheck``) and, when each connection holds
its own upstream session, the upstream sign-in before the code (``sign_in``,
``ordergate.gateway.custody``).

It owns the store (``GatewayStore``: clients, consent pages, connections, codes, tokens in
the ledger's database, reached by the shared server through ``GatewayStorage``) and gives the
MCP endpoint its ``AccessVerifier``.

Routes: RFC 9728 metadata at ``/.well-known/oauth-protected-resource/mcp`` (and the bare
well-known path), RFC 8414 metadata at ``/.well-known/oauth-authorization-server``, and
``/oauth/register``, ``/oauth/authorize`` (``GET``: the consent page), ``/oauth/consent``
(``POST``: its form), ``/oauth/token`` and ``/oauth/revoke``, and ``/oauth/callback`` when
the person signs in at the upstream for each connection (``_paths``, the paths the gateway's
rate limiter classes). Bodies are capped at 8 KB here too.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import Engine
from starlette.routing import BaseRoute

from ordergate.core import Clock
from ordergate.gateway.oauth._pages import GatewayPages
from ordergate.gateway.oauth._paths import (
    AUTHORIZATION_PATH,
    CONSENT_PATH,
    REGISTRATION_PATH,
    REVOCATION_PATH,
    TOKEN_PATH,
)
from ordergate.gateway.oauth._records import SCOPE
from ordergate.gateway.oauth._storage import GatewayStorage
from ordergate.gateway.oauth._store import GatewayStore
from ordergate.gateway.oauth._verifier import AccessVerifier
from ordergate.oauth import (
    AuthorizationServer,
    ClientDocuments,
    ConsentCheck,
    OwnClients,
    Paths,
    ProfileChoice,
    SignIn,
    check_lifetimes,
    check_origin,
)
from ordergate.profiles import DEFAULT_PROFILE, Profiles

__all__ = ["MAX_BODY_BYTES", "MCP_PATH", "GatewayAuth"]

MCP_PATH = "/mcp"
MAX_BODY_BYTES = 8192
PATHS = Paths(
    authorization=AUTHORIZATION_PATH,
    consent=CONSENT_PATH,
    token=TOKEN_PATH,
    registration=REGISTRATION_PATH,
    revocation=REVOCATION_PATH,
)


def profile_choice(profiles: Profiles) -> ProfileChoice:
    """Every profile ``profiles`` defines, ``monitor`` (reads only) first and chosen."""
    return ProfileChoice(
        options=tuple((name, profiles[name].description) for name in sorted(profiles)),
        default=DEFAULT_PROFILE,
        refusal="profile is not one this gateway defines",
    )


class GatewayAuth:
    """The gateway's authorization server.

    Raises ``ConfigError`` when ``public_url`` is not ``scheme://host[:port]``, when a
    lifetime is not positive (the access token's at least a second).
    ``consent_check`` is what an approval needs besides the click (the owner code:
    ``OwnerCode``); ``client_documents``: clients named by their metadata document's URL
    (CIMD) beside registered ones.
    """

    def __init__(
        self,
        engine: Engine,
        *,
        public_url: str,
        clock: Clock,
        consent_check: ConsentCheck | None = None,
        access_ttl: timedelta = timedelta(hours=1),
        refresh_ttl: timedelta = timedelta(days=30),
        code_ttl: timedelta = timedelta(minutes=5),
        consent_ttl: timedelta = timedelta(minutes=10),
        sign_in: Callable[[GatewayStore], SignIn] | None = None,
        profiles: Profiles | None = None,
        client_documents: ClientDocuments | None = None,
    ) -> None:
        check_origin(public_url, key="public_url")
        check_lifetimes(
            {
                "access_ttl": access_ttl,
                "refresh_ttl": refresh_ttl,
                "code_ttl": code_ttl,
                "consent_ttl": consent_ttl,
            },
            access="access_ttl",
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
        storage = GatewayStorage(self.store)
        self._server = AuthorizationServer(
            issuer=public_url,
            resource=public_url + MCP_PATH,
            scopes=(SCOPE,),
            paths=PATHS,
            store=storage,
            registrar=OwnClients(storage, clock=clock),
            pages=GatewayPages(),
            max_body_bytes=MAX_BODY_BYTES,
            revoker=storage,
            iss_parameter=True,
            resource_name="ordergate gateway",
            profiles=profile_choice(profiles) if profiles is not None else None,
            consent_check=consent_check,
            sign_in=self.sign_in,
            narrow_scope=True,
            client_documents=client_documents,
        )
        self.verifier = AccessVerifier(
            grants=self.store.grants, metadata_url=self._server.metadata_url
        )

    @property
    def issuer(self) -> str:
        return self._server.issuer

    @property
    def resource(self) -> str:
        """The MCP endpoint's URL: the only ``resource`` (RFC 8707) this server serves."""
        return self._server.resource

    def routes(self) -> list[BaseRoute]:
        """Every route of the authorization server, to mount at the app's root."""
        return self._server.routes()
