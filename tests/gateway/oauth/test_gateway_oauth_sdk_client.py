"""The official MCP Python SDK's OAuth client registers, consents, gets and refreshes tokens."""

from __future__ import annotations

import time
from datetime import timedelta

import anyio
import httpx2
import pytest
from gateway_oauth_kit import BOUND_S, REDIRECT, Gateway
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import OAuthClientMetadata
from oauth_testkit import ConsentBrowser, MemoryTokenStorage
from pydantic import AnyUrl

pytestmark = pytest.mark.anyio


async def test_the_mcp_sdk_client_registers_consents_gets_tokens_and_refreshes(
    gateway: Gateway,
) -> None:
    browser, storage = ConsentBrowser(), MemoryTokenStorage()
    provider = OAuthClientProvider(
        server_url=gateway.resource,
        client_metadata=OAuthClientMetadata(
            redirect_uris=[AnyUrl(REDIRECT)],
            client_name="SDK <client>",
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=browser.open,
        callback_handler=browser.callback,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=BOUND_S) as client:
        with anyio.fail_after(BOUND_S):
            first = await client.post(gateway.resource, json={})
        assert first.status_code == 200, first.text

        # Registration gave it a public client of its own; consent named it, escaped.
        info = storage.client_info
        assert info is not None and info.client_id
        assert info.token_endpoint_auth_method == "none" and info.client_secret is None
        (page,) = browser.pages
        assert "SDK &lt;client&gt;" in page
        tokens = storage.tokens
        assert tokens is not None and tokens.refresh_token is not None
        assert tokens.expires_in == 3600 and tokens.scope == "gateway"
        grant = gateway.auth.verifier.verify(tokens.access_token)
        assert grant is not None and grant.client_id == info.client_id
        assert first.json() == {
            "connection": grant.connection_id,
            "client": info.client_id,
            "scopes": ["gateway"],
        }
        connection = gateway.auth.store.connection(grant.connection_id)
        assert connection is not None
        assert (connection.kind, connection.profile, connection.state) == (
            "owner",
            "monitor",
            "live",
        )

        # An hour on, on both sides: the client refreshes instead of sending the owner back.
        gateway.clock.advance(timedelta(hours=1))
        provider.context.token_expiry_time = time.time() - 1
        with anyio.fail_after(BOUND_S):
            second = await client.post(gateway.resource, json={})
        assert second.status_code == 200, second.text
        assert len(browser.pages) == 1
        refreshed = storage.tokens
        assert refreshed is not None
        assert refreshed.refresh_token not in (None, tokens.refresh_token)
        assert refreshed.access_token != tokens.access_token
        assert second.json()["connection"] == grant.connection_id
        assert gateway.auth.verifier.verify(tokens.access_token) is None
