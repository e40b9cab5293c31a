"""A quote older than ``max_quote_age_s`` through the gateway: the venue's feed held behind
its clock (the sandbox's ``quote_lag_s`` fault), an order on a quote exactly as old as the
policy allows is filed, and one on a quote a second older is refused ``stale_quote`` at stage
A, naming the age and the cap, with nothing sent — on paper and live."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp_gateway_kit import Gateway, gateway

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
        gw.venue.faults(quote_lag_s={"SPY": max_age + 1})
        refused = await gw.call("place_equity_order", _buy(gw))
        gw.venue.step(1)
        gw.venue.faults(quote_lag_s={"SPY": max_age})
        at_the_cap = await gw.call("place_equity_order", _buy(gw))
        placed = gw.venue.data("get_equity_orders", {"account_number": gw.account})["orders"]
        filings = gw.filings()
    data = refused["structuredContent"]["data"]
    assert refused["isError"] is True and data["status"] == "refused"
    assert data["reasons"] == ["stale_quote"] and data.get("order_id") is None
    assert f"stale_quote: the quote is {max_age + 1} s old" in data["message"]
    assert f"(limits.max_quote_age_s = {max_age})" in data["message"]
    accepted = at_the_cap["structuredContent"]["data"]
    assert accepted["status"] != "refused", accepted
    assert [f.reasons for f in filings] == [(), ("stale_quote",)]
    assert [f.accepted for f in filings] == [True, False]
    # Live, the venue holds the one accepted order and nothing of the refused one.
    assert len(placed) == (1 if live else 0)
