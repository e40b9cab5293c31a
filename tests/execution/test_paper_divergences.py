"""Where the old paper book departed from the venue it imitates (issue 24's first list), each
pinned through the paper venue on the venue's own engine (``PaperVenue``): its caller
answers as the venue's engine does, on the upstream's quotes (a real sandbox venue on
loopback)."""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal
from pathlib import Path
from typing import Any

import anyio
import pytest
from guard_kit import Desk, desk
from jsonschema import Draft202012Validator

from ordergate.client import BusinessError
from ordergate.inventory import load_inventory
from ordergate.venues.paper import PaperCaller, PaperVenue

pytestmark = pytest.mark.anyio
BOUND_S = 10
CENT = Decimal("0.01")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def caller_of(d: Desk) -> PaperCaller:
    assert isinstance(d.port, PaperVenue)
    return d.port.caller


async def place(d: Desk, **terms: Any) -> dict[str, Any]:
    order = {"account_number": d.account, "symbol": "SPY", "side": "buy", "type": "market"}
    with anyio.fail_after(BOUND_S):
        placed = await caller_of(d).call("place_equity_order", order | terms)
    order_placed: dict[str, Any] = placed["order"]
    return order_placed


async def read(d: Desk, tool: str, **arguments: Any) -> Any:
    with anyio.fail_after(BOUND_S):
        return await caller_of(d).call(tool, {"account_number": d.account, **arguments})


async def order_state(d: Desk, order_id: str) -> str:
    [order] = (await read(d, "get_equity_orders", order_id=order_id))["orders"]
    state: str = order["state"]
    return state


async def test_average_cost_is_the_open_lots_after_a_partial_sell(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        await place(d, quantity="2")
        d.step(5)
        d.venue.admin("shock", {"symbol": "SPY", "pct": "5"})
        d.step(5)
        await place(d, quantity="2")
        d.step(5)
        await place(d, quantity="2", side="sell")  # the oldest lot goes first
        d.step(5)
        [position] = (await read(d, "get_equity_positions"))["positions"]
        lots = (await read(d, "get_equity_tax_lots", symbol="SPY"))["tax_lots"]
    [lot] = [lot for lot in lots if Decimal(lot["quantity"]) > 0]
    assert Decimal(position["quantity"]) == 2
    assert Decimal(position["average_buy_price"]) == Decimal(lot["cost_basis_per_share"])
    assert Decimal(position["cost_basis"]) == 2 * Decimal(lot["cost_basis_per_share"])


async def test_a_gfd_limit_expires_at_the_close(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        bid = Decimal(d.quote("SPY")["bid_price"])
        below = (bid * Decimal("0.9")).quantize(CENT)
        placed = await place(
            d, type="limit", quantity="1", limit_price=str(below), time_in_force="gfd"
        )
        d.step(60)
        assert await order_state(d, placed["id"]) in ("queued", "confirmed")
        d.step(7 * 3600)  # past 16:00 in New York
        assert await order_state(d, placed["id"]) in ("cancelled", "expired")


async def test_a_split_handed_to_the_feed_moves_the_paper_book(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        await place(d, quantity="2")
        d.step(5)
        before = await read(d, "get_portfolio")
        d.venue.admin("split", {"symbol": "SPY", "ratio": "2"})  # the upstream's prices halve
        caller_of(d).split("SPY", Decimal(2), d.clock.now())
        d.step(2)
        [position] = (await read(d, "get_equity_positions"))["positions"]
        after = await read(d, "get_portfolio")
    assert Decimal(position["quantity"]) == 4
    # No phantom loss: the book's value moved with the market, not by half.
    assert abs(Decimal(after["total_value"]) - Decimal(before["total_value"])) < 50


async def test_a_market_order_in_extended_hours_is_refused(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        d.step(8 * 3600)  # 18:00 in New York: after hours
        with pytest.raises(BusinessError) as refused:
            await place(d, quantity="1", market_hours="extended_hours")
    assert refused.value.tool == "place_equity_order"


async def test_a_sub_cent_dollar_amount_is_refused(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        with pytest.raises(BusinessError) as refused:
            await place(d, dollar_amount="10.005")
    assert refused.value.field == "dollar_amount"


async def test_cash_is_never_shown_rounded_up(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        await place(d, quantity="0.123457")
        d.step(5)
        [order] = (await read(d, "get_equity_orders"))["orders"]
        portfolio = await read(d, "get_portfolio")
    [execution] = order["executions"]
    spent = Decimal(execution["quantity"]) * Decimal(execution["price"])
    exact = Decimal(100_000) - spent
    shown = Decimal(portfolio["cash"])
    assert shown <= exact
    assert shown == exact.quantize(CENT, ROUND_FLOOR) or shown == exact


async def test_a_cancel_answers_accepted_in_the_cancel_tools_output_schema(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        bid = Decimal(d.quote("SPY")["bid_price"])
        below = (bid * Decimal("0.9")).quantize(CENT)
        placed = await place(
            d, type="limit", quantity="1", limit_price=str(below), time_in_force="gtc"
        )
        with anyio.fail_after(BOUND_S):
            answer = await caller_of(d).call(
                "cancel_equity_order", {"account_number": d.account, "order_id": placed["id"]}
            )
    assert answer == {"accepted": True}
    schema = load_inventory()["cancel_equity_order"].output_schema
    assert schema is not None
    Draft202012Validator(schema).validate({"data": answer, "guide": "paper"})
