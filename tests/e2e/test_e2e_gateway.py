"""Issue 6's first acceptance point: a client nobody here wrote — the official MCP Python SDK
with its ``OAuthClientProvider`` — registers at ``ordergate serve --sandbox``, is sent through
consent (followed and posted as a browser would), gets tokens, lists the tools and places a
paper order through the guard, all over real loopback sockets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from gateway_testkit import OPEN, sandbox_gateway, settled
from mcp.client import ClientSession
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata
from mcp_types import PaginatedRequestParams
from oauth_testkit import ConsentBrowser, MemoryTokenStorage
from owner_testkit import enrol
from pydantic import AnyUrl
from sqlalchemy import select

from ordergate.core import Secret, SteppedClock
from ordergate.gateway._config import Custody, GatewayConfig
from ordergate.gateway._schema import connections
from ordergate.ledger import FilingStatus, Ledger, open_ledger
from ordergate.ledger._schema import filings

pytestmark = pytest.mark.anyio

REDIRECT = "http://127.0.0.1:51236/callback"
BOUND_S = 30


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _data(result: Any) -> Any:
    assert result.structured_content is not None, result
    return result.structured_content["data"]


async def _sdk_agent_places_an_order(
    url: str, browser: ConsentBrowser, storage: MemoryTokenStorage
) -> Any:
    """The SDK client's whole flow at ``url``: register, consent (and sign-in), tokens, the
    tool list, a quote, and a paper order of $25 of SPY; the order's result."""
    mcp_url = url + "/mcp"
    provider = OAuthClientProvider(
        server_url=mcp_url,
        client_metadata=OAuthClientMetadata(
            redirect_uris=[AnyUrl(REDIRECT)],
            client_name="sdk-agent",
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=browser.open,
        callback_handler=browser.callback,
    )
    with anyio.fail_after(BOUND_S):
        async with (
            httpx2.AsyncClient(auth=provider, timeout=BOUND_S) as http,
            streamable_http_client(mcp_url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            page = await session.list_tools()
            names = {tool.name for tool in page.tools}
            for _ in range(20):  # bounded: the listing pages
                if page.next_cursor is None:
                    break
                page = await session.list_tools(
                    params=PaginatedRequestParams(cursor=page.next_cursor)
                )
                names |= {tool.name for tool in page.tools}
            assert {"place_equity_order", "get_equity_quotes", "gate_how"} <= names
            quotes = _data(await session.call_tool("get_equity_quotes", {"symbols": ["SPY"]}))
            assert quotes["results"][0]["quote"]["symbol"] == "SPY"
            account = _data(await session.call_tool("get_accounts", {}))["accounts"]
            number = next(a for a in account if a["agentic_allowed"])["account_number"]
            return await session.call_tool(
                "place_equity_order",
                {
                    "account_number": number,
                    "symbol": "SPY",
                    "side": "buy",
                    "type": "market",
                    "dollar_amount": "25",
                },
            )


@pytest.mark.req("clients.real.python-sdk")
async def test_the_mcp_sdk_client_connects_through_consent_and_places_a_paper_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = SteppedClock(start=OPEN)
    server = sandbox_gateway(tmp_path, monkeypatch, clock=clock)
    codes = enrol(tmp_path / "home")
    browser = ConsentBrowser(
        profile="trader", owner_code=codes.next, person_now=server.security_clock.now
    )
    storage = MemoryTokenStorage()
    with server as url:
        placed = await _sdk_agent_places_an_order(url, browser, storage)
        assert len(browser.pages) == 1 and "sdk-agent" in browser.pages[0]
        body = json.dumps(placed.structured_content)
        assert placed.is_error is False, body
        assert placed.structured_content["data"]["status"] == "submitted", body
        running = server.running
        assert running is not None and running.arming.live is False
        [record] = [r for r in _filings(running.guard.ledger) if r.terms.get("symbol") == "SPY"]
        assert str(record.id) in body
        # Placed on the venue's engine; filled once the venue's clock has run and booked.
        status = await anyio.to_thread.run_sync(
            lambda: settled(server, str(record.id), market=clock)
        )
        assert status is FilingStatus.FILLED
        assert running.guard.ledger.filing(record.id).status is FilingStatus.FILLED
        assert record.identity.startswith("conn:")
        tokens = storage.tokens
        assert tokens is not None and tokens.access_token not in body


async def test_the_mcp_sdk_client_signs_in_at_the_venue_through_a_sealed_gateway_and_orders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = GatewayConfig(port=0, custody=Custody.SEALED, master_secret=Secret("s" * 40))
    server = sandbox_gateway(tmp_path, monkeypatch, config=config)
    codes = enrol(tmp_path / "home")
    browser = ConsentBrowser(
        profile="trader", owner_code=codes.next, person_now=server.security_clock.now
    )
    storage = MemoryTokenStorage()
    with server as url:
        placed = await _sdk_agent_places_an_order(url, browser, storage)
        auth = server.auth
        assert auth is not None
        with auth.store.engine.connect() as db:
            kinds = [row.kind for row in db.execute(select(connections))]
        ledger = open_ledger(str(auth.store.engine.url), clock=SteppedClock(start=OPEN))
        try:
            [record] = [r for r in _filings(ledger) if r.terms.get("symbol") == "SPY"]
        finally:
            ledger.close()
    # The gateway's consent page, then the venue's own sign-in page.
    assert len(browser.pages) == 2 and "sdk-agent" in browser.pages[0]
    assert placed.is_error is False, placed.structured_content
    assert kinds == ["sealed"]
    assert str(record.id) in json.dumps(placed.structured_content)


def _filings(ledger: Ledger) -> list[Any]:
    with ledger.engine.connect() as connection:
        ids = [row.id for row in connection.execute(select(filings.c.id))]
    return [ledger.filing(i) for i in ids]
