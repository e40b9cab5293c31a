"""The same orders on the seeded sandbox venue and on the engine fed observed prices give the
same answers, to the cent.

Hypothesis draws a sequence of steps: market buys and sells in shares and in dollars, partial
sells, limits that rest and later cross (``gfd`` and ``gtc``), extended-hours limits, orders
the venue refuses (extended-hours market orders, sub-cent dollar amounts), cancels, clock
steps of seconds, hours and across the close, 2- or 3-for-1 splits, and the engine's process
restarting (a new ``EquityEngine`` on the book, carrying on from what was committed).

Each step runs first on the seeded venue (a ``Venue`` whose equity desk reads the seeded
market through a recorder), then on an ``EquityEngine`` kept in SQLite whose only prices are
the quotes the recorder saw, handed to its ``ObservedPrices`` (the same price path, as paper
will be handed the upstream's quotes), and a split the seeded venue made is announced to the
engine's feed. After every step the two answer every read (orders with their executions,
positions with average cost and unrealised P&L, tax lots, portfolio and cash, realised P&L and
closed trades) identically, and every call in between answered identically too.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sandbox_testkit import tool_table
from sqlalchemy import Engine

from ordergate.core import SteppedClock
from ordergate.sandbox.engine import (
    ENGINE_TOOLS,
    EquityEngine,
    EquityListing,
    EquityQuote,
    ObservedPrices,
    Split,
    VenueEquityMarket,
)
from ordergate.sandbox.venue import Venue
from ordergate.sandbox.venue._equity import EquityDesk
from ordergate.store import engine_for, migrate, normalise_url

START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)  # Tuesday, 10:00 in New York
SEED = 7
SYMBOLS = ("SPY", "AAPL")
CENT = Decimal("0.01")
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

    def __post_init__(self) -> None:
        self.table = tool_table(ENGINE_TOOLS)
        self.account = self.seeded.accounts.agentic
        assert self.engine.account.account_number == self.account.account_number

    def _feed(self) -> None:
        for quote in self.recorder.seen:
            self.prices.observe(quote)
        self.recorder.seen.clear()

    def call(self, name: str, **args: Any) -> dict[str, Any]:
        """``name`` on both; the two answers must be equal. Returns the seeded one."""
        self.seeded.sync()
        expected: dict[str, Any] = self.table.call(self.seeded, name, args)
        self._feed()
        got = self.engine.call(name, args)
        assert got["structuredContent"] == expected["structuredContent"], name
        assert got == expected, name
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

    def restart(self) -> None:
        """The engine's process ends; a new one opens the book from what it committed."""
        self.engine = EquityEngine(
            self.database, book=self.engine.book, prices=self.prices, clock=self.clock, seed=SEED
        )

    def split(self, symbol: str, ratio: Decimal) -> None:
        try:
            self.desk.split(symbol, ratio)
        except ValueError:
            return  # an order in the symbol is open: the venue refuses, nothing happens
        self.prices.split(symbol, ratio, self.clock.now())


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    path: Path = tmp_path_factory.mktemp("differential") / "ledger.db"
    engine = engine_for(normalise_url(f"sqlite:///{path}"))
    migrate(engine)
    try:
        yield engine
    finally:
        engine.dispose()


def _pair(database: Engine) -> Pair:
    clock = SteppedClock(start=START)
    seeded = Venue(seed=SEED, clock=clock)
    recorder = Recorder(VenueEquityMarket(seeded.market))
    desk = EquityDesk(seeded, market=recorder)
    seeded.add_desk(desk)
    prices = ObservedPrices(calendar=seeded.market.calendar, max_age=None)
    for symbol in SYMBOLS:
        listing = recorder.listing(symbol)
        assert listing is not None
        prices.list(listing)
    engine = EquityEngine(
        database, book=f"differential-{next(_books)}", prices=prices, clock=clock, seed=SEED
    )
    return Pair(clock, seeded, desk, recorder, prices, engine, database)


# -- the steps ------------------------------------------------------------------------------

symbols = st.sampled_from(SYMBOLS)
shares = st.integers(min_value=1, max_value=12).map(str)
dollars = st.integers(min_value=100, max_value=50_000).map(lambda cents: str(cents * CENT))
fractions = st.sampled_from([Decimal("0.25"), Decimal("0.5"), Decimal("1")])
offsets = st.integers(min_value=0, max_value=40).map(lambda bps: Decimal(bps) / 10_000)

steps = st.one_of(
    st.tuples(st.just("buy_shares"), symbols, shares),
    st.tuples(st.just("buy_dollars"), symbols, dollars),
    st.tuples(st.just("sell_part"), symbols, fractions),
    st.tuples(st.just("limit_buy"), symbols, offsets, st.sampled_from(["gfd", "gtc"])),
    st.tuples(st.just("limit_sell"), symbols, offsets, st.sampled_from(["gfd", "gtc"])),
    st.tuples(st.just("extended_limit"), symbols, offsets),
    st.tuples(st.just("refused"), symbols, st.sampled_from(["extended_market", "sub_cent"])),
    st.tuples(st.just("cancel_newest")),
    st.tuples(st.just("wait"), st.sampled_from([2, 30, 600, 3_600, 4 * 3_600, 20 * 3_600])),
    st.tuples(st.just("split"), symbols, st.sampled_from([Decimal(2), Decimal(3)])),
    st.tuples(st.just("restart")),
)


def _run(pair: Pair, step: tuple[Any, ...]) -> None:
    kind = step[0]
    order = {"account_number": pair.account.account_number}
    if kind == "buy_shares":
        pair.call("place_equity_order", **order, symbol=step[1], side="buy", type="market",
                  quantity=step[2])  # fmt: skip
    elif kind == "buy_dollars":
        pair.call("place_equity_order", **order, symbol=step[1], side="buy", type="market",
                  dollar_amount=step[2])  # fmt: skip
    elif kind == "sell_part":
        held = pair.held(step[1])
        quantity = (held * step[2]).quantize(Decimal("0.000001"))
        if quantity > 0:
            pair.call("place_equity_order", **order, symbol=step[1], side="sell",
                      type="market", quantity=str(quantity))  # fmt: skip
    elif kind in ("limit_buy", "limit_sell", "extended_limit"):
        bid = pair.bid(step[1])
        buying = kind != "limit_sell"
        limit = bid * (1 - step[2]) if buying else bid * (1 + step[2])
        tick = CENT if limit >= 1 else Decimal("0.0001")
        args = {"symbol": step[1], "type": "limit", "limit_price": str(limit.quantize(tick))}
        if kind == "extended_limit":
            args |= {"side": "buy", "quantity": "1", "market_hours": "extended_hours"}
        elif buying:
            args |= {"side": "buy", "quantity": "2", "time_in_force": step[3]}
        else:
            held = pair.held(step[1])
            if held < 1:
                return
            args |= {"side": "sell", "quantity": "1", "time_in_force": step[3]}
        pair.call("place_equity_order", **order, **args)
    elif kind == "refused":
        args = {"symbol": step[1], "side": "buy", "type": "market"}
        if step[2] == "extended_market":
            args |= {"quantity": "1", "market_hours": "extended_hours"}
        else:
            args |= {"dollar_amount": "10.005"}
        assert pair.call("place_equity_order", **order, **args)["isError"]
    elif kind == "cancel_newest":
        orders = pair.data("get_equity_orders").get("orders", [])
        open_ones = [o for o in orders if o["state"] in ("queued", "confirmed", "partially_filled")]
        if open_ones:
            pair.call("cancel_equity_order", **order, order_id=open_ones[0]["id"])
    elif kind == "wait":
        pair.clock.advance(timedelta(seconds=step[1]))
    elif kind == "restart":
        pair.restart()
    else:
        pair.split(step[1], step[2])


@settings(
    max_examples=25,
    stateful_step_count=12,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(steps, min_size=1, max_size=12))
def test_the_engine_on_observed_prices_answers_as_the_seeded_venue(
    database: Engine, plan: list[tuple[Any, ...]]
) -> None:
    pair = _pair(database)
    for step in plan:
        _run(pair, step)
        pair.compare_everything()
    pair.clock.advance(timedelta(days=1))
    pair.compare_everything()


def test_a_known_path_fills_rests_expires_splits_and_agrees_to_the_cent(database: Engine) -> None:
    """One fixed sequence covering every kind of step, so the harness itself is exercised
    the same way on every run."""
    pair = _pair(database)
    plan: list[tuple[Any, ...]] = [
        ("buy_shares", "SPY", "10"),
        ("wait", 30),
        ("buy_dollars", "SPY", "250.55"),
        ("wait", 600),
        ("sell_part", "SPY", Decimal("0.5")),
        ("wait", 30),
        ("limit_buy", "AAPL", Decimal("0"), "gfd"),
        ("limit_sell", "SPY", Decimal("0.004"), "gtc"),
        ("extended_limit", "AAPL", Decimal("0.001")),
        ("refused", "SPY", "extended_market"),
        ("refused", "SPY", "sub_cent"),
        ("wait", 4 * 3_600),
        ("wait", 20 * 3_600),
        ("cancel_newest",),
        ("split", "SPY", Decimal(2)),
        ("restart",),
        ("wait", 3_600),
        ("sell_part", "SPY", Decimal("1")),
        ("wait", 30),
    ]
    for step in plan:
        _run(pair, step)
        pair.compare_everything()
    orders = pair.data("get_equity_orders")["orders"]
    states = {o["state"] for o in orders}
    assert "filled" in states
    assert states & {"cancelled", "partially_filled_rest_cancelled"}
