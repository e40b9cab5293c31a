"""The agent's refusal through the gateway names the code and its numbers for the checks that
count the account and weigh the quote: open orders against ``max_open_orders``, the breakers'
equity and marks, the spread against ``max_spread_bps``. (Each code's boundary is pinned on
the policy's decision, ``tests/execution/test_refusal_figures.py``; both stages at the guard,
``tests/execution/test_guard_figures.py``.)"""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal
from pathlib import Path
from typing import Any

import pytest
from mcp_gateway_kit import OPEN_POLICY, Gateway, gateway

from ordergate.policy import PolicyConfig, parse_policy

pytestmark = pytest.mark.anyio

LIVE = pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _order(gw: Gateway, symbol: str, **terms: str) -> dict[str, Any]:
    return {
        "account_number": gw.account,
        "symbol": symbol,
        "side": "buy",
        "type": "market",
        "quantity": "1",
        **terms,
    }


async def _data(gw: Gateway, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await gw.call("place_equity_order", arguments)
    data: dict[str, Any] = result["structuredContent"]["data"]
    assert result["isError"] is (data["status"] == "refused"), result
    return data


def _limit(key: str, value: int) -> PolicyConfig:
    """The gateway's test policy with ``[limits] key = value``."""
    lines = [line for line in OPEN_POLICY.splitlines() if not line.startswith(f"{key} =")]
    return parse_policy("\n".join(lines).replace("[limits]", f"[limits]\n{key} = {value}"))


@LIVE
async def test_an_order_past_max_open_orders_is_refused_naming_the_open_count_and_the_cap(
    tmp_path: Path, live: bool
) -> None:
    config = _limit("max_open_orders", 1)
    async with gateway(tmp_path, live=live, config=config) as gw:
        quote = gw.venue.data("get_equity_quotes", {"symbols": ["SPY"]})["results"][0]["quote"]
        resting = (Decimal(quote["bid_price"]) * Decimal("0.95")).quantize(
            Decimal("0.01"), ROUND_FLOOR
        )
        limit = {"type": "limit", "limit_price": str(resting), "time_in_force": "gtc"}
        first = await _data(gw, _order(gw, "SPY", **limit))
        refused = await _data(gw, _order(gw, "SPY", quantity="2"))
    assert first["status"] != "refused", first
    assert refused["reasons"] == ["max_open_orders"]
    assert (
        "max_open_orders: 1 open orders (1 filed here, 0 at the broker not filed here) "
        "(limits.max_open_orders = 1)"
    ) in refused["message"]
    assert refused.get("order_id") is None


@LIVE
async def test_a_tripped_breaker_is_refused_naming_equity_its_peak_and_the_drawdown(
    tmp_path: Path, live: bool
) -> None:
    async with gateway(tmp_path, live=live) as gw:
        first = await _data(gw, _order(gw, "SPY", quantity="0.01"))
        peak = Decimal(10) ** 9
        gw.ledger.controls.set_high_water_mark(peak, account=gw.account)
        refused = await _data(gw, _order(gw, "SPY", quantity="0.02"))
    assert first["status"] != "refused", first
    assert refused["reasons"] == ["drawdown_halt"]
    message = refused["message"]
    assert "drawdown_halt: equity $" in message
    assert f"below its high-water mark of ${peak}.00 (limits.drawdown_halt_bps" in message


@LIVE
async def test_a_quote_wider_than_max_spread_bps_is_refused_naming_bid_ask_and_spread(
    tmp_path: Path, live: bool
) -> None:
    # The venue quotes AAPL two bps wide.
    config = _limit("max_spread_bps", 1)
    async with gateway(tmp_path, live=live, config=config) as gw:
        quote = gw.venue.data("get_equity_quotes", {"symbols": ["AAPL"]})["results"][0]["quote"]
        refused = await _data(gw, _order(gw, "AAPL"))
    assert refused["reasons"] == ["spread_too_wide"]
    assert (
        f"spread_too_wide: bid ${quote['bid_price']}, ask ${quote['ask_price']}, a spread of "
    ) in refused["message"]
    assert "bps of the mid (limits.max_spread_bps = 1)" in refused["message"]
