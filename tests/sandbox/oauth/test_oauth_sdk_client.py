"""The MCP Python SDK's own OAuth client completes the flow against the sandbox server."""

from __future__ import annotations

import anyio
import httpx2
import pytest
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientMetadata,
)
from oauth_testkit import (
    ISSUER,
    REDIRECT_URI,
    RESOURCE,
    MemoryTokenStorage,
    parse_form,
    redirect_params,
)
from pydantic import AnyUrl
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ordergate.sandbox.oauth import SHARED_CLIENT_ID, OAuthServer

pytestmark = pytest.mark.anyio


class _Browser:
    """Plays the person at the consent page: opens it and presses Approve."""

    def __init__(self, transport: httpx2.ASGITransport) -> None:
        self._transport = transport
        self.result: AuthorizationCodeResult | None = None
        self.visits = 0

    async def open(self, url: str) -> None:
        self.visits += 1
        async with httpx2.AsyncClient(transport=self._transport, base_url=ISSUER) as browser:
            page = await browser.get(url)
            assert page.status_code == 200, page.text
            form = parse_form(page.text).hidden
            decision = await browser.post("/oauth", data={**form, "decision": "approve"})
        params = redirect_params(decision)
        self.result = AuthorizationCodeResult(code=params["code"], state=params.get("state"))

    async def callback(self) -> AuthorizationCodeResult:
        assert self.result is not None
        return self.result


def _app(server: OAuthServer) -> Starlette:
    async def mcp(request: Request) -> Response:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            challenge = server.www_authenticate()
        elif server.verify_access_token(token) is None:
            challenge = server.www_authenticate(error="invalid_token")
        else:
            return JSONResponse({"ok": True})
        return Response(status_code=401, headers={"WWW-Authenticate": challenge})

    return Starlette(routes=[*server.routes(), Route("/mcp/trading", mcp, methods=["POST"])])


async def test_the_mcp_sdk_oauth_client_signs_in_registers_and_reauthorizes(
    server: OAuthServer,
) -> None:
    transport = httpx2.ASGITransport(app=_app(server))
    browser = _Browser(transport)
    storage = MemoryTokenStorage()
    provider = OAuthClientProvider(
        server_url=RESOURCE,
        client_metadata=OAuthClientMetadata(
            redirect_uris=[AnyUrl(REDIRECT_URI)],
            client_name="ordergate-test",
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=browser.open,
        callback_handler=browser.callback,
    )
    async with httpx2.AsyncClient(transport=transport, auth=provider) as client:
        with anyio.fail_after(10):
            first = await client.post(RESOURCE, json={})
        assert first.status_code == 200
        assert storage.client_info is not None
        assert storage.client_info.client_id == SHARED_CLIENT_ID
        assert storage.tokens is not None
        assert storage.tokens.scope == "internal"
        assert server.verify_access_token(storage.tokens.access_token) is not None

        # The fault knob: the server expires every token; the client signs in again.
        assert server.expire_access_tokens() == 1
        with anyio.fail_after(10):
            second = await client.post(RESOURCE, json={})
        assert second.status_code == 200
        assert browser.visits == 2
