"""A venue with equity, options and crypto desks over the seeded market, and tool helpers.

Prices come from the real seeded ``Market``; tests move them with ``market.shock`` so fills
happen exactly where a test says they should. Every successful contract-tool result is
validated against its captured output schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from sandbox_testkit import ToolFailed, ToolHarness, tool_table

from ordergate.core import SteppedClock
from ordergate.sandbox.market import OptionInstrument, OptionQuote
from ordergate.sandbox.tools import accounts as accounts_tools
from ordergate.sandbox.tools import crypto as crypto_tools
from ordergate.sandbox.tools import equity_pnl as pnl_tools
from ordergate.sandbox.tools import options as options_tools
from ordergate.sandbox.venue import Venue
from ordergate.sandbox.venue._crypto import CryptoDesk
from ordergate.sandbox.venue._crypto_market import CryptoMarket
from ordergate.sandbox.venue._equity import EquityDesk
from ordergate.sandbox.venue._option_market import OptionMarket
from ordergate.sandbox.venue._options import OptionsDesk
from ordergate.sandbox.venue._positions import TaxLot

__all__ = ["FRIDAY_CLOSE", "REF", "SATURDAY", "START", "Desks", "ToolFailed", "build", "leg"]

# Tuesday 2026-12-01, 10:00 in New York: a regular session. The first expiration listed is
# Friday 2026-12-04, which closes at 21:00 UTC.
START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
FRIDAY_CLOSE = datetime(2026, 12, 4, 21, 0, tzinfo=UTC)
# Saturday 2026-12-05, 11:00 in New York: equities and options closed, crypto trading.
SATURDAY = datetime(2026, 12, 5, 16, 0, tzinfo=UTC)
REF = "0f4b8e7c-2d1a-4c3e-9b5f-6a7d8c9e0f1a"
TOOLS = (
    "get_portfolio",
    "get_realized_pnl",
    "get_pnl_trade_history",
    "review_option_order",
    "place_option_order",
    "cancel_option_order",
    "get_option_orders",
    "get_option_positions",
    "exercise_option",
    "cancel_option_exercise",
    "preview_crypto_order",
    "place_crypto_order",
    "cancel_crypto_order",
    "get_crypto_orders",
    "get_crypto_positions",
)
assert accounts_tools and crypto_tools and pnl_tools and options_tools  # registrations


@dataclass
class Desks(ToolHarness):
    equity: EquityDesk
    options: OptionsDesk
    crypto: CryptoDesk

    @property
    def number(self) -> str:
        return self.agentic.account_number

    @property
    def rhs(self) -> str:
        return self.agentic.rhs_account_number

    # -- options -----------------------------------------------------------------------------

    def option(
        self,
        kind: str = "call",
        *,
        symbol: str = "AAPL",
        offset: int = 0,
        expiration: date | None = None,
    ) -> OptionInstrument:
        """The contract ``offset`` strikes above the one nearest the underlying's price."""
        market = self.venue.market
        chain = market.option_chain(symbol)
        day = expiration or chain.expiration_dates[0]
        contracts = market.option_instruments(symbol, expiration=day, option_type=kind)
        spot = market.quote(symbol).last_trade_price
        nearest = min(range(len(contracts)), key=lambda i: abs(contracts[i].strike_price - spot))
        return contracts[nearest + offset]

    def quote(self, option_id: str) -> OptionQuote:
        return self.venue.market.option_quote(option_id)

    def option_args(self, *legs: dict[str, Any], **args: Any) -> dict[str, Any]:
        base: dict[str, Any] = {"account_number": self.number, "legs": list(legs)}
        base.update(args)
        return base

    def place_option(self, *legs: dict[str, Any], **args: Any) -> dict[str, Any]:
        data = self.call("place_option_order", **self.option_args(*legs, **args))
        order: dict[str, Any] = data["order"]
        return order

    def option_order(self, order_id: str) -> dict[str, Any]:
        orders = self.call("get_option_orders", account_number=self.number, order_id=order_id)
        assert len(orders["orders"]) == 1
        found: dict[str, Any] = orders["orders"][0]
        return found

    def buy_to_open(self, instrument: OptionInstrument, quantity: int = 1) -> dict[str, Any]:
        """Buy at a limit above the ask and let it fill."""
        ask = self.quote(instrument.id).ask_price
        order = self.place_option(
            leg(instrument.id), quantity=str(quantity), type="limit", price=str(ask + 1)
        )
        self.advance(2)
        filled = self.option_order(order["id"])
        assert filled["state"] == "filled", filled
        return filled

    def give_shares(self, symbol: str, quantity: int, price: str = "100.00") -> None:
        listing = self.equity.listing(symbol)
        assert listing is not None
        self.equity.positions.buy(
            TaxLot(
                lot_id=f"lot-{symbol}-{quantity}",
                account_number=self.number,
                symbol=symbol,
                instrument_id=listing.instrument_id,
                quantity=Decimal(quantity),
                original_quantity=Decimal(quantity),
                price=Decimal(price),
                acquired_at=self.clock.now(),
                order_id="gift",
                execution_id="gift",
            )
        )

    # -- crypto ------------------------------------------------------------------------------

    def crypto_args(self, **args: Any) -> dict[str, Any]:
        base: dict[str, Any] = {"rhs_account_number": self.rhs}
        base.update(args)
        return base

    def place_crypto(self, **args: Any) -> dict[str, Any]:
        data = self.call("place_crypto_order", **self.crypto_args(**args))
        order: dict[str, Any] = data["order"]
        return order

    def crypto_order(self, order_id: str) -> dict[str, Any]:
        orders = self.call("get_crypto_orders", rhs_account_number=self.rhs, order_id=order_id)
        assert len(orders["orders"]) == 1
        found: dict[str, Any] = orders["orders"][0]
        return found


def leg(
    option_id: str, side: str = "buy", effect: str = "open", ratio: int | None = 1
) -> dict[str, Any]:
    item: dict[str, Any] = {"option_id": option_id, "side": side, "position_effect": effect}
    if ratio is not None:
        item["ratio_quantity"] = ratio
    return item


def build(
    *,
    seed: int = 1,
    start: datetime = START,
    cash: Decimal = Decimal("100000.00"),
    approval_required: bool = False,
    account_type: str = "cash",
    option_level: int = 2,
    crypto_market: CryptoMarket | None = None,
    option_market: OptionMarket | None = None,
) -> Desks:
    clock = SteppedClock(start=start)
    venue = Venue(
        seed=seed,
        clock=clock,
        cash=cash,
        approval_required=approval_required,
        account_type=account_type,
        option_level=option_level,
    )
    equity = EquityDesk(venue)
    options = OptionsDesk(venue, market=option_market)
    crypto = CryptoDesk(venue, market=crypto_market)
    for desk in (equity, options, crypto):
        venue.add_desk(desk)
    table = tool_table(TOOLS)
    return Desks(
        clock=clock, venue=venue, table=table, equity=equity, options=options, crypto=crypto
    )
