"""RFC 7591 dynamic client registration: every caller becomes a public client of its own.

Each registration gets a fresh random ``client_id`` and no secret
(``token_endpoint_auth_method: none``, whatever was asked: §3.2.1 lets the server replace
requested metadata). Refused with 400 (§3.2.2):

- ``invalid_redirect_uri``: ``redirect_uris`` missing, empty, more than ten, or any of them
  neither ``https://`` nor ``http://`` to loopback (``_redirects``);
- ``invalid_client_metadata``: a body that is not a JSON object, a ``client_name`` that is
  not text of at most 200 printable characters, ``grant_types`` without
  ``authorization_code`` or ``response_types`` without ``code``.

The registration keeps each redirect URI exactly as sent (no URL normalisation), because it
is compared character for character at authorization. The per-IP limit (3 a minute) is the
gateway's rate limiter's, in front of this endpoint.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ordergate.core import Clock
from ordergate.gateway.oauth._metadata import GRANT_TYPES
from ordergate.gateway.oauth._records import SCOPE
from ordergate.gateway.oauth._redirects import MAX_REDIRECT_URIS, redirect_uri_problem
from ordergate.gateway.oauth._store import GatewayStore
from ordergate.oauth import NO_STORE

__all__ = ["MAX_CLIENT_NAME", "RegistrationEndpoint"]

MAX_CLIENT_NAME = 200


class _Refused(Exception):
    def __init__(self, error: str, description: str) -> None:
        self.error = error
        self.description = description
        super().__init__(description)


def _redirect_uris(body: dict[str, Any]) -> tuple[str, ...]:
    uris = body.get("redirect_uris")
    if not isinstance(uris, list) or not uris:
        raise _Refused("invalid_redirect_uri", "redirect_uris must be a non-empty list")
    if len(uris) > MAX_REDIRECT_URIS:
        raise _Refused("invalid_redirect_uri", f"at most {MAX_REDIRECT_URIS} redirect_uris")
    for uri in uris:
        if not isinstance(uri, str):
            raise _Refused("invalid_redirect_uri", "every redirect_uri must be a string")
        problem = redirect_uri_problem(uri)
        if problem is not None:
            raise _Refused("invalid_redirect_uri", problem)
    return tuple(uris)


def _client_name(body: dict[str, Any]) -> str:
    name = body.get("client_name")
    if name is None:
        return ""
    if not isinstance(name, str) or len(name) > MAX_CLIENT_NAME:
        raise _Refused(
            "invalid_client_metadata", f"client_name must be text of at most {MAX_CLIENT_NAME}"
        )
    # Control and formatting characters (bidi overrides among them) could make the name
    # read differently on the consent page from what it is.
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in name):
        raise _Refused("invalid_client_metadata", "client_name has control characters")
    return name.strip()


def _require_member(body: dict[str, Any], key: str, member: str) -> None:
    value = body.get(key)
    if value is None:
        return
    if not isinstance(value, list) or member not in value:
        raise _Refused("invalid_client_metadata", f"{key} must include {member}")


def _parse(raw: bytes) -> tuple[str, tuple[str, ...]]:
    try:
        body: Any = json.loads(raw)
    except (ValueError, RecursionError):
        body = None
    if not isinstance(body, dict):
        raise _Refused("invalid_client_metadata", "the body must be a JSON object")
    redirect_uris = _redirect_uris(body)
    client_name = _client_name(body)
    _require_member(body, "grant_types", "authorization_code")
    _require_member(body, "response_types", "code")
    return client_name, redirect_uris


class RegistrationEndpoint:
    """``POST`` handler of the registration endpoint (§3)."""

    def __init__(self, *, store: GatewayStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    async def handle(self, request: Request) -> Response:
        try:
            client_name, redirect_uris = _parse(await request.body())
        except _Refused as refused:
            return JSONResponse(
                {"error": refused.error, "error_description": refused.description},
                status_code=400,
                headers=NO_STORE,
            )
        client = await anyio.to_thread.run_sync(
            lambda: self._store.register_client(
                client_name=client_name, redirect_uris=redirect_uris
            )
        )
        document: dict[str, Any] = {
            "client_id": client.client_id,
            "client_id_issued_at": int(self._clock.now().timestamp()),
            "redirect_uris": list(client.redirect_uris),
            "token_endpoint_auth_method": "none",
            "grant_types": GRANT_TYPES,
            "response_types": ["code"],
            "scope": SCOPE,
        }
        if client.client_name:
            document["client_name"] = client.client_name
        return JSONResponse(document, status_code=201, headers=NO_STORE)
