"""``size_vs_adv`` through the gateway, over real sockets: an order's quantity against
``max_adv_pct`` of the symbol's average daily volume (the venue's day bars), on paper and
with the venue as the broker; the refusal names its code and numbers."""

from __future__ import annotations

from dataclasses import replace
from decimal import ROUND_DOWN, Decimal
from pathlib import Path
from typing import Any

import pytest
from mcp_gateway_kit import Gateway, gateway, policy

from ordergate.venues.robinhood import MarketVolumes

pytestmark = pytest.mark.anyio

PCT = "0.00001"
STEP = Decimal("0.000001")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _order(gw: Gateway, quantity: Decimal) -> dict[str, Any]:
    arguments = {
        "account_number": gw.account,
        "symbol": "SPY",
        "side": "buy",
        "type": "market",
        "quantity": str(quantity),
    }
    result = await gw.call("place_equity_order", arguments)
    data: dict[str, Any] = result["structuredContent"]["data"]
    return data


@pytest.mark.req("wall.size-vs-adv")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_the_gateway_refuses_an_order_past_max_adv_pct_naming_the_cap_and_volume(
    tmp_path: Path, live: bool
) -> None:
    config = replace(policy(), max_adv_pct=Decimal(PCT))
    async with gateway(tmp_path, config=config, live=live) as gw:
        adv = await MarketVolumes(gw.backend.rh.market, clock=gw.clock).average_daily_volume("SPY")
        assert adv is not None
        cap = adv * Decimal(PCT) / 100
        at_cap = cap.quantize(STEP, rounding=ROUND_DOWN)
        accepted = await _order(gw, at_cap)
        assert accepted["status"] != "refused", accepted
        over = await _order(gw, at_cap + STEP)
        assert over["status"] == "refused" and over["reasons"] == ["size_vs_adv"]
        assert f"above {cap} shares" in over["message"]
        assert f"average daily volume of {adv} shares" in over["message"]
