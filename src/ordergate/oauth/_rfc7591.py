"""RFC 7591, OAuth 2.0 Dynamic Client Registration: the endpoint and its two policies.

Every client is public: no secret and ``token_endpoint_auth_method: none`` whatever was asked
(§3.2.1 lets the server replace requested metadata). What a registration makes is the
server's policy, its ``Registrar``:

- ``SharedClient`` (the venue, as the live server): the request is ignored, even a body that
  is not JSON, and every caller gets the same client id, so the id carries no agent identity.
  It echoes ``redirect_uris`` and ``client_name`` when they were sent as well-formed values,
  because clients such as the MCP SDK's ``OAuthClientProvider`` read the response back as
  their client record (§3.2.1).
- ``OwnClients`` (the gateway): each registration is a client of its own under a fresh random
  id (``ClientRegistry``), its redirect URIs kept exactly as sent (no URL normalisation: they
  are compared character for character at authorization). Refused with 400 (§3.2.2):

  - ``invalid_redirect_uri``: ``redirect_uris`` missing, empty, more than ten, or any of them
    refused by the RFC 8252 rule (``redirect_uri_problem``);
  - ``invalid_client_metadata``: a body that is not a JSON object, a ``client_name`` that is
    not text of at most 200 characters without control or formatting characters,
    ``grant_types`` without ``authorization_code`` or ``response_types`` without ``code``,
    an ``application_type`` other than ``web`` (the default) or ``native``;
  - ``invalid_redirect_uri`` too for a client that says it is ``web`` and names an app's
    private-use scheme.

  The answer echoes ``application_type``. A client may instead name itself by the URL of its
  metadata document, with no registration (``_cimd``).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ordergate.core import Clock
from ordergate.oauth._rfc6749 import NO_STORE
from ordergate.oauth._rfc6749_token import GRANT_TYPES
from ordergate.oauth._rfc8252 import redirect_uri_problem
from ordergate.oauth._storage import ClientRegistry

__all__ = [
    "APPLICATION_TYPES",
    "MAX_CLIENT_NAME",
    "MAX_REDIRECT_URIS",
    "OwnClients",
    "Registrar",
    "RegistrationEndpoint",
    "RegistrationRefused",
    "SharedClient",
    "application_type",
    "client_name",
    "redirect_uris",
]

APPLICATION_TYPES = ("web", "native")

MAX_CLIENT_NAME = 200
MAX_REDIRECT_URIS = 10


class RegistrationRefused(Exception):
    """A registration refused with its §3.2.2 error code."""

    def __init__(self, error: str, description: str) -> None:
        self.error = error
        self.description = description
        super().__init__(description)


class Registrar(Protocol):
    """What a registration makes of the request's JSON body (``None`` when it was not JSON)."""

    async def register(self, body: object) -> dict[str, Any]:
        """The client's fields of the response (``client_id`` and what it is told back).
        Raises ``RegistrationRefused``."""
        ...


class SharedClient:
    """Every registration answered with ``client_id``, whatever it asked."""

    def __init__(self, client_id: str) -> None:
        self.client_id = client_id

    async def register(self, body: object) -> dict[str, Any]:
        document: dict[str, Any] = {"client_id": self.client_id}
        if not isinstance(body, dict):
            return document
        uris = body.get("redirect_uris")
        if isinstance(uris, list) and uris and all(isinstance(u, str) and u for u in uris):
            document["redirect_uris"] = list(uris)
        name = body.get("client_name")
        if isinstance(name, str) and name:
            document["client_name"] = name
        return document


class OwnClients:
    """Each registration a new client in ``registry``, once its metadata is usable."""

    def __init__(self, registry: ClientRegistry, *, clock: Clock) -> None:
        self._registry = registry
        self._clock = clock

    async def register(self, body: object) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise RegistrationRefused("invalid_client_metadata", "the body must be a JSON object")
        uris = redirect_uris(body)
        name = client_name(body)
        kind = application_type(body, uris)
        _require_member(body, "grant_types", "authorization_code")
        _require_member(body, "response_types", "code")
        client = await self._registry.register_client(client_name=name, redirect_uris=uris)
        document: dict[str, Any] = {
            "client_id": client.client_id,
            "client_id_issued_at": int(self._clock.now().timestamp()),
            "redirect_uris": list(uris),
            "application_type": kind,
        }
        if client.client_name:
            document["client_name"] = client.client_name
        return document


def redirect_uris(body: dict[str, Any]) -> tuple[str, ...]:
    """The client's ``redirect_uris``, each allowed by the RFC 8252 rule; ``RegistrationRefused``
    (``invalid_redirect_uri``)."""
    uris = body.get("redirect_uris")
    if not isinstance(uris, list) or not uris:
        raise RegistrationRefused("invalid_redirect_uri", "redirect_uris must be a non-empty list")
    if len(uris) > MAX_REDIRECT_URIS:
        raise RegistrationRefused(
            "invalid_redirect_uri", f"at most {MAX_REDIRECT_URIS} redirect_uris"
        )
    for uri in uris:
        if not isinstance(uri, str):
            raise RegistrationRefused("invalid_redirect_uri", "every redirect_uri must be a string")
        problem = redirect_uri_problem(uri)
        if problem is not None:
            raise RegistrationRefused("invalid_redirect_uri", problem)
    return tuple(uris)


def client_name(body: dict[str, Any]) -> str:
    """The client's ``client_name`` (``""`` when not sent); ``RegistrationRefused``
    (``invalid_client_metadata``)."""
    name = body.get("client_name")
    if name is None:
        return ""
    if not isinstance(name, str) or len(name) > MAX_CLIENT_NAME:
        raise RegistrationRefused(
            "invalid_client_metadata", f"client_name must be text of at most {MAX_CLIENT_NAME}"
        )
    # Control and formatting characters (bidi overrides among them) could make the name
    # read differently on the consent page from what it is.
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in name):
        raise RegistrationRefused("invalid_client_metadata", "client_name has control characters")
    return name.strip()


def application_type(body: dict[str, Any], uris: Sequence[str]) -> str:
    """The client's ``application_type`` (OpenID Connect Dynamic Client Registration 1.0 §2,
    which the MCP specification's clients send): ``web`` or ``native``; when not sent,
    ``native`` if a redirect URI is an app's private-use scheme, else ``web``. A web client
    cannot receive a redirect at a private-use scheme; a native one may use any redirect the
    RFC 8252 rule allows."""
    web = all(uri.startswith(("https://", "http://")) for uri in uris)
    kind = body.get("application_type", "web" if web else "native")
    if kind not in APPLICATION_TYPES:
        raise RegistrationRefused(
            "invalid_client_metadata", "application_type must be web or native"
        )
    if kind == "web" and not web:
        raise RegistrationRefused(
            "invalid_redirect_uri",
            "a web client's redirect_uris must be http(s); an app's scheme needs "
            "application_type native",
        )
    return str(kind)


def _require_member(body: dict[str, Any], key: str, member: str) -> None:
    value = body.get(key)
    if value is None:
        return
    if not isinstance(value, list) or member not in value:
        raise RegistrationRefused("invalid_client_metadata", f"{key} must include {member}")


class RegistrationEndpoint:
    """``POST`` handler of the registration endpoint (§3)."""

    def __init__(self, *, registrar: Registrar, scopes: Sequence[str]) -> None:
        self._registrar = registrar
        self._scope = " ".join(scopes)

    async def handle(self, request: Request) -> Response:
        raw = await request.body()
        try:
            body: Any = json.loads(raw) if raw else None
        except (ValueError, RecursionError):
            body = None
        try:
            client = await self._registrar.register(body)
        except RegistrationRefused as refused:
            return JSONResponse(
                {"error": refused.error, "error_description": refused.description},
                status_code=400,
                headers=NO_STORE,
            )
        document = {
            **client,
            "token_endpoint_auth_method": "none",
            "grant_types": list(GRANT_TYPES),
            "response_types": ["code"],
            "scope": self._scope,
        }
        return JSONResponse(document, status_code=201, headers=NO_STORE)
