"""``ordergate bench gateway``'s option orders: the contracts it picks from the chain it reads
(every page of it) and the prices that keep each order resting."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from ordergate.bench._option_orders import option_orders

EXPIRY = "2026-12-04"
STRIKES = [Decimal(strike) for strike in range(670, 696)]  # 26 strikes: two pages of 20
SPOT = Decimal("682.61")
PAGE = 20


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _id(kind: str, strike: Decimal) -> str:
    return f"{kind}-{strike}"


def _quote(option_id: str) -> dict[str, str]:
    """A call's bid falls and a put's rises with the strike, by 0.50 a strike; each ask is
    its bid plus a hundredth for each of the strike's residue mod 5 (spreads that differ, so
    the condor's mid credit is not a whole cent)."""
    kind, strike = option_id.split("-")
    at = Decimal(strike)
    bid = (700 - at) / 2 if kind == "call" else (at - 660) / 2
    ask = bid + at % 5 / 100
    return {"instrument_id": option_id, "bid_price": str(bid), "ask_price": str(ask)}


class Chain:
    """A venue's read tools over one SPY expiry, ``get_option_instruments`` in pages, the
    calls listed out of strike order; what was asked is kept."""

    def __init__(self, strikes: list[Decimal]) -> None:
        self.strikes = strikes
        self.asked: list[tuple[str, dict[str, Any]]] = []

    async def read(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.asked.append((tool, arguments))
        if tool == "get_option_chains":
            return {"chains": [{"symbol": "SPY", "expiration_dates": [EXPIRY, "2026-12-11"]}]}
        if tool == "get_equity_quotes":
            return {"results": [{"quote": {"last_trade_price": str(SPOT)}}]}
        if tool == "get_option_quotes":
            return {"results": [{"quote": _quote(i)} for i in arguments["instrument_ids"]]}
        assert tool == "get_option_instruments"
        assert arguments["expiration_dates"] == EXPIRY
        kind = arguments["type"]
        strikes = self.strikes[::-1] if kind == "call" else self.strikes
        listed = [
            {"id": _id(kind, strike), "strike_price": f"{strike}.0000", "type": kind}
            for strike in strikes
        ]
        start = int(arguments.get("cursor", 0))
        page: dict[str, Any] = {"instruments": listed[start : start + PAGE]}
        if start + PAGE < len(listed):
            page["next"] = str(start + PAGE)
        return page


@pytest.mark.anyio
async def test_the_single_leg_buys_the_call_nearest_the_money_under_its_bid() -> None:
    chain = Chain(STRIKES)
    orders = await option_orders(chain.read, "5001", Decimal("0.95"))
    assert orders.single == {
        "account_number": "5001",
        "legs": [
            {
                "option_id": "call-683",
                "side": "buy",
                "position_effect": "open",
                "ratio_quantity": 1,
            }
        ],
        "quantity": "1",
        "type": "limit",
        "price": "8.07",  # its bid 8.5 x 0.95 = 8.075, rounded down
        "direction": "debit",
        "time_in_force": "gfd",
    }
    # Both kinds were read to their last page.
    pages = [a for tool, a in chain.asked if tool == "get_option_instruments"]
    assert [(a["type"], a.get("cursor")) for a in pages] == [
        ("call", None),
        ("call", "20"),
        ("put", None),
        ("put", "20"),
    ]


@pytest.mark.anyio
async def test_the_condor_sells_the_strikes_next_to_the_money_for_its_mid_credit() -> None:
    orders = await option_orders(Chain(STRIKES).read, "5001", Decimal("0.95"))
    condor = orders.condor
    assert [(leg["option_id"], leg["side"]) for leg in condor["legs"]] == [
        ("put-681", "buy"),
        ("put-682", "sell"),
        ("call-684", "sell"),
        ("call-685", "buy"),
    ]
    assert all(leg["position_effect"] == "open" for leg in condor["legs"])
    # Mids: the puts 681 bought 10.505 and 682 sold 11.01, the calls 684 sold 8.02 and 685
    # bought 7.50; a credit of 1.025 asked as 1.03, over the natural 0.99 (sold at the bid,
    # bought at the ask): it rests.
    assert condor["direction"] == "credit"
    assert condor["price"] == "1.03"
    assert condor["quantity"] == "1" and condor["type"] == "limit"


@pytest.mark.anyio
async def test_a_chain_without_two_strikes_each_side_is_named() -> None:
    with pytest.raises(RuntimeError, match="no two strikes each side of 683"):
        await option_orders(Chain(STRIKES[10:15]).read, "5001", Decimal("0.95"))
