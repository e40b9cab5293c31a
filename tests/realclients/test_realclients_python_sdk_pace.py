"""The MCP Python SDK's ordinary script is never rate limited with the default limits (issue
25 §3).

A script written the way the SDK's examples are: sign in through the gateway's consent page
(the SDK's own OAuth client), ``initialize``, read the whole tool listing page by page, then
twenty calls one after the other at the SDK's own pace — the gateway's own tools, paper order
reads, quotes and one paper order. What the gateway answers itself (the handshake, the
listing from its cache, ``gate_*``, the paper book's orders) spends a budget of its own; only
the calls that reach the upstream spend the one sized to the broker (4 a second, bursts of
8), and those are few enough here to fit it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from gateway_testkit import sandbox_gateway
from mcp_types import PaginatedRequestParams
from oauth_testkit import ConsentBrowser, sdk_session
from owner_testkit import enrol

pytestmark = pytest.mark.anyio

REDIRECT = "http://127.0.0.1:51239/callback"
BOUND_S = 60


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _script(url: str, browser: ConsentBrowser) -> tuple[int, list[Any]]:
    """The SDK script at ``url``: the listing's page count and the twenty calls' results."""
    results: list[Any] = []
    with anyio.fail_after(BOUND_S):
        async with sdk_session(
            url, browser, client_name="sdk-script", redirect=REDIRECT, bound_s=BOUND_S
        ) as session:
            await session.initialize()
            page = await session.list_tools()
            pages = 1
            while page.next_cursor is not None and pages < 50:  # bounded
                page = await session.list_tools(
                    params=PaginatedRequestParams(cursor=page.next_cursor)
                )
                pages += 1
            accounts = await session.call_tool("get_accounts", {})
            results.append(accounts)
            rows = accounts.structured_content["data"]["accounts"]
            account = next(row for row in rows if row["agentic_allowed"])["account_number"]
            mine = {"account_number": account}
            cycle: list[tuple[str, dict[str, Any]]] = [
                ("gate_how", {}),
                ("get_equity_orders", mine),
                ("gate_record", {}),
                ("get_equity_quotes", {"symbols": ["SPY"]}),
            ]
            for n in range(18):
                result = await session.call_tool(*cycle[n % len(cycle)])
                results.append(result)
            order = {**mine, "symbol": "SPY", "side": "buy", "type": "market"}
            results.append(
                await session.call_tool("place_equity_order", {**order, "dollar_amount": "25"})
            )
    return pages, results


@pytest.mark.req("clients.real.python-sdk-pace")
async def test_the_sdks_script_of_a_listing_and_twenty_calls_is_never_rate_limited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = sandbox_gateway(tmp_path, monkeypatch)
    codes = enrol(tmp_path / "home")
    browser = ConsentBrowser(profile="trader", owner_code=codes.next)
    with server as url:
        pages, results = await _script(url, browser)
    assert pages >= 1
    assert len(results) == 20
    failed = [r.structured_content for r in results if r.is_error]
    assert failed == []
