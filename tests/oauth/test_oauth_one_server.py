"""The venue and the gateway are one authorization server: the same handlers, the same rules."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2
import pytest
from oauth_testkit import challenge_of, new_verifier, parse_form, redirect_params
from starlette.applications import Starlette
from starlette.routing import BaseRoute, Route

from ordergate.core import SteppedClock
from ordergate.gateway.oauth import GatewayAuth
from ordergate.ledger import open_ledger
from ordergate.sandbox.oauth import SHARED_CLIENT_ID, OAuthServer

pytestmark = pytest.mark.anyio

START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
REDIRECT = "http://127.0.0.1:33418/callback"


@dataclass
class Side:
    """One server as a client sees it."""

    http: httpx2.AsyncClient
    authorize: str
    token: str
    client_id: str
    scope: str
    resource: str

    def params(self, verifier: str, **overrides: str | None) -> dict[str, str]:
        params: dict[str, str | None] = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": REDIRECT,
            "code_challenge": challenge_of(verifier),
            "code_challenge_method": "S256",
            "state": "s",
            "resource": self.resource,
        }
        params.update(overrides)
        return {key: value for key, value in params.items() if value is not None}

    async def tokens(self) -> dict[str, Any]:
        verifier = new_verifier()
        page = await self.http.get(self.authorize, params=self.params(verifier))
        form = parse_form(page.text)
        action = form.forms[0]["action"] or ""
        approved = await self.http.post(action, data={**form.hidden, "decision": "approve"})
        exchange = {
            "grant_type": "authorization_code",
            "code": redirect_params(approved)["code"],
            "client_id": self.client_id,
            "redirect_uri": REDIRECT,
            "code_verifier": verifier,
        }
        response = await self.http.post(self.token, data=exchange)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock(start=START)


def _venue(clock: SteppedClock) -> OAuthServer:
    return OAuthServer(
        issuer="http://127.0.0.1:8790", resource="http://127.0.0.1:8790/mcp", clock=clock
    )


@pytest.fixture(params=["venue", "gateway"])
async def side(
    request: pytest.FixtureRequest, clock: SteppedClock, tmp_path: Path
) -> AsyncIterator[Side]:
    if request.param == "venue":
        venue = _venue(clock)
        app = Starlette(routes=venue.routes())
        async with httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app), base_url=venue.issuer
        ) as http:
            yield Side(
                http, "/oauth", "/oauth2/token/", SHARED_CLIENT_ID, "internal", venue.resource
            )
        return
    with open_ledger(f"sqlite:///{tmp_path / 'ledger.db'}", clock=clock) as ledger:
        auth = GatewayAuth(ledger.engine, public_url="http://127.0.0.1:8787", clock=clock)
        app = Starlette(routes=auth.routes())
        async with httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app), base_url=auth.issuer
        ) as http:
            registered = await http.post("/oauth/register", json={"redirect_uris": [REDIRECT]})
            client_id = registered.json()["client_id"]
            yield Side(
                http, "/oauth/authorize", "/oauth/token", client_id, "gateway", auth.resource
            )


@pytest.mark.parametrize("scope", [None, "{s}", "{s} {s}"])
@pytest.mark.req("oauth.scope.one-rule")
async def test_both_servers_grant_an_absent_or_offered_scope(side: Side, scope: str | None) -> None:
    asked = scope.format(s=side.scope) if scope is not None else None
    page = await side.http.get(side.authorize, params=side.params(new_verifier(), scope=asked))
    assert page.status_code == 200, page.text


@pytest.mark.parametrize("scope", ["admin", " {s}", "{s} ", "{s}  {s}", "{s}\t{s}", '"{s}"', " "])
@pytest.mark.req("oauth.scope.one-rule")
async def test_both_servers_refuse_the_same_scopes_at_authorize_and_on_refresh(
    side: Side, scope: str
) -> None:
    asked = scope.format(s=side.scope)
    page = await side.http.get(side.authorize, params=side.params(new_verifier(), scope=asked))
    assert redirect_params(page)["error"] == "invalid_scope"
    tokens = await side.tokens()
    refresh = {
        "grant_type": "refresh_token",
        "refresh_token": tokens["refresh_token"],
        "client_id": side.client_id,
        "scope": asked,
    }
    refused = await side.http.post(side.token, data=refresh)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_scope"
    # Refused before anything was spent: the same refresh without the scope still rotates.
    del refresh["scope"]
    rotated = await side.http.post(side.token, data=refresh)
    assert rotated.status_code == 200 and rotated.json()["scope"] == side.scope


@pytest.mark.req("oauth.authorize.missing-response-type")
async def test_both_servers_answer_a_missing_response_type_with_invalid_request(
    side: Side,
) -> None:
    page = await side.http.get(
        side.authorize, params=side.params(new_verifier(), response_type=None)
    )
    assert redirect_params(page)["error"] == "invalid_request"


@pytest.mark.req("oauth.token.unknown-client")
async def test_both_servers_answer_an_unknown_client_with_invalid_client_spending_nothing(
    side: Side,
) -> None:
    tokens = await side.tokens()
    refresh = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]}
    stranger = await side.http.post(side.token, data={**refresh, "client_id": "stranger"})
    assert stranger.status_code == 400 and stranger.json()["error"] == "invalid_client"
    exchange = {
        "grant_type": "authorization_code",
        "code": "A" * 43,
        "client_id": "stranger",
        "redirect_uri": REDIRECT,
        "code_verifier": new_verifier(),
    }
    assert (await side.http.post(side.token, data=exchange)).json()["error"] == "invalid_client"
    mine = await side.http.post(side.token, data={**refresh, "client_id": side.client_id})
    assert mine.status_code == 200


def _handlers(routes: list[BaseRoute]) -> dict[str, str]:
    """Each route's path and the module of the object whose method answers it."""
    found = {}
    for route in routes:
        assert isinstance(route, Route)
        found[route.path] = type(route.endpoint.__self__).__module__  # type: ignore[attr-defined]
    return found


@pytest.mark.req("oauth.server.one-implementation")
def test_every_oauth_route_of_both_servers_is_the_shared_handlers(
    clock: SteppedClock, tmp_path: Path
) -> None:
    with open_ledger(f"sqlite:///{tmp_path / 'ledger.db'}", clock=clock) as ledger:
        gateway = GatewayAuth(ledger.engine, public_url="http://127.0.0.1:8787", clock=clock)
        servers = {"venue": _venue(clock).routes(), "gateway": gateway.routes()}
    for name, routes in servers.items():
        handlers = _handlers(routes)
        metadata = {path for path in handlers if path.startswith("/.well-known/")}
        assert len(metadata) == 3, name
        # The discovery documents are served as the MCP SDK's handlers serve them, by one
        # shared handler of ours (tests/oauth/test_oauth_documents.py); every endpoint is ours.
        assert {handlers[path] for path in metadata} == {"ordergate.oauth._documents"}
        for path in set(handlers) - metadata:
            assert handlers[path].startswith("ordergate.oauth."), (name, path, handlers[path])


@pytest.mark.req("oauth.scope.narrowed")
async def test_more_than_the_offer_is_narrowed_by_the_gateway_and_refused_by_the_venue(
    side: Side,
) -> None:
    asked = f"{side.scope} offline_access"
    page = await side.http.get(side.authorize, params=side.params(new_verifier(), scope=asked))
    if side.scope == "internal":  # the venue, as the live server was captured: refused
        assert redirect_params(page)["error"] == "invalid_scope"
    else:  # the gateway (RFC 6749 §3.3): the consent page, for the scope it grants
        assert page.status_code == 200, page.text
