"""The seeded sandbox venue and the engine on observed prices, stepped together.

Every call runs first on the seeded venue (whose equity and crypto desks read the seeded market
through a ``Recorder`` and a ``CryptoRecorder``), then on an ``EquityEngine`` whose only
prices are the quotes the recorders saw, handed to its ``ObservedPrices`` and
``ObservedCryptoPrices``; the two answers must be equal, and the seeded one is
returned. A split the seeded venue makes is announced to the engine's feed.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sandbox_testkit import tool_table
from sqlalchemy import Engine

from ordergate.core import SteppedClock
from ordergate.sandbox.engine import (
    ENGINE_TOOLS,
    EquityEngine,
    EquityListing,
    EquityQuote,
    ObservedCryptoPrices,
    ObservedPrices,
    Split,
    VenueCryptoMarket,
    VenueEquityMarket,
)
from ordergate.sandbox.market import CryptoPair, CryptoQuote
from ordergate.sandbox.venue import Venue
from ordergate.sandbox.venue._crypto import CryptoDesk
from ordergate.sandbox.venue._equity import EquityDesk

__all__ = ["PAIRS", "SEED", "START", "SYMBOLS", "CryptoRecorder", "Pair", "Recorder", "build_pair"]

START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)  # Tuesday, 10:00 in New York
SEED = 7
SYMBOLS = ("SPY", "AAPL")
PAIRS = ("BTC-USD", "ETH-USD")
_books = itertools.count()


class Recorder:
    """The seeded market as the equity desk reads it, keeping every quote it answers."""

    def __init__(self, market: VenueEquityMarket) -> None:
        self._market = market
        self.seen: list[EquityQuote] = []

    @property
    def calendar(self) -> Any:
        return self._market.calendar

    def listing(self, symbol: str) -> EquityListing | None:
        return self._market.listing(symbol)

    def quote(self, symbol: str, at: datetime) -> EquityQuote:
        quote = self._market.quote(symbol, at)
        self.seen.append(quote)
        return quote

    def splits(self) -> Sequence[Split]:
        return self._market.splits()

    def split(self, symbol: str, ratio: Decimal, at: datetime) -> None:
        self._market.split(symbol, ratio, at)


class CryptoRecorder:
    """The seeded market as the crypto desk reads it, keeping every quote it answers."""

    def __init__(self, market: VenueCryptoMarket) -> None:
        self._market = market
        self.seen: list[CryptoQuote] = []

    def pair(self, symbol: str) -> CryptoPair | None:
        return self._market.pair(symbol)

    def pairs(self) -> tuple[CryptoPair, ...]:
        return self._market.pairs()

    def quote(self, symbol: str, at: datetime) -> CryptoQuote:
        quote = self._market.quote(symbol, at)
        self.seen.append(quote)
        return quote


@dataclass
class Pair:
    """The seeded venue and the engine, stepped together."""

    clock: SteppedClock
    seeded: Venue
    desk: EquityDesk
    recorder: Recorder
    prices: ObservedPrices
    engine: EquityEngine
    database: Engine
    crypto_recorder: CryptoRecorder
    crypto_prices: ObservedCryptoPrices

    def __post_init__(self) -> None:
        self.table = tool_table(ENGINE_TOOLS)
        self.account = self.seeded.accounts.agentic
        assert self.engine.account.account_number == self.account.account_number

    def _feed(self) -> None:
        for quote in self.recorder.seen:
            self.prices.observe(quote)
        self.recorder.seen.clear()
        for crypto_quote in self.crypto_recorder.seen:
            self.crypto_prices.observe(crypto_quote)
        self.crypto_recorder.seen.clear()

    def call(self, name: str, **args: Any) -> dict[str, Any]:
        """``name`` on both; the two answers must be equal. Returns the seeded one."""
        self.seeded.sync()
        expected: dict[str, Any] = self.table.call(self.seeded, name, args)
        self._feed()
        got = self.engine.call(name, args)
        assert got["structuredContent"] == expected["structuredContent"], name
        assert got["isError"] is expected["isError"], name
        assert got["content"] == []  # in process: read by its structured content alone
        return expected

    def data(self, name: str, **args: Any) -> dict[str, Any]:
        result = self.call(name, account_number=self.account.account_number, **args)
        if result["isError"]:
            return {}
        data: dict[str, Any] = result["structuredContent"]["data"]
        return data

    def held(self, symbol: str) -> Decimal:
        positions = self.data("get_equity_positions").get("positions", [])
        rows = [row for row in positions if row["symbol"] == symbol]
        return Decimal(rows[0]["shares_available_for_sells"]) if rows else Decimal(0)

    def bid(self, symbol: str) -> Decimal:
        self.seeded.sync()
        quote = self.recorder.quote(symbol, self.clock.now())
        return quote.bid

    def compare_everything(self) -> None:
        page = self.data("get_equity_orders")
        for _ in range(50):
            if not page.get("next"):
                break
            page = self.data("get_equity_orders", cursor=page["next"])
        for symbol in SYMBOLS:
            self.data("get_equity_tax_lots", symbol=symbol)
        self.data("get_equity_positions")
        self.data("get_portfolio")
        rhs = self.account.rhs_account_number
        self.call("get_realized_pnl", account_number=rhs)
        self.call("get_pnl_trade_history", account_number=rhs)
        self.call("get_crypto_orders", rhs_account_number=rhs)
        self.call("get_crypto_positions", rhs_account_number=rhs)

    def restart(self) -> None:
        """The engine's process ends; a new one opens the book from what it committed."""
        self.engine = EquityEngine(
            self.database,
            book=self.engine.book,
            prices=self.prices,
            crypto_prices=self.crypto_prices,
            clock=self.clock,
            seed=self.seeded.seed,
        )

    def split(self, symbol: str, ratio: Decimal) -> int | None:
        """A split on the seeded venue now, announced to the engine's feed: the lots it
        re-based, or ``None`` when the venue refused it (an order in the symbol is open)."""
        try:
            rebased = self.desk.split(symbol, ratio)
        except ValueError:
            return None
        self.prices.split(symbol, ratio, self.clock.now())
        return rebased


def build_pair(database: Engine, *, seed: int = SEED, start: datetime = START) -> Pair:
    """The seeded venue on ``seed`` and an engine on a new book of ``database``, at ``start``."""
    clock = SteppedClock(start=start)
    seeded = Venue(seed=seed, clock=clock)
    recorder = Recorder(VenueEquityMarket(seeded.market))
    desk = EquityDesk(seeded, market=recorder)
    seeded.add_desk(desk)
    crypto_recorder = CryptoRecorder(VenueCryptoMarket(seeded.market))
    seeded.add_desk(CryptoDesk(seeded, market=crypto_recorder))
    crypto_prices = ObservedCryptoPrices(max_age=None)
    for symbol in PAIRS:
        found = crypto_recorder.pair(symbol)
        assert found is not None
        crypto_prices.list(found)
    prices = ObservedPrices(calendar=seeded.market.calendar, max_age=None)
    for symbol in SYMBOLS:
        listing = recorder.listing(symbol)
        assert listing is not None
        prices.list(listing)
    engine = EquityEngine(
        database,
        book=f"differential-{next(_books)}",
        prices=prices,
        crypto_prices=crypto_prices,
        clock=clock,
        seed=seed,
    )
    return Pair(
        clock, seeded, desk, recorder, prices, engine, database, crypto_recorder, crypto_prices
    )
