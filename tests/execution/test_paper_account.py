"""``PaperAccountReader`` over a real ledger (SQLite, and Postgres when configured): the paper
account as the guard reads it, valued at the quotes the test moves, failing closed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import anyio
import pytest
from paper_kit import ACCOUNT, BACKENDS, START, Market, ledger_url_for, ticket
from sqlalchemy import create_engine

from ordergate.core import OrderState, OrderType, Side, SteppedClock
from ordergate.ledger import Ledger, open_ledger
from ordergate.policy import MarketSession, Position, Quote
from ordergate.venues import AccountReader
from ordergate.venues.paper import PaperAccountReader, PaperBook, PaperExecutor

pytestmark = pytest.mark.anyio

CASH = Decimal("10000")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock(start=START)


@pytest.fixture
def market(clock: SteppedClock) -> Market:
    return Market(clock)


@pytest.fixture(params=BACKENDS)
def ledger(request: pytest.FixtureRequest, tmp_path: Path, clock: SteppedClock) -> Iterator[Ledger]:
    with ledger_url_for(request.param, tmp_path) as url, open_ledger(url, clock=clock) as opened:
        yield opened


@pytest.fixture
def book(ledger: Ledger, clock: SteppedClock) -> PaperBook:
    return PaperBook(ledger.engine, clock=clock, starting_cash=CASH)


@pytest.fixture
def paper(book: PaperBook, market: Market, clock: SteppedClock) -> PaperExecutor:
    return PaperExecutor(book, market, session=market.session, clock=clock)


@pytest.fixture
def reader(book: PaperBook, market: Market) -> PaperAccountReader:
    return PaperAccountReader(book, market)


async def fill_some(paper: PaperExecutor, market: Market) -> None:
    """Hold 10 AAPL (bought at 100.00) and 4 MSFT (bought at 50.00): cash 8,800."""
    market.set("AAPL", "99.99", "100.00")
    market.set("MSFT", "49.99", "50.00")
    for symbol in ("AAPL", "MSFT"):
        placement = await paper.place(
            ticket(symbol, Side.BUY, quantity="10" if symbol == "AAPL" else "4")
        )
        assert placement.order is not None and placement.order.state is OrderState.FILLED


def test_the_paper_account_reader_is_an_account_reader(reader: PaperAccountReader) -> None:
    assert isinstance(reader, AccountReader)


async def test_equity_is_cash_plus_positions_valued_at_the_bid(
    reader: PaperAccountReader, paper: PaperExecutor, market: Market
) -> None:
    await fill_some(paper, market)
    market.set("AAPL", "110.50", "110.60")
    market.set("MSFT", "45.25", "45.30")
    market.tradables["AAPL"] = True
    view = await reader.read(ACCOUNT, "AAPL")
    assert view.cash == Decimal("8800.00")
    assert view.positions == {
        "AAPL": Position(quantity=Decimal("10"), market_value=Decimal("1105.00")),
        "MSFT": Position(quantity=Decimal("4"), market_value=Decimal("181.00")),
    }
    assert view.equity == Decimal("8800.00") + Decimal("1105.00") + Decimal("181.00")
    assert view.buying_power == Decimal("8800.00")
    assert view.open_orders == ()
    assert view.quote == Quote("AAPL", Decimal("110.50"), Decimal("110.60"), None, START)
    assert view.tradable is True
    assert view.notes == ()


async def test_open_buys_hold_buying_power_and_open_orders_are_listed_with_their_ref_id(
    reader: PaperAccountReader, paper: PaperExecutor, market: Market, clock: SteppedClock
) -> None:
    await fill_some(paper, market)
    limit_buy = ticket("AAPL", Side.BUY, quantity="5", order_type=OrderType.LIMIT, limit="90")
    limit_sell = ticket("MSFT", Side.SELL, quantity="4", order_type=OrderType.LIMIT, limit="70")
    for order in (limit_buy, limit_sell):
        clock.advance(timedelta(seconds=1))
        await paper.place(order)
    view = await reader.read(ACCOUNT, "AAPL")
    assert view.cash == Decimal("8800.00")
    assert view.buying_power == Decimal("8800.00") - Decimal("450")
    assert view.open_orders is not None
    assert [(order.ref_id, order.state) for order in view.open_orders] == [
        (limit_buy.ref_id, OrderState.QUEUED),
        (limit_sell.ref_id, OrderState.QUEUED),
    ]
    assert view.tradable is None


async def test_a_held_symbol_without_a_quote_leaves_positions_and_equity_unknown(
    reader: PaperAccountReader, paper: PaperExecutor, market: Market
) -> None:
    await fill_some(paper, market)
    market.clear("MSFT")
    view = await reader.read(ACCOUNT, "AAPL")
    assert view.positions is None
    assert view.equity is None
    assert view.cash == Decimal("8800.00")
    assert view.quote is not None
    assert any("MSFT" in note for note in view.notes)
    market.set("MSFT", "0", "45.30")  # a zero bid is no price for a long
    assert (await reader.read(ACCOUNT, "AAPL")).equity is None


async def test_an_open_market_buy_that_cannot_be_priced_leaves_buying_power_unknown(
    reader: PaperAccountReader, paper: PaperExecutor, market: Market
) -> None:
    market.now_session = MarketSession.CLOSED
    market.set("AAPL", "99.99", "100.00")
    await paper.place(ticket("AAPL", Side.BUY, quantity="1"))
    market.clear("AAPL")
    view = await reader.read(ACCOUNT, None)
    assert view.buying_power is None
    assert view.cash == CASH
    assert view.equity == CASH
    assert view.positions == {}
    assert (view.quote, view.tradable) == (None, None)


async def test_the_quotes_for_every_held_symbol_are_read_concurrently(
    reader: PaperAccountReader, paper: PaperExecutor, market: Market
) -> None:
    await fill_some(paper, market)
    wanted = {"AAPL", "MSFT", "NVDA"}
    all_asked = anyio.Event()
    market.asked.clear()

    async def wait_for_the_others(symbol: str) -> None:
        if wanted <= set(market.asked):
            all_asked.set()
        await all_asked.wait()

    market.on_quote = wait_for_the_others
    with anyio.fail_after(5):
        view = await reader.read(ACCOUNT, "NVDA")
    assert sorted(market.asked) == sorted(wanted)
    assert view.equity is not None


async def test_a_quote_source_that_raises_counts_as_no_quote(
    reader: PaperAccountReader, paper: PaperExecutor, market: Market
) -> None:
    await fill_some(paper, market)

    async def broken(symbol: str) -> None:
        raise RuntimeError("feed down")

    async def broken_tradable(account: str, symbol: str) -> bool | None:
        raise RuntimeError("feed down")

    market.on_quote = broken
    market.tradable = broken_tradable
    view = await reader.read(ACCOUNT, "AAPL")
    assert (view.quote, view.tradable, view.positions, view.equity) == (None, None, None, None)
    assert view.cash == Decimal("8800.00")


async def test_a_paper_book_that_cannot_be_read_leaves_the_account_unknown_without_raising(
    tmp_path: Path, market: Market, clock: SteppedClock
) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    try:
        reader = PaperAccountReader(PaperBook(engine, clock=clock, starting_cash=CASH), market)
        market.set("AAPL", "99.99", "100.00")
        market.tradables["AAPL"] = False
        view = await reader.read(ACCOUNT, "AAPL")
    finally:
        engine.dispose()
    assert (view.equity, view.cash, view.buying_power, view.positions, view.open_orders) == (
        None,
        None,
        None,
        None,
        None,
    )
    assert view.quote is not None and view.tradable is False
    assert view.notes == ("paper book unreadable: OperationalError",)
