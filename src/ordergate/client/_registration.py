"""RFC 7591, OAuth 2.0 Dynamic Client Registration: registering as a public native client.

The request (client name, loopback redirect URI, grants, ``token_endpoint_auth_method:
none``) and the reading of the answer are the MCP SDK's. Robinhood answers everybody with
the same public client id, so registering again costs nothing and reveals nothing.
"""

from __future__ import annotations

import httpx2
from mcp.client.auth.exceptions import OAuthRegistrationError
from mcp.client.auth.utils import create_client_registration_request, handle_registration_response
from mcp.shared.auth import OAuthClientMetadata
from pydantic import AnyUrl

from ordergate.client._discovery import GRANT_TYPES, AuthorizationServer
from ordergate.client._errors import LoginRequired, TransportError
from ordergate.client._servers import shown_url

__all__ = ["register"]


async def register(
    http: httpx2.AsyncClient, server: AuthorizationServer, *, name: str, redirect_uri: str
) -> str:
    """Our client id at ``server``; ``LoginRequired`` if registration is refused."""
    metadata = OAuthClientMetadata(
        redirect_uris=[AnyUrl(redirect_uri)],
        client_name=name,
        token_endpoint_auth_method="none",
        grant_types=list(GRANT_TYPES),
        response_types=["code"],
        scope=server.scope,
    )
    issuer = str(server.metadata.issuer)
    request = create_client_registration_request(server.metadata, metadata, issuer)
    try:
        response = await http.send(request, auth=None)
    except httpx2.TransportError as error:
        raise TransportError(
            f"no answer from the registration endpoint at {shown_url(str(request.url))} "
            f"({type(error).__name__})"
        ) from None
    try:
        client = await handle_registration_response(response)
    except OAuthRegistrationError:
        raise LoginRequired(
            f"Robinhood refused to register {name!r} (HTTP {response.status_code})"
        ) from None
    if client.token_endpoint_auth_method not in (None, "none") or client.client_secret:
        # A confidential client would need a secret kept somewhere; ordergate is public.
        raise LoginRequired("Robinhood registered a confidential client; expected a public one")
    return client.client_id
