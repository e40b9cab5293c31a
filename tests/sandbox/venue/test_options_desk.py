"""The options desk: order lifecycle, fills, holds, level rules, expiry and exercise."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from derivatives_testkit import FRIDAY_CLOSE, REF, SATURDAY, START, build, leg

from ordergate.core import OptionPositionEffect, Side, SteppedClock
from ordergate.sandbox.tools import VenueError
from ordergate.sandbox.venue import Venue
from ordergate.sandbox.venue._options import OptionsDesk, options_desk
from ordergate.sandbox.venue._options_model import OptionLeg
from ordergate.sandbox.venue._options_wire import exercise_wire, strategy

MONDAY_OPEN = datetime(2026, 12, 7, 14, 30, tzinfo=UTC)


def test_limit_buy_at_the_ask_is_queued_confirmed_then_filled_moving_premium_times_100() -> None:
    d = build()
    call = d.option("call")
    ask = d.quote(call.id).ask_price
    order = d.place_option(leg(call.id), quantity="2", price=str(ask))
    assert order["state"] == "queued"
    assert d.agentic.buying_power == Decimal("100000.00") - ask * 200
    d.advance(1)
    assert d.option_order(order["id"])["state"] == "confirmed"
    d.advance(1)
    filled = d.option_order(order["id"])
    assert filled["state"] == "filled"
    execution = filled["legs"][0]["executions"][0]
    assert execution["quantity"] == "2"
    assert Decimal(execution["price"]) <= ask
    paid = Decimal(execution["price"]) * 200
    assert filled["processed_premium"] == f"{paid:.2f}"
    assert d.agentic.cash == Decimal("100000.00") - paid
    assert d.agentic.holds == {}
    assert d.options.positions.quantity(d.number, call.id) == 2


def test_limit_buy_below_the_ask_rests_until_the_underlying_falls_and_the_ask_crosses() -> None:
    d = build()
    put = d.option("put")
    bid = d.quote(put.id).bid_price
    order = d.place_option(leg(put.id), quantity="1", price=str(bid), time_in_force="gtc")
    d.advance(60)
    assert d.option_order(order["id"])["state"] == "confirmed"
    d.venue.market.shock("AAPL", Decimal(8))
    d.advance(2)
    filled = d.option_order(order["id"])
    assert filled["state"] == "filled"
    assert Decimal(filled["legs"][0]["executions"][0]["price"]) <= bid


def test_market_sell_to_close_fills_at_the_bid_and_books_realized_pnl() -> None:
    d = build()
    call = d.option("call")
    bought = d.buy_to_open(call, 3)
    open_price = Decimal(bought["legs"][0]["executions"][0]["price"])
    d.advance(60)
    bid = d.quote(call.id).bid_price
    order = d.place_option(leg(call.id, "sell", "close"), quantity="3", type="market")
    assert order["direction"] == "credit"
    assert order["closing_strategy"] == "long_call"
    d.advance(2)
    sold = d.option_order(order["id"])
    assert sold["state"] == "filled"
    close_price = Decimal(sold["legs"][0]["executions"][0]["price"])
    assert abs(close_price - bid) <= Decimal("0.10")
    trades = d.options.closed_trades(d.number)
    assert len(trades) == 1
    trade = trades[0]
    assert (trade.asset_class, trade.symbol, trade.quantity) == ("option", "AAPL", 3)
    assert trade.realized_pnl == (close_price - open_price) * 300
    assert d.options.positions.quantity(d.number, call.id) == 0


def test_an_order_placed_on_a_saturday_stays_queued_until_a_second_after_monday_open() -> None:
    d = build(start=SATURDAY)
    call = d.option("call")
    order = d.place_option(leg(call.id), quantity="1", price="50.00")
    d.set_time(MONDAY_OPEN)
    assert d.option_order(order["id"])["state"] == "queued"
    d.advance(1)
    assert d.option_order(order["id"])["state"] == "confirmed"
    d.advance(1)
    assert d.option_order(order["id"])["state"] == "filled"


def test_a_gfd_order_is_cancelled_at_the_close_and_a_gtc_order_keeps_working() -> None:
    d = build()
    call = d.option("call", offset=3)
    gfd = d.place_option(leg(call.id), quantity="1", price="0.01")
    gtc = d.place_option(leg(call.id), quantity="1", price="0.01", time_in_force="gtc")
    d.set_time(datetime(2026, 12, 1, 21, 0, 5, tzinfo=UTC))
    ended = d.option_order(gfd["id"])
    assert ended["state"] == "cancelled"
    assert ended["canceled_quantity"] == "1"
    assert ended["updated_at"] == "2026-12-01T21:00:00.000000Z"
    assert d.option_order(gtc["id"])["state"] == "confirmed"
    assert "option:" + gfd["id"] not in d.agentic.holds


def test_a_gtc_order_is_cancelled_when_its_contract_expires() -> None:
    d = build()
    call = d.option("call", offset=4)
    order = d.place_option(leg(call.id), quantity="1", price="0.01", time_in_force="gtc")
    d.set_time(FRIDAY_CLOSE + timedelta(seconds=1))
    assert d.option_order(order["id"])["state"] == "cancelled"
    assert d.agentic.holds == {}


def test_cancelling_releases_the_hold_and_a_second_cancel_is_refused() -> None:
    d = build()
    call = d.option("call", offset=3)
    order = d.place_option(leg(call.id), quantity="1", price="0.01")
    assert d.agentic.holds
    d.options.cancel(d.number, order["id"])
    assert d.agentic.holds == {}
    assert d.option_order(order["id"])["state"] == "cancelled"
    with pytest.raises(VenueError) as raised:
        d.options.cancel(d.number, order["id"])
    assert raised.value.code == "ORDER_NOT_CANCELLABLE"


def test_the_forced_rejection_fault_rejects_an_option_order_and_counts_down() -> None:
    d = build()
    d.venue.faults.update({"reject_orders": 1, "reject_reason": "Halted for the test."})
    call = d.option("call")
    first = d.place_option(leg(call.id), quantity="1", price="50.00")
    second = d.place_option(leg(call.id), quantity="1", price="50.00")
    assert d.venue.faults.reject_orders == 0
    d.advance(2)
    rejected = d.option_order(first["id"])
    assert rejected["state"] == "rejected"
    assert rejected["reject_reason"] == "Halted for the test."
    assert d.option_order(second["id"])["state"] == "filled"


def test_selling_a_call_to_open_without_shares_is_refused_as_naked() -> None:
    d = build()
    call = d.option("call")
    with pytest.raises(VenueError) as raised:
        d.options.place(d.option_args(leg(call.id, "sell"), quantity="1", price="1.00"))
    assert (raised.value.code, raised.value.field) == ("OPTION_LEVEL_INSUFFICIENT", "legs[0].side")


def test_a_covered_call_is_accepted_and_its_shares_cover_no_second_call() -> None:
    d = build()
    d.give_shares("AAPL", 150)
    call = d.option("call")
    order = d.place_option(leg(call.id, "sell"), quantity="1", price="0.01")
    assert order["opening_strategy"] == "short_call"
    with pytest.raises(VenueError) as raised:
        d.options.place(d.option_args(leg(call.id, "sell"), quantity="1", price="0.01"))
    assert raised.value.code == "OPTION_LEVEL_INSUFFICIENT"
    d.advance(2)
    assert d.options.positions.quantity(d.number, call.id) == -1
    assert d.options.free_shares(d.number, "AAPL") == Decimal(50)


def test_a_cash_secured_put_holds_the_strike_until_it_is_bought_back() -> None:
    d = build()
    put = d.option("put")
    order = d.place_option(leg(put.id, "sell"), quantity="2", price="0.01")
    collateral = put.strike_price * 200
    assert d.agentic.holds == {"option:" + order["id"]: collateral}
    d.advance(2)
    assert d.agentic.holds == {"option-collateral:" + put.id: collateral}
    assert d.agentic.cash > Decimal("100000.00")
    ask = d.quote(put.id).ask_price
    d.place_option(leg(put.id, "buy", "close"), quantity="2", price=str(ask + 1))
    d.advance(2)
    assert d.agentic.holds == {}
    assert d.options.closed_trades(d.number)[0].symbol == "AAPL"


def test_a_put_sold_to_open_needs_buying_power_for_its_collateral() -> None:
    d = build(cash=Decimal("1000.00"))
    put = d.option("put")
    with pytest.raises(VenueError) as raised:
        d.options.place(d.option_args(leg(put.id, "sell"), quantity="1", price="1.00"))
    assert raised.value.code == "INSUFFICIENT_BUYING_POWER"


def test_closing_more_than_is_held_or_already_being_closed_is_refused() -> None:
    d = build()
    call = d.option("call")
    with pytest.raises(VenueError) as raised:
        d.options.review(d.option_args(leg(call.id, "sell", "close"), quantity="1", price="1"))
    assert (raised.value.code, raised.value.field) == ("INSUFFICIENT_POSITION", "quantity")
    d.buy_to_open(call, 2)
    d.place_option(leg(call.id, "sell", "close"), quantity="2", price="99.00")
    with pytest.raises(VenueError) as again:
        d.options.review(d.option_args(leg(call.id, "sell", "close"), quantity="1", price="1"))
    assert again.value.code == "INSUFFICIENT_POSITION"


def test_opening_the_other_side_of_a_held_position_is_refused() -> None:
    d = build()
    d.give_shares("AAPL", 100)
    call = d.option("call")
    d.buy_to_open(call)
    with pytest.raises(VenueError) as raised:
        d.options.review(d.option_args(leg(call.id, "sell"), quantity="1", price="1.00"))
    assert (raised.value.code, raised.value.field) == (
        "INVALID_ARGUMENT",
        "legs[0].position_effect",
    )


def test_a_vertical_spread_needs_option_level_3() -> None:
    d = build()
    low, high = d.option("call"), d.option("call", offset=1)
    with pytest.raises(VenueError) as raised:
        d.options.review(
            d.option_args(
                leg(low.id), leg(high.id, "sell"), quantity="1", price="1.00", direction="debit"
            )
        )
    assert (raised.value.code, raised.value.field) == ("OPTION_LEVEL_INSUFFICIENT", "legs")


def test_buying_to_open_needs_option_level_2() -> None:
    d = build()
    d.agentic.option_level = "option_level_1"
    with pytest.raises(VenueError) as raised:
        d.options.review(d.option_args(leg(d.option("call").id), quantity="1", price="1.00"))
    assert raised.value.code == "OPTION_LEVEL_INSUFFICIENT"


def test_a_long_straddle_fills_both_legs_at_the_asks_for_one_net_debit() -> None:
    d = build(account_type="margin", option_level=3)
    call, put = d.option("call"), d.option("put")
    asks = d.quote(call.id).ask_price + d.quote(put.id).ask_price
    order = d.place_option(
        leg(call.id), leg(put.id), quantity="1", price=str(asks + 1), direction="debit"
    )
    assert order["opening_strategy"] == "long_straddle"
    d.advance(2)
    filled = d.option_order(order["id"])
    assert filled["state"] == "filled"
    legs = filled["legs"]
    net = sum(Decimal(item["executions"][0]["price"]) for item in legs)
    assert filled["processed_premium"] == f"{net * 100:.2f}"
    assert d.agentic.cash == Decimal("100000.00") - net * 100


def test_a_position_open_at_expiration_settles_in_cash_at_intrinsic_value() -> None:
    d = build()
    put, call = d.option("put"), d.option("call")
    d.buy_to_open(put)
    d.buy_to_open(call)
    cash = d.agentic.cash
    d.venue.market.shock("AAPL", Decimal(-5))
    spot = d.venue.market.option_quote(put.id, FRIDAY_CLOSE).underlying_price
    d.set_time(FRIDAY_CLOSE + timedelta(minutes=1))
    intrinsic = (put.strike_price - spot).quantize(Decimal("0.01"))
    assert d.agentic.cash == cash + intrinsic * 100
    trades = {t.instrument_id: t for t in d.options.closed_trades(d.number)}
    assert trades[put.id].close_price == intrinsic
    assert trades[call.id].close_price == 0
    assert trades[call.id].closed_at == FRIDAY_CLOSE
    assert d.options.positions.held() == []


def test_a_cash_secured_put_in_the_money_at_expiration_is_assigned_100_shares_at_the_strike() -> (
    None
):
    d = build()
    put = d.option("put")
    sold = d.place_option(leg(put.id, "sell"), quantity="1", price="0.01")
    d.advance(2)
    premium = Decimal(d.option_order(sold["id"])["legs"][0]["executions"][0]["price"])
    cash = d.agentic.cash
    d.venue.market.shock("AAPL", Decimal(-5))
    d.set_time(FRIDAY_CLOSE + timedelta(minutes=1))
    assert d.agentic.cash == cash - put.strike_price * 100
    lots = d.equity.positions.lots(d.number, "AAPL")
    assert [(lot.quantity, lot.price) for lot in lots] == [(100, put.strike_price - premium)]
    assert d.options.positions.held() == []
    assert d.options.closed_trades(d.number) == []  # the premium lives on in the basis
    assert d.agentic.holds == {}


def test_a_covered_call_in_the_money_at_expiration_delivers_its_shares_at_the_strike() -> None:
    d = build()
    call = d.option("call")
    d.give_shares("AAPL", 100, price="100.00")
    sold = d.place_option(leg(call.id, "sell"), quantity="1", price="0.01")
    d.advance(2)
    premium = Decimal(d.option_order(sold["id"])["legs"][0]["executions"][0]["price"])
    cash = d.agentic.cash
    d.venue.market.shock("AAPL", Decimal(5))
    d.set_time(FRIDAY_CLOSE + timedelta(minutes=1))
    assert d.agentic.cash == cash + call.strike_price * 100
    assert d.equity.positions.lots(d.number, "AAPL") == []
    (trade,) = d.equity.positions.closed(d.number)
    assert trade.close_price == call.strike_price + premium
    assert d.options.positions.held() == []


def test_a_short_put_out_of_the_money_at_expiration_expires_worthless_and_frees_its_cash() -> None:
    d = build()
    put = d.option("put", offset=-3)
    d.place_option(leg(put.id, "sell"), quantity="1", price="0.01")
    d.advance(2)
    cash = d.agentic.cash
    d.venue.market.shock("AAPL", Decimal(5))
    d.set_time(FRIDAY_CLOSE + timedelta(minutes=1))
    assert d.agentic.cash == cash
    assert d.equity.positions.lots(d.number, "AAPL") == []
    assert d.options.positions.held() == [] and d.agentic.holds == {}


def test_a_credit_spread_in_the_money_at_expiration_settles_its_legs_in_cash() -> None:
    d = build(account_type="margin", option_level=3)
    high, low = d.option("put"), d.option("put", offset=-2)
    d.place_option(
        leg(high.id, "sell"), leg(low.id), quantity="1", type="limit", price="0.01",
        direction="credit",
    )  # fmt: skip
    d.advance(2)
    cash = d.agentic.cash
    d.venue.market.shock("AAPL", Decimal(-20))
    spot = d.venue.market.option_quote(high.id, FRIDAY_CLOSE).underlying_price
    d.set_time(FRIDAY_CLOSE + timedelta(minutes=1))
    width = (high.strike_price - spot).quantize(Decimal("0.01")) - (
        low.strike_price - spot
    ).quantize(Decimal("0.01"))
    assert d.agentic.cash == cash - width * 100  # no shares: the long covers the short
    assert d.equity.positions.lots(d.number, "AAPL") == []
    assert d.options.positions.held() == []


def test_exercising_a_call_pays_the_strike_at_the_close_and_adds_shares() -> None:
    d = build()
    call = d.option("call")
    bought = d.buy_to_open(call)
    premium = Decimal(bought["legs"][0]["executions"][0]["price"])
    exercise = d.options.exercise({"account_number": d.number, "option_id": call.id, "quantity": 1})
    assert exercise.process_at == datetime(2026, 12, 1, 21, 0, tzinfo=UTC)
    assert d.agentic.holds == {"option-exercise:" + exercise.id: call.strike_price * 100}
    cash = d.agentic.cash
    d.set_time(datetime(2026, 12, 1, 21, 0, 1, tzinfo=UTC))
    assert str(exercise.state) == "completed"
    assert d.agentic.cash == cash - call.strike_price * 100
    lots = d.equity.positions.lots(d.number, "AAPL")
    assert [(lot.quantity, lot.price) for lot in lots] == [(100, call.strike_price + premium)]
    assert d.options.positions.quantity(d.number, call.id) == 0
    assert d.agentic.holds == {}


def test_exercising_a_put_delivers_free_shares_at_the_strike() -> None:
    d = build()
    d.give_shares("AAPL", 100, price="200.00")
    put = d.option("put")
    d.buy_to_open(put)
    cash = d.agentic.cash
    d.options.exercise({"account_number": d.number, "option_id": put.id, "quantity": 1})
    d.set_time(datetime(2026, 12, 1, 21, 0, 1, tzinfo=UTC))
    assert d.agentic.cash == cash + put.strike_price * 100
    assert d.equity.positions.quantity(d.number, "AAPL") == 0
    sale = d.equity.closed_trades(d.number)[0]
    assert sale.quantity == 100


@pytest.mark.parametrize(
    ("account_type", "why"),
    [("cash", "not allowed in a cash account"), ("margin", "holds no short stock positions")],
)
def test_exercising_a_put_without_shares_is_refused_even_with_allow_shorts(
    account_type: str, why: str
) -> None:
    d = build(account_type=account_type)
    put = d.option("put")
    d.buy_to_open(put)
    with pytest.raises(VenueError) as raised:
        d.options.exercise(
            {"account_number": d.number, "option_id": put.id, "quantity": 1, "allow_shorts": True}
        )
    assert (raised.value.code, raised.value.field) == ("INSUFFICIENT_SHARES", "quantity")
    assert why in raised.value.message
    assert d.options.settlement.exercises(d.number) == []


def test_an_exercise_fails_at_the_close_when_the_shares_went_elsewhere() -> None:
    d = build()
    d.give_shares("AAPL", 100)
    put = d.option("put")
    d.buy_to_open(put)
    exercise = d.options.exercise({"account_number": d.number, "option_id": put.id, "quantity": 1})
    lot = d.equity.positions.lots(d.number, "AAPL")[0]
    lot.quantity = Decimal(0)  # the shares left outside the desks' rules
    d.set_time(datetime(2026, 12, 1, 21, 0, 1, tzinfo=UTC))
    assert str(exercise.state) == "failed"
    assert d.options.positions.quantity(d.number, put.id) == 1


def test_an_exercise_can_be_withdrawn_before_the_close_and_releases_its_hold() -> None:
    d = build()
    call = d.option("call")
    d.buy_to_open(call, 2)
    first = d.options.exercise({"account_number": d.number, "option_id": call.id, "quantity": 1})
    with pytest.raises(VenueError) as raised:
        d.options.exercise({"account_number": d.number, "option_id": call.id, "quantity": 2})
    assert raised.value.code == "INSUFFICIENT_POSITION"
    cancelled = d.options.cancel_exercise(d.number, call.id)
    assert cancelled == [first]
    assert str(first.state) == "cancelled"
    assert d.agentic.holds == {}
    d.set_time(datetime(2026, 12, 1, 21, 0, 1, tzinfo=UTC))
    assert d.options.positions.quantity(d.number, call.id) == 2
    with pytest.raises(VenueError) as none_left:
        d.options.cancel_exercise(d.number, call.id)
    assert none_left.value.code == "NOT_FOUND"


def test_an_exercise_is_refused_for_expired_unknown_or_unfunded_contracts() -> None:
    d = build(cash=Decimal("2000.00"))
    call = d.option("call")
    d.buy_to_open(call)
    with pytest.raises(VenueError) as unfunded:
        d.options.exercise({"account_number": d.number, "option_id": call.id, "quantity": 1})
    assert unfunded.value.code == "INSUFFICIENT_BUYING_POWER"
    with pytest.raises(VenueError) as unknown:
        d.options.exercise({"account_number": d.number, "option_id": "nope", "quantity": 1})
    assert (unknown.value.code, unknown.value.field) == ("NOT_FOUND", "option_id")
    with pytest.raises(VenueError) as fractional:
        d.options.exercise({"account_number": d.number, "option_id": call.id, "quantity": 0})
    assert fractional.value.field == "quantity"
    d.set_time(FRIDAY_CLOSE + timedelta(seconds=1))
    with pytest.raises(VenueError) as expired:
        d.options.exercise({"account_number": d.number, "option_id": call.id, "quantity": 1})
    assert expired.value.code == "OPTION_NOT_TRADABLE"


def test_an_exercise_with_the_same_ref_id_returns_the_first_one() -> None:
    d = build()
    call = d.option("call")
    d.buy_to_open(call, 2)
    args = {"account_number": d.number, "option_id": call.id, "quantity": 1, "ref_id": REF}
    first = d.options.exercise(args)
    assert d.options.exercise(args) is first
    assert d.options.pending_exercise(d.number, call.id) == 1


def test_placing_twice_with_one_ref_id_returns_the_same_order() -> None:
    d = build()
    call = d.option("call")
    args = d.option_args(leg(call.id), quantity="1", price="0.01", ref_id=REF)
    first = d.options.place(args)
    assert d.options.place(args) is first
    assert len(d.options.orders(d.number)) == 1


def test_an_order_beyond_buying_power_is_refused() -> None:
    d = build(cash=Decimal("100.00"))
    call = d.option("call")
    with pytest.raises(VenueError) as raised:
        d.options.place(d.option_args(leg(call.id), quantity="1", price="5.00"))
    assert (raised.value.code, raised.value.field) == ("INSUFFICIENT_BUYING_POWER", "quantity")


def test_options_value_counts_longs_at_their_marks_and_shorts_against_them() -> None:
    d = build()
    d.give_shares("AAPL", 100)
    long_put, short_call = d.option("put"), d.option("call")
    d.buy_to_open(long_put)
    d.place_option(leg(short_call.id, "sell"), quantity="1", price="0.01")
    d.advance(2)
    assert d.options.positions.quantity(d.number, short_call.id) == -1
    marks = d.quote(long_put.id).mark_price - d.quote(short_call.id).mark_price
    assert d.options.portfolio_values(d.number) == {"options_value": marks * 100}


def test_the_same_seed_steps_and_calls_give_the_same_orders() -> None:
    def run() -> list[dict[str, object]]:
        d = build(seed=7)
        call = d.option("call")
        d.buy_to_open(call, 2)
        d.place_option(leg(call.id, "sell", "close"), quantity="1", type="market")
        d.advance(5)
        return list(d.call("get_option_orders", account_number=d.number)["orders"])

    assert run() == run()


def test_options_desk_is_unavailable_on_a_venue_without_one() -> None:

    with pytest.raises(VenueError) as raised:
        options_desk(Venue(seed=1, clock=SteppedClock(start=START)))
    assert raised.value.code == "UNAVAILABLE"


def test_buying_more_of_a_held_option_averages_its_open_premium() -> None:
    d = build()
    call = d.option("call")
    first = d.buy_to_open(call, 1)
    d.venue.market.shock("AAPL", Decimal(2))
    d.advance(60)
    second = d.buy_to_open(call, 3)
    prices = [Decimal(o["legs"][0]["executions"][0]["price"]) for o in (first, second)]
    position = d.options.positions.get(d.number, call.id)
    assert position is not None and position.quantity == 4
    assert position.average_price == ((prices[0] + 3 * prices[1]) / 4).quantize(Decimal("0.0001"))


def test_a_market_buy_holds_the_collared_ask_and_rests_while_the_ask_is_above_it() -> None:
    d = build()
    call = d.option("call")
    ask = d.quote(call.id).ask_price
    order = d.place_option(leg(call.id), quantity="1", type="market")
    collared = (ask * Decimal("1.05")).quantize(Decimal("0.01"), rounding="ROUND_CEILING")
    assert order["price"] == str(collared)
    assert d.agentic.holds == {"option:" + order["id"]: collared * 100}
    d.venue.market.shock("AAPL", Decimal(10))
    d.advance(5)
    assert d.option_order(order["id"])["state"] == "confirmed"


def test_a_sell_rests_while_the_bid_is_zero_or_below_its_limit() -> None:
    d = build()
    far = d.option("call", offset=6)
    assert d.quote(far.id).bid_price == 0
    d.buy_to_open(far, 1)
    market = d.place_option(leg(far.id, "sell", "close"), quantity="1", type="market")
    d.advance(5)
    assert d.option_order(market["id"])["state"] == "confirmed"
    d.options.cancel(d.number, market["id"])
    near = d.option("call")
    d.buy_to_open(near, 1)
    limit = d.place_option(leg(near.id, "sell", "close"), quantity="1", price="99.00")
    d.advance(5)
    assert d.option_order(limit["id"])["state"] == "confirmed"


def test_without_an_equity_desk_no_call_is_covered_and_nothing_can_be_exercised() -> None:

    clock = SteppedClock(start=START)
    venue = Venue(seed=1, clock=clock)
    desk = OptionsDesk(venue)
    venue.add_desk(desk)
    number = venue.accounts.agentic.account_number
    helper = build()
    call = helper.option("call")
    assert desk.free_shares(number, "AAPL") == 0
    with pytest.raises(VenueError) as naked:
        desk.review(
            {
                "account_number": number,
                "legs": [leg(call.id, "sell")],
                "quantity": "1",
                "price": "1.00",
            }
        )
    assert naked.value.code == "OPTION_LEVEL_INSUFFICIENT"
    ask = desk.quote(call.id, START).ask_price
    desk.place(
        {"account_number": number, "legs": [leg(call.id)], "quantity": "1", "price": str(ask + 1)}
    )
    clock.advance(timedelta(seconds=2))
    venue.sync()
    with pytest.raises(VenueError) as raised:
        desk.exercise({"account_number": number, "option_id": call.id, "quantity": 1})
    assert raised.value.code == "UNAVAILABLE"


def test_an_exercise_fails_when_its_contracts_are_gone_by_the_close() -> None:

    d = build()
    call = d.option("call")
    d.buy_to_open(call)
    exercise = d.options.exercise({"account_number": d.number, "option_id": call.id, "quantity": 1})
    position = d.options.positions.get(d.number, call.id)
    assert position is not None
    position.quantity = 0  # gone outside the desk's rules
    d.set_time(datetime(2026, 12, 1, 21, 0, 1, tzinfo=UTC))
    assert str(exercise.state) == "failed"
    assert exercise_wire(exercise)["failure_reason"]
    assert d.options.exercises(d.number) == [exercise]
    assert d.agentic.holds == {}


def test_a_put_exercise_delivers_lots_no_sell_order_reserved() -> None:
    d = build()
    d.give_shares("AAPL", 100, price="200.00")
    d.clock.advance(timedelta(seconds=1))
    d.give_shares("AAPL", 150, price="210.00")
    first_lot = d.equity.positions.lots(d.number, "AAPL")[0].lot_id
    d.equity.place(
        {
            "account_number": d.number,
            "symbol": "AAPL",
            "side": "sell",
            "type": "limit",
            "quantity": "100",
            "limit_price": "999.00",
            "time_in_force": "gtc",
            "tax_lots": [{"open_lot_id": first_lot, "quantity": "100"}],
        }
    )
    put = d.option("put")
    d.buy_to_open(put)
    d.options.exercise({"account_number": d.number, "option_id": put.id, "quantity": 1})
    d.set_time(datetime(2026, 12, 1, 21, 0, 1, tzinfo=UTC))
    left = [(lot.lot_id, lot.quantity) for lot in d.equity.positions.lots(d.number, "AAPL")]
    assert left == [(first_lot, Decimal(100)), ("lot-AAPL-150", Decimal(50))]


def test_an_exercise_with_a_malformed_ref_id_is_refused() -> None:
    d = build()
    with pytest.raises(VenueError) as raised:
        d.options.exercise(
            {"account_number": d.number, "option_id": "x", "quantity": 1, "ref_id": "nope"}
        )
    assert raised.value.field == "ref_id"


def test_positions_refuse_impossible_moves() -> None:
    d = build()
    call = d.option("call")
    d.buy_to_open(call)
    book = d.options.positions
    with pytest.raises(ValueError):
        book.remove(d.number, call.id, 2, START)
    with pytest.raises(ValueError):
        book.open(
            account_number=d.number,
            instrument=call,
            contracts=1,
            long=False,
            price=Decimal(1),
            at=START,
            position_id="x",
        )


def test_strategies_are_named_from_the_positions_the_legs_open_or_close() -> None:

    d = build()
    chain = d.venue.market.option_chain("AAPL")

    def make(
        kind: str, side: str, effect: str = "open", offset: int = 0, week: int = 0
    ) -> OptionLeg:
        instrument = d.option(kind, offset=offset, expiration=chain.expiration_dates[week])
        return OptionLeg(instrument, Side(side), OptionPositionEffect(effect), 1)

    assert strategy([make("call", "buy"), make("call", "sell", offset=1)], closing=False) == (
        "long_call_spread"
    )
    assert strategy([make("put", "buy"), make("put", "sell", offset=-1)], closing=False) == (
        "long_put_spread"
    )
    assert strategy([make("call", "sell"), make("call", "buy", offset=1)], closing=False) == (
        "short_call_spread"
    )
    assert strategy([make("call", "buy"), make("call", "sell", week=1)], closing=False) == (
        "calendar_spread"
    )
    assert strategy([make("call", "sell"), make("put", "sell", offset=-1)], closing=False) == (
        "short_strangle"
    )
    three = [make("call", "buy"), make("put", "buy"), make("call", "buy", offset=1)]
    assert strategy(three, closing=False) == "custom"
    assert strategy([make("put", "buy", "close")], closing=True) == "short_put"
    assert strategy([make("put", "buy", "close")], closing=False) is None


def test_shares_covering_a_short_call_cannot_be_sold_on_the_equity_desk() -> None:
    d = build()
    d.give_shares("AAPL", 150)
    call = d.option("call")
    d.place_option(leg(call.id, "sell"), quantity="1", price="0.01")
    sell = {
        "account_number": d.number,
        "symbol": "AAPL",
        "side": "sell",
        "type": "market",
        "ref_id": "7d3c1f0e-9a4b-4c2d-8e6f-1a2b3c4d5e6f",
    }
    with pytest.raises(VenueError) as raised:
        d.equity.place({**sell, "quantity": "100"})
    assert (raised.value.code, raised.value.field) == ("INSUFFICIENT_SHARES", "quantity")
    assert d.equity.place({**sell, "quantity": "50"}).remaining == Decimal(50)


def test_closing_a_long_put_leaves_a_covered_calls_shares_as_they_were() -> None:
    d = build()
    d.give_shares("AAPL", 100)
    call, put = d.option("call"), d.option("put")
    d.place_option(leg(call.id, "sell"), quantity="1", price="0.01")
    d.buy_to_open(put)
    assert d.options.positions.quantity(d.number, call.id) == -1
    review = d.options.review(
        d.option_args(leg(put.id, "sell", "close"), quantity="1", price="0.01")
    )
    assert review.terms.collateral == 0
    assert d.options.free_shares(d.number, "AAPL") == 0
