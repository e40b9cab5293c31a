"""``PaperVenue`` and its ``PaperCaller``: the live lane over a caller whose account and
order tools the venue's own engine answers, on a paper book in the ledger's database, on the
upstream's quotes (a real sandbox venue on loopback is the upstream)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any
from uuid import uuid4

import anyio
import pytest
from client_testkit import rhs_account_number
from guard_kit import buy, desk, policy
from sqlalchemy import event

from ordergate.client import BusinessError, Robinhood, TransportError
from ordergate.core import Side
from ordergate.execution import Guard
from ordergate.ledger import FilingStatus
from ordergate.policy import Proposal
from ordergate.store import engine_for, normalise_url
from ordergate.venues import EquityLane, Ticket, Venue
from ordergate.venues.paper import PaperCaller, PaperVenue, book_name

pytestmark = pytest.mark.anyio
BOUND_S = 10


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Counting:
    """The real upstream, with the tools it was asked for counted."""

    def __init__(self, upstream: Robinhood) -> None:
        self.upstream = upstream
        self.asked: Counter[str] = Counter()

    async def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
        self.asked[name] += 1
        return await self.upstream.call(name, arguments)


def engine_caller(venue: Venue) -> PaperCaller:
    assert isinstance(venue, PaperVenue)
    return venue.caller


def order(account: str, **terms: Any) -> dict[str, Any]:
    return {"account_number": account, "symbol": "SPY", "side": "buy", "type": "market", **terms}


async def test_the_paper_venue_is_the_live_lane_marked_paper(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        venue = d.port
        assert isinstance(venue, PaperVenue) and isinstance(venue, Venue)
        assert venue.crypto is not None and set(venue.crypto.lanes) == {"mcp", "rest"}
        assert isinstance(venue.equity, EquityLane)
        assert venue.paper is True and venue.equity.orders.paper is True
        # An agent reads the account as the guard does.
        assert venue.equity.answers_for(d.ledger, "agent") is venue.equity.account


async def test_the_paper_book_carries_the_upstreams_agentic_account(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        upstream = Counting(d.rh)
        caller = PaperCaller(upstream, d.ledger.engine, clock=d.clock, cash=Decimal("2500"))
        with anyio.fail_after(BOUND_S):
            portfolio = await caller.call("get_portfolio", {"account_number": d.account})
            accounts = await caller.call("get_accounts", {})
        assert Decimal(portfolio["cash"]) == Decimal("2500")
        engine = await caller.engine()
        assert engine.book == book_name(d.account)
        assert engine.account.account_number == d.account
        assert engine.account.rhs_account_number == rhs_account_number(d.venue)
        # The account list is the upstream's: the paper account is the one it names.
        agentic = [a for a in accounts["accounts"] if a["agentic_allowed"]]
        assert [a["account_number"] for a in agentic] == [d.account]
        assert upstream.asked["get_accounts"] == 2 and upstream.asked["get_portfolio"] == 0


async def test_a_paper_caller_for_another_account_than_the_upstreams_answers_nothing(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        caller = PaperCaller(d.rh, d.ledger.engine, clock=d.clock, cash=Decimal(1), account="X1")
        with pytest.raises(TransportError) as caught, anyio.fail_after(BOUND_S):
            await caller.call("get_portfolio", {"account_number": "X1"})
        assert caught.value.tool == "get_accounts"


async def test_a_symbol_observed_within_the_reuse_window_is_not_read_again(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        upstream = Counting(d.rh)
        caller = PaperCaller(upstream, d.ledger.engine, clock=d.clock, cash=Decimal(10_000))
        with anyio.fail_after(BOUND_S):
            await caller.call("review_equity_order", order(d.account, quantity="1"))
            await caller.call("review_equity_order", order(d.account, quantity="2"))
        assert upstream.asked["get_equity_quotes"] == 1
        assert upstream.asked["get_equity_tradability"] == 1  # listed on first sight
        d.step(2)
        with anyio.fail_after(BOUND_S):
            await caller.call("review_equity_order", order(d.account, quantity="1"))
        assert upstream.asked["get_equity_quotes"] == 2
        assert upstream.asked["get_equity_tradability"] == 1


async def test_a_listing_filtered_by_symbol_prices_only_the_book_and_that_once_a_window(
    tmp_path: Path,
) -> None:
    # What makes a paper book read the gateway's own (its local budget): however often and
    # by whatever symbol it is read, it reads the upstream at the pace of the reuse window.
    async with desk(tmp_path) as d:
        upstream = Counting(d.rh)
        caller = PaperCaller(upstream, d.ledger.engine, clock=d.clock, cash=Decimal(10_000))
        mine = {"account_number": d.account}
        with anyio.fail_after(BOUND_S):
            for symbol in ("AAPL", "MSFT", "QQQ"):
                await caller.call("get_equity_orders", {**mine, "symbol": symbol})
        assert upstream.asked["get_equity_quotes"] == 0  # an empty book needs no price
        assert upstream.asked["get_equity_tradability"] == 0
        with anyio.fail_after(BOUND_S):
            await caller.call("place_equity_order", order(d.account, quantity="1"))
            for symbol in ("SPY", "AAPL", "MSFT", "QQQ"):
                await caller.call("get_equity_orders", {**mine, "symbol": symbol})
        assert upstream.asked["get_equity_quotes"] == 1  # SPY, the book's, within the window
        assert upstream.asked["get_equity_tradability"] == 1


async def test_slippage_moves_the_quote_the_guard_reads_and_the_engine_fills_alike(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        caller = PaperCaller(
            d.rh, d.ledger.engine, clock=d.clock, cash=Decimal(10_000), slippage_bps=25
        )
        upstream = d.quote("SPY")
        with anyio.fail_after(BOUND_S):
            quotes = await caller.call("get_equity_quotes", {"symbols": ["SPY"]})
            review = await caller.call("review_equity_order", order(d.account, quantity="1"))
        seen = quotes["results"][0]["quote"]
        ask, bid = Decimal(upstream["ask_price"]), Decimal(upstream["bid_price"])
        assert Decimal(seen["ask_price"]) == (ask * Decimal("1.0025")).quantize(
            Decimal("0.01"), "ROUND_CEILING"
        )
        assert Decimal(seen["bid_price"]) == (bid * Decimal("0.9975")).quantize(
            Decimal("0.01"), "ROUND_FLOOR"
        )
        assert Decimal(review["quote_data"]["ask_price"]) == Decimal(seen["ask_price"])
        assert Decimal(review["quote_data"]["bid_price"]) == Decimal(seen["bid_price"])
        with pytest.raises(ValueError, match="slippage_bps"):
            PaperCaller(d.rh, d.ledger.engine, clock=d.clock, cash=Decimal(1), slippage_bps=-1)


async def test_a_venue_refusal_raises_the_business_error_a_wire_call_raises(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        caller = engine_caller(d.port)
        with pytest.raises(BusinessError) as caught, anyio.fail_after(BOUND_S):
            await caller.call("place_equity_order", order(d.account, dollar_amount="10.005"))
        assert caught.value.tool == "place_equity_order"
        assert caught.value.field == "dollar_amount"


async def test_a_symbol_the_upstream_does_not_list_is_refused_by_the_engine(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        caller = engine_caller(d.port)
        with pytest.raises(BusinessError) as caught, anyio.fail_after(BOUND_S):
            await caller.call("review_equity_order", order(d.account, symbol="ZZZZQ", quantity="1"))
        assert caught.value.field == "symbol"
        assert caller.prices.listing("ZZZZQ") is None


async def test_a_paper_book_that_cannot_be_written_is_no_answer(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        unmigrated = engine_for(normalise_url(f"sqlite:///{tmp_path / 'empty.db'}"))
        try:
            caller = PaperCaller(d.rh, unmigrated, clock=d.clock, cash=Decimal(1))
            with pytest.raises(TransportError) as caught, anyio.fail_after(BOUND_S):
                await caller.call("get_realized_pnl", {"rhs_account_number": "1"})
            assert caught.value.tool == "get_realized_pnl"
            assert "paper book did not answer" in str(caught.value)
        finally:
            unmigrated.dispose()


async def test_a_paper_books_turns_commit_unflushed_and_the_filing_before_them_flushed(
    tmp_path: Path,
) -> None:
    # The book lives in the ledger's SQLite file: its turns follow a filing committed at
    # FULL, so they may commit at NORMAL as the record of what followed a placement does.
    async with desk(tmp_path) as d:
        engine = d.ledger.engine
        assert engine.dialect.name == "sqlite"
        levels: list[int] = []

        def committed(connection: Any) -> None:
            driver = connection.connection.driver_connection
            levels.append(int(driver.execute("PRAGMA synchronous").fetchone()[0]))

        caller = PaperCaller(d.rh, engine, clock=d.clock, cash=Decimal(10_000))
        with anyio.fail_after(BOUND_S):
            await caller.engine()
        event.listen(engine, "commit", committed)
        try:
            with anyio.fail_after(BOUND_S):
                placed = await caller.call("place_equity_order", order(d.account, quantity="1"))
        finally:
            event.remove(engine, "commit", committed)
        assert placed["order"]["state"] in {"queued", "confirmed", "filled"}
        assert levels and set(levels) == {1}  # NORMAL, not FULL (2)
        with engine.connect() as after:
            # Every other connection, and this one once it is back, flushes its commits.
            assert after.exec_driver_sql("PRAGMA synchronous").scalar() == 2


async def test_market_data_and_every_other_tool_are_the_upstreams(tmp_path: Path) -> None:
    async with desk(tmp_path) as d:
        upstream = Counting(d.rh)
        caller = PaperCaller(upstream, d.ledger.engine, clock=d.clock, cash=Decimal(1))
        with anyio.fail_after(BOUND_S):
            found = await caller.call("search", {"query": "SPY"})
            setting = await caller.call("get_trade_approval_setting", {"account_number": d.account})
        assert any(e["symbol"] == "SPY" for e in found["results"])
        assert "human_must_approve_trades" in str(setting)
        assert upstream.asked == Counter({"search": 1, "get_trade_approval_setting": 1})


async def test_an_allowed_market_buy_through_the_engine_is_placed_and_the_reconciler_books_its_fill(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        ask = Decimal(d.quote("SPY")["ask_price"])
        outcome = await d.guard.submit(buy("SPY", quantity=Decimal(2)), identity="agent-1")
        assert outcome.status is FilingStatus.SUBMITTED and outcome.order_id is not None
        # The venue's engine fills it as its clock runs, as the venue does.
        assert await d.settled(outcome) is FilingStatus.FILLED
        fills = d.ledger.orders.executions(outcome.filing_id)
        assert [(f.quantity, f.price) for f in fills] == [(Decimal(2), ask)]
        assert d.ledger.rolling_spend(d.account).notional == Decimal(2) * ask
        assert d.ledger.verify().ok


async def test_a_second_engine_paper_venue_on_the_same_ledger_trades_the_same_book(
    tmp_path: Path,
) -> None:
    """A fresh paper venue (another process or replica on the database) reads the book the
    first one wrote, pricing what it holds before it answers."""
    async with desk(tmp_path) as d:
        first = await d.guard.submit(buy("AAPL", quantity=Decimal(1)), identity="a")
        assert await d.settled(first) is FilingStatus.FILLED
        venue = PaperVenue.on(
            d.rh, d.ledger.engine, clock=d.clock, cash=Decimal(1), account=d.account
        )
        view = await venue.equity.account.read(d.account, "SPY")
        assert view.positions is not None and set(view.positions) == {"AAPL"}
        assert view.equity is not None and view.cash is not None
        assert view.equity > view.cash  # the holding is priced, not left out
        guard = Guard(
            policy=policy(), ledger=d.ledger, venue=venue, account=d.account, clock=d.clock
        )
        second = await guard.submit(buy("SPY", quantity=Decimal(1)), identity="a")
        assert await d.settled(second) is FilingStatus.FILLED, second.reasons
        again = await d.reader.read(d.account, None)
        assert again.positions is not None and set(again.positions) == {"AAPL", "SPY"}


class CountingPaper(PaperCaller):
    """A paper caller with the tools the live lane asked of it counted."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.asked: Counter[str] = Counter()

    async def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
        self.asked[name] += 1
        return await super().call(name, arguments)


async def test_a_decisions_open_orders_are_the_engines_open_ones_not_a_walk_of_the_history(
    tmp_path: Path,
) -> None:
    """The paper reader asks the engine for what is open (its memory), never walks the
    order listing: a decision costs what is open, not the account's history."""
    async with desk(tmp_path) as d:
        caller = CountingPaper(d.rh, d.ledger.engine, clock=d.clock, cash=Decimal(100_000))
        venue = PaperVenue(caller, clock=d.clock)
        with anyio.fail_after(BOUND_S):
            for _ in range(3):
                await caller.call("place_equity_order", order(d.account, quantity="1"))
            d.step(5)  # the market orders fill and end
            resting = await caller.call(
                "place_equity_order",
                order(d.account, quantity="1", type="limit", limit_price="1.00"),
            )
            d.step(2)
            listed = await caller.call("get_equity_orders", {"account_number": d.account})
            caller.asked.clear()
            view = await venue.equity.account.read(d.account, "SPY")
        assert caller.asked["get_equity_orders"] == 0
        assert view.open_orders is not None
        assert [o.order_id for o in view.open_orders] == [resting["order"]["id"]]
        ended = [o for o in listed["orders"] if o["state"] == "filled"]
        assert len(ended) == 3  # the history the read did not walk


async def test_a_decisions_portfolio_positions_and_open_orders_are_one_read_of_the_book(
    tmp_path: Path,
) -> None:
    """The paper reader reads the book's three parts of a decision's sight together: one
    engine connection for the portfolio, the positions and the open orders, not one each,
    and each part is what its own tool answers."""
    async with desk(tmp_path) as d:
        caller = CountingPaper(d.rh, d.ledger.engine, clock=d.clock, cash=Decimal(100_000))
        venue = PaperVenue(caller, clock=d.clock)
        with anyio.fail_after(BOUND_S):
            await caller.call("place_equity_order", order(d.account, quantity="2"))
            d.step(5)  # the market order fills: a position
            resting = await caller.call(
                "place_equity_order",
                order(d.account, quantity="1", type="limit", limit_price="1.00"),
            )
            d.step(2)
            await venue.equity.account.read(d.account, "SPY")  # prices the book
            checkouts: list[object] = []

            def checkout(*_: object) -> None:
                checkouts.append(None)

            event.listen(d.ledger.engine, "checkout", checkout)
            try:
                view = await venue.equity.account.read(d.account, "SPY")
            finally:
                event.remove(d.ledger.engine, "checkout", checkout)
            portfolio = await caller.call("get_portfolio", {"account_number": d.account})
        assert len(checkouts) == 1
        assert view.notes == ()
        assert view.cash == Decimal(portfolio["cash"])
        assert view.positions is not None and view.positions["SPY"].quantity == 2
        assert view.open_orders is not None
        assert [o.order_id for o in view.open_orders] == [resting["order"]["id"]]


async def test_a_lookup_of_an_order_in_doubt_reads_it_by_its_ref_id_not_a_walk_of_the_history(
    tmp_path: Path,
) -> None:
    """The paper lane finds a ticket's order by its ``ref_id`` (a key in the engine), never
    by walking the order listing, and finds it as the listing would: the ticket's symbol,
    created since ``since``; nothing for a ref the book never took."""
    async with desk(tmp_path) as d:
        caller = CountingPaper(d.rh, d.ledger.engine, clock=d.clock, cash=Decimal(100_000))
        venue = PaperVenue(caller, clock=d.clock)
        placed_at = d.clock.now()
        with anyio.fail_after(BOUND_S):
            for _ in range(3):
                await caller.call("place_equity_order", order(d.account, quantity="1"))
            d.step(5)  # the market orders fill and end
            ref = uuid4()
            await caller.call("place_equity_order", order(d.account, quantity="1", ref_id=str(ref)))
            d.step(5)
            caller.asked.clear()
            ticket = Ticket(ref, d.account, Proposal("SPY", Side.BUY, quantity=Decimal(1)))
            found = await venue.equity.orders.lookup(ticket, since=placed_at)
            later = await venue.equity.orders.lookup(ticket, since=d.clock.now())
            elsewhere = Ticket(ref, d.account, Proposal("AAPL", Side.BUY, quantity=Decimal(1)))
            other_symbol = await venue.equity.orders.lookup(elsewhere, since=placed_at)
            never = Ticket(uuid4(), d.account, Proposal("SPY", Side.BUY, quantity=Decimal(1)))
            missing = await venue.equity.orders.lookup(never, since=placed_at)
        assert caller.asked["get_equity_orders"] == 0
        assert found is not None and found.ref_id == ref and found.cumulative_quantity == 1
        assert later is None and other_symbol is None and missing is None


async def test_open_orders_of_another_account_than_the_books_are_the_engines_refusal(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        caller = engine_caller(d.port)
        with pytest.raises(BusinessError), anyio.fail_after(BOUND_S):
            await caller.open_orders("NOT-THE-BOOK")
