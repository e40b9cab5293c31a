"""The two discovery documents, built from the MCP SDK's own models and served by its handlers.

- RFC 9728 protected-resource metadata for the MCP endpoint (``resource`` = public URL +
  ``/mcp``, ``authorization_servers`` = [public URL]), at the path-specific well-known URL
  the 401 challenge points to and at the bare one for clients that ignore the challenge.
- RFC 8414 authorization-server metadata at ``/.well-known/oauth-authorization-server``:
  public clients only (``none``), S256 only, and RFC 9207's ``iss`` in every authorization
  response so a client talking to several servers cannot be mixed up.

The documents are built with the models' ``url_preserve_empty_path`` so the issuer keeps its
exact form (no trailing slash): clients compare issuers as plain strings.
"""

from __future__ import annotations

from mcp.server.auth.handlers.metadata import MetadataHandler, ProtectedResourceMetadataHandler
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
from starlette.routing import Route

from ordergate.gateway.oauth._paths import (
    AUTHORIZATION_PATH,
    REGISTRATION_PATH,
    REVOCATION_PATH,
    TOKEN_PATH,
)
from ordergate.gateway.oauth._records import SCOPE
from ordergate.oauth import METADATA_PATH, S256, metadata_paths

__all__ = ["authorization_server_metadata", "metadata_routes", "protected_resource_metadata"]

GRANT_TYPES = ["authorization_code", "refresh_token"]


def protected_resource_metadata(*, resource: str, issuer: str) -> ProtectedResourceMetadata:
    return ProtectedResourceMetadata.model_validate(
        {
            "resource": resource,
            "authorization_servers": [issuer],
            "scopes_supported": [SCOPE],
            "bearer_methods_supported": ["header"],
            "resource_name": "ordergate gateway",
        }
    )


def authorization_server_metadata(issuer: str) -> OAuthMetadata:
    return OAuthMetadata.model_validate(
        {
            "issuer": issuer,
            "authorization_endpoint": issuer + AUTHORIZATION_PATH,
            "token_endpoint": issuer + TOKEN_PATH,
            "registration_endpoint": issuer + REGISTRATION_PATH,
            "revocation_endpoint": issuer + REVOCATION_PATH,
            "scopes_supported": [SCOPE],
            "response_types_supported": ["code"],
            "grant_types_supported": GRANT_TYPES,
            "token_endpoint_auth_methods_supported": ["none"],
            "revocation_endpoint_auth_methods_supported": ["none"],
            "code_challenge_methods_supported": [S256],
            "authorization_response_iss_parameter_supported": True,
        }
    )


def metadata_routes(*, resource: str, issuer: str) -> list[Route]:
    """``GET`` routes serving both documents."""
    prm = ProtectedResourceMetadataHandler(
        protected_resource_metadata(resource=resource, issuer=issuer)
    )
    routes = [Route(path, prm.handle, methods=["GET"]) for path in metadata_paths(resource)]
    routes.append(
        Route(
            METADATA_PATH,
            MetadataHandler(authorization_server_metadata(issuer)).handle,
            methods=["GET"],
        )
    )
    return routes
