"""A quote older than ``max_quote_age_s`` through the gateway, asked by the official MCP SDK
client: the venue's feed held behind its clock (the sandbox's ``quote_lag_s`` fault), an order
on a quote exactly as old as the policy allows is filed, and one on a quote a second older is
refused ``stale_quote`` at stage A, naming the age and the cap, with nothing sent — on paper
and live."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_gateway_kit import BOUND_S, TOKEN, Gateway, gateway

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _buy(gw: Gateway) -> dict[str, Any]:
    return {
        "account_number": gw.account,
        "symbol": "SPY",
        "side": "buy",
        "type": "market",
        "quantity": "0.01",
    }


@pytest.mark.req("wall.stale-quote")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_a_quote_one_second_past_max_quote_age_is_refused_stale_quote_with_nothing_sent(
    tmp_path: Path, live: bool
) -> None:
    async with gateway(tmp_path, live=live) as gw:
        max_age = gw.guard.policy.max_quote_age_s
        with anyio.fail_after(BOUND_S):
            async with (
                httpx2.AsyncClient(
                    headers={"authorization": f"Bearer {TOKEN}"}, timeout=BOUND_S
                ) as http,
                streamable_http_client(gw.url, http_client=http) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                gw.venue.faults(quote_lag_s={"SPY": max_age + 1})
                refused = await session.call_tool("place_equity_order", _buy(gw))
                gw.venue.step(1)
                gw.venue.faults(quote_lag_s={"SPY": max_age})
                at_the_cap = await session.call_tool("place_equity_order", _buy(gw))
        placed = gw.venue.data("get_equity_orders", {"account_number": gw.account})["orders"]
        filings = gw.filings()
    assert refused.is_error is True and refused.structured_content is not None
    data = refused.structured_content["data"]
    assert data["status"] == "refused" and data["reasons"] == ["stale_quote"]
    assert data.get("order_id") is None
    assert f"stale_quote: the quote is {max_age + 1} s old" in data["message"]
    assert f"(limits.max_quote_age_s = {max_age})" in data["message"]
    assert at_the_cap.is_error is False and at_the_cap.structured_content is not None
    assert at_the_cap.structured_content["data"]["status"] != "refused"
    assert [f.reasons for f in filings] == [(), ("stale_quote",)]
    assert [f.accepted for f in filings] == [True, False]
    # Live, the venue holds the one accepted order and nothing of the refused one.
    assert len(placed) == (1 if live else 0)
