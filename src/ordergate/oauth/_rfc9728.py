"""RFC 9728, OAuth 2.0 Protected Resource Metadata: the document, where it is served and the 401.

An unauthenticated request to an MCP endpoint is answered 401 with
``WWW-Authenticate: Bearer resource_metadata="<issuer>/.well-known/oauth-protected-resource<path>"``
(§5.1), exactly as the live server does; clients that ignore the header fall back to the
path-less well-known URL, so the document is served there too. The document (§2) is the MCP
SDK's ``ProtectedResourceMetadata``, served by its handler: the resource, the one
authorization server guarding it, its scopes and bearer tokens in the header only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from starlette.routing import Route

if TYPE_CHECKING:
    from mcp.shared.auth import ProtectedResourceMetadata

__all__ = [
    "WELL_KNOWN_PREFIX",
    "metadata_paths",
    "protected_resource_metadata",
    "protected_resource_routes",
    "www_authenticate",
]

WELL_KNOWN_PREFIX = "/.well-known/oauth-protected-resource"
# The MCP SDK is imported where it is used: importing it costs about a second (its pydantic
# models), which a command that never serves or signs in should not pay.

# RFC 6750 §3: error = 1*( %x20-21 / %x23-5B / %x5D-7E ), i.e. no quote and no backslash.
_ERROR_VALUE = re.compile(r"[\x20\x21\x23-\x5B\x5D-\x7E]+")


def metadata_paths(resource: str) -> list[str]:
    """Where the document is served: the path-specific URL first (§3.1), then the bare one."""
    path = urlsplit(resource).path.rstrip("/")
    return [WELL_KNOWN_PREFIX + path, WELL_KNOWN_PREFIX] if path else [WELL_KNOWN_PREFIX]


def protected_resource_metadata(
    *, resource: str, issuer: str, scopes: Sequence[str], resource_name: str | None = None
) -> ProtectedResourceMetadata:
    """The document for ``resource``, guarded by the authorization server ``issuer``."""
    from mcp.shared.auth import ProtectedResourceMetadata

    return ProtectedResourceMetadata.model_validate(
        {
            "resource": resource,
            "authorization_servers": [issuer],
            "scopes_supported": list(scopes),
            "bearer_methods_supported": ["header"],
            "resource_name": resource_name,
        }
    )


def protected_resource_routes(
    *, resource: str, issuer: str, scopes: Sequence[str], resource_name: str | None = None
) -> list[Route]:
    """The ``GET`` routes serving the document for ``resource`` at its well-known paths."""
    from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler

    metadata = protected_resource_metadata(
        resource=resource, issuer=issuer, scopes=scopes, resource_name=resource_name
    )
    handler = ProtectedResourceMetadataHandler(metadata)
    return [Route(path, handler.handle, methods=["GET"]) for path in metadata_paths(resource)]


def www_authenticate(*, metadata_url: str, error: str | None = None) -> str:
    """The ``WWW-Authenticate`` challenge for a 401 (§5.1; ``error`` per RFC 6750 §3).

    Raises ``ValueError`` when ``error`` holds characters that would break the header.
    """
    if error is None:
        return f'Bearer resource_metadata="{metadata_url}"'
    if _ERROR_VALUE.fullmatch(error) is None:
        raise ValueError("error must be printable ASCII without quotes or backslashes")
    return f'Bearer error="{error}", resource_metadata="{metadata_url}"'
