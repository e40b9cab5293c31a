"""The venue's equity engine kept in the database: restarts lose nothing, processes and
replicas share one book, memory holds only what is open, and a crash leaves nothing
half-done. On SQLite and on Postgres."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import Engine, event, text

from ordergate.core import SteppedClock
from ordergate.sandbox.engine import (
    BookMismatch,
    EquityEngine,
    EquityListing,
    EquityQuote,
    ObservedPrices,
    Wanted,
)
from ordergate.sandbox.engine import _engine as engine_module
from ordergate.sandbox.engine._codec import decode_state, encode_state
from ordergate.sandbox.engine._tables import dump as _dump
from ordergate.sandbox.venue import stable_uuid
from ordergate.store import write_transaction

START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)  # 10:00 in New York


class Paper:
    """One process's engine on the book, fed the quotes the test observes."""

    def __init__(self, db: Engine, clock: SteppedClock, book: str = "paper-1") -> None:
        self.clock = clock
        self.prices = ObservedPrices(max_age=timedelta(minutes=5))
        self.prices.list(
            EquityListing(
                symbol="SPY",
                instrument_id=stable_uuid("equity", "SPY"),
                name="SPDR S&P 500 ETF",
                simple_name="SPY",
            )
        )
        self.engine = EquityEngine(db, book=book, prices=self.prices, clock=clock)
        self.account = self.engine.account.account_number

    def observe(self, last: str) -> None:
        price = Decimal(last)
        now = self.clock.now()
        self.prices.observe(
            EquityQuote(
                symbol="SPY",
                bid=price - Decimal("0.01"),
                ask=price + Decimal("0.01"),
                last=price,
                bid_size=Decimal(1000),
                ask_size=Decimal(1000),
                previous_close=Decimal("600.00"),
                previous_close_date=date(2026, 11, 30),
                at=now,
                last_trade_at=now,
            )
        )

    def call(self, name: str, **args: Any) -> dict[str, Any]:
        result = self.engine.call(name, {"account_number": self.account, **args})
        assert not result["isError"], result["structuredContent"]
        data: dict[str, Any] = result["structuredContent"]["data"]
        return data

    def place(self, **args: Any) -> dict[str, Any]:
        order: dict[str, Any] = self.call("place_equity_order", symbol="SPY", **args)["order"]
        return order

    def orders(self) -> list[dict[str, Any]]:
        """Every order of the account, newest first, page after page."""
        page = self.call("get_equity_orders")
        orders = list(page["orders"])
        for _ in range(100):
            if not page.get("next"):
                return orders
            page = self.call("get_equity_orders", cursor=page["next"])
            orders.extend(page["orders"])
        raise AssertionError("more than 100 pages of orders")


def _step(clock: SteppedClock, seconds: int = 5) -> None:
    clock.advance(timedelta(seconds=seconds))


def test_a_restarted_engine_carries_on_from_what_the_last_one_committed(db: Engine) -> None:
    clock = SteppedClock(start=START)
    first = Paper(db, clock)
    first.observe("600.00")
    first.place(side="buy", type="market", quantity="10")
    resting = first.place(side="buy", type="limit", limit_price="590.00", quantity="2")
    _step(clock)
    first.observe("600.00")
    before = (first.orders(), first.call("get_portfolio"), first.call("get_equity_positions"))
    del first  # the process ends: nothing of it survives but what it committed

    second = Paper(db, clock)
    second.observe("600.00")
    after = (second.orders(), second.call("get_portfolio"), second.call("get_equity_positions"))
    assert after == before
    # The resting order carries on working in the new process, and fills there.
    _step(clock)
    second.observe("589.00")
    _step(clock)
    second.observe("589.00")
    filled = next(o for o in second.orders() if o["id"] == resting["id"])
    assert filled["state"] == "filled"
    assert len(second.call("get_equity_tax_lots", symbol="SPY")["tax_lots"]) == 2


def test_an_order_another_process_placed_fills_at_this_process_s_first_observation(
    db: Engine,
) -> None:
    # A one-shot process (``ordergate status`` after ``ordergate order``) starts with an
    # empty feed, between two of the order's looks: it fills at the price it observed, at
    # that instant, on its first read, never at an instant it has no price for.
    clock = SteppedClock(start=START)
    first = Paper(db, clock)
    first.observe("600.00")
    placed = first.place(side="buy", type="market", quantity="1")
    del first  # the placing process ends before the order's first look
    clock.advance(timedelta(minutes=1, milliseconds=500))  # half a second past a look
    second = Paper(db, clock)
    second.observe("610.00")
    [order] = second.orders()
    assert (order["id"], order["state"]) == (placed["id"], "filled")
    [execution] = order["executions"]
    assert Decimal(execution["price"]) == Decimal("610.01")  # the ask observed, not made up
    assert datetime.fromisoformat(execution["timestamp"]) == clock.now()


def test_a_repeated_ref_id_returns_the_ended_order_after_a_restart(db: Engine) -> None:
    clock = SteppedClock(start=START)
    first = Paper(db, clock)
    first.observe("600.00")
    ref_id = "6f1a2b3c-0000-4000-8000-000000000001"
    placed = first.place(side="buy", type="market", quantity="1", ref_id=ref_id)
    _step(clock)
    first.observe("600.00")
    assert first.orders()[0]["state"] == "filled"
    second = Paper(db, clock)
    again = second.place(side="buy", type="market", quantity="1", ref_id=ref_id.upper())
    assert again["id"] == placed["id"]
    assert again["state"] == "filled"
    assert len(second.orders()) == 1


def test_two_processes_on_one_book_each_see_the_other_s_orders_and_cash(db: Engine) -> None:
    clock = SteppedClock(start=START)
    one, two = Paper(db, clock), Paper(db, clock)
    one.observe("600.00")
    two.observe("600.00")
    one.place(side="buy", type="market", quantity="10")
    two.place(side="buy", type="market", quantity="5")
    _step(clock)
    one.observe("600.00")
    two.observe("600.00")
    [position] = one.call("get_equity_positions")["positions"]
    assert position["quantity"] == "15"
    assert two.call("get_portfolio") == one.call("get_portfolio")
    assert Decimal(one.call("get_portfolio")["cash"]) == Decimal("100000.00") - 15 * Decimal(
        "600.01"
    )
    assert {o["id"] for o in one.orders()} == {o["id"] for o in two.orders()}


def test_memory_holds_open_orders_and_open_lots_only(db: Engine) -> None:
    clock = SteppedClock(start=START)
    paper = Paper(db, clock)
    for _ in range(30):
        paper.observe("600.00")
        paper.place(side="buy", type="market", quantity="1")
        _step(clock)
        paper.observe("600.00")
        paper.place(side="sell", type="market", quantity="1")
        _step(clock)
    paper.observe("600.00")
    paper.place(side="buy", type="limit", limit_price="500.00", quantity="1")
    desk = paper.engine._desk
    assert [o.state for o in desk.live_orders()] == ["queued"]
    assert desk.positions.all_lots() == []
    assert desk.positions.drain_closed() == []
    # Every ended order and closed trade is still readable, from storage.
    assert len(paper.orders()) == 61
    pnl = paper.engine.call(
        "get_realized_pnl", {"account_number": paper.engine.account.rhs_account_number}
    )["structuredContent"]["data"]
    equity = next(row for row in pnl["by_asset_class"] if row["asset_class"] == "equity")
    assert equity["trade_count"] == 30


def test_a_crash_inside_a_call_leaves_the_book_as_it_was_committed(db: Engine) -> None:
    clock = SteppedClock(start=START)
    paper = Paper(db, clock)
    paper.observe("600.00")
    paper.place(side="buy", type="market", quantity="3")
    _step(clock)
    paper.observe("600.00")
    committed = (paper.orders(), paper.call("get_portfolio"))

    class Crash(Exception):
        pass

    tables = paper.engine._tables
    write = tables.write

    def crash(version: int, state: str) -> None:
        write(version, state)
        raise Crash  # the process dies after writing, before the commit

    tables.write = crash  # type: ignore[method-assign]
    with pytest.raises(Crash):
        paper.place(side="sell", type="market", quantity="3")
    tables.write = write  # type: ignore[method-assign]
    # This engine reloads what committed; so does a fresh one.
    assert (paper.orders(), paper.call("get_portfolio")) == committed
    fresh = Paper(db, clock)
    fresh.observe("600.00")
    assert (fresh.orders(), fresh.call("get_portfolio")) == committed


def test_a_read_that_changes_nothing_writes_nothing(db: Engine) -> None:
    clock = SteppedClock(start=START)
    paper = Paper(db, clock)
    paper.observe("600.00")
    paper.call("get_portfolio")
    version = _version(db)
    paper.call("get_portfolio")
    paper.call("get_equity_orders")
    assert _version(db) == version


def test_a_read_as_the_clock_moves_over_a_book_with_nothing_open_writes_nothing(
    db: Engine,
) -> None:
    """Only the instant synced to would change: nothing is kept, nothing written."""
    clock = SteppedClock(start=START)
    paper = Paper(db, clock)
    paper.observe("600.00")
    paper.place(side="buy", type="market", quantity="1")
    _step(clock)
    paper.observe("600.00")
    assert paper.call("get_equity_positions")["positions"]
    version = _version(db)
    for _ in range(3):
        _step(clock)
        paper.observe("600.00")
        paper.call("get_portfolio")
        paper.call("get_equity_positions")
    assert _version(db) == version


def test_a_read_whose_look_fills_an_order_writes_the_fill_once_for_every_engine(
    db: Engine,
) -> None:
    """A read is answered outside the book's turn only when it moves nothing: one whose
    look fills an order is done again in the turn, which writes the fill (once) for
    another engine to see."""
    clock = SteppedClock(start=START)
    one, two = Paper(db, clock), Paper(db, clock)
    one.observe("600.00")
    two.observe("600.00")
    placed = one.place(side="buy", type="market", quantity="3")
    _step(clock)
    one.observe("600.00")
    two.observe("600.00")
    version = _version(db)
    (order,) = one.call("get_equity_orders", order_id=placed["id"])["orders"]
    assert order["state"] == "filled"
    assert _version(db) == version + 1
    (position,) = two.call("get_equity_positions")["positions"]
    assert position["quantity"] == "3"
    assert len(one.orders()) == len(two.orders()) == 1
    one.call("get_portfolio")
    assert _version(db) == version + 1


def test_a_read_that_moves_nothing_waits_for_no_writer(db: Engine) -> None:
    """Reads of a book whose sync moves nothing take no write lock: they are answered while
    another connection holds the database's write lock (SQLite) or the book's row (Postgres)."""
    clock = SteppedClock(start=START)
    paper = Paper(db, clock)
    paper.observe("600.00")
    paper.call("get_portfolio")
    if db.dialect.name == "postgresql":  # a read that did wait fails in 5 s, not never

        @event.listens_for(db, "begin")
        def bounded(connection: Any) -> None:
            connection.exec_driver_sql("SET LOCAL lock_timeout = '5s'")

    with write_transaction(db) as holder:
        if db.dialect.name == "postgresql":
            holder.execute(text("SELECT version FROM venue_books FOR UPDATE"))
        assert paper.call("get_portfolio")["cash"]
        assert paper.call("get_equity_orders")["orders"] == []


def test_a_call_checked_for_prices_sees_another_process_s_open_orders_and_runs_nothing_stale(
    db: Engine,
) -> None:
    """``call_if_priced`` hands its check what the book as committed may need prices for,
    another engine's open order included, and runs nothing (writes nothing) when the check
    names something."""
    clock = SteppedClock(start=START)
    one, two = Paper(db, clock), Paper(db, clock)
    one.observe("600.00")
    two.observe("600.00")
    two.call("get_portfolio")
    one.place(side="buy", type="limit", limit_price="500.00", quantity="1")
    version = _version(db)
    seen: list[Wanted] = []

    def stale(wanted: Wanted) -> Wanted | None:
        seen.append(wanted)
        return wanted if wanted.symbols else None

    arguments = {"account_number": two.account, "symbol": "SPY", "side": "buy"}
    placing = {**arguments, "type": "market", "quantity": "1"}
    for name, args in (
        ("get_portfolio", {"account_number": two.account}),
        ("place_equity_order", placing),
    ):
        assert two.engine.call_if_priced(name, args, stale) == Wanted(
            frozenset({"SPY"}), frozenset(), frozenset()
        )
    assert two.engine.open_orders_if_priced(stale) == seen[-1]
    assert len(seen) == 3
    assert _version(db) == version
    assert len(two.orders()) == 1
    answer = two.engine.call_if_priced(
        "get_portfolio", {"account_number": two.account}, lambda _: None
    )
    assert not isinstance(answer, Wanted)
    assert answer["structuredContent"]["data"] == one.call("get_portfolio")


def test_a_call_checked_for_prices_reads_the_book_on_one_connection(db: Engine) -> None:
    """The check and the read it guards share one look at the book's row: one connection
    per call, not one for the check and another for the call."""
    clock = SteppedClock(start=START)
    paper = Paper(db, clock)
    paper.observe("600.00")
    paper.place(side="buy", type="limit", limit_price="500.00", quantity="1")
    checkouts: list[object] = []
    event.listen(db, "checkout", lambda *_: checkouts.append(None))
    for _ in range(3):
        answer = paper.engine.call_if_priced(
            "get_portfolio", {"account_number": paper.account}, lambda _: None
        )
        assert not isinstance(answer, Wanted)
        assert paper.engine.open_orders_if_priced(lambda _: None)
    assert len(checkouts) == 6


def test_a_turn_on_a_book_that_exists_locks_its_row_in_one_statement_and_dumps_it_once(
    db: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the book's row exists a turn does not try to create it again: it reads and
    locks it, and writes it back dumped once (not once to compare and once to store)."""
    clock = SteppedClock(start=START)
    paper = Paper(db, clock)
    paper.observe("600.00")
    paper.call("get_portfolio")
    statements: list[str] = []

    def record(*args: Any) -> None:
        statements.append(str(args[2]))

    dumped: list[object] = []

    def counted(value: Any) -> str:
        if isinstance(value, dict) and "orders" in value:
            dumped.append(value)
        return _dump(value)

    monkeypatch.setattr(engine_module, "dump", counted)
    event.listen(db, "before_cursor_execute", record)
    try:
        placed = paper.place(side="buy", type="limit", limit_price="500.00", quantity="1")
    finally:
        event.remove(db, "before_cursor_execute", record)
    book = [s for s in statements if "venue_books" in s]
    assert [s.split()[0] for s in book] == ["SELECT", "UPDATE"]
    assert len(dumped) == 1
    # What was written is the open state, exactly: another engine reads the order back.
    other = Paper(db, clock)
    other.observe("600.00")
    (order,) = other.call("get_equity_orders")["orders"]
    assert order["id"] == placed["id"]
    with db.connect() as connection:
        (state,) = connection.execute(text("SELECT state FROM venue_books")).one()
    assert json.loads(state) == encode_state(paper.engine._open_state())


def test_books_are_kept_apart(db: Engine) -> None:
    clock = SteppedClock(start=START)
    one, two = Paper(db, clock, book="a"), Paper(db, clock, book="b")
    one.observe("600.00")
    one.place(side="buy", type="market", quantity="1")
    _step(clock)
    one.observe("600.00")
    two.observe("600.00")
    assert len(one.orders()) == 1
    assert two.orders() == []
    assert two.call("get_portfolio")["cash"] == "100000.00"


def test_an_unknown_tool_is_refused_and_changes_nothing(db: Engine) -> None:
    from ordergate.sandbox.tools import UnknownTool

    clock = SteppedClock(start=START)
    paper = Paper(db, clock)
    with pytest.raises(UnknownTool):
        paper.engine.call("exercise_option", {})
    paper.observe("600.00")
    assert paper.call("get_portfolio")["cash"] == "100000.00"


def test_the_open_state_round_trips_through_its_json_exactly(db: Engine) -> None:
    clock = SteppedClock(start=START)
    paper = Paper(db, clock)
    paper.observe("600.00")
    paper.place(side="buy", type="market", quantity="10")
    _step(clock)
    paper.observe("600.00")
    [lot] = paper.call("get_equity_tax_lots", symbol="SPY")["tax_lots"]
    paper.place(
        side="sell",
        type="limit",
        limit_price="700.00",
        quantity="4",
        tax_lots=[{"open_lot_id": lot["open_lot_id"], "quantity": "4"}],
    )
    paper.place(side="sell", type="stop_limit", stop_price="500.00", limit_price="499.00",
                quantity="1")  # fmt: skip
    paper.place(side="buy", type="market", dollar_amount="12.34")
    state = paper.engine._open_state()
    assert decode_state(encode_state(state)) == state
    assert len(state.orders) == 3 and len(state.lots) == 1
    assert state.orders[0].lots_left is not None
    assert state.orders[1].terms.stop_price == Decimal("500.00")


def test_a_split_announced_again_after_a_restart_is_applied_once(db: Engine) -> None:
    clock = SteppedClock(start=START)
    first = Paper(db, clock)
    first.observe("600.00")
    first.place(side="buy", type="market", quantity="10")
    _step(clock)
    at = clock.now()
    first.prices.split("SPY", Decimal(2), at)
    first.observe("300.00")
    assert first.call("get_equity_positions")["positions"][0]["quantity"] == "20"
    second = Paper(db, clock)
    # The new process's reader announces the split it reads upstream once more.
    second.prices.split("SPY", Decimal(2), at)
    second.observe("300.00")
    [position] = second.call("get_equity_positions")["positions"]
    assert (position["quantity"], position["average_buy_price"]) == ("20", "300.0050")


def test_two_threads_racing_on_one_book_lose_no_order_and_no_cent(db: Engine) -> None:
    clock = SteppedClock(start=START)
    papers = [Paper(db, clock) for _ in range(2)]
    for paper in papers:
        paper.observe("600.00")
    placed: list[str] = []

    def place_some(paper: Paper) -> None:
        placed.extend(paper.place(side="buy", type="market", quantity="1")["id"] for _ in range(10))

    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(place_some, papers))
    _step(clock)
    papers[0].observe("600.00")
    orders = papers[0].orders()
    assert sorted(o["id"] for o in orders) == sorted(placed)
    assert {o["state"] for o in orders} == {"filled"}
    assert len(set(placed)) == 20
    cash = Decimal(papers[0].call("get_portfolio")["cash"])
    assert cash == Decimal("100000.00") - 20 * Decimal("600.01")


def test_an_ended_order_read_back_from_storage_is_not_cancellable(db: Engine) -> None:
    clock = SteppedClock(start=START)
    paper = Paper(db, clock)
    paper.observe("600.00")
    placed = paper.place(side="buy", type="market", quantity="1")
    _step(clock)
    paper.observe("600.00")
    assert paper.orders()[0]["state"] == "filled"
    fresh = Paper(db, clock)
    assert fresh.engine.book == "paper-1"
    result = fresh.engine.call(
        "cancel_equity_order", {"account_number": fresh.account, "order_id": placed["id"]}
    )
    assert result["isError"]
    assert result["structuredContent"]["error"]["code"] == "ORDER_NOT_CANCELLABLE"
    missing = fresh.engine.call(
        "cancel_equity_order", {"account_number": fresh.account, "order_id": "nope"}
    )
    assert missing["structuredContent"]["error"]["code"] == "NOT_FOUND"


def test_an_order_asked_for_by_id_is_read_by_its_key_not_from_the_whole_history(
    db: Engine,
) -> None:
    clock = SteppedClock(start=START)
    paper = Paper(db, clock)
    ids = []
    for _ in range(5):
        paper.observe("600.00")
        ids.append(paper.place(side="buy", type="market", quantity="1")["id"])
        _step(clock)
    paper.observe("600.00")
    paper.orders()
    statements: list[str] = []

    def record(*args: Any) -> None:
        statements.append(str(args[2]))

    event.listen(db, "before_cursor_execute", record)
    try:
        [order] = paper.call("get_equity_orders", order_id=ids[0])["orders"]
    finally:
        event.remove(db, "before_cursor_execute", record)
    assert order["id"] == ids[0] and order["state"] == "filled"
    ended = [s for s in statements if "venue_ended_orders" in s]
    assert len(ended) == 1 and "order_id = " in ended[0]
    assert paper.call("get_equity_orders", order_id="nope")["orders"] == []


def test_an_order_is_found_by_ref_id_open_or_ended_and_open_orders_list_the_open_only(
    db: Engine,
) -> None:
    clock = SteppedClock(start=START)
    paper = Paper(db, clock)
    paper.observe("600.00")
    filled_ref = "6f1a2b3c-0000-4000-8000-0000000000a1"
    resting_ref = "6f1a2b3c-0000-4000-8000-0000000000a2"
    filled = paper.place(side="buy", type="market", quantity="1", ref_id=filled_ref)
    resting = paper.place(
        side="buy", type="limit", limit_price="500.00", quantity="1", ref_id=resting_ref
    )
    _step(clock)
    paper.observe("600.00")
    paper.orders()
    fresh = Paper(db, clock)
    found = fresh.engine.order_by_ref(filled_ref.upper())
    assert found is not None
    assert (found["id"], found["state"]) == (filled["id"], "filled")
    still = fresh.engine.order_by_ref(resting_ref)
    assert still is not None and still["id"] == resting["id"]
    assert fresh.engine.order_by_ref("6f1a2b3c-0000-4000-8000-0000000000ff") is None
    assert [o["id"] for o in fresh.engine.open_orders()] == [resting["id"]]
    assert fresh.engine.open_orders()[0] == next(
        o for o in fresh.orders() if o["id"] == resting["id"]
    )


def test_a_book_opened_with_another_seed_is_refused_and_left_alone(db: Engine) -> None:
    clock = SteppedClock(start=START)
    paper = Paper(db, clock)
    paper.observe("600.00")
    paper.place(side="buy", type="market", quantity="1")
    other = EquityEngine(db, book="paper-1", prices=paper.prices, clock=clock, seed=99)
    with pytest.raises(BookMismatch):
        other.call("get_portfolio", {"account_number": other.account.account_number})
    assert len(paper.orders()) == 1


def test_the_book_s_tables_are_read_only_inside_a_call(db: Engine) -> None:
    paper = Paper(db, SteppedClock(start=START))
    with pytest.raises(RuntimeError):
        paper.engine._tables.orders(paper.account)


def _version(db: Engine) -> int:
    with db.connect() as connection:
        return int(connection.execute(text("SELECT version FROM venue_books")).scalar_one())
