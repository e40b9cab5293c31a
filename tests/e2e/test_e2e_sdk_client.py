"""The official MCP Python SDK client signs in to the venue and trades data over real sockets."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2
import pytest
from jsonschema import Draft202012Validator
from mcp.client import ClientSession
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    OAuthClientMetadata,
)
from mcp_types import PaginatedRequestParams, Tool
from oauth_testkit import ConsentBrowser, MemoryTokenStorage
from pydantic import AnyUrl
from venue_testkit import running_venue

from ordergate.inventory import load_inventory
from ordergate.sandbox.oauth import SHARED_CLIENT_ID

pytestmark = pytest.mark.anyio

REDIRECT = "http://127.0.0.1:51235/callback"
# Generous: sign-in, 5 pages of tools and a quote take well under a second on loopback.
BOUND_S = 30


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _provider(
    mcp_url: str, storage: MemoryTokenStorage, browser: ConsentBrowser
) -> OAuthClientProvider:
    return OAuthClientProvider(
        server_url=mcp_url,
        client_metadata=OAuthClientMetadata(
            redirect_uris=[AnyUrl(REDIRECT)],
            client_name="ordergate-e2e-sdk",
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=browser.open,
        callback_handler=browser.callback,
    )


async def _all_tools(session: ClientSession) -> tuple[list[Tool], int]:
    """Every tool, following ``nextCursor`` page by page; also how many pages it took."""
    page = await session.list_tools()
    tools, pages = list(page.tools), 1
    while page.next_cursor is not None:
        page = await session.list_tools(params=PaginatedRequestParams(cursor=page.next_cursor))
        tools += page.tools
        pages += 1
    return tools, pages


async def _list_and_quote(mcp_url: str) -> dict[str, Any]:
    """Sign in, list every tool and quote AAPL with the SDK; what each step showed."""
    storage, browser = MemoryTokenStorage(), ConsentBrowser()
    seen: dict[str, Any] = {"storage": storage, "browser": browser}
    # One bound over everything, session teardown (the DELETE) included.
    with anyio.fail_after(BOUND_S):
        async with (
            httpx2.AsyncClient(auth=_provider(mcp_url, storage, browser), timeout=BOUND_S) as http,
            streamable_http_client(mcp_url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            # The first request meets the 401: discovery, registration and consent happen here.
            seen["init"] = await session.initialize()
            seen["tools"], seen["pages"] = await _all_tools(session)
            seen["quote"] = await session.call_tool("get_equity_quotes", {"symbols": ["AAPL"]})
    return seen


def _check_listing_and_quote(seen: dict[str, Any]) -> None:
    tools: list[Tool] = seen["tools"]
    names = [tool.name for tool in tools]
    assert len(names) == 82
    assert len(set(names)) == 82
    assert set(names) == set(load_inventory())
    # 82 tools at 20 a page: the SDK had to follow nextCursor four times.
    assert seen["pages"] == 5

    quote = seen["quote"]
    assert quote.is_error is False
    schema = next(tool.output_schema for tool in tools if tool.name == "get_equity_quotes")
    assert schema is not None
    Draft202012Validator(schema).validate(quote.structured_content)
    (row,) = quote.structured_content["data"]["results"]
    assert row["quote"]["symbol"] == "AAPL"


@pytest.mark.req("sandbox.sdk-client")
async def test_the_mcp_sdk_client_signs_in_lists_every_tool_and_quotes() -> None:
    with running_venue() as venue:
        seen = await _list_and_quote(venue.mcp_url)

    browser: ConsentBrowser = seen["browser"]
    storage: MemoryTokenStorage = seen["storage"]
    # One trip through consent: discovery from the 401, registration, authorization URL.
    assert len(browser.visited) == 1
    assert browser.visited[0].startswith(venue.base_url + "/oauth")
    assert storage.client_info is not None
    assert storage.client_info.client_id == SHARED_CLIENT_ID
    assert storage.tokens is not None
    assert storage.tokens.token_type.lower() == "bearer"
    assert seen["init"].protocol_version == "2025-11-25"
    assert seen["init"].capabilities.tools is not None
    _check_listing_and_quote(seen)


@pytest.mark.req("sandbox.sdk-client")
async def test_the_mcp_sdk_client_works_when_the_venue_answers_in_sse_frames() -> None:
    with running_venue(framing="sse") as venue:
        # The venue really frames its answers as SSE for an SDK-style Accept header.
        venue.initialize()
        probe = venue.post({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})
        assert probe.headers["content-type"].startswith("text/event-stream")

        seen = await _list_and_quote(venue.mcp_url)

    assert seen["storage"].tokens is not None
    _check_listing_and_quote(seen)
