"""The gateway's authorization server on a real loopback socket, and a browser's steps in it."""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio.to_thread
import httpx2
from oauth_testkit import parse_form
from owner_testkit import OwnerCodes
from sqlalchemy import Engine, select
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ordergate._serving import BackgroundServer, bind_socket
from ordergate.core import SteppedClock
from ordergate.gateway._schema import (
    connections,
    gateway_clients,
    gateway_codes,
    gateway_pending,
    gateway_tokens,
)
from ordergate.gateway.oauth import GatewayAuth
from ordergate.gateway.oauth._owner_code import OwnerCode
from ordergate.ledger import open_ledger
from ordergate.oauth import ClientDocuments
from ordergate.owner import ENROLMENT_FILE, OwnerAuthority
from ordergate.policy import PolicyConfig
from ordergate.profiles import Profiles, load_profiles

START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
REDIRECT = "http://127.0.0.1:33418/callback"
BOUND_S = 20


def new_verifier() -> str:
    return secrets.token_urlsafe(48)


def challenge_of(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def location_params(response: httpx2.Response) -> dict[str, str]:
    """The query of a 302's Location, single-valued."""
    assert response.status_code == 302, response.text
    query = parse_qs(urlsplit(response.headers["location"]).query)
    return {key: values[0] for key, values in query.items()}


def _mcp_endpoint(auth: GatewayAuth) -> Route:
    """A stand-in for the MCP endpoint: 200 with the grant when the verifier accepts."""

    async def mcp(request: Request) -> Response:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            challenge = auth.verifier.www_authenticate()
        else:
            grant = await anyio.to_thread.run_sync(auth.verifier.verify, token)
            if grant is not None:
                return JSONResponse(
                    {
                        "connection": grant.connection_id,
                        "client": grant.client_id,
                        "scopes": list(grant.scopes),
                    }
                )
            challenge = auth.verifier.www_authenticate("invalid_token")
        return Response(status_code=401, headers={"WWW-Authenticate": challenge})

    return Route("/mcp", mcp, methods=["POST"])


@dataclass
class Gateway:
    url: str
    auth: GatewayAuth
    clock: SteppedClock
    engine: Engine
    http: httpx2.Client
    # Every credential value the tests saw minted, for the scans.
    minted: list[str] = field(default_factory=list, repr=False)

    @property
    def resource(self) -> str:
        return self.url + "/mcp"

    def register(self, *uris: str, name: str = "Test Client") -> str:
        response = self.http.post(
            "/oauth/register",
            json={"redirect_uris": list(uris or (REDIRECT,)), "client_name": name},
        )
        assert response.status_code == 201, response.text
        client_id: str = response.json()["client_id"]
        return client_id

    def flow(self, client_id: str | None = None) -> Flow:
        return Flow(self, client_id or self.register())

    def mcp(self, token: str | None) -> httpx2.Response:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        return self.http.post("/mcp", json={}, headers=headers)

    def rows(self) -> dict[str, list[dict[str, Any]]]:
        """Every row of the gateway's tables."""
        tables = (gateway_clients, gateway_pending, connections, gateway_codes, gateway_tokens)
        with self.engine.connect() as db:
            return {
                table.name: [dict(row._mapping) for row in db.execute(select(table))]
                for table in tables
            }


class Flow:
    """One client's authorization-code flow, step by step."""

    def __init__(self, gateway: Gateway, client_id: str) -> None:
        self.gateway = gateway
        self.client_id = client_id
        self.verifier = new_verifier()

    def params(self, **overrides: str | None) -> dict[str, str]:
        params: dict[str, str | None] = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": REDIRECT,
            "code_challenge": challenge_of(self.verifier),
            "code_challenge_method": "S256",
            "state": "state-123",
            "scope": "gateway",
            "resource": self.gateway.resource,
        }
        params.update(overrides)
        return {key: value for key, value in params.items() if value is not None}

    def page(self, **overrides: str | None) -> httpx2.Response:
        return self.gateway.http.get("/oauth/authorize", params=self.params(**overrides))

    def form(self, **overrides: str | None) -> dict[str, str]:
        page = self.page(**overrides)
        assert page.status_code == 200, page.text
        hidden = parse_form(page.text).hidden
        self.gateway.minted.append(hidden["nonce"])
        return hidden

    def decide(self, form: dict[str, str], decision: str = "approve") -> httpx2.Response:
        return self.gateway.http.post("/oauth/consent", data={**form, "decision": decision})

    def code(self, **overrides: str | None) -> str:
        code = location_params(self.decide(self.form(**overrides)))["code"]
        self.gateway.minted.append(code)
        return code

    def exchange(self, code: str, **overrides: str | None) -> httpx2.Response:
        data: dict[str, str | None] = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "client_id": self.client_id,
            "code_verifier": self.verifier,
            "resource": self.gateway.resource,
        }
        data.update(overrides)
        response = self.gateway.http.post(
            "/oauth/token", data={k: v for k, v in data.items() if v is not None}
        )
        self._note(response)
        return response

    def tokens(self) -> dict[str, Any]:
        response = self.exchange(self.code())
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def refresh(self, refresh_token: str, **overrides: str | None) -> httpx2.Response:
        data: dict[str, str | None] = {
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            "client_id": self.client_id,
        }
        data.update(overrides)
        response = self.gateway.http.post(
            "/oauth/token", data={k: v for k, v in data.items() if v is not None}
        )
        self._note(response)
        return response

    def revoke(self, token: str, client_id: str | None = None) -> httpx2.Response:
        return self.gateway.http.post(
            "/oauth/revoke", data={"token": token, "client_id": client_id or self.client_id}
        )

    def _note(self, response: httpx2.Response) -> None:
        if response.status_code == 200:
            body = response.json()
            self.gateway.minted += [body["access_token"], body["refresh_token"]]


@contextmanager
def serve(
    tmp_path: Path,
    *,
    clock: SteppedClock | None = None,
    owner: OwnerCodes | bool | None = None,
    profiles: Profiles | None = None,
    client_documents: ClientDocuments | None = None,
    ledger_url: str | None = None,
) -> Iterator[Gateway]:
    """The authorization server plus a stand-in ``/mcp``, served on a free loopback port.
    With ``owner``, approving asks for the owner code as ``ordergate serve``'s does: of the
    owner enrolled in ``tmp_path/home`` (``OwnerCodes``), or of nobody (``False``);
    ``client_documents``: clients named by their metadata document's URL; the ledger is
    SQLite in ``tmp_path`` unless ``ledger_url`` names another."""
    clock = clock or SteppedClock(start=START)
    sock = bind_socket("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    database = ledger_url or f"sqlite:///{tmp_path / 'ledger.db'}"
    with open_ledger(database, clock=clock) as ledger:
        check = None
        if owner is not None:
            authority = OwnerAuthority(
                enrolment_path=tmp_path / "home" / ENROLMENT_FILE, ledger=ledger
            )
            offered = profiles or load_profiles(None, PolicyConfig())
            check = OwnerCode(authority, offered)
        auth = GatewayAuth(
            ledger.engine,
            public_url=url,
            clock=clock,
            consent_check=check,
            profiles=profiles,
            client_documents=client_documents,
        )
        app = Starlette(routes=[*auth.routes(), _mcp_endpoint(auth)])
        with (
            BackgroundServer(app, sock),
            httpx2.Client(base_url=url, timeout=BOUND_S) as http,
        ):
            yield Gateway(url=url, auth=auth, clock=clock, engine=ledger.engine, http=http)
