"""The crypto desk: 24/7 lifecycle, fills at the quote, increments, holdings and P&L."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from derivatives_testkit import REF, SATURDAY, START, Desks, build

from ordergate.core import CryptoTimeInForce, SteppedClock
from ordergate.sandbox.market import Tradability
from ordergate.sandbox.tools import VenueError
from ordergate.sandbox.venue import Venue
from ordergate.sandbox.venue._crypto import crypto_desk, expires_at
from ordergate.sandbox.venue._crypto_rules import check_crypto_terms


def _buy(d: Desks, symbol: str = "ETH-USD", quantity: str = "2") -> dict[str, object]:
    order = d.place_crypto(symbol=symbol, side="buy", type="market", quantity=quantity)
    d.advance(2)
    filled = d.crypto_order(str(order["id"]))
    assert filled["state"] == "filled", filled
    return filled


def test_a_market_buy_on_a_saturday_confirms_after_a_second_and_fills_at_the_ask() -> None:
    d = build(start=SATURDAY)
    order = d.place_crypto(symbol="ETH-USD", side="buy", type="market", quantity="2")
    assert order["state"] == "queued"
    assert d.agentic.holds
    d.advance(1)
    assert d.crypto_order(order["id"])["state"] == "confirmed"
    d.advance(1)
    ask = d.venue.market.crypto_quote("ETH-USD").ask_price
    filled = d.crypto_order(order["id"])
    assert filled["state"] == "filled"
    assert filled["executions"][0]["price"] == str(ask)
    assert filled["average_price"] == str(ask)
    assert d.agentic.cash == Decimal("100000.00") - ask * 2
    assert d.agentic.holds == {}
    assert d.crypto.holdings.quantity(d.number, "ETH") == 2


def test_a_limit_buy_below_the_ask_rests_until_the_price_falls_through_it() -> None:
    d = build(start=SATURDAY)
    ask = d.venue.market.crypto_quote("BTC-USD").ask_price
    limit = (ask * Decimal("0.97")).quantize(Decimal("0.01"))
    order = d.place_crypto(
        symbol="BTC", side="buy", type="limit", quantity="0.1", limit_price=str(limit)
    )
    assert order["symbol"] == "BTC-USD"
    d.advance(minutes=5)
    assert d.crypto_order(order["id"])["state"] == "confirmed"
    d.venue.market.shock("BTC-USD", Decimal(-5))
    d.advance(2)
    filled = d.crypto_order(order["id"])
    assert filled["state"] == "filled"
    assert Decimal(filled["executions"][0]["price"]) <= limit


def test_a_big_order_fills_over_several_looks_and_reads_partially_filled_between() -> None:
    d = build(start=SATURDAY)
    order = d.place_crypto(symbol="BTC-USD", side="buy", type="market", quantity="0.6")
    d.advance(2)
    partial = d.crypto_order(order["id"])
    assert partial["state"] == "partially_filled"
    assert Decimal(partial["cumulative_quantity"]) < Decimal("0.6")
    d.advance(3)
    filled = d.crypto_order(order["id"])
    assert filled["state"] == "filled"
    assert len(filled["executions"]) == 3
    assert filled["cumulative_quantity"] == "0.6"


def test_a_stop_loss_sell_waits_for_the_mark_to_fall_through_its_stop() -> None:
    d = build(start=SATURDAY)
    _buy(d)
    mark = d.venue.market.crypto_quote("ETH-USD").mark_price
    stop = (mark * Decimal("0.95")).quantize(Decimal("0.01"))
    order = d.place_crypto(
        symbol="ETH-USD", side="sell", type="stop_loss", quantity="2", stop_price=str(stop)
    )
    d.advance(minutes=1)
    assert d.crypto_order(order["id"])["state"] == "confirmed"
    d.venue.market.shock("ETH-USD", Decimal(-10))
    d.advance(2)
    sold = d.crypto_order(order["id"])
    assert sold["state"] == "filled"
    trade = d.crypto.closed_trades(d.number)[0]
    assert (trade.asset_class, trade.symbol, trade.quantity) == ("crypto", "ETH", 2)
    assert trade.realized_pnl < 0


def test_a_stop_limit_buy_triggers_on_the_mark_and_then_works_as_a_limit() -> None:
    d = build(start=SATURDAY)
    mark = d.venue.market.crypto_quote("SOL-USD").mark_price
    stop = (mark * Decimal("1.02")).quantize(Decimal("0.001"))
    limit = (mark * Decimal("1.10")).quantize(Decimal("0.001"))
    order = d.place_crypto(
        symbol="SOL-USD",
        side="buy",
        type="stop_limit",
        quantity="1",
        stop_price=str(stop),
        limit_price=str(limit),
    )
    d.advance(minutes=1)
    assert d.crypto_order(order["id"])["state"] == "confirmed"
    d.venue.market.shock("SOL-USD", Decimal(5))
    d.advance(2)
    assert d.crypto_order(order["id"])["state"] == "filled"


def test_selling_more_than_is_held_net_of_open_sells_is_refused() -> None:
    d = build(start=SATURDAY)
    _buy(d)
    d.place_crypto(symbol="ETH-USD", side="sell", type="limit", quantity="1.5", limit_price="9999")
    with pytest.raises(VenueError) as raised:
        d.crypto.preview(d.crypto_args(symbol="ETH-USD", side="sell", type="market", quantity="1"))
    assert (raised.value.code, raised.value.field) == ("INSUFFICIENT_HOLDINGS", "quantity")


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"quantity": "0.0000001"}, "quantity"),
        ({"quantity": "0.000001"}, "quantity"),
        ({"quantity": "600"}, "quantity"),
        ({"type": "limit", "quantity": "1", "limit_price": "100.001"}, "limit_price"),
        ({"type": "limit", "quantity": "1"}, "limit_price"),
        ({"quantity": "1", "stop_price": "100"}, "stop_price"),
        ({"type": "stop_loss", "quantity": "1"}, "stop_price"),
        ({"quantity": "1", "limit_price": "100"}, "limit_price"),
        ({"quantity": "1", "dollar_amount": "10"}, "quantity"),
        ({}, "quantity"),
        ({"quantity": "abc"}, "quantity"),
        ({"quantity": "-1"}, "quantity"),
        ({"dollar_amount": "10.001"}, "dollar_amount"),
        ({"dollar_amount": "0.50"}, "dollar_amount"),
        ({"type": "limit", "dollar_amount": "10", "limit_price": "100"}, "dollar_amount"),
        ({"quantity": "1", "side": "hold"}, "side"),
        ({"quantity": "1", "type": "trailing"}, "type"),
        ({"quantity": "1", "time_in_force": "ioc"}, "time_in_force"),
        ({"quantity": "1", "tax_lots": [{"open_lot_id": "x", "quantity": "1"}]}, "tax_lots"),
    ],
)
def test_terms_outside_the_pairs_rules_are_refused_naming_the_field(
    args: dict[str, object], field: str
) -> None:
    d = build(start=SATURDAY)
    request: dict[str, object] = {"symbol": "ETH-USD", "side": "buy", "type": "market"}
    request.update(args)
    with pytest.raises(VenueError) as raised:
        d.crypto.preview(d.crypto_args(**request))
    assert (raised.value.code, raised.value.field) == ("INVALID_ARGUMENT", field)


def test_an_unknown_pair_is_not_found() -> None:
    d = build(start=SATURDAY)
    with pytest.raises(VenueError) as raised:
        d.crypto.preview(d.crypto_args(symbol="NOPE", side="buy", type="market", quantity="1"))
    assert (raised.value.code, raised.value.field) == ("NOT_FOUND", "symbol")


def test_a_dollar_amount_buys_units_rounded_down_to_the_asset_increment() -> None:
    d = build(start=SATURDAY)
    preview = d.crypto.preview(
        d.crypto_args(symbol="DOGE-USD", side="buy", type="market", dollar_amount="10.00")
    )
    ask = d.venue.market.crypto_quote("DOGE-USD").ask_price
    expected = (Decimal("10.00") / ask).quantize(Decimal("0.01"), rounding="ROUND_FLOOR")
    assert preview.terms.quantity == expected


def test_cancelling_reads_canceled_and_releases_the_hold() -> None:
    d = build(start=SATURDAY)
    order = d.place_crypto(
        symbol="ETH-USD", side="buy", type="limit", quantity="1", limit_price="100.00"
    )
    d.advance(5)
    d.crypto.cancel(d.rhs, order["id"])
    assert d.crypto_order(order["id"])["state"] == "canceled"
    assert d.agentic.holds == {}
    with pytest.raises(VenueError) as raised:
        d.crypto.cancel(d.rhs, order["id"])
    assert raised.value.code == "ORDER_NOT_CANCELLABLE"


def test_a_gfd_order_is_canceled_at_midnight_in_new_york() -> None:
    d = build(start=SATURDAY)
    order = d.place_crypto(
        symbol="ETH-USD",
        side="buy",
        type="limit",
        quantity="1",
        limit_price="100.00",
        time_in_force="gfd",
    )
    d.set_time(datetime(2026, 12, 6, 5, 0, 1, tzinfo=UTC))
    ended = d.crypto_order(order["id"])
    assert ended["state"] == "canceled"
    assert ended["updated_at"] == "2026-12-06T05:00:00.000000Z"


def test_time_in_force_sets_when_an_order_stops_working() -> None:
    placed = datetime(2026, 12, 30, 12, 0, tzinfo=UTC)  # a Wednesday
    assert expires_at(CryptoTimeInForce.GTC, placed) is None
    assert expires_at(CryptoTimeInForce.GFD, placed) == datetime(2026, 12, 31, 5, tzinfo=UTC)
    assert expires_at(CryptoTimeInForce.GFW, placed) == datetime(2027, 1, 4, 5, tzinfo=UTC)
    assert expires_at(CryptoTimeInForce.GFM, placed) == datetime(2027, 1, 1, 5, tzinfo=UTC)
    june = datetime(2026, 6, 10, 12, 0, tzinfo=UTC)
    assert expires_at(CryptoTimeInForce.GFM, june) == datetime(2026, 7, 1, 4, tzinfo=UTC)


def test_the_forced_rejection_fault_rejects_a_crypto_order_and_counts_down() -> None:
    d = build(start=SATURDAY)
    d.venue.faults.update({"reject_orders": 1})
    order = d.place_crypto(symbol="ETH-USD", side="buy", type="market", quantity="1")
    assert d.venue.faults.reject_orders == 0
    d.advance(2)
    rejected = d.crypto_order(order["id"])
    assert rejected["state"] == "rejected"
    assert rejected["reject_reason"] == d.venue.faults.reject_reason
    assert d.agentic.holds == {}


def test_buying_beyond_the_shared_cash_is_refused() -> None:
    d = build(start=SATURDAY, cash=Decimal("1000.00"))
    with pytest.raises(VenueError) as raised:
        d.crypto.place(d.crypto_args(symbol="ETH-USD", side="buy", type="market", quantity="1"))
    assert raised.value.code == "INSUFFICIENT_BUYING_POWER"


def test_placing_twice_with_one_ref_id_returns_the_same_order() -> None:
    d = build(start=SATURDAY)
    args = d.crypto_args(symbol="ETH-USD", side="buy", type="market", quantity="1", ref_id=REF)
    first = d.crypto.place(args)
    assert d.crypto.place(args) is first
    with pytest.raises(VenueError) as raised:
        d.crypto.place({**args, "ref_id": "not-a-uuid"})
    assert raised.value.field == "ref_id"


def test_crypto_value_and_realized_pnl_come_from_average_cost() -> None:
    d = build(start=SATURDAY)
    first = _buy(d, quantity="1")
    d.advance(minutes=30)
    second = _buy(d, quantity="1")
    cost = Decimal(str(first["executed_notional"])) + Decimal(str(second["executed_notional"]))
    mark = d.venue.market.crypto_quote("ETH-USD").mark_price
    assert d.crypto.portfolio_values(d.number) == {
        "crypto_value": (mark * 2).quantize(Decimal("0.01"))
    }
    sell = d.place_crypto(symbol="ETH-USD", side="sell", type="market", quantity="0.5")
    d.advance(2)
    sold = d.crypto_order(sell["id"])
    trade = d.crypto.closed_trades(d.number)[0]
    assert trade.cost_basis == (cost / 4).quantize(Decimal("0.01"))
    assert trade.proceeds == Decimal(sold["executed_notional"])
    holding = d.crypto.holdings.get(d.number, "ETH")
    assert holding is not None and holding.cost == cost - trade.cost_basis


def test_crypto_orders_work_on_weekdays_too_and_share_cash_with_other_desks() -> None:
    d = build(start=START)
    before = d.agentic.cash
    filled = _buy(d, quantity="1")
    assert d.agentic.cash == before - Decimal(str(filled["executed_notional"]))


def test_a_read_only_account_cannot_trade_crypto() -> None:
    d = build(start=SATURDAY)
    with pytest.raises(VenueError) as raised:
        d.crypto.place(
            {
                "rhs_account_number": d.ira.rhs_account_number,
                "symbol": "ETH-USD",
                "side": "buy",
                "type": "market",
                "quantity": "1",
            }
        )
    assert raised.value.code == "ACCOUNT_NOT_AGENTIC"


def test_a_week_long_clock_jump_costs_a_bounded_number_of_looks() -> None:
    d = build(start=SATURDAY)
    order = d.place_crypto(
        symbol="ETH-USD", side="buy", type="limit", quantity="1", limit_price="100.00"
    )
    d.advance(days=7)
    assert d.crypto_order(order["id"])["state"] == "confirmed"
    d.advance(timedelta(hours=1).seconds)
    assert d.crypto_order(order["id"])["state"] == "confirmed"


def test_crypto_desk_is_unavailable_on_a_venue_without_one() -> None:
    with pytest.raises(VenueError) as raised:
        crypto_desk(Venue(seed=1, clock=SteppedClock(start=START)))
    assert raised.value.code == "UNAVAILABLE"


def test_a_market_buy_rests_while_the_ask_is_above_its_collared_price() -> None:
    d = build(start=SATURDAY)
    order = d.place_crypto(symbol="ETH-USD", side="buy", type="market", quantity="1")
    d.venue.market.shock("ETH-USD", Decimal(10))
    d.advance(5)
    assert d.crypto_order(order["id"])["state"] == "confirmed"


def test_cancelling_an_unknown_order_is_not_found() -> None:
    d = build(start=SATURDAY)
    with pytest.raises(VenueError) as raised:
        d.crypto.cancel(d.rhs, "nope")
    assert (raised.value.code, raised.value.field) == ("NOT_FOUND", "order_id")


def test_an_untradable_pair_is_refused() -> None:
    d = build(start=SATURDAY)
    pair = dataclasses.replace(
        d.venue.market.universe.crypto_pair("ETH-USD"), tradability=Tradability.UNTRADABLE
    )
    with pytest.raises(VenueError) as raised:
        check_crypto_terms(
            {"symbol": "ETH-USD", "side": "buy", "type": "market", "quantity": "1"},
            account_number=d.number,
            rhs_account_number=d.rhs,
            pair_of=lambda symbol: pair,
            quote_of=lambda p: d.venue.market.crypto_quote("ETH-USD"),
            sellable=lambda p: Decimal(0),
        )
    assert raised.value.code == "SYMBOL_NOT_TRADEABLE"


def test_holdings_refuse_to_sell_more_than_they_hold_and_cost_nothing_when_empty() -> None:
    d = build(start=SATURDAY)
    _buy(d, quantity="1")
    holding = d.crypto.holdings.get(d.number, "ETH")
    assert holding is not None
    pair = holding.pair
    with pytest.raises(ValueError):
        d.crypto.holdings.sell(
            account_number=d.number,
            pair=pair,
            quantity=Decimal(2),
            price=Decimal(1),
            notional=Decimal(2),
            at=SATURDAY,
            order_id="o",
            execution_id="e",
            trade_id="t",
        )
    holding.quantity = Decimal(0)
    assert holding.average_cost == 0


def test_the_same_seed_steps_and_calls_give_the_same_orders() -> None:
    def run() -> list[dict[str, object]]:
        d = build(seed=7, start=SATURDAY)
        _buy(d, symbol="BTC-USD", quantity="0.2")
        d.place_crypto(symbol="BTC-USD", side="sell", type="market", quantity="0.1")
        d.advance(5)
        return list(d.call("get_crypto_orders", rhs_account_number=d.rhs)["orders"])

    assert run() == run()
