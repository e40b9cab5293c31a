"""The venue's rules as paper trading must follow them, each pinned on the seeded venue and
on the engine fed observed prices (paper's venue; every answer checked against the seeded
venue's for the same call).

Every expected figure is worked out here from the executions the venue reports (independent
arithmetic), never read back from the figure under test: average cost and cost basis from
the open lots (first in, first out), unrealised P&L as marks minus open-lot cost, a ``gfd``
order cancelled at the close, a split re-basing the lots, market orders refused outside
regular hours, sub-cent dollar amounts refused, cash kept and shown in whole cents, and a
cancel answering the captured output schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from engine_pair_testkit import Pair, build_pair
from equity_testkit import TOOLS
from sandbox_testkit import ToolFailed, ToolHarness, tool_table

from ordergate.core import SteppedClock
from ordergate.sandbox.venue import Account, Venue, build_desks, split_shares
from ordergate.store import engine_for, migrate, normalise_url

# Tuesday 2026-12-01, 10:00 in New York.
START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
CASH = Decimal("100000.00")
CENT = Decimal("0.01")


class Rules:
    """What the rule tests do, whichever venue answers (``call`` and the clock differ)."""

    @property
    def agentic(self) -> Account:
        raise NotImplementedError

    def call(self, name: str, **args: Any) -> dict[str, Any]:
        raise NotImplementedError

    def args(self, **args: Any) -> dict[str, Any]:
        return {"account_number": self.agentic.account_number, **args}

    def place(self, **args: Any) -> dict[str, Any]:
        order: dict[str, Any] = self.call("place_equity_order", **self.args(**args))["order"]
        return order

    def order(self, order_id: str) -> dict[str, Any]:
        [order] = self.call("get_equity_orders", **self.args(order_id=order_id))["orders"]
        return dict(order)

    def filled(self, **args: Any) -> dict[str, Any]:
        placed = self.place(**args)
        self.advance(5)
        order = self.order(placed["id"])
        assert order["state"] == "filled", order
        return order

    def positions(self) -> dict[str, dict[str, Any]]:
        rows = self.call("get_equity_positions", **self.args())["positions"]
        return {row["symbol"]: row for row in rows}

    def advance(self, seconds: int = 0, **delta: int) -> None:
        raise NotImplementedError


@dataclass
class Seeded(ToolHarness, Rules):
    """The seeded sandbox venue alone."""

    def split(self, symbol: str, ratio: Decimal) -> int | None:
        return split_shares(self.venue, symbol, ratio)

    def cash(self) -> Decimal:
        return self.agentic.cash


class Paper(Rules):
    """The engine on observed prices (paper's venue), each answer checked against the
    seeded venue's for the same call."""

    def __init__(self, pair: Pair) -> None:
        self.pair = pair

    @property
    def agentic(self) -> Account:
        return self.pair.account

    def _result(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        return self.pair.call(name, **args)["structuredContent"]

    def call(self, name: str, **args: Any) -> dict[str, Any]:
        result = self._result(name, args)
        if "error" in result:
            raise ToolFailed(result)
        data: dict[str, Any] = result["data"]
        return data

    def error(self, name: str, **args: Any) -> dict[str, Any]:
        error: dict[str, Any] = self._result(name, args)["error"]
        return error

    def advance(self, seconds: int = 0, **delta: int) -> None:
        self.pair.clock.advance(timedelta(seconds=seconds, **delta))

    def set_time(self, instant: datetime) -> None:
        self.pair.clock.set(instant)

    def split(self, symbol: str, ratio: Decimal) -> int | None:
        return self.pair.split(symbol, ratio)

    def cash(self) -> Decimal:
        self.call("get_portfolio", **self.args())
        assert self.pair.engine.account.cash == self.agentic.cash
        return self.agentic.cash


Venues = Seeded | Paper


@pytest.fixture(params=["seeded", "paper"])
def h(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Venues]:
    clock = SteppedClock(start=START)
    if request.param == "seeded":
        venue = Venue(seed=11, clock=clock, cash=CASH)
        build_desks(venue)
        yield Seeded(clock=clock, venue=venue, table=tool_table(TOOLS))
        return
    database = engine_for(normalise_url(f"sqlite:///{tmp_path / 'ledger.db'}"))
    migrate(database)
    try:
        yield Paper(build_pair(database, seed=11, start=START))
    finally:
        database.dispose()


def _executions(order: dict[str, Any]) -> list[tuple[Decimal, Decimal]]:
    return [(Decimal(e["quantity"]), Decimal(e["price"])) for e in order["executions"]]


def _fifo_open_lots(
    buys: list[tuple[Decimal, Decimal]], sold: Decimal
) -> list[tuple[Decimal, Decimal]]:
    """The lots left after selling ``sold`` shares oldest first (independent arithmetic)."""
    left: list[tuple[Decimal, Decimal]] = []
    for quantity, price in buys:
        take = min(quantity, sold)
        sold -= take
        if quantity - take > 0:
            left.append((quantity - take, price))
    return left


def test_average_cost_and_cost_basis_after_a_partial_sell_come_from_the_open_lots(
    h: Venues,
) -> None:
    first = h.filled(symbol="SPY", side="buy", type="market", quantity="10")
    h.advance(minutes=30)
    second = h.filled(symbol="SPY", side="buy", type="market", quantity="5")
    h.advance(minutes=30)
    h.filled(symbol="SPY", side="sell", type="market", quantity="12")
    lots = _fifo_open_lots(_executions(first) + _executions(second), Decimal(12))
    shares = sum((q for q, _ in lots), Decimal(0))
    cost = sum((q * p for q, p in lots), Decimal(0))
    position = h.positions()["SPY"]
    assert Decimal(position["quantity"]) == shares == 3
    assert Decimal(position["cost_basis"]) == cost.quantize(CENT)
    assert Decimal(position["average_buy_price"]) == (cost / shares).quantize(Decimal("0.0001"))
    last = Decimal(position["last_trade_price"])
    # Unrealised P&L is the marks against the open lots' cost: the realised part of the
    # sale is in get_realized_pnl, never counted here again.
    assert Decimal(position["unrealized_pnl"]) == (shares * last - cost).quantize(CENT)


def test_realised_plus_unrealised_pnl_is_the_account_s_whole_gain_counted_once(h: Venues) -> None:
    h.filled(symbol="SPY", side="buy", type="market", quantity="10")
    h.advance(minutes=45)
    h.filled(symbol="SPY", side="buy", type="market", quantity="4")
    h.advance(minutes=45)
    h.filled(symbol="SPY", side="sell", type="market", quantity="7")
    h.advance(minutes=45)
    portfolio = h.call("get_portfolio", **h.args())
    realised = h.call("get_realized_pnl", account_number=h.agentic.rhs_account_number)
    unrealised = Decimal(h.positions()["SPY"]["unrealized_pnl"])
    whole = Decimal(portfolio["total_value"]) - CASH
    assert Decimal(realised["total_realized_pnl"]) + unrealised == whole


def test_a_gfd_limit_order_expires_at_the_close(h: Venues) -> None:
    quote = h.call("review_equity_order", **h.args(symbol="SPY", side="buy", type="market",
                                                   quantity="1"))["quote_data"]  # fmt: skip
    limit = (Decimal(quote["bid_price"]) * Decimal("0.5")).quantize(CENT)
    placed = h.place(symbol="SPY", side="buy", type="limit", limit_price=str(limit), quantity="1")
    assert placed["time_in_force"] == "gfd"
    h.set_time(datetime(2026, 12, 2, 15, 0, tzinfo=UTC))
    order = h.order(placed["id"])
    assert order["state"] == "cancelled"
    # 16:00 in New York, the regular close of the day it was placed.
    assert order["last_transaction_at"] == "2026-12-01T21:00:00.000000Z"
    assert Decimal(h.call("get_portfolio", **h.args())["cash"]) == CASH


def test_a_split_moves_prices_and_every_lot_without_phantom_pnl(h: Venues) -> None:
    bought = h.filled(symbol="SPY", side="buy", type="market", quantity="10")
    [(_, price)] = _executions(bought)
    before = h.positions()["SPY"]
    assert h.split("SPY", Decimal(2)) == 1
    after = h.positions()["SPY"]
    assert Decimal(after["quantity"]) == 20
    assert Decimal(after["cost_basis"]) == Decimal(before["cost_basis"]) == (10 * price)
    assert Decimal(after["average_buy_price"]) == (price / 2).quantize(Decimal("0.0001"))
    last_before = Decimal(before["last_trade_price"])
    last_after = Decimal(after["last_trade_price"])
    # The price halves at the split (to the market's tick), the shares double: the value
    # and the unrealised P&L move by the rounding of the halved price at most.
    assert abs(last_after * 2 - last_before) <= CENT
    drift = abs(Decimal(after["unrealized_pnl"]) - Decimal(before["unrealized_pnl"]))
    assert drift <= 20 * CENT / 2 + CENT


def test_a_market_order_in_extended_hours_is_refused(h: Venues) -> None:
    error = h.error(
        "place_equity_order",
        **h.args(symbol="SPY", side="buy", type="market", quantity="1",
                 market_hours="extended_hours"),
    )  # fmt: skip
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "market_hours")


def test_a_market_order_placed_after_the_close_waits_for_the_next_regular_open(h: Venues) -> None:
    h.set_time(datetime(2026, 12, 1, 22, 0, tzinfo=UTC))  # 17:00 in New York
    placed = h.place(symbol="SPY", side="buy", type="market", quantity="1")
    h.advance(minutes=60)
    assert h.order(placed["id"])["state"] == "queued"
    h.set_time(datetime(2026, 12, 2, 14, 31, tzinfo=UTC))  # 09:31 the next morning
    order = h.order(placed["id"])
    assert order["state"] == "filled"
    assert order["executions"][0]["timestamp"] >= "2026-12-02T14:30:01"


def test_a_sub_cent_dollar_amount_is_refused(h: Venues) -> None:
    error = h.error(
        "place_equity_order",
        **h.args(symbol="SPY", side="buy", type="market", dollar_amount="25.005"),
    )
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "dollar_amount")


def test_cash_is_kept_and_shown_in_whole_cents(h: Venues) -> None:
    bought = h.filled(symbol="SPY", side="buy", type="market", dollar_amount="33.33")
    h.advance(minutes=10)
    sold = h.filled(symbol="SPY", side="sell", type="market", quantity="0.01")
    spent = sum((cents(q * p) for q, p in _executions(bought)), Decimal(0))
    got = sum((cents(q * p) for q, p in _executions(sold)), Decimal(0)) - Decimal(sold["fees"])
    expected = CASH - spent + got
    portfolio = h.call("get_portfolio", **h.args())
    assert portfolio["cash"] == str(expected)
    assert h.cash() == expected  # kept exactly as shown: nothing below the cent
    assert Decimal(portfolio["buying_power"]["buying_power"]) == expected


def test_a_cancel_answers_the_captured_output_schema(h: Venues) -> None:
    placed = h.place(symbol="SPY", side="buy", type="limit", limit_price="1.00", quantity="1")
    # ToolHarness validates every answer against the captured output schema.
    assert h.call("cancel_equity_order", **h.args(order_id=placed["id"])) == {"accepted": True}
    assert h.order(placed["id"])["state"] == "cancelled"


def cents(value: Decimal) -> Decimal:
    return value.quantize(CENT)
