"""The price collar through the gateway: a limit price outside ``price_collar_bps`` of the
quote's mid is refused ``price_collar`` before anything is sent, naming the price, the quote
and the collar; one just inside is filed. (The one-cent boundary at both stages is pinned at
the guard, ``tests/execution/test_guard_limit_collar.py``.)"""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal
from pathlib import Path
from typing import Any

import pytest
from mcp_gateway_kit import Gateway, gateway

pytestmark = pytest.mark.anyio

CENT = Decimal("0.01")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _limit_buy(gw: Gateway, price: Decimal) -> dict[str, Any]:
    return {
        "account_number": gw.account,
        "symbol": "SPY",
        "side": "buy",
        "type": "limit",
        "quantity": "0.01",
        "limit_price": str(price),
        "time_in_force": "gtc",
    }


@pytest.mark.req("wall.limit-collar")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_a_limit_outside_the_collar_is_refused_through_the_gateway_naming_its_numbers(
    tmp_path: Path, live: bool
) -> None:
    async with gateway(tmp_path, live=live) as gw:
        quote = gw.venue.data("get_equity_quotes", {"symbols": ["SPY"]})["results"][0]["quote"]
        mid = (Decimal(quote["bid_price"]) + Decimal(quote["ask_price"])) / 2
        # The gateway's test policy collars at 1,000 bps: 20 % under the mid is outside it.
        far = (mid * Decimal("0.8")).quantize(CENT, ROUND_FLOOR)
        refused = await gw.call("place_equity_order", _limit_buy(gw, far))
        near = await gw.call("place_equity_order", _limit_buy(gw, mid.quantize(CENT)))
    data = refused["structuredContent"]["data"]
    assert refused["isError"] is True and data["status"] == "refused"
    assert data["reasons"] == ["price_collar"]
    assert f"price_collar: the order's price ${far} against the quote (bid $" in data["message"]
    assert "(limits.price_collar_bps = 1000)" in data["message"]
    assert near["structuredContent"]["data"]["status"] != "refused", near
    assert data.get("order_id") is None  # nothing of the refused order reached a venue
