"""RFC 9728, OAuth 2.0 Protected Resource Metadata: the document, where it is served and the 401.

An unauthenticated request to an MCP endpoint is answered 401 with ``WWW-Authenticate:
Bearer resource_metadata="<issuer>/.well-known/oauth-protected-resource<path>"`` (§5.1),
exactly as the live server does; clients that ignore the header fall back to the path-less
well-known URL, so the document is served there too. The document (§2) is a plain JSON
object in the field order of the MCP SDK's ``ProtectedResourceMetadata``, served as its
handler serves it (a test validates it against the model): the resource, the one
authorization server guarding it, its scopes and bearer tokens in the header only."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from starlette.routing import Route

from ordergate.oauth._documents import checked_url, document_route

__all__ = [
    "WELL_KNOWN_PREFIX",
    "metadata_paths",
    "protected_resource_metadata",
    "protected_resource_routes",
    "www_authenticate",
]

WELL_KNOWN_PREFIX = "/.well-known/oauth-protected-resource"
# Plain dicts, not the MCP SDK's pydantic models: importing the SDK costs about a second,
# which starting the embedded sandbox (``ordergate status --sandbox``) should not pay.

# RFC 6750 §3: error = 1*( %x20-21 / %x23-5B / %x5D-7E ), i.e. no quote and no backslash.
_ERROR_VALUE = re.compile(r"[\x20\x21\x23-\x5B\x5D-\x7E]+")


def metadata_paths(resource: str) -> list[str]:
    """Where the document is served: the path-specific URL first (§3.1), then the bare one."""
    path = urlsplit(resource).path.rstrip("/")
    return [WELL_KNOWN_PREFIX + path, WELL_KNOWN_PREFIX] if path else [WELL_KNOWN_PREFIX]


def protected_resource_metadata(
    *, resource: str, issuer: str, scopes: Sequence[str], resource_name: str | None = None
) -> dict[str, Any]:
    """The document for ``resource``, guarded by the authorization server ``issuer``.

    Raises ``ValueError`` naming the field when a URL is not an absolute http(s) URL.
    """
    document: dict[str, Any] = {
        "resource": checked_url("resource", resource),
        "authorization_servers": [checked_url("authorization_servers", issuer)],
        "scopes_supported": list(scopes),
        "bearer_methods_supported": ["header"],
    }
    if resource_name is not None:
        document["resource_name"] = resource_name
    return document


def protected_resource_routes(
    *, resource: str, issuer: str, scopes: Sequence[str], resource_name: str | None = None
) -> list[Route]:
    """The ``GET`` routes serving the document for ``resource`` at its well-known paths."""
    metadata = protected_resource_metadata(
        resource=resource, issuer=issuer, scopes=scopes, resource_name=resource_name
    )
    return [document_route(path, metadata) for path in metadata_paths(resource)]


def www_authenticate(*, metadata_url: str, error: str | None = None) -> str:
    """The ``WWW-Authenticate`` challenge for a 401 (§5.1; ``error`` per RFC 6750 §3).

    Raises ``ValueError`` when ``error`` holds characters that would break the header.
    """
    if error is None:
        return f'Bearer resource_metadata="{metadata_url}"'
    if _ERROR_VALUE.fullmatch(error) is None:
        raise ValueError("error must be printable ASCII without quotes or backslashes")
    return f'Bearer error="{error}", resource_metadata="{metadata_url}"'
