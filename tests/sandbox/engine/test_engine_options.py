"""The engine carries the venue's options desk: open option orders and positions are in the
book's open state, ended option orders are appended to their own table and closed option
trades beside the equity ones. A long call and a debit vertical fill, cancel and expire on
observed option quotes; a second engine on the same database sees the same option book;
every answer validates against its captured output schema. On SQLite and on Postgres."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from sandbox_testkit import _validator
from sqlalchemy import Engine, text

from ordergate.core import SteppedClock
from ordergate.sandbox.engine import (
    ENGINE_TOOLS,
    EquityEngine,
    EquityListing,
    EquityQuote,
    ObservedOptionPrices,
    ObservedPrices,
)
from ordergate.sandbox.engine._codec import decode_state, encode_state
from ordergate.sandbox.engine._tables import dump
from ordergate.sandbox.market import Market, OptionInstrument

# Tuesday 2026-12-01, 10:00 in New York: a regular session; the first expiration listed is
# Friday 2026-12-04, which closes at 21:00 UTC.
START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
FRIDAY_CLOSE = datetime(2026, 12, 4, 21, 0, tzinfo=UTC)
REF = "3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a9f"


class Paper:
    """One process's engine on the book (a margin account at option level 3), fed the
    option quotes of a seeded market as the test observes them."""

    def __init__(self, db: Engine, clock: SteppedClock, market: Market) -> None:
        self.clock = clock
        self.market = market
        self.equities = ObservedPrices(max_age=timedelta(minutes=5))
        self.equities.list(
            EquityListing(symbol="AAPL", instrument_id="aapl", name="Apple", simple_name="Apple")
        )
        self.options = ObservedOptionPrices(self.equities, max_age=timedelta(minutes=5))
        self.engine = EquityEngine(
            db,
            book="paper-options",
            prices=self.equities,
            option_prices=self.options,
            clock=clock,
            account_type="margin",
            option_level=3,
        )
        self.number = self.engine.account.account_number

    def contract(self, kind: str = "call", offset: int = 0) -> OptionInstrument:
        """The contract ``offset`` strikes above the one nearest AAPL's price, listed."""
        chain = self.market.option_chain("AAPL")
        day = chain.expiration_dates[0]
        contracts = self.market.option_instruments("AAPL", expiration=day, option_type=kind)
        spot = self.market.quote("AAPL").last_trade_price
        nearest = min(range(len(contracts)), key=lambda i: abs(contracts[i].strike_price - spot))
        contract = contracts[nearest + offset]
        self.options.list(contract)
        return contract

    def observe(self, *contracts: OptionInstrument) -> None:
        now = self.clock.now()
        for contract in contracts:
            self.options.observe(replace(self.market.option_quote(contract.id), updated_at=now))

    def spot(self, last: Decimal, at: datetime) -> None:
        self.equities.observe(
            EquityQuote(
                symbol="AAPL", bid=last, ask=last, last=last, bid_size=Decimal(100),
                ask_size=Decimal(100), previous_close=last, previous_close_date=None,
                at=at, last_trade_at=at,
            )
        )  # fmt: skip

    def raw(self, name: str, **args: Any) -> dict[str, Any]:
        result = self.engine.call(name, {"account_number": self.number, **args})
        if not result["isError"]:
            validator = _validator(name)
            assert validator is not None
            validator.validate(result["structuredContent"])
        return result

    def call(self, name: str, **args: Any) -> dict[str, Any]:
        result = self.raw(name, **args)
        assert not result["isError"], result["structuredContent"]
        data: dict[str, Any] = result["structuredContent"]["data"]
        return data

    def place(self, *legs: dict[str, Any], **args: Any) -> dict[str, Any]:
        order: dict[str, Any] = self.call("place_option_order", legs=list(legs), **args)["order"]
        return order

    def order(self, order_id: str) -> dict[str, Any]:
        (found,) = self.call("get_option_orders", order_id=order_id)["orders"]
        return dict(found)

    def positions(self) -> dict[str, str]:
        listed = self.call("get_option_positions")["positions"]
        return {p["option_id"]: p["quantity"] for p in listed if Decimal(p["quantity"])}

    def buying_power(self) -> Decimal:
        self.call("get_portfolio")  # brings this engine's memory to the committed book
        return self.engine.account.buying_power


def _leg(option_id: str, side: str = "buy", effect: str = "open") -> dict[str, Any]:
    return {"option_id": option_id, "side": side, "position_effect": effect, "ratio_quantity": 1}


def _step(clock: SteppedClock, seconds: int = 2) -> None:
    clock.advance(timedelta(seconds=seconds))


def test_the_engine_answers_the_option_order_tools_and_leaves_market_data_and_exercise() -> None:
    served = {"review_option_order", "place_option_order", "cancel_option_order",
              "get_option_orders", "get_option_positions"}  # fmt: skip
    assert served <= set(ENGINE_TOOLS)
    upstream = {"get_option_chains", "get_option_instruments", "get_option_quotes",
                "exercise_option", "cancel_option_exercise"}  # fmt: skip
    assert not upstream & set(ENGINE_TOOLS)


def test_a_long_call_fills_on_the_observed_ask_and_a_second_engine_sees_the_position(
    db: Engine,
) -> None:
    clock = SteppedClock(start=START)
    market = Market(seed=0, clock=clock)
    paper = Paper(db, clock, market)
    call = paper.contract("call")
    paper.observe(call)
    ask = market.option_quote(call.id).ask_price + 1  # above the ask as it moves
    review = paper.call("review_option_order", legs=[_leg(call.id)], quantity="1",
                        type="limit", price=str(ask), direction="debit")  # fmt: skip
    assert review
    order = paper.place(_leg(call.id), quantity="1", type="limit", price=str(ask),
                        direction="debit", ref_id=REF)  # fmt: skip
    _step(clock)
    paper.observe(call)
    _step(clock)
    filled = paper.order(order["id"])
    assert filled["state"] == "filled"
    assert list(paper.positions()) == [call.id]
    again = Paper(db, clock, market)  # another process, or a restart
    assert again.engine.wanted().option_ids == paper.engine.wanted().option_ids == {call.id}
    again.contract("call")
    again.observe(call)
    assert again.order(order["id"])["state"] == "filled"
    assert again.positions() == paper.positions()
    assert again.buying_power() == paper.buying_power()


def test_a_debit_vertical_rests_is_cancelled_and_its_hold_released_across_a_restart(
    db: Engine,
) -> None:
    clock = SteppedClock(start=START)
    market = Market(seed=0, clock=clock)
    paper = Paper(db, clock, market)
    low, high = paper.contract("call"), paper.contract("call", offset=1)
    paper.observe(low, high)
    before = paper.buying_power()
    order = paper.place(_leg(low.id), _leg(high.id, "sell"), quantity="1", type="limit",
                        price="0.01", direction="debit", time_in_force="gtc")  # fmt: skip
    assert order["opening_strategy"] == "long_call_spread"
    assert paper.buying_power() == before - Decimal("1.00")
    _step(clock)
    paper.observe(low, high)
    _step(clock)
    assert paper.order(order["id"])["state"] == "confirmed"  # the net debit is above 0.01
    again = Paper(db, clock, market)
    again.contract("call"), again.contract("call", offset=1)
    again.observe(low, high)
    again.call("cancel_option_order", order_id=order["id"])
    assert paper.order(order["id"])["state"] == "cancelled"
    assert paper.buying_power() == before
    with db.connect() as connection:
        stored = connection.execute(
            text("SELECT count(*) FROM venue_ended_option_orders WHERE order_id = :id"),
            {"id": order["id"]},
        ).scalar_one()
    assert stored == 1
    assert paper.engine._open_state().option_orders == []


def test_a_call_expires_in_the_money_and_a_put_worthless_once_the_close_is_priced(
    db: Engine,
) -> None:
    clock = SteppedClock(start=START)
    market = Market(seed=0, clock=clock)
    paper = Paper(db, clock, market)
    call, put = paper.contract("call"), paper.contract("put")
    paper.observe(call, put)
    for contract in (call, put):
        ask = market.option_quote(contract.id).ask_price + 1
        paper.place(_leg(contract.id), quantity="2", type="limit", price=str(ask),
                    direction="debit")  # fmt: skip
    _step(clock)
    paper.observe(call, put)
    _step(clock)
    assert set(paper.positions()) == {call.id, put.id}
    cash = paper.engine.account.cash
    clock.set(FRIDAY_CLOSE + timedelta(minutes=1))
    assert set(paper.positions()) == {call.id, put.id}  # no price of AAPL at the close yet
    spot = max(call.strike_price, put.strike_price) + Decimal("4.10")
    paper.spot(spot, FRIDAY_CLOSE - timedelta(seconds=1))
    assert paper.positions() == {}
    intrinsic = spot - call.strike_price
    assert paper.engine.account.cash == cash + intrinsic * 200
    tables = paper.engine._tables
    with db.connect() as connection:
        tables.bind(connection)
        try:
            trades = {t.instrument_id: t for t in tables.option_trades.closed(paper.number)}
            assert tables.closed(paper.number) == []  # none of them is an equity trade
        finally:
            tables.bind(None)
    assert (trades[call.id].close_price, trades[put.id].close_price) == (intrinsic, 0)
    assert trades[call.id].closed_at == FRIDAY_CLOSE


def test_the_open_option_state_round_trips_through_its_json_exactly(db: Engine) -> None:
    clock = SteppedClock(start=START)
    market = Market(seed=0, clock=clock)
    paper = Paper(db, clock, market)
    call, put = paper.contract("call"), paper.contract("put")
    paper.observe(call, put)
    ask = market.option_quote(call.id).ask_price + 1
    paper.place(_leg(call.id), quantity="1", type="limit", price=str(ask), direction="debit")
    paper.place(_leg(put.id), quantity="1", type="limit", price="0.01", direction="debit",
                time_in_force="gtc")  # fmt: skip
    _step(clock)
    paper.observe(call, put)
    _step(clock)
    paper.call("get_option_orders")
    state = paper.engine._open_state()
    assert state.option_orders and state.option_positions
    raw = json.loads(dump(encode_state(state)))
    assert decode_state(raw) == state
    for key in ("option_sequence", "option_orders", "option_positions"):
        del raw[key]
    older = decode_state(raw)  # a book stored before the engine carried options
    assert (older.option_sequence, older.option_orders, older.option_positions) == (0, [], [])
