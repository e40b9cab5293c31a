"""Equity orders move through their states asynchronously as venue time passes."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from equity_testkit import START, build_harness

from ordergate.core import to_wire

REF = "7b0c7b4e-8a44-4a36-9a43-4d6f3c4b8a11"


def test_market_buy_is_queued_then_confirmed_after_a_second_then_filled_at_the_ask() -> None:
    h = build_harness()
    order = h.place(symbol="AAPL", side="buy", type="market", quantity="10", ref_id=REF)
    assert order["state"] == "queued"
    assert order["placed_agent"] == "agentic"
    assert order["executions"] == []
    assert order["average_price"] is None
    h.advance(1)
    assert h.order(order["id"])["state"] == "confirmed"
    h.advance(1)
    filled = h.order(order["id"])
    assert filled["state"] == "filled"
    assert filled["cumulative_quantity"] == "10"
    assert filled["average_price"] == "200.01"
    [execution] = filled["executions"]
    assert execution["price"] == "200.01"
    assert execution["quantity"] == "10"
    assert execution["timestamp"] == "2026-12-01T15:00:02.000000Z"
    assert execution["fees"] == "0.00"
    assert filled["last_transaction_at"] == execution["timestamp"]
    assert h.agentic.cash == Decimal("100000.00") - Decimal("2000.10")
    assert h.agentic.holds == {}


def test_same_ref_id_returns_the_same_order_and_places_no_second_order() -> None:
    h = build_harness()
    first = h.place(symbol="AAPL", side="buy", type="market", quantity="1", ref_id=REF)
    h.advance(5)
    again = h.place(symbol="AAPL", side="buy", type="market", quantity="1", ref_id=REF.upper())
    assert again["id"] == first["id"]
    assert again["state"] == "filled"
    orders = h.call("get_equity_orders", account_number=h.agentic.account_number)["orders"]
    assert len(orders) == 1


def test_non_uuid_ref_id_is_refused_naming_ref_id() -> None:
    h = build_harness()
    error = h.error(
        "place_equity_order",
        **h.order_args(symbol="AAPL", side="buy", type="market", quantity="1", ref_id="retry-1"),
    )
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "ref_id")


def test_order_bigger_than_the_displayed_size_fills_in_several_executions() -> None:
    h = build_harness()
    h.market.set("AAPL", "199.99", "200.01", last="200.00", size=30)
    order = h.place(symbol="AAPL", side="buy", type="market", quantity="100")
    h.advance(2)
    first = h.order(order["id"])
    assert first["state"] == "partially_filled"
    assert first["cumulative_quantity"] == "30"
    h.market.set("AAPL", "200.09", "200.11", last="200.10", size=30)
    h.advance(1)
    assert h.order(order["id"])["cumulative_quantity"] == "60"
    h.advance(2)
    done = h.order(order["id"])
    assert done["state"] == "filled"
    assert [e["quantity"] for e in done["executions"]] == ["30", "30", "30", "10"]
    assert [e["price"] for e in done["executions"]] == ["200.01", "200.11", "200.11", "200.11"]
    assert len({e["id"] for e in done["executions"]}) == 4
    expected = (Decimal("200.01") * 30 + Decimal("200.11") * 70) / 100
    assert Decimal(done["average_price"]) == expected.quantize(Decimal("0.0001"))
    lots = h.call("get_equity_tax_lots", account_number=h.agentic.account_number, symbol="AAPL")
    assert [lot["quantity"] for lot in lots["tax_lots"]] == ["30", "30", "30", "10"]


def test_resting_limit_buy_fills_only_once_the_ask_reaches_the_limit_at_the_ask() -> None:
    h = build_harness()
    order = h.place(symbol="AAPL", side="buy", type="limit", quantity="5", limit_price="195.00")
    assert order["price"] == "195.00"
    assert order["type"] == "limit"
    h.advance(60)
    assert h.order(order["id"])["state"] == "confirmed"
    h.market.set("AAPL", "194.40", "194.50", last="194.45")
    h.advance(1)
    filled = h.order(order["id"])
    assert filled["state"] == "filled"
    assert filled["executions"][0]["price"] == "194.50"


def test_limit_sell_fills_once_the_bid_reaches_the_limit_and_pays_regulatory_fees() -> None:
    h = build_harness()
    h.place(symbol="AAPL", side="buy", type="market", quantity="10")
    h.advance(2)
    cash_before = h.agentic.cash
    sell = h.place(symbol="AAPL", side="sell", type="limit", quantity="10", limit_price="205.00")
    h.advance(30)
    assert h.order(sell["id"])["state"] == "confirmed"
    h.market.set("AAPL", "206.00", "206.02", last="206.01")
    h.advance(1)
    filled = h.order(sell["id"])
    assert filled["state"] == "filled"
    assert filled["executions"][0]["price"] == "206.00"
    assert filled["fees"] == "0.07"  # SEC 0.06 (2060 × 0.0000278, rounded up) + TAF 0.01
    assert h.agentic.cash == cash_before + Decimal("2060.00") - Decimal("0.07")


def test_stop_market_sell_triggers_when_last_falls_to_the_stop_then_sells_at_the_bid() -> None:
    h = build_harness()
    h.place(symbol="AAPL", side="buy", type="market", quantity="4")
    h.advance(2)
    stop = h.place(symbol="AAPL", side="sell", type="stop_market", quantity="4", stop_price="190")
    assert (stop["type"], stop["trigger"], stop["stop_price"]) == ("market", "stop", "190")
    h.market.set("AAPL", "190.50", "190.60", last="190.55")
    h.advance(10)
    assert h.order(stop["id"])["state"] == "confirmed"
    h.market.set("AAPL", "189.90", "190.00", last="189.95")
    h.advance(1)
    filled = h.order(stop["id"])
    assert filled["state"] == "filled"
    assert filled["executions"][0]["price"] == "189.90"


def test_stop_limit_buy_triggers_on_the_stop_then_waits_for_its_limit() -> None:
    h = build_harness()
    order = h.place(
        symbol="AAPL",
        side="buy",
        type="stop_limit",
        quantity="2",
        stop_price="210.00",
        limit_price="211.00",
    )
    assert (order["type"], order["trigger"], order["price"]) == ("limit", "stop", "211.00")
    h.market.set("AAPL", "211.50", "212.00", last="211.80")  # triggered, above the limit
    h.advance(5)
    assert h.order(order["id"])["state"] == "confirmed"
    h.market.set("AAPL", "209.00", "209.10", last="209.05")  # back under the stop: still live
    h.advance(5)
    filled = h.order(order["id"])
    assert filled["state"] == "filled"
    assert filled["executions"][0]["price"] == "209.10"


def test_untriggered_stop_does_not_fill_even_when_the_market_is_open() -> None:
    h = build_harness()
    order = h.place(symbol="AAPL", side="buy", type="stop_market", quantity="2", stop_price="220")
    h.advance(60)
    assert h.order(order["id"])["state"] == "confirmed"
    h.market.set("AAPL", "220.00", "220.02", last="220.01")
    h.advance(1)
    assert h.order(order["id"])["state"] == "filled"


def test_gfd_order_still_open_at_the_close_is_cancelled_at_the_close() -> None:
    h = build_harness()
    order = h.place(symbol="AAPL", side="buy", type="limit", quantity="5", limit_price="150.00")
    assert h.agentic.buying_power == Decimal("100000.00") - Decimal("750.00")
    h.set_time(datetime(2026, 12, 1, 22, 0, tzinfo=UTC))
    expired = h.order(order["id"])
    assert expired["state"] == "cancelled"
    assert expired["last_transaction_at"] == "2026-12-01T21:00:00.000000Z"  # 16:00 New York
    assert h.agentic.holds == {}


def test_gtc_order_survives_the_close_and_fills_the_next_day() -> None:
    h = build_harness()
    order = h.place(
        symbol="AAPL",
        side="buy",
        type="limit",
        quantity="5",
        limit_price="150.00",
        time_in_force="gtc",
    )
    h.set_time(datetime(2026, 12, 2, 14, 0, tzinfo=UTC))  # 09:00 Wednesday, before the open
    assert h.order(order["id"])["state"] == "confirmed"
    h.market.set("AAPL", "149.00", "149.50", last="149.20")
    h.advance(minutes=29)
    assert h.order(order["id"])["state"] == "confirmed"  # pre-market: regular_hours waits
    h.advance(minutes=2)
    filled = h.order(order["id"])
    assert filled["state"] == "filled"
    assert filled["executions"][0]["timestamp"] == "2026-12-02T14:30:00.000000Z"


def test_market_order_placed_on_a_saturday_waits_for_the_monday_open() -> None:
    saturday = datetime(2026, 12, 5, 16, 0, tzinfo=UTC)
    h = build_harness(start=saturday)
    order = h.place(symbol="AAPL", side="buy", type="market", quantity="3")
    h.set_time(datetime(2026, 12, 7, 14, 29, tzinfo=UTC))  # Monday 09:29 New York
    assert h.order(order["id"])["state"] == "queued"
    h.set_time(datetime(2026, 12, 7, 14, 31, tzinfo=UTC))
    filled = h.order(order["id"])
    assert filled["state"] == "filled"
    # Confirmed a second after the open, looked at a second after that.
    assert filled["executions"][0]["timestamp"] == "2026-12-07T14:30:02.000000Z"


def test_extended_hours_limit_order_fills_after_the_close() -> None:
    after_hours = datetime(2026, 12, 1, 22, 0, tzinfo=UTC)  # 17:00 New York
    h = build_harness(start=after_hours)
    order = h.place(
        symbol="AAPL",
        side="buy",
        type="limit",
        quantity="2",
        limit_price="201.00",
        market_hours="extended_hours",
    )
    h.advance(2)
    filled = h.order(order["id"])
    assert filled["state"] == "filled"
    assert filled["market_hours"] == "extended_hours"


def test_extended_hours_gfd_order_expires_at_the_end_of_after_hours() -> None:
    h = build_harness()
    order = h.place(
        symbol="AAPL",
        side="buy",
        type="limit",
        quantity="2",
        limit_price="100.00",
        market_hours="extended_hours",
    )
    h.set_time(datetime(2026, 12, 1, 21, 30, tzinfo=UTC))
    assert h.order(order["id"])["state"] == "confirmed"
    h.set_time(datetime(2026, 12, 2, 2, 0, tzinfo=UTC))
    expired = h.order(order["id"])
    assert expired["state"] == "cancelled"
    assert expired["last_transaction_at"] == "2026-12-02T01:00:00.000000Z"  # 20:00 New York


def test_all_day_limit_order_can_fill_overnight() -> None:
    overnight = datetime(2026, 12, 2, 3, 0, tzinfo=UTC)  # Tuesday 22:00 New York
    h = build_harness(start=overnight)
    order = h.place(
        symbol="AAPL",
        side="buy",
        type="limit",
        quantity="1",
        limit_price="201.00",
        market_hours="all_day_hours",
    )
    h.advance(2)
    assert h.order(order["id"])["state"] == "filled"


def test_market_buy_does_not_pay_above_the_collar_it_was_held_at() -> None:
    h = build_harness()
    order = h.place(symbol="AAPL", side="buy", type="market", quantity="1")
    assert h.agentic.holds[f"equity:{order['id']}"] == Decimal("210.02")  # 200.01 × 1.05
    h.market.set("AAPL", "220.00", "220.02", last="220.01")
    h.advance(30)
    assert h.order(order["id"])["state"] == "confirmed"
    h.market.set("AAPL", "209.00", "209.02", last="209.01")
    h.advance(1)
    assert h.order(order["id"])["executions"][0]["price"] == "209.02"


def test_dollar_amount_order_computes_shares_from_the_last_trade_price() -> None:
    h = build_harness()
    h.market.set("AAPL", "299.99", "300.01", last="300.00")
    order = h.place(symbol="AAPL", side="buy", type="market", dollar_amount="100.00")
    assert order["quantity"] == "0.333333"
    assert order["dollar_based_amount"] == {"amount": "100.00", "currency_code": "USD"}
    h.advance(2)
    filled = h.order(order["id"])
    assert filled["state"] == "filled"
    assert filled["cumulative_quantity"] == "0.333333"


def test_buy_holds_buying_power_until_it_fills() -> None:
    h = build_harness()
    h.market.set("AAPL", "199.99", "200.01", last="200.00", size=5)
    h.place(symbol="AAPL", side="buy", type="limit", quantity="10", limit_price="200.50")
    assert h.agentic.buying_power == Decimal("100000.00") - Decimal("2005.00")
    h.advance(2)
    # 5 filled at 200.01 (cash), 5 still held at the limit price.
    assert h.agentic.cash == Decimal("100000.00") - Decimal("1000.05")
    assert h.agentic.buying_power == h.agentic.cash - Decimal("1002.50")
    h.advance(1)
    assert h.agentic.holds == {}


def test_cancel_of_an_open_order_is_accepted_and_releases_its_hold() -> None:
    h = build_harness()
    order = h.place(symbol="AAPL", side="buy", type="limit", quantity="5", limit_price="150.00")
    number = h.agentic.account_number
    result = h.call("cancel_equity_order", account_number=number, order_id=order["id"])
    assert result == {"accepted": True}
    assert h.order(order["id"])["state"] == "cancelled"
    assert h.agentic.buying_power == h.agentic.cash == Decimal("100000.00")
    h.advance(5)
    assert h.order(order["id"])["state"] == "cancelled"


def test_cancel_after_a_partial_fill_leaves_partially_filled_rest_cancelled() -> None:
    h = build_harness()
    h.market.set("AAPL", "199.99", "200.01", last="200.00", size=4)
    order = h.place(symbol="AAPL", side="buy", type="market", quantity="10")
    h.advance(2)
    number = h.agentic.account_number
    h.call("cancel_equity_order", account_number=number, order_id=order["id"])
    done = h.order(order["id"])
    assert done["state"] == "partially_filled_rest_cancelled"
    assert done["cumulative_quantity"] == "4"
    assert h.agentic.holds == {}


def test_cancel_of_a_finished_order_is_refused_as_not_cancellable() -> None:
    h = build_harness()
    order = h.place(symbol="AAPL", side="buy", type="market", quantity="1")
    h.advance(2)
    number = h.agentic.account_number
    error = h.error("cancel_equity_order", account_number=number, order_id=order["id"])
    assert error["code"] == "ORDER_NOT_CANCELLABLE"


def test_cancel_of_an_unknown_order_is_not_found() -> None:
    h = build_harness()
    number = h.agentic.account_number
    error = h.error("cancel_equity_order", account_number=number, order_id="nope")
    assert (error["code"], error["field"]) == ("NOT_FOUND", "order_id")


def test_forced_rejection_rejects_the_next_orders_at_confirmation_with_the_reason() -> None:
    h = build_harness()
    h.venue.faults.update({"reject_orders": 2, "reject_reason": "Halted by test."})
    first = h.place(symbol="AAPL", side="buy", type="market", quantity="1")
    second = h.place(symbol="AAPL", side="buy", type="market", quantity="1")
    third = h.place(symbol="AAPL", side="buy", type="market", quantity="1")
    assert first["state"] == "queued"
    assert "reject_reason" not in first
    h.advance(1)
    for order in (first, second):
        rejected = h.order(order["id"])
        assert rejected["state"] == "rejected"
        assert rejected["reject_reason"] == "Halted by test."
    h.advance(1)
    assert h.order(third["id"])["state"] == "filled"
    assert h.venue.faults.reject_orders == 0
    assert h.agentic.holds == {}


def test_same_seed_same_steps_same_calls_give_identical_results() -> None:
    def run() -> list[dict[str, object]]:
        h = build_harness(seed=7)
        h.market.set("AAPL", "199.99", "200.01", last="200.00", size=3)
        h.place(symbol="AAPL", side="buy", type="market", quantity="7")
        h.place(symbol="MSFT", side="buy", type="limit", quantity="2", limit_price="399.00")
        h.advance(3)
        h.market.set("MSFT", "398.00", "398.50", last="398.20")
        h.advance(10)
        orders: list[dict[str, object]] = h.call(
            "get_equity_orders", account_number=h.agentic.account_number
        )["orders"]
        return orders

    assert run() == run()


def test_long_clock_jump_is_covered_without_missing_the_fills() -> None:
    h = build_harness()
    h.market.set("AAPL", "199.99", "200.01", last="200.00", size=1)
    order = h.place(
        symbol="AAPL",
        side="buy",
        type="limit",
        quantity="20",
        limit_price="201",
        time_in_force="gtc",
    )
    h.set_time(START.replace(day=8))
    filled = h.order(order["id"])
    assert filled["state"] == "filled"
    assert len(filled["executions"]) == 20
    assert to_wire(h.desk.positions.quantity(h.agentic.account_number, "AAPL")) == "20"


def test_order_stays_queued_until_a_full_second_has_passed() -> None:
    h = build_harness()
    order = h.place(symbol="AAPL", side="buy", type="market", quantity="1")
    h.advance(milliseconds=500)
    assert h.order(order["id"])["state"] == "queued"
    h.advance(milliseconds=500)
    assert h.order(order["id"])["state"] == "confirmed"


def test_nothing_fills_while_the_book_shows_no_size() -> None:
    h = build_harness()
    h.market.set("AAPL", "199.99", "200.01", last="200.00", size=0)
    order = h.place(symbol="AAPL", side="buy", type="market", quantity="1")
    h.advance(30)
    assert h.order(order["id"])["state"] == "confirmed"
    h.market.set("AAPL", "199.99", "200.01", last="200.00", size=5)
    h.advance(1)
    assert h.order(order["id"])["state"] == "filled"


def test_gfd_order_placed_in_the_last_second_expires_no_earlier_than_its_confirmation() -> None:
    h = build_harness(start=datetime(2026, 12, 1, 20, 59, 59, 500000, tzinfo=UTC))
    order = h.place(symbol="AAPL", side="buy", type="limit", quantity="1", limit_price="150.00")
    h.advance(5)
    expired = h.order(order["id"])
    assert expired["state"] == "cancelled"
    assert expired["last_transaction_at"] == "2026-12-01T21:00:00.500000Z"
