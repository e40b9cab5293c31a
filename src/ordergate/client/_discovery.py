"""Finding the authorization server from the venue's 401 challenge.

RFC 9728 (OAuth 2.0 Protected Resource Metadata) from the ``resource_metadata`` of the
``WWW-Authenticate`` challenge, then RFC 8414 (OAuth 2.0 Authorization Server Metadata) of
the server it names. The URL lists, response handling and metadata models are the MCP SDK's
(``mcp.client.auth.utils``, ``mcp.shared.auth``); this module strings them together outside
an MCP request, because login also needs the token endpoint when no browser is involved (a
refresh token given by environment variable).
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx2
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    build_protected_resource_metadata_discovery_urls,
    create_oauth_metadata_request,
    extract_resource_metadata_from_www_auth,
    extract_scope_from_www_auth,
    get_client_metadata_scopes,
    handle_auth_metadata_response,
    handle_protected_resource_response,
    issuers_match,
)
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url

from ordergate.client._errors import LoginRequired, TransportError
from ordergate.client._jsonrpc import ACCEPT
from ordergate.client._servers import shown_url

__all__ = ["GRANT_TYPES", "AuthorizationServer", "discover"]

GRANT_TYPES = ["authorization_code", "refresh_token"]
# Any request will do: the venue checks the bearer token before it reads the message.
_PROBE = b'{"jsonrpc":"2.0","id":0,"method":"ping"}'


@dataclass(frozen=True, slots=True)
class AuthorizationServer:
    """Who signs us in to the venue, and for what."""

    resource: str
    """The RFC 8707 resource indicator: the venue's MCP endpoint as its metadata names it."""
    metadata: OAuthMetadata
    scope: str | None

    @property
    def token_endpoint(self) -> str:
        return str(self.metadata.token_endpoint)


async def _send(http: httpx2.AsyncClient, request: httpx2.Request) -> httpx2.Response:
    try:
        return await http.send(request, auth=None)
    except httpx2.TransportError as error:
        raise TransportError(
            f"no answer from {shown_url(str(request.url))} ({type(error).__name__})"
        ) from None


async def discover(http: httpx2.AsyncClient, mcp_url: str) -> AuthorizationServer:
    """The authorization server guarding ``mcp_url``.

    Raises ``LoginRequired`` when the venue publishes no usable metadata, and
    ``TransportError`` when it does not answer.
    """
    probe = httpx2.Request(
        "POST",
        mcp_url,
        content=_PROBE,
        headers={"accept": ACCEPT, "content-type": "application/json"},
    )
    challenge = await _send(http, probe)
    if challenge.status_code not in (401, 403):
        raise LoginRequired(
            f"{mcp_url} did not ask for sign-in (HTTP {challenge.status_code}); check the URL"
        )
    protected = await _protected_resource(http, challenge, mcp_url)
    issuer = str(protected.authorization_servers[0])
    metadata = await _authorization_server(http, issuer, mcp_url)
    scope = get_client_metadata_scopes(
        extract_scope_from_www_auth(challenge), protected, metadata, GRANT_TYPES
    )
    return AuthorizationServer(resource=str(protected.resource), metadata=metadata, scope=scope)


async def _protected_resource(
    http: httpx2.AsyncClient, challenge: httpx2.Response, mcp_url: str
) -> ProtectedResourceMetadata:
    hint = extract_resource_metadata_from_www_auth(challenge)
    for url in build_protected_resource_metadata_discovery_urls(hint, mcp_url):
        found = await handle_protected_resource_response(
            await _send(http, create_oauth_metadata_request(url))
        )
        if found is None:
            continue
        expected = resource_url_from_server_url(mcp_url)
        if not check_resource_allowed(
            requested_resource=expected, configured_resource=str(found.resource)
        ):
            raise LoginRequired(f"the venue's metadata is for {found.resource}, not {expected}")
        return found
    raise LoginRequired(f"{mcp_url} publishes no protected-resource metadata (RFC 9728)")


async def _authorization_server(
    http: httpx2.AsyncClient, issuer: str, mcp_url: str
) -> OAuthMetadata:
    for url in build_oauth_authorization_server_metadata_discovery_urls(issuer, mcp_url):
        served, metadata = await handle_auth_metadata_response(
            await _send(http, create_oauth_metadata_request(url))
        )
        if not served:
            break
        if metadata is None:
            continue
        # RFC 8414 §3.3: metadata naming another issuer must not be used.
        if not issuers_match(str(metadata.issuer), issuer):
            raise LoginRequired(f"the metadata at {url} names issuer {metadata.issuer}")
        return metadata
    raise LoginRequired(f"{issuer} publishes no authorization server metadata (RFC 8414)")
