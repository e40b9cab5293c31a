"""A venue with an equity desk over a market whose quotes the test scripts, and tool helpers.

The scripted market uses the real NYSE calendar; only prices and sizes are set by the test,
so fills, partial fills and stop triggers happen exactly where a test says they should.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from sandbox_testkit import ToolFailed, ToolHarness, tool_table

from ordergate.core import SteppedClock
from ordergate.sandbox.engine import ENGINE_TOOLS
from ordergate.sandbox.tools import accounts as accounts_tools
from ordergate.sandbox.tools import equity as equity_tools
from ordergate.sandbox.tools import equity_pnl as pnl_tools
from ordergate.sandbox.venue import Venue, stable_uuid
from ordergate.sandbox.venue._equity import EquityDesk
from ordergate.sandbox.venue._equity_market import EquityListing, EquityQuote
from ordergate.sandbox.venue._observed_prices import ObservedPrices

__all__ = ["START", "TOOLS", "Harness", "ScriptedMarket", "ToolFailed", "build_harness"]

# Tuesday 2026-12-01, 10:00 in New York: a regular session.
START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
TOOLS = ENGINE_TOOLS
assert accounts_tools and equity_tools and pnl_tools  # imported for their registrations


def _listing(
    symbol: str, *, tradeable: bool = True, fractional: bool = True, all_day: bool = True
) -> EquityListing:
    return EquityListing(
        symbol=symbol,
        instrument_id=stable_uuid("equity", symbol),
        name=f"{symbol} Inc. Common Stock",
        simple_name=symbol,
        tradeable=tradeable,
        fractional=fractional,
        all_day=all_day,
    )


@dataclass
class ScriptedMarket:
    """Quotes hold from the instant they are set until the next one is set: the desk reads
    them through ``prices``, the venue's own ``ObservedPrices`` kept without an age limit."""

    clock: SteppedClock
    prices: ObservedPrices
    first_last: dict[str, Decimal] = field(default_factory=dict)

    def list(
        self, symbol: str, *, tradeable: bool = True, fractional: bool = True, all_day: bool = True
    ) -> None:
        self.prices.list(
            _listing(symbol, tradeable=tradeable, fractional=fractional, all_day=all_day)
        )

    def set(
        self,
        symbol: str,
        bid: str,
        ask: str,
        *,
        last: str | None = None,
        size: int = 10_000,
        at: datetime | None = None,
    ) -> None:
        if self.prices.listing(symbol) is None:
            self.list(symbol)
        bid_d, ask_d = Decimal(bid), Decimal(ask)
        last_d = Decimal(last) if last is not None else (bid_d + ask_d) / 2
        instant = at or self.clock.now()
        self.prices.observe(
            EquityQuote(
                symbol=symbol,
                bid=bid_d,
                ask=ask_d,
                last=last_d,
                bid_size=Decimal(size),
                ask_size=Decimal(size),
                previous_close=self.first_last.setdefault(symbol, last_d),
                previous_close_date=date(2026, 11, 30),
                at=instant,
                last_trade_at=instant,
            )
        )


@dataclass
class Harness(ToolHarness):
    market: ScriptedMarket
    desk: EquityDesk

    def order_args(self, **args: Any) -> dict[str, Any]:
        base: dict[str, Any] = {"account_number": self.agentic.account_number}
        base.update(args)
        return base

    def place(self, **args: Any) -> dict[str, Any]:
        data = self.call("place_equity_order", **self.order_args(**args))
        order: dict[str, Any] = data["order"]
        return order

    def order(self, order_id: str) -> dict[str, Any]:
        orders = self.call(
            "get_equity_orders", account_number=self.agentic.account_number, order_id=order_id
        )["orders"]
        assert len(orders) == 1
        found: dict[str, Any] = orders[0]
        return found


def build_harness(
    *,
    seed: int = 1,
    start: datetime = START,
    cash: Decimal = Decimal("100000.00"),
    approval_required: bool = False,
) -> Harness:
    clock = SteppedClock(start=start)
    venue = Venue(seed=seed, clock=clock, cash=cash, approval_required=approval_required)
    market = ScriptedMarket(clock, ObservedPrices(calendar=venue.market.calendar, max_age=None))
    market.set("AAPL", "199.99", "200.01", last="200.00")
    market.set("MSFT", "399.98", "400.02", last="400.00")
    market.list("HALT", tradeable=False)
    market.set("HALT", "1.00", "1.02", last="1.01")
    market.list("BRK.A", fractional=False, all_day=False)
    market.set("BRK.A", "700000.00", "700100.00", last="700050.00")
    desk = EquityDesk(venue, market=market.prices)
    venue.add_desk(desk)
    table = tool_table(TOOLS)
    return Harness(clock=clock, venue=venue, table=table, market=market, desk=desk)
