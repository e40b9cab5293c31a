"""RFC 9728, OAuth 2.0 Protected Resource Metadata: the sandbox venue's document.

The document names the venue's scope; where it is served (``metadata_paths``) and the 401
challenge that points to it (``www_authenticate``) are shared in ``ordergate.oauth``.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ordergate.sandbox.oauth._rfc7591 import SUPPORTED_SCOPE

__all__ = ["ProtectedResourceMetadataEndpoint", "protected_resource_metadata"]


def protected_resource_metadata(*, resource: str, issuer: str) -> dict[str, Any]:
    """The metadata document (§2) for ``resource``, guarded by the server ``issuer``."""
    return {
        "resource": resource,
        "authorization_servers": [issuer],
        "scopes_supported": [SUPPORTED_SCOPE],
        "bearer_methods_supported": ["header"],
    }


class ProtectedResourceMetadataEndpoint:
    """``GET`` handler serving the metadata document (§3)."""

    def __init__(self, *, resource: str, issuer: str) -> None:
        self._document = protected_resource_metadata(resource=resource, issuer=issuer)

    async def handle(self, request: Request) -> Response:
        return JSONResponse(self._document)
