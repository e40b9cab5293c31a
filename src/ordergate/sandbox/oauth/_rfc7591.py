"""RFC 7591, OAuth 2.0 Dynamic Client Registration: one shared public client for everybody.

The live server ignores the registration request and answers every caller with the same
public client id (so the id carries no agent identity), no secret and
``token_endpoint_auth_method: none``. The sandbox does the same, even for a body that is not
JSON. It echoes ``redirect_uris`` and ``client_name`` when they were sent as well-formed
values, because clients such as the MCP SDK's ``OAuthClientProvider`` read the response back
as their client record (§3.2.1).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ordergate.oauth import NO_STORE

__all__ = ["SHARED_CLIENT_ID", "SUPPORTED_GRANT_TYPES", "SUPPORTED_SCOPE", "RegistrationEndpoint"]

SHARED_CLIENT_ID = "5f3c9a1e-8b2d-4e6f-9a7c-1d0b3e5f7a92"
SUPPORTED_SCOPE = "internal"
SUPPORTED_GRANT_TYPES = ("authorization_code", "refresh_token")


def _echoable(body: Any) -> dict[str, Any]:
    """The requested metadata the response repeats back: only values of the right shape."""
    if not isinstance(body, dict):
        return {}
    echoed: dict[str, Any] = {}
    redirect_uris = body.get("redirect_uris")
    if (
        isinstance(redirect_uris, list)
        and redirect_uris
        and all(isinstance(uri, str) and uri for uri in redirect_uris)
    ):
        echoed["redirect_uris"] = list(redirect_uris)
    client_name = body.get("client_name")
    if isinstance(client_name, str) and client_name:
        echoed["client_name"] = client_name
    return echoed


class RegistrationEndpoint:
    """``POST`` handler of the registration endpoint (§3)."""

    def __init__(self, *, client_id: str) -> None:
        self._client_id = client_id

    async def handle(self, request: Request) -> Response:
        raw = await request.body()
        try:
            body: Any = json.loads(raw) if raw else None
        except (ValueError, RecursionError):
            # Garbage is ignored like everything else the caller sends.
            body = None
        document: dict[str, Any] = {
            "client_id": self._client_id,
            "token_endpoint_auth_method": "none",
            "grant_types": list(SUPPORTED_GRANT_TYPES),
            "response_types": ["code"],
            "scope": SUPPORTED_SCOPE,
            **_echoable(body),
        }
        return JSONResponse(document, status_code=201, headers=NO_STORE)
