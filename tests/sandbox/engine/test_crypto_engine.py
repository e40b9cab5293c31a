"""The engine carries the venue's crypto desk: its open orders and holdings are in the book's
open state, ended crypto orders and closed crypto trades are appended beside the equity ones.
Restarts lose nothing, two engines on one book see each other's crypto orders and cash, and a
crypto ``ref_id`` is its own space. On SQLite and on Postgres."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import Engine

from ordergate.core import SteppedClock
from ordergate.sandbox.engine import (
    ENGINE_TOOLS,
    EquityEngine,
    ObservedCryptoPrices,
    ObservedPrices,
)
from ordergate.sandbox.engine._codec import decode_state, encode_state
from ordergate.sandbox.engine._tables import dump
from ordergate.sandbox.market import CryptoQuote, Universe

SATURDAY = datetime(2026, 12, 5, 16, 0, tzinfo=UTC)
REF = "6f1d2c3b-4a59-4e7f-8a9b-0c1d2e3f4a5b"


class Paper:
    """One process's engine on the book, fed the crypto quotes the test observes."""

    def __init__(self, db: Engine, clock: SteppedClock, book: str = "paper-1") -> None:
        self.clock = clock
        self.crypto = ObservedCryptoPrices(max_age=timedelta(minutes=5))
        self.crypto.list(Universe.default().crypto_pair("BTC-USD"))
        self.engine = EquityEngine(
            db, book=book, prices=ObservedPrices(), crypto_prices=self.crypto, clock=clock
        )
        self.rhs = self.engine.account.rhs_account_number

    def observe(self, mark: str) -> None:
        price = Decimal(mark)
        self.crypto.observe(
            CryptoQuote(
                symbol="BTC-USD",
                id=Universe.default().crypto_pair("BTC-USD").id,
                bid_price=price - Decimal("0.50"),
                ask_price=price + Decimal("0.50"),
                mark_price=price,
                open_price=price,
                high_price=price,
                low_price=price,
                volume=Decimal(1000),
                updated_at=self.clock.now(),
            )
        )

    def call(self, name: str, **args: Any) -> dict[str, Any]:
        result = self.engine.call(name, {"rhs_account_number": self.rhs, **args})
        assert not result["isError"], result["structuredContent"]
        data: dict[str, Any] = result["structuredContent"]["data"]
        return data

    def place(self, **args: Any) -> dict[str, Any]:
        order: dict[str, Any] = self.call("place_crypto_order", symbol="BTC-USD", **args)["order"]
        return order

    def orders(self) -> list[dict[str, Any]]:
        return list(self.call("get_crypto_orders")["orders"])

    def cash(self) -> str:
        result = self.engine.call(
            "get_portfolio", {"account_number": self.engine.account.account_number}
        )
        data: dict[str, Any] = result["structuredContent"]["data"]
        return json.dumps(data, sort_keys=True)


def _step(clock: SteppedClock, seconds: int = 5) -> None:
    clock.advance(timedelta(seconds=seconds))


def test_the_engine_answers_the_crypto_order_tools_and_leaves_market_data_upstream() -> None:
    for name in ("preview_crypto_order", "place_crypto_order", "cancel_crypto_order"):
        assert name in ENGINE_TOOLS
    assert {"get_crypto_orders", "get_crypto_positions"} <= set(ENGINE_TOOLS)
    assert not {"get_currency_pairs", "get_crypto_quotes"} & set(ENGINE_TOOLS)


def test_a_restarted_engine_carries_on_crypto_from_what_the_last_one_committed(
    db: Engine,
) -> None:
    clock = SteppedClock(start=SATURDAY)
    first = Paper(db, clock)
    first.observe("50000.00")
    first.place(side="buy", type="market", quantity="0.1")
    resting = first.place(side="buy", type="limit", limit_price="49000.00", quantity="0.05")
    _step(clock)
    first.observe("50000.00")
    before = (first.orders(), first.call("get_crypto_positions"), first.cash())
    assert [o["state"] for o in before[0]] == ["confirmed", "filled"]
    del first

    second = Paper(db, clock)
    second.observe("50000.00")
    assert (second.orders(), second.call("get_crypto_positions"), second.cash()) == before
    _step(clock)
    second.observe("48000.00")
    _step(clock)
    second.observe("48000.00")
    filled = second.call("get_crypto_orders", order_id=resting["id"])["orders"][0]
    assert (filled["state"], filled["executions"][0]["price"]) == ("filled", "48000.50")
    positions = second.call("get_crypto_positions")["positions"]
    assert [(p["currency_code"], p["quantity"]) for p in positions] == [("BTC", "0.15")]


def test_a_partial_fill_carries_on_after_a_restart_until_the_order_is_filled(db: Engine) -> None:
    clock = SteppedClock(start=SATURDAY)
    first = Paper(db, clock)
    first.observe("50000.00")
    order = first.place(side="buy", type="market", quantity="1.2")  # 60,000 > 25,000 a look
    _step(clock, 2)
    first.observe("50000.00")
    partial = first.call("get_crypto_orders", order_id=order["id"])["orders"][0]
    assert partial["state"] == "partially_filled"
    del first

    second = Paper(db, clock)
    for _ in range(3):
        second.observe("50000.00")
        _step(clock, 1)
    second.observe("50000.00")
    filled = second.call("get_crypto_orders", order_id=order["id"])["orders"][0]
    assert (filled["state"], filled["cumulative_quantity"]) == ("filled", "1.2")
    assert len(filled["executions"]) == 3


def test_a_repeated_crypto_ref_id_returns_the_ended_order_after_a_restart(db: Engine) -> None:
    clock = SteppedClock(start=SATURDAY)
    first = Paper(db, clock)
    first.observe("50000.00")
    placed = first.place(side="buy", type="market", quantity="0.01", ref_id=REF)
    _step(clock)
    first.observe("50000.00")
    assert first.orders()[0]["state"] == "filled"
    del first

    second = Paper(db, clock)
    second.observe("50000.00")
    again = second.place(side="buy", type="market", quantity="0.01", ref_id=REF)
    assert again["id"] == placed["id"]
    assert len(second.orders()) == 1


def test_two_engines_on_one_book_see_each_other_s_crypto_orders_and_cash(db: Engine) -> None:
    clock = SteppedClock(start=SATURDAY)
    one, two = Paper(db, clock), Paper(db, clock)
    one.observe("50000.00")
    two.observe("50000.00")
    one.place(side="buy", type="market", quantity="0.1")
    _step(clock)
    one.observe("50000.00")
    two.observe("50000.00")
    two.place(side="sell", type="market", quantity="0.04")
    _step(clock)
    one.observe("50000.00")
    two.observe("50000.00")
    assert one.orders() == two.orders()
    assert [o["state"] for o in one.orders()] == ["filled", "filled"]
    assert one.cash() == two.cash()
    positions = one.call("get_crypto_positions")["positions"]
    assert [p["quantity"] for p in positions] == ["0.06"]


def test_ended_crypto_orders_and_trades_leave_memory_and_read_back_from_storage(
    db: Engine,
) -> None:
    clock = SteppedClock(start=SATURDAY)
    paper = Paper(db, clock)
    paper.observe("50000.00")
    paper.place(side="buy", type="market", quantity="0.1")
    _step(clock)
    paper.observe("51000.00")
    sold = paper.place(side="sell", type="market", quantity="0.1")
    _step(clock)
    paper.observe("51000.00")
    assert paper.call("get_crypto_orders", order_id=sold["id"])["orders"][0]["state"] == "filled"
    assert paper.engine._crypto.live_orders() == []
    assert paper.engine._crypto.holdings.closed(paper.engine.account.account_number) == []
    number = paper.engine.account.account_number
    pnl = paper.engine.call("get_realized_pnl", {"account_number": paper.rhs})
    assert not pnl["isError"], pnl
    with db.begin() as connection:
        paper.engine._tables.bind(connection)
        try:
            trades = paper.engine._tables.crypto_trades.closed(number)
            assert paper.engine._tables.closed(number) == []
        finally:
            paper.engine._tables.bind(None)
    assert [(t.asset_class, t.proceeds - t.cost_basis) for t in trades] == [
        ("crypto", Decimal("99.90"))  # bought at the ask, sold at the bid
    ]
    cancelled = paper.place(side="buy", type="limit", limit_price="40000.00", quantity="0.01")
    paper.call("cancel_crypto_order", order_id=cancelled["id"])
    error = paper.engine.call(
        "cancel_crypto_order", {"rhs_account_number": paper.rhs, "order_id": cancelled["id"]}
    )
    assert error["structuredContent"]["error"]["code"] == "ORDER_NOT_CANCELLABLE"


def test_the_open_crypto_state_round_trips_through_its_json_exactly(db: Engine) -> None:
    clock = SteppedClock(start=SATURDAY)
    paper = Paper(db, clock)
    paper.observe("50000.00")
    paper.place(side="buy", type="market", quantity="1.2", ref_id=REF)
    paper.place(side="buy", type="stop_limit", stop_price="60000.00", limit_price="61000.00",
                quantity="0.01", time_in_force="gfd")  # fmt: skip
    _step(clock, 2)
    paper.observe("50000.00")
    paper.call("get_crypto_orders")
    state = paper.engine._open_state()
    assert state.crypto_orders and state.crypto_holdings
    raw = json.loads(dump(encode_state(state)))
    assert decode_state(raw) == state
    for key in ("crypto_sequence", "crypto_orders", "crypto_holdings"):
        del raw[key]
    older = decode_state(raw)  # a book stored before the engine carried crypto
    assert (older.crypto_sequence, older.crypto_orders, older.crypto_holdings) == (0, [], [])
