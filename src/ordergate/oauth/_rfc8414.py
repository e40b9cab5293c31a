"""RFC 8414, OAuth 2.0 Authorization Server Metadata: the document and where it is served.

The document (§2) is a plain JSON object in the field order of the MCP SDK's
``OAuthMetadata`` model, served as its ``MetadataHandler`` serves it (compact JSON, absent
fields left out, cached an hour) at the well-known path (§3); its URLs are checked here
(``_documents.checked_url``), and a test validates it against the SDK's model. It names the
server's endpoints, its scopes, public clients only (``none``), S256 only and, where the
server sends RFC 9207's ``iss`` in every authorization response (the gateway), says so; a
revocation endpoint appears only where there is one. The issuer keeps its exact form (no
trailing slash added): clients compare issuers as plain strings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.routing import Route

from ordergate.oauth._documents import checked_url, document_route
from ordergate.oauth._rfc6749_token import GRANT_TYPES
from ordergate.oauth._rfc7636 import S256

__all__ = ["METADATA_PATH", "authorization_server_metadata", "metadata_route"]

# Plain dicts, not the MCP SDK's pydantic models: importing the SDK costs about a second,
# which starting the embedded sandbox (``ordergate status --sandbox``) should not pay.

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
    client_documents: bool = False,
) -> dict[str, Any]:
    """The metadata document of the server whose issuer identifier is ``issuer``.

    Raises ``ValueError`` naming the field when a URL is not an absolute http(s) URL.
    """
    document: dict[str, Any] = {
        "issuer": checked_url("issuer", issuer),
        "authorization_endpoint": checked_url(
            "authorization_endpoint", issuer + authorization_path
        ),
        "token_endpoint": checked_url("token_endpoint", issuer + token_path),
        "registration_endpoint": checked_url("registration_endpoint", issuer + registration_path),
        "scopes_supported": list(scopes),
        "response_types_supported": ["code"],
        "grant_types_supported": list(GRANT_TYPES),
        "token_endpoint_auth_methods_supported": ["none"],
    }
    if revocation_path is not None:
        document["revocation_endpoint"] = checked_url(
            "revocation_endpoint", issuer + revocation_path
        )
        document["revocation_endpoint_auth_methods_supported"] = ["none"]
    document["code_challenge_methods_supported"] = [S256]  # after revocation, as the model
    if iss_parameter:
        document["authorization_response_iss_parameter_supported"] = True
    if client_documents:
        document["client_id_metadata_document_supported"] = True
    return document


def metadata_route(metadata: dict[str, Any]) -> Route:
    """The ``GET`` route serving ``metadata`` at the well-known path."""
    return document_route(METADATA_PATH, metadata)
