"""The cooldown after a breaker through the gateway, over real sockets, on paper and with
the venue as the broker: the agent's buy is refused ``cooldown`` naming until when, to the
second."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from mcp_gateway_kit import Gateway, gateway, policy

from ordergate.ledger import FilingStatus

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _buy(gw: Gateway, quantity: str) -> dict[str, Any]:
    arguments = {
        "account_number": gw.account,
        "symbol": "SPY",
        "side": "buy",
        "type": "market",
        "quantity": quantity,
    }
    data: dict[str, Any] = (await gw.call("place_equity_order", arguments))["structuredContent"][
        "data"
    ]
    return data


@pytest.mark.req("wall.cooldown")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_the_gateway_refuses_buys_cooldown_after_a_breaker_until_the_second_it_ends(
    tmp_path: Path, live: bool
) -> None:
    config = replace(policy(), cooldown_minutes=30)
    async with gateway(tmp_path, config=config, live=live) as gw:
        gw.ledger.controls.set_high_water_mark(Decimal(10) ** 9, account=gw.account)
        tripped_at = gw.clock.now()
        tripped = await _buy(gw, "0.1")
        assert "drawdown_halt" in tripped["reasons"]
        gw.ledger.controls.set_high_water_mark(Decimal(1), account=gw.account)
        gw.clock.advance(timedelta(minutes=30) - timedelta(seconds=1))
        cooling = await _buy(gw, "0.11")
        assert cooling["status"] == "refused" and cooling["reasons"] == ["cooldown"]
        until = (tripped_at + timedelta(minutes=30)).isoformat().replace("+00:00", "Z")
        assert f"buys are refused until {until}" in cooling["message"]
        gw.clock.advance(timedelta(seconds=1))
        after = await _buy(gw, "0.12")
        assert after["status"] != "refused", after


@pytest.mark.req("wall.cooldown")
async def test_the_gateway_refuses_buys_cooldown_after_a_streak_of_the_agents_losses(
    tmp_path: Path,
) -> None:
    config = replace(policy(), cooldown_minutes=30, loss_streak=2, loss_window_minutes=60)
    async with gateway(tmp_path, config=config) as gw:
        for step in range(2):  # on paper: bought at the ask, sold at the bid
            bought = await _buy(gw, f"0.{step + 1}")
            assert bought["status"] == "submitted", bought
            await gw.settle()
            assert gw.ledger.filing(bought["filing_id"]).status is FilingStatus.FILLED
            sold = await gw.call(
                "place_equity_order",
                {
                    "account_number": gw.account,
                    "symbol": "SPY",
                    "side": "sell",
                    "type": "market",
                    "quantity": f"0.{step + 1}",
                },
            )
            data = sold["structuredContent"]["data"]
            assert data["status"] == "submitted", sold
            await gw.settle()
            assert gw.ledger.filing(data["filing_id"]).status is FilingStatus.FILLED
        cooling = await _buy(gw, "0.3")
        assert cooling["reasons"] == ["cooldown"]
        assert "2 of your closed trades lost" in cooling["message"]
