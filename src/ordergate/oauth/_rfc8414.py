"""RFC 8414, OAuth 2.0 Authorization Server Metadata: the document and where it is served.

The document (§2) is built from the MCP SDK's own ``OAuthMetadata`` model and served by its
``MetadataHandler`` at the well-known path (§3). It names the server's endpoints, its scopes,
public clients only (``none``), S256 only and, where the server sends RFC 9207's ``iss`` in
every authorization response (the gateway), says so; a revocation endpoint appears only
where there is one. The model keeps the issuer's exact form (``url_preserve_empty_path``, no
trailing slash): clients compare issuers as plain strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from starlette.routing import Route

from ordergate.oauth._rfc6749_token import GRANT_TYPES
from ordergate.oauth._rfc7636 import S256

if TYPE_CHECKING:
    from mcp.shared.auth import OAuthMetadata

__all__ = ["METADATA_PATH", "authorization_server_metadata", "metadata_route"]

# The MCP SDK is imported where it is used: importing it costs about a second (its pydantic
# models), which a command that never serves or signs in should not pay.

METADATA_PATH = "/.well-known/oauth-authorization-server"


def authorization_server_metadata(
    issuer: str,
    *,
    authorization_path: str,
    token_path: str,
    registration_path: str,
    revocation_path: str | None,
    scopes: Sequence[str],
    iss_parameter: bool,
) -> OAuthMetadata:
    """The metadata document of the server whose issuer identifier is ``issuer``."""
    from mcp.shared.auth import OAuthMetadata

    document: dict[str, object] = {
        "issuer": issuer,
        "authorization_endpoint": issuer + authorization_path,
        "token_endpoint": issuer + token_path,
        "registration_endpoint": issuer + registration_path,
        "scopes_supported": list(scopes),
        "response_types_supported": ["code"],
        "grant_types_supported": list(GRANT_TYPES),
        "token_endpoint_auth_methods_supported": ["none"],
        "code_challenge_methods_supported": [S256],
    }
    if revocation_path is not None:
        document["revocation_endpoint"] = issuer + revocation_path
        document["revocation_endpoint_auth_methods_supported"] = ["none"]
    if iss_parameter:
        document["authorization_response_iss_parameter_supported"] = True
    return OAuthMetadata.model_validate(document)


def metadata_route(metadata: OAuthMetadata) -> Route:
    """The ``GET`` route serving ``metadata`` at the well-known path."""
    from mcp.server.auth.handlers.metadata import MetadataHandler

    return Route(METADATA_PATH, MetadataHandler(metadata).handle, methods=["GET"])
