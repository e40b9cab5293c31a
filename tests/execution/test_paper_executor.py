"""``PaperExecutor`` over a real ledger (SQLite, and Postgres when configured): fills at the
quote the test moves, sessions, limits and stops, refusals, idempotence, persistence."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from paper_kit import ACCOUNT, BACKENDS, START, Market, ledger_url_for, ticket
from sqlalchemy import create_engine

from ordergate.core import MarketHours, OrderState, OrderType, Side, SteppedClock
from ordergate.ledger import Ledger, open_ledger
from ordergate.policy import MarketSession
from ordergate.venues import BrokerOrder, BrokerRefusal, NoAnswer, OrderExecutor, Ticket
from ordergate.venues.paper import PaperBook, PaperExecutor

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
def ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with ledger_url_for(request.param, tmp_path) as url:
        yield url


@pytest.fixture
def ledger(ledger_url: str, clock: SteppedClock) -> Iterator[Ledger]:
    with open_ledger(ledger_url, clock=clock) as opened:
        yield opened


@pytest.fixture
def book(ledger: Ledger, clock: SteppedClock) -> PaperBook:
    return PaperBook(ledger.engine, clock=clock, starting_cash=CASH)


def executor_for(
    book: PaperBook, market: Market, clock: SteppedClock, slippage_bps: int = 0
) -> PaperExecutor:
    return PaperExecutor(
        book, market, session=market.session, clock=clock, slippage_bps=slippage_bps
    )


@pytest.fixture
def paper(book: PaperBook, market: Market, clock: SteppedClock) -> PaperExecutor:
    return executor_for(book, market, clock)


async def place(executor: PaperExecutor, order: Ticket) -> BrokerOrder:
    placement = await executor.place(order)
    assert placement.order is not None
    assert not placement.awaiting_broker_approval
    return placement.order


async def refusal(executor: PaperExecutor, order: Ticket) -> str:
    with pytest.raises(BrokerRefusal) as refused:
        await executor.place(order)
    return refused.value.code


async def hold(paper: PaperExecutor, market: Market, symbol: str, quantity: str) -> None:
    """Buy ``quantity`` shares at 10.00 so a test has something to sell."""
    market.set(symbol, "9.99", "10.00")
    bought = await place(paper, ticket(symbol, Side.BUY, quantity=quantity))
    assert bought.state is OrderState.FILLED


def test_the_paper_executor_is_an_order_executor_that_reaches_no_market(
    paper: PaperExecutor,
) -> None:
    assert isinstance(paper, OrderExecutor)
    assert paper.paper is True


async def test_a_market_buy_fills_at_the_ask_plus_slippage_rounded_up_to_the_cent(
    book: PaperBook, market: Market, clock: SteppedClock
) -> None:
    executor = executor_for(book, market, clock, slippage_bps=10)
    market.set("AAPL", "187.40", "187.4321")
    order = await place(executor, ticket("AAPL", Side.BUY, quantity="3"))
    # 187.4321 × 1.001 = 187.6195321 → 187.62 (up, against the buyer)
    assert order.state is OrderState.FILLED
    assert order.order_id.startswith("paper-")
    assert len(order.order_id) == len("paper-") + 32
    assert [(fill.quantity, fill.price) for fill in order.fills] == [
        (Decimal("3"), Decimal("187.62"))
    ]
    assert order.fills[0].id == f"{order.order_id}-1"
    assert order.fills[0].executed_at == START
    assert order.cumulative_quantity == Decimal("3")
    assert order.average_price == Decimal("187.62")
    assert book.cash(ACCOUNT) == CASH - Decimal("562.86")
    assert book.positions(ACCOUNT) == {"AAPL": Decimal("3")}


async def test_a_market_sell_fills_at_the_bid_minus_slippage_rounded_down_to_the_cent(
    book: PaperBook, market: Market, clock: SteppedClock
) -> None:
    executor = executor_for(book, market, clock, slippage_bps=10)
    market.set("AAPL", "9.99", "10.00")
    await place(executor, ticket("AAPL", Side.BUY, quantity="5"))  # 10.01 each
    market.set("AAPL", "187.4399", "187.50")
    order = await place(executor, ticket("AAPL", Side.SELL, quantity="2"))
    # 187.4399 × 0.999 = 187.2524601 → 187.25 (down, against the seller)
    assert order.state is OrderState.FILLED
    assert [(fill.quantity, fill.price) for fill in order.fills] == [
        (Decimal("2"), Decimal("187.25"))
    ]
    assert book.cash(ACCOUNT) == CASH - Decimal("50.05") + Decimal("374.50")
    assert book.positions(ACCOUNT) == {"AAPL": Decimal("3")}


async def test_a_dollar_order_fills_the_notional_over_the_price_rounded_down_to_6_places(
    paper: PaperExecutor, book: PaperBook, market: Market
) -> None:
    market.set("MSFT", "2.99", "3.00")
    order = await place(paper, ticket("MSFT", Side.BUY, notional="100"))
    assert order.state is OrderState.FILLED
    assert order.quantity == Decimal("33.333333")
    assert [(fill.quantity, fill.price) for fill in order.fills] == [
        (Decimal("33.333333"), Decimal("3.00"))
    ]
    assert book.cash(ACCOUNT) == CASH - Decimal("99.999999")
    assert book.positions(ACCOUNT) == {"MSFT": Decimal("33.333333")}


async def test_a_dollar_order_too_small_for_one_millionth_of_a_share_is_rejected(
    paper: PaperExecutor, book: PaperBook, market: Market
) -> None:
    market.set("MSFT", "99.99", "100.00")
    order = await place(paper, ticket("MSFT", Side.BUY, notional="0.00001"))
    assert order.state is OrderState.REJECTED
    assert order.reject_reason == "quantity_too_small"
    assert order.fills == ()
    assert book.cash(ACCOUNT) == CASH


@pytest.mark.parametrize(
    ("bid", "ask", "side"),
    [
        (None, None, Side.BUY),
        ("10.00", None, Side.BUY),
        ("10.00", "0", Side.BUY),
        (None, "10.01", Side.SELL),
        ("-1", "10.01", Side.SELL),
        ("0.004", "10.01", Side.SELL),  # rounds down to nothing
    ],
)
async def test_a_market_order_without_a_usable_price_is_refused_and_nothing_is_recorded(
    paper: PaperExecutor,
    book: PaperBook,
    market: Market,
    bid: str | None,
    ask: str | None,
    side: Side,
) -> None:
    await hold(paper, market, "AAPL", "5")
    if bid is None and ask is None:
        market.clear("AAPL")
    else:
        market.set("AAPL", bid, ask)
    order = ticket("AAPL", side, quantity="1")
    assert await refusal(paper, order) == "no_price"
    assert book.order_by_ref(order.ref_id) is None
    assert book.open_orders(ACCOUNT) == ()
    assert book.positions(ACCOUNT) == {"AAPL": Decimal("5")}


async def test_an_order_placed_while_the_session_is_closed_rests_queued_and_fills_at_a_later_poll(
    paper: PaperExecutor, book: PaperBook, market: Market, clock: SteppedClock
) -> None:
    market.now_session = MarketSession.CLOSED
    market.set("AAPL", "99.99", "100.00")
    placed = await place(paper, ticket("AAPL", Side.BUY, quantity="2"))
    assert placed.state is OrderState.QUEUED
    assert placed.fills == ()
    assert (await paper.poll(ACCOUNT, placed.order_id)).state is OrderState.QUEUED
    clock.advance(timedelta(hours=17))
    market.now_session = MarketSession.REGULAR
    market.clear("AAPL")
    assert (await paper.poll(ACCOUNT, placed.order_id)).state is OrderState.QUEUED
    market.set("AAPL", "101.49", "101.50")
    polled = await paper.poll(ACCOUNT, placed.order_id)
    assert polled.state is OrderState.FILLED
    assert [(fill.price, fill.executed_at) for fill in polled.fills] == [
        (Decimal("101.50"), START + timedelta(hours=17))
    ]
    assert book.cash(ACCOUNT) == CASH - Decimal("203.00")


@pytest.mark.parametrize(
    ("hours", "session", "fills"),
    [
        (MarketHours.REGULAR_HOURS, MarketSession.PRE_MARKET, False),
        (MarketHours.EXTENDED_HOURS, MarketSession.PRE_MARKET, True),
        (MarketHours.EXTENDED_HOURS, MarketSession.OVERNIGHT, False),
        (MarketHours.ALL_DAY_HOURS, MarketSession.OVERNIGHT, True),
        (MarketHours.ALL_DAY_HOURS, MarketSession.CLOSED, False),
    ],
)
async def test_an_order_fills_only_in_the_sessions_its_market_hours_cover(
    paper: PaperExecutor,
    market: Market,
    hours: MarketHours,
    session: MarketSession,
    fills: bool,
) -> None:
    market.now_session = session
    market.set("AAPL", "99.99", "100.00")
    order = await place(paper, ticket("AAPL", Side.BUY, quantity="1", hours=hours))
    assert order.state is (OrderState.FILLED if fills else OrderState.QUEUED)


async def test_a_limit_buy_rests_until_the_ask_reaches_it_and_never_fills_above_it(
    book: PaperBook, market: Market, clock: SteppedClock
) -> None:
    executor = executor_for(book, market, clock, slippage_bps=50)
    market.set("AAPL", "100.99", "101.00")
    placed = await place(
        executor, ticket("AAPL", Side.BUY, quantity="4", order_type=OrderType.LIMIT, limit="100")
    )
    assert placed.state is OrderState.QUEUED
    market.set("AAPL", "100.00", "100.01")
    assert (await executor.poll(ACCOUNT, placed.order_id)).state is OrderState.QUEUED
    # 99.99 × 1.005 = 100.48995 would be 100.49: the limit caps it at 100.
    market.set("AAPL", "99.98", "99.99")
    filled = await executor.poll(ACCOUNT, placed.order_id)
    assert filled.state is OrderState.FILLED
    assert [fill.price for fill in filled.fills] == [Decimal("100")]


async def test_a_limit_sell_rests_until_the_bid_reaches_it_and_never_fills_below_it(
    book: PaperBook, market: Market, clock: SteppedClock
) -> None:
    executor = executor_for(book, market, clock, slippage_bps=50)
    await hold(executor, market, "AAPL", "4")
    market.set("AAPL", "109.99", "110.00")
    placed = await place(
        executor, ticket("AAPL", Side.SELL, quantity="4", order_type=OrderType.LIMIT, limit="110")
    )
    assert placed.state is OrderState.QUEUED
    market.set("AAPL", "110.02", "110.05")
    filled = await executor.poll(ACCOUNT, placed.order_id)
    assert filled.state is OrderState.FILLED
    assert [fill.price for fill in filled.fills] == [Decimal("110")]
    assert book.positions(ACCOUNT) == {}


async def test_a_marketable_limit_order_fills_at_the_quote_not_at_its_limit(
    paper: PaperExecutor, market: Market
) -> None:
    market.set("AAPL", "94.99", "95.00")
    order = await place(
        paper, ticket("AAPL", Side.BUY, quantity="1", order_type=OrderType.LIMIT, limit="100")
    )
    assert [fill.price for fill in order.fills] == [Decimal("95.00")]


async def test_a_buy_stop_triggers_when_the_ask_reaches_the_stop_and_fills_as_a_market_order(
    paper: PaperExecutor, book: PaperBook, market: Market
) -> None:
    market.set("AAPL", "103.99", "104.00")
    placed = await place(
        paper,
        ticket("AAPL", Side.BUY, quantity="1", order_type=OrderType.STOP_MARKET, stop="105"),
    )
    assert placed.state is OrderState.QUEUED
    stored = book.order(placed.order_id)
    assert stored is not None and not stored.triggered
    market.set("AAPL", "106.24", "106.25")
    filled = await paper.poll(ACCOUNT, placed.order_id)
    assert filled.state is OrderState.FILLED
    assert [fill.price for fill in filled.fills] == [Decimal("106.25")]
    stored = book.order(placed.order_id)
    assert stored is not None and stored.triggered


async def test_a_triggered_stop_limit_is_remembered_and_fills_as_a_limit_order(
    paper: PaperExecutor, book: PaperBook, market: Market
) -> None:
    await hold(paper, market, "AAPL", "2")
    market.set("AAPL", "96.00", "96.01")
    stop_limit = ticket(
        "AAPL", Side.SELL, quantity="2", order_type=OrderType.STOP_LIMIT, stop="95", limit="94"
    )
    placed = await place(paper, stop_limit)
    assert placed.state is OrderState.QUEUED
    # The bid crosses the stop but is below the limit: triggered, not filled.
    market.set("AAPL", "93.00", "93.01")
    assert (await paper.poll(ACCOUNT, placed.order_id)).state is OrderState.QUEUED
    stored = book.order(placed.order_id)
    assert stored is not None and stored.triggered
    assert (await paper.poll(ACCOUNT, placed.order_id)).state is OrderState.QUEUED
    # Back above the stop: the remembered trigger makes it a plain limit sell now.
    market.set("AAPL", "96.50", "96.51")
    filled = await paper.poll(ACCOUNT, placed.order_id)
    assert filled.state is OrderState.FILLED
    assert [fill.price for fill in filled.fills] == [Decimal("96.50")]


async def test_a_buy_the_cash_does_not_cover_is_refused_and_open_buys_hold_cash(
    paper: PaperExecutor, book: PaperBook, market: Market
) -> None:
    market.set("AAPL", "999.99", "1000.00")
    too_big = ticket("AAPL", Side.BUY, quantity="10.01")
    assert await refusal(paper, too_big) == "insufficient_buying_power"
    assert book.order_by_ref(too_big.ref_id) is None
    resting = ticket("AAPL", Side.BUY, quantity="6", order_type=OrderType.LIMIT, limit="900")
    assert (await place(paper, resting)).state is OrderState.QUEUED  # holds 5,400
    assert await refusal(paper, ticket("AAPL", Side.BUY, quantity="5")) == (
        "insufficient_buying_power"
    )
    assert await refusal(paper, ticket("AAPL", Side.BUY, notional="4600.01")) == (
        "insufficient_buying_power"
    )
    assert (await place(paper, ticket("AAPL", Side.BUY, notional="4600"))).state is (
        OrderState.FILLED
    )


async def test_a_resting_market_buy_that_cannot_be_priced_holds_everything(
    paper: PaperExecutor, market: Market
) -> None:
    market.now_session = MarketSession.CLOSED
    market.set("AAPL", "9.99", "10.00")
    await place(paper, ticket("AAPL", Side.BUY, quantity="1"))
    market.clear("AAPL")
    market.set("MSFT", "9.99", "10.00")
    assert await refusal(paper, ticket("MSFT", Side.BUY, quantity="1")) == (
        "insufficient_buying_power"
    )


async def test_a_sell_of_more_than_is_held_and_not_already_offered_is_refused(
    paper: PaperExecutor, book: PaperBook, market: Market
) -> None:
    market.set("AAPL", "9.99", "10.00")
    assert await refusal(paper, ticket("AAPL", Side.SELL, quantity="1")) == "insufficient_shares"
    await hold(paper, market, "AAPL", "10")
    offered = ticket("AAPL", Side.SELL, quantity="6", order_type=OrderType.LIMIT, limit="50")
    assert (await place(paper, offered)).state is OrderState.QUEUED
    short = ticket("AAPL", Side.SELL, quantity="5")
    assert await refusal(paper, short) == "insufficient_shares"
    assert book.order_by_ref(short.ref_id) is None
    assert await refusal(paper, ticket("AAPL", Side.SELL, notional="40.00")) == (
        "insufficient_shares"
    )
    assert (await place(paper, ticket("AAPL", Side.SELL, quantity="4"))).state is (
        OrderState.FILLED
    )
    assert book.positions(ACCOUNT) == {"AAPL": Decimal("6")}


async def test_a_dollar_sell_holds_the_shares_it_would_sell_at_its_limit_or_stop(
    paper: PaperExecutor, market: Market
) -> None:
    await hold(paper, market, "AAPL", "10")
    market.set("AAPL", "9.99", "10.00")
    at_limit = ticket("AAPL", Side.SELL, notional="100", order_type=OrderType.LIMIT, limit="50")
    assert (await place(paper, at_limit)).state is OrderState.QUEUED  # holds 2 shares
    # A stop sell fills at no more than its stop: $50 at 5.00 is 10 shares, 8 are free.
    at_stop = ticket("AAPL", Side.SELL, notional="50", order_type=OrderType.STOP_MARKET, stop="5")
    assert await refusal(paper, at_stop) == "insufficient_shares"
    market.clear("AAPL")
    unpriced = ticket("AAPL", Side.SELL, notional="5", order_type=OrderType.STOP_MARKET, stop="5")
    assert await refusal(paper, unpriced) == "insufficient_shares"
    market.set("AAPL", "9.99", "10.00")
    within = ticket("AAPL", Side.SELL, notional="40", order_type=OrderType.STOP_MARKET, stop="5")
    assert (await place(paper, within)).state is OrderState.QUEUED


async def test_an_open_dollar_sell_that_cannot_be_priced_blocks_further_sells(
    paper: PaperExecutor, market: Market
) -> None:
    await hold(paper, market, "AAPL", "10")
    market.now_session = MarketSession.CLOSED
    await place(paper, ticket("AAPL", Side.SELL, notional="10"))
    market.set("AAPL", None, "10.00")
    limit = ticket("AAPL", Side.SELL, quantity="1", order_type=OrderType.LIMIT, limit="20")
    assert await refusal(paper, limit) == "insufficient_shares"


async def test_a_queued_order_rests_while_its_price_rounds_to_nothing(
    paper: PaperExecutor, market: Market
) -> None:
    await hold(paper, market, "AAPL", "1")
    market.now_session = MarketSession.CLOSED
    placed = await place(paper, ticket("AAPL", Side.SELL, quantity="1"))
    market.now_session = MarketSession.REGULAR
    market.set("AAPL", "0.004", "0.01")
    assert (await paper.poll(ACCOUNT, placed.order_id)).state is OrderState.QUEUED
    market.set("AAPL", "0.05", "0.06")
    filled = await paper.poll(ACCOUNT, placed.order_id)
    assert [fill.price for fill in filled.fills] == [Decimal("0.05")]


async def test_a_queued_buy_the_cash_no_longer_covers_when_it_fills_is_rejected(
    paper: PaperExecutor, book: PaperBook, market: Market
) -> None:
    market.now_session = MarketSession.CLOSED
    market.set("AAPL", "999.99", "1000.00")
    placed = await place(paper, ticket("AAPL", Side.BUY, quantity="9"))
    market.now_session = MarketSession.REGULAR
    market.set("AAPL", "1199.99", "1200.00")
    polled = await paper.poll(ACCOUNT, placed.order_id)
    assert polled.state is OrderState.REJECTED
    assert polled.reject_reason == "insufficient_buying_power"
    assert polled.fills == ()
    assert book.cash(ACCOUNT) == CASH


async def test_a_queued_dollar_sell_that_would_sell_more_than_is_held_is_rejected(
    paper: PaperExecutor, book: PaperBook, market: Market
) -> None:
    await hold(paper, market, "AAPL", "1")
    market.now_session = MarketSession.CLOSED
    market.set("AAPL", "10.00", "10.01")
    placed = await place(paper, ticket("AAPL", Side.SELL, notional="10"))
    market.now_session = MarketSession.REGULAR
    market.set("AAPL", "5.00", "5.01")
    polled = await paper.poll(ACCOUNT, placed.order_id)
    assert polled.state is OrderState.REJECTED
    assert polled.reject_reason == "insufficient_shares"
    assert book.positions(ACCOUNT) == {"AAPL": Decimal("1")}


async def test_placing_the_same_ref_id_twice_returns_the_same_order(
    paper: PaperExecutor, book: PaperBook, market: Market
) -> None:
    market.set("AAPL", "99.99", "100.00")
    order = ticket("AAPL", Side.BUY, quantity="1")
    first = await place(paper, order)
    market.set("AAPL", "0", "0")
    second = await place(paper, order)
    assert second == first
    assert book.cash(ACCOUNT) == CASH - Decimal("100.00")
    assert book.positions(ACCOUNT) == {"AAPL": Decimal("1")}


async def test_a_second_executor_on_the_same_ledger_sees_the_first_ones_ref_id(
    paper: PaperExecutor, ledger: Ledger, market: Market, clock: SteppedClock
) -> None:
    other = executor_for(PaperBook(ledger.engine, clock=clock, starting_cash=CASH), market, clock)
    market.now_session = MarketSession.CLOSED
    market.set("AAPL", "99.99", "100.00")
    order = ticket("AAPL", Side.BUY, quantity="1")
    first = await place(paper, order)
    assert await place(other, order) == first
    market.now_session = MarketSession.REGULAR
    assert (await other.poll(ACCOUNT, first.order_id)).state is OrderState.FILLED
    assert (await paper.poll(ACCOUNT, first.order_id)).fills == (
        await other.poll(ACCOUNT, first.order_id)
    ).fills


async def test_cancelling_an_open_order_cancels_it_and_a_terminal_one_is_refused(
    paper: PaperExecutor, book: PaperBook, market: Market
) -> None:
    market.set("AAPL", "99.99", "100.00")
    resting = await place(
        paper, ticket("AAPL", Side.BUY, quantity="1", order_type=OrderType.LIMIT, limit="50")
    )
    await paper.cancel(ACCOUNT, resting.order_id)
    cancelled = await paper.poll(ACCOUNT, resting.order_id)
    assert cancelled.state is OrderState.CANCELLED
    assert cancelled.terminal
    assert book.open_orders(ACCOUNT) == ()
    filled = await place(paper, ticket("AAPL", Side.BUY, quantity="1"))
    for order_id in (resting.order_id, filled.order_id):
        with pytest.raises(BrokerRefusal) as refused:
            await paper.cancel(ACCOUNT, order_id)
        assert refused.value.code == "order_not_cancellable"
    assert (await paper.poll(ACCOUNT, filled.order_id)).state is OrderState.FILLED


async def test_an_unknown_or_another_accounts_order_is_not_found(
    paper: PaperExecutor, market: Market
) -> None:
    market.set("AAPL", "99.99", "100.00")
    order = await place(paper, ticket("AAPL", Side.BUY, quantity="1"))
    for account, order_id in (("someone-else", order.order_id), (ACCOUNT, "paper-nope")):
        with pytest.raises(BrokerRefusal) as polled:
            await paper.poll(account, order_id)
        assert polled.value.code == "order_not_found"
        with pytest.raises(BrokerRefusal) as cancelled:
            await paper.cancel(account, order_id)
        assert cancelled.value.code == "order_not_found"


async def test_a_poll_that_races_a_cancel_reports_the_order_cancelled_not_filled(
    paper: PaperExecutor, book: PaperBook, market: Market
) -> None:
    market.now_session = MarketSession.CLOSED
    market.set("AAPL", "99.99", "100.00")
    placed = await place(paper, ticket("AAPL", Side.BUY, quantity="1"))
    market.now_session = MarketSession.REGULAR

    async def cancel_meanwhile(symbol: str) -> None:
        market.on_quote = None
        await paper.cancel(ACCOUNT, placed.order_id)

    market.on_quote = cancel_meanwhile
    polled = await paper.poll(ACCOUNT, placed.order_id)
    assert polled.state is OrderState.CANCELLED
    assert polled.fills == ()
    assert book.cash(ACCOUNT) == CASH


async def test_lookup_finds_the_order_by_ref_id_placed_since_the_given_time(
    paper: PaperExecutor, market: Market, clock: SteppedClock
) -> None:
    market.set("AAPL", "99.99", "100.00")
    order = ticket("AAPL", Side.BUY, quantity="1")
    assert await paper.lookup(order, since=START) is None
    placed = await place(paper, order)
    assert await paper.lookup(order, since=START) == placed
    assert await paper.lookup(order, since=START + timedelta(seconds=1)) is None
    other_account = ticket("AAPL", Side.BUY, quantity="1", account="x", ref_id=order.ref_id)
    assert await paper.lookup(other_account, since=START) is None


async def test_review_prices_market_orders_at_the_slipped_quote_and_says_a_price_exists(
    book: PaperBook, market: Market, clock: SteppedClock
) -> None:
    executor = executor_for(book, market, clock, slippage_bps=10)
    market.set("AAPL", "187.4399", "187.4321")
    review = await executor.review(ticket("AAPL", Side.BUY, quantity="2"))
    assert review.terms.price == Decimal("187.62")
    assert review.terms.notional == Decimal("375.24")
    assert review.quote is not None and review.quote.ask == Decimal("187.4321")
    assert review.checks_passed is True
    sell = await executor.review(ticket("AAPL", Side.SELL, notional="187.25"))
    assert (sell.terms.price, sell.terms.quantity) == (Decimal("187.25"), Decimal(1))
    limit = await executor.review(
        ticket("AAPL", Side.BUY, quantity="2", order_type=OrderType.LIMIT, limit="150")
    )
    assert limit.terms.price == Decimal("150")
    assert book.open_orders(ACCOUNT) == ()


async def test_review_without_a_quote_or_a_usable_price_gives_unknown_terms(
    paper: PaperExecutor, market: Market
) -> None:
    unquoted = await paper.review(ticket("AAPL", Side.BUY, quantity="2"))
    assert unquoted.quote is None
    assert (unquoted.terms.price, unquoted.terms.notional, unquoted.terms.quantity) == (
        None,
        None,
        None,
    )
    assert not unquoted.checks_passed
    market.set("AAPL", None, "0")
    unpriced = await paper.review(ticket("AAPL", Side.BUY, quantity="2"))
    assert unpriced.quote is not None
    assert unpriced.terms.price is None
    assert unpriced.checks_passed is False


async def test_the_paper_book_survives_reopening_the_ledger(
    ledger_url: str, market: Market, clock: SteppedClock
) -> None:
    with open_ledger(ledger_url, clock=clock) as first:
        executor = executor_for(
            PaperBook(first.engine, clock=clock, starting_cash=CASH), market, clock
        )
        market.set("AAPL", "49.99", "50.00")
        bought = await place(executor, ticket("AAPL", Side.BUY, quantity="10"))
        market.set("AAPL", "60.00", "60.01")
        sold = await place(executor, ticket("AAPL", Side.SELL, quantity="4"))
        resting = await place(
            executor,
            ticket("AAPL", Side.SELL, quantity="1", order_type=OrderType.LIMIT, limit="99"),
        )
    with open_ledger(ledger_url, clock=clock) as second:
        book = PaperBook(second.engine, clock=clock, starting_cash=CASH)
        assert book.cash(ACCOUNT) == CASH - Decimal("500.00") + Decimal("240.00")
        assert book.positions(ACCOUNT) == {"AAPL": Decimal("6")}
        assert [order.order_id for order in book.open_orders(ACCOUNT)] == [resting.order_id]
        for placed in (bought, sold):
            stored = book.order(placed.order_id)
            assert stored is not None
            assert stored.broker_order() == placed
        account = book.account(ACCOUNT)
        assert (account.cash, account.positions) == (book.cash(ACCOUNT), book.positions(ACCOUNT))
        reopened = executor_for(book, market, clock)
        market.set("AAPL", "99.00", "99.01")
        assert (await reopened.poll(ACCOUNT, resting.order_id)).state is OrderState.FILLED


def test_the_book_records_an_order_without_an_admission_check_and_refuses_moving_a_closed_one(
    book: PaperBook,
) -> None:
    order = ticket("AAPL", Side.BUY, quantity="1")
    added, created = book.add_order(order, "paper-1")
    assert created and added.state is OrderState.QUEUED and added.ref_id == order.ref_id
    assert book.add_order(order, "paper-2") == (added, False)
    assert book.set_state("paper-1", OrderState.CANCELLED).state is OrderState.CANCELLED
    for move in (
        lambda: book.set_state("paper-1", OrderState.CANCELLED),
        lambda: book.mark_triggered("paper-1"),
        lambda: book.add_fill("paper-1", quantity=Decimal(1), price=Decimal(1)),
    ):
        with pytest.raises(BrokerRefusal) as refused:
            move()
        assert refused.value.code == "order_not_open"
    with pytest.raises(BrokerRefusal) as missing:
        book.set_state("paper-9", OrderState.CANCELLED)
    assert missing.value.code == "order_not_found"


async def test_a_paper_book_that_cannot_be_read_answers_no_answer(
    tmp_path: Path, market: Market, clock: SteppedClock
) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    try:
        executor = executor_for(PaperBook(engine, clock=clock, starting_cash=CASH), market, clock)
        market.set("AAPL", "99.99", "100.00")
        order = ticket("AAPL", Side.BUY, quantity="1")
        for call in (
            lambda: executor.place(order),
            lambda: executor.lookup(order, since=START),
            lambda: executor.poll(ACCOUNT, "paper-1"),
            lambda: executor.cancel(ACCOUNT, "paper-1"),
        ):
            with pytest.raises(NoAnswer):
                await call()
    finally:
        engine.dispose()


@pytest.mark.parametrize("slippage", [-1, 10_000, True])
def test_a_slippage_outside_0_to_10000_bps_is_refused(
    book: PaperBook, market: Market, clock: SteppedClock, slippage: int
) -> None:
    with pytest.raises(ValueError, match="slippage_bps"):
        executor_for(book, market, clock, slippage_bps=slippage)


@pytest.mark.parametrize("cash", [Decimal(-1), Decimal("NaN"), 100])
def test_a_negative_or_non_decimal_starting_cash_is_refused(
    ledger: Ledger, clock: SteppedClock, cash: Decimal
) -> None:
    with pytest.raises(ValueError, match="starting_cash"):
        PaperBook(ledger.engine, clock=clock, starting_cash=cash)
