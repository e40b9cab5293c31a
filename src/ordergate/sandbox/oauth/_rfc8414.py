"""RFC 8414, OAuth 2.0 Authorization Server Metadata: the sandbox venue's document.

The endpoint paths are the ones the live server publishes: authorize at ``/oauth``, token at
``/oauth2/token/`` (trailing slash included), registration at ``/oauth/trading/register``. The
document is served at the shared ``METADATA_PATH`` (``ordergate.oauth``).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ordergate.oauth import S256
from ordergate.sandbox.oauth._rfc7591 import SUPPORTED_GRANT_TYPES, SUPPORTED_SCOPE

__all__ = [
    "AUTHORIZATION_PATH",
    "REGISTRATION_PATH",
    "TOKEN_PATH",
    "AuthorizationServerMetadataEndpoint",
    "authorization_server_metadata",
]

AUTHORIZATION_PATH = "/oauth"
TOKEN_PATH = "/oauth2/token/"
REGISTRATION_PATH = "/oauth/trading/register"


def authorization_server_metadata(issuer: str) -> dict[str, Any]:
    """The metadata document (§2) of the server whose issuer identifier is ``issuer``."""
    return {
        "issuer": issuer,
        "authorization_endpoint": issuer + AUTHORIZATION_PATH,
        "token_endpoint": issuer + TOKEN_PATH,
        "registration_endpoint": issuer + REGISTRATION_PATH,
        "scopes_supported": [SUPPORTED_SCOPE],
        "response_types_supported": ["code"],
        "grant_types_supported": list(SUPPORTED_GRANT_TYPES),
        "token_endpoint_auth_methods_supported": ["none"],
        "code_challenge_methods_supported": [S256],
    }


class AuthorizationServerMetadataEndpoint:
    """``GET`` handler serving the metadata document (§3)."""

    def __init__(self, *, issuer: str) -> None:
        self._document = authorization_server_metadata(issuer)

    async def handle(self, request: Request) -> Response:
        return JSONResponse(self._document)
