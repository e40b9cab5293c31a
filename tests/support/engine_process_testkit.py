"""A process that places orders on one engine book: ``python -m engine_process_testkit URL
BOOK COUNT`` places COUNT market buys of one SPY share at a fixed instant and prints their ids,
one a line."""

from __future__ import annotations

import sys
from datetime import UTC, date, datetime
from decimal import Decimal

from ordergate.core import SteppedClock
from ordergate.sandbox.engine import EquityEngine, EquityListing, EquityQuote, ObservedPrices
from ordergate.sandbox.venue import stable_uuid
from ordergate.store import engine_for, normalise_url

__all__ = ["START", "main", "spy_listing", "spy_quote"]

START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)  # 10:00 in New York


def spy_listing() -> EquityListing:
    return EquityListing(
        symbol="SPY", instrument_id=stable_uuid("equity", "SPY"), name="SPY", simple_name="SPY"
    )


def spy_quote(at: datetime, last: str = "600.00") -> EquityQuote:
    price = Decimal(last)
    return EquityQuote(
        symbol="SPY",
        bid=price - Decimal("0.01"),
        ask=price + Decimal("0.01"),
        last=price,
        bid_size=Decimal(1000),
        ask_size=Decimal(1000),
        previous_close=price,
        previous_close_date=date(2026, 11, 30),
        at=at,
        last_trade_at=at,
    )


def main(url: str, book: str, count: int) -> None:
    database = engine_for(normalise_url(url))
    prices = ObservedPrices()
    prices.list(spy_listing())
    prices.observe(spy_quote(START))
    engine = EquityEngine(database, book=book, prices=prices, clock=SteppedClock(start=START))
    account = engine.account.account_number
    for _ in range(count):
        result = engine.call(
            "place_equity_order",
            {"account_number": account, "symbol": "SPY", "side": "buy", "type": "market",
             "quantity": "1"},
        )  # fmt: skip
        print(result["structuredContent"]["data"]["order"]["id"], flush=True)
    database.dispose()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
