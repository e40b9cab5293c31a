"""A process that places orders on one engine book: ``python -m engine_process_testkit URL
BOOK COUNT [crypto]`` places COUNT market buys of one SPY share (``crypto``: of 0.01 BTC) at a
fixed instant and prints their ids, one a line."""

from __future__ import annotations

import sys
from datetime import UTC, date, datetime
from decimal import Decimal

from ordergate.core import SteppedClock
from ordergate.sandbox.engine import (
    EquityEngine,
    EquityListing,
    EquityQuote,
    ObservedCryptoPrices,
    ObservedPrices,
)
from ordergate.sandbox.market import CryptoQuote, Universe
from ordergate.sandbox.venue import stable_uuid
from ordergate.store import engine_for, normalise_url

__all__ = ["START", "btc_prices", "main", "spy_listing", "spy_quote"]

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


def btc_prices(at: datetime, mark: str = "50000.00") -> ObservedCryptoPrices:
    """A crypto feed listing BTC-USD with one quote at ``at`` (bid and ask 50 cents away)."""
    pair = Universe.default().crypto_pair("BTC-USD")
    price = Decimal(mark)
    prices = ObservedCryptoPrices()
    prices.list(pair)
    prices.observe(
        CryptoQuote(
            symbol=pair.symbol,
            id=pair.id,
            bid_price=price - Decimal("0.50"),
            ask_price=price + Decimal("0.50"),
            mark_price=price,
            open_price=price,
            high_price=price,
            low_price=price,
            volume=Decimal(1000),
            updated_at=at,
        )
    )
    return prices


def main(url: str, book: str, count: int, crypto: bool = False) -> None:
    database = engine_for(normalise_url(url))
    prices = ObservedPrices()
    prices.list(spy_listing())
    prices.observe(spy_quote(START))
    engine = EquityEngine(
        database,
        book=book,
        prices=prices,
        crypto_prices=btc_prices(START),
        clock=SteppedClock(start=START),
    )
    account = engine.account
    for _ in range(count):
        if crypto:
            name = "place_crypto_order"
            terms = {"rhs_account_number": account.rhs_account_number, "symbol": "BTC-USD",
                     "quantity": "0.01"}  # fmt: skip
        else:
            name = "place_equity_order"
            terms = {"account_number": account.account_number, "symbol": "SPY", "quantity": "1"}
        result = engine.call(name, {**terms, "side": "buy", "type": "market"})
        print(result["structuredContent"]["data"]["order"]["id"], flush=True)
    database.dispose()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), crypto=sys.argv[4:] == ["crypto"])
