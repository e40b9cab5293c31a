"""Equity tools: tradability, review, approvals, order listing, P&L arguments, real market."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from equity_tools_testkit import START, Harness, build_harness

from ordergate.core import SteppedClock
from ordergate.sandbox.venue import Venue
from ordergate.sandbox.venue._equity import EquityDesk, equity_desk
from ordergate.sandbox.venue._equity_wire import order_wire

REF = "0f4b8e7c-2d1a-4c3e-9b5f-6a7d8c9e0f1a"
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


def test_tradability_reports_listed_symbols_and_names_the_unknown_ones() -> None:
    h = build_harness()
    data = h.call(
        "get_equity_tradability",
        account_number=h.agentic.account_number,
        symbols=["aapl", "HALT", "BRK.A", "NOPE"],
    )
    by_symbol = {r["symbol"]: r for r in data["results"]}
    assert by_symbol["AAPL"]["tradeable"] is True
    assert by_symbol["AAPL"]["fractional_tradability"] == "tradable"
    assert by_symbol["HALT"]["tradeable"] is False
    assert by_symbol["BRK.A"]["fractional_tradability"] == "untradable"
    assert by_symbol["BRK.A"]["all_day_tradability"] == "untradable"
    assert data["not_found"] == ["NOPE"]


def test_tradability_answers_for_a_read_only_account_too() -> None:
    h = build_harness()
    data = h.call("get_equity_tradability", account_number=h.ira.account_number, symbols=["AAPL"])
    assert data["results"][0]["account_type_tradabilities"][0]["account_type"] == "cash"


@pytest.mark.parametrize("symbols", [[], None, [f"S{i}" for i in range(11)]])
def test_tradability_takes_one_to_ten_symbols(symbols: list[str] | None) -> None:
    h = build_harness()
    error = h.error(
        "get_equity_tradability", account_number=h.agentic.account_number, symbols=symbols
    )
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "symbols")


def test_review_places_nothing_and_returns_checks_quote_and_disclosure() -> None:
    h = build_harness()
    review = h.call(
        "review_equity_order",
        **h.order_args(symbol="AAPL", side="buy", type="limit", quantity="3", limit_price="199"),
    )
    assert review["symbol"] == "AAPL"
    assert review["limit_price"] == "199"
    assert review["order_checks"]["passed"] is True
    assert review["order_checks"]["estimated_cost"] == "597.00"
    assert review["order_checks"]["session"]["executable_now"] is True
    assert review["quote_data"]["ask_price"] == "200.01"
    assert review["market_data_disclosure"]
    assert review["customer_approval_required"] is False
    assert h.desk.orders(h.agentic.account_number) == []
    assert h.agentic.holds == {}


def test_review_of_a_stop_or_dollar_order_echoes_its_terms() -> None:
    h = build_harness()
    stop = h.call(
        "review_equity_order",
        **h.order_args(
            symbol="AAPL", side="buy", type="stop_market", quantity="1", stop_price="210"
        ),
    )
    assert stop["stop_price"] == "210"
    assert stop["order_checks"]["estimated_price"] == "220.50"  # the stop, collared 5%
    dollars = h.call(
        "review_equity_order",
        **h.order_args(symbol="AAPL", side="buy", type="market", dollar_amount="50.00"),
    )
    assert dollars["dollar_amount"] == "50.00"
    assert dollars["quantity"] == "0.25"


def test_review_on_a_saturday_warns_that_the_order_waits_for_the_open() -> None:
    h = build_harness(start=datetime(2026, 12, 5, 16, 0, tzinfo=UTC))
    review = h.call(
        "review_equity_order",
        **h.order_args(symbol="AAPL", side="buy", type="market", quantity="1"),
    )
    session = review["order_checks"]["session"]
    assert session["current"] == "closed"
    assert session["executable_now"] is False
    assert session["next_execution_at"] == "2026-12-07T14:30:00.000000Z"
    assert any("wait" in w for w in review["order_checks"]["warnings"])


def test_review_says_when_the_customer_must_approve() -> None:
    h = build_harness(approval_required=True)
    review = h.call(
        "review_equity_order",
        **h.order_args(symbol="AAPL", side="buy", type="market", quantity="1"),
    )
    assert review["customer_approval_required"] is True
    assert review["customer_approval_required_reason"]


def _approval(h: Harness, **extra: Any) -> dict[str, Any]:
    data = h.call(
        "place_equity_order",
        **h.order_args(
            symbol="AAPL", side="buy", type="limit", quantity="2", limit_price="198.50", **extra
        ),
    )
    assert "order" not in data
    approval: dict[str, Any] = data["approval"]
    return approval


def test_with_approval_on_place_returns_a_pending_approval_and_creates_no_order() -> None:
    h = build_harness(approval_required=True)
    approval = _approval(h, ref_id=REF)
    assert approval["account_number"] == h.agentic.account_number
    assert (approval["asset_class"], approval["state"], approval["is_edited"]) == (
        "equity",
        "pending",
        False,
    )
    proposed = approval["proposed_order"]
    assert proposed["symbol"] == "AAPL"
    assert (proposed["side"], proposed["order_type"], proposed["quantity"]) == ("buy", "limit", "2")
    assert proposed["limit_price"] == {"amount": "198.50", "currency_code": "USD"}
    assert TIMESTAMP.match(approval["created_at"])
    assert approval["expires_at"] > approval["created_at"]
    assert h.call("get_equity_orders", account_number=h.agentic.account_number)["orders"] == []
    assert h.agentic.holds == {}
    assert _approval(h, ref_id=REF)["approval_id"] == approval["approval_id"]
    assert len(h.desk.approvals(h.agentic.account_number)) == 1


def test_approval_of_a_sell_with_tax_lots_carries_them() -> None:
    h = build_harness()
    h.place(symbol="AAPL", side="buy", type="market", quantity="2")
    h.advance(2)
    h.agentic.human_must_approve_trades = True
    lot = h.desk.positions.lots(h.agentic.account_number, "AAPL")[0].lot_id
    data = h.call(
        "place_equity_order",
        **h.order_args(
            symbol="AAPL",
            side="sell",
            type="market",
            quantity="2",
            tax_lots=[{"open_lot_id": lot, "quantity": "2"}],
        ),
    )
    proposed = data["approval"]["proposed_order"]
    assert proposed["tax_lots"] == [{"open_lot_id": lot, "quantity": "2"}]
    assert "estimated_credit" in proposed


def _orders(h: Harness, **filters: Any) -> dict[str, Any]:
    return h.call("get_equity_orders", account_number=h.agentic.account_number, **filters)


def test_get_equity_orders_filters_by_id_state_symbol_time_and_agent() -> None:
    h = build_harness()
    aapl = h.place(symbol="AAPL", side="buy", type="market", quantity="1")
    h.advance(5)
    msft = h.place(symbol="MSFT", side="buy", type="limit", quantity="1", limit_price="300.00")
    h.advance(5)
    assert [o["id"] for o in _orders(h)["orders"]] == [msft["id"], aapl["id"]]
    assert [o["id"] for o in _orders(h, order_id=aapl["id"])["orders"]] == [aapl["id"]]
    assert [o["id"] for o in _orders(h, state="filled")["orders"]] == [aapl["id"]]
    assert [o["id"] for o in _orders(h, symbol="msft")["orders"]] == [msft["id"]]
    since = (START + timedelta(seconds=3)).isoformat()
    assert [o["id"] for o in _orders(h, created_at_gte=since)["orders"]] == [msft["id"]]
    assert len(_orders(h, created_at_gte="2026-12-01T15:00:00Z")["orders"]) == 2
    assert len(_orders(h, placed_agent="agentic")["orders"]) == 2
    assert _orders(h, placed_agent="user")["orders"] == []


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("state", "sleeping"),
        ("placed_agent", "robot"),
        ("created_at_gte", "yesterday"),
        ("created_at_gte", "2026-12-01T15:00:00"),
        ("cursor", "Zm9vOjE"),
    ],
)
def test_get_equity_orders_refuses_bad_filters_by_name(field: str, value: str) -> None:
    h = build_harness()
    error = h.error("get_equity_orders", account_number=h.agentic.account_number, **{field: value})
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


def test_get_equity_orders_pages_newest_first_with_next_and_cursor() -> None:
    h = build_harness()
    placed = [
        h.place(symbol="AAPL", side="buy", type="limit", quantity="1", limit_price="100.00")["id"]
        for _ in range(53)
    ]
    first = _orders(h)
    assert len(first["orders"]) == 50
    assert first["orders"][0]["id"] == placed[-1]
    h.place(symbol="AAPL", side="buy", type="limit", quantity="1", limit_price="100.00")
    second = _orders(h, cursor=first["next"])
    assert [o["id"] for o in second["orders"]] == placed[2::-1]
    assert "next" not in second


def test_wire_values_are_canonical_strings_and_utc_timestamps() -> None:
    h = build_harness()
    h.market.set("AAPL", "199.99", "200.01", last="200.00", size=1)
    order = h.place(symbol="AAPL", side="buy", type="market", quantity="2.500000")
    assert order["quantity"] == "2.5"
    h.advance(6)
    # Fractional orders take the displayed size too: 1, 1, 0.5.
    filled = h.order(order["id"])
    assert [e["quantity"] for e in filled["executions"]] == ["1", "1", "0.5"]
    for stamp in (
        filled["created_at"],
        filled["last_transaction_at"],
        *(e["timestamp"] for e in filled["executions"]),
    ):
        assert TIMESTAMP.match(stamp)
    for value in (filled["cumulative_quantity"], filled["average_price"], filled["fees"]):
        assert isinstance(value, str)
        assert "E" not in value
        Decimal(value)


def test_pnl_tools_take_the_rhs_account_number() -> None:
    h = build_harness()
    for name in ("get_realized_pnl", "get_pnl_trade_history"):
        wrong = h.error(name, account_number=h.agentic.account_number)
        assert (wrong["code"], wrong["field"]) == ("INVALID_ARGUMENT", "account_number")
        unknown = h.error(name, account_number="999")
        assert (unknown["code"], unknown["field"]) == ("NOT_FOUND", "account_number")
    empty = h.call("get_realized_pnl", account_number=h.agentic.rhs_account_number)
    assert empty["total_realized_pnl"] == "0.00"


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"span": "decade"}, "span"),
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"start_date": "12/01/2026"}, "start_date"),
        ({"end_date": "soon"}, "end_date"),
        ({"start_date": "2026-12-02", "end_date": "2026-12-01"}, "start_date"),
        ({"asset_classes": ["equity", "bonds"]}, "asset_classes[1]"),
        ({"display_currency": "EUR"}, "display_currency"),
    ],
)
def test_realized_pnl_refuses_bad_arguments_by_name(args: dict[str, Any], field: str) -> None:
    h = build_harness()
    error = h.error("get_realized_pnl", account_number=h.agentic.rhs_account_number, **args)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


def test_trade_history_and_tax_lots_page_fifty_at_a_time() -> None:
    h = build_harness()
    h.market.set("AAPL", "99.99", "100.01", last="100.00", size=1)
    h.place(symbol="AAPL", side="buy", type="limit", quantity="60", limit_price="100.01")
    h.advance(70)
    number = h.agentic.account_number
    lots = h.call("get_equity_tax_lots", account_number=number, symbol="AAPL")
    assert len(lots["tax_lots"]) == 50
    rest = h.call("get_equity_tax_lots", account_number=number, symbol="AAPL", cursor=lots["next"])
    assert len(rest["tax_lots"]) == 10
    assert "next" not in rest
    h.market.set("AAPL", "109.99", "110.01", last="110.00", size=1000)
    h.place(symbol="AAPL", side="sell", type="market", quantity="60")
    h.advance(2)
    rhs = h.agentic.rhs_account_number
    page = h.call("get_pnl_trade_history", account_number=rhs)
    assert len(page["trades"]) == 50
    more = h.call("get_pnl_trade_history", account_number=rhs, cursor=page["next"])
    assert len(more["trades"]) == 10
    error = h.error("get_pnl_trade_history", account_number=rhs, cursor=lots["next"])
    assert error["field"] == "cursor"


def test_tax_lots_of_an_unlisted_symbol_are_not_found() -> None:
    h = build_harness()
    error = h.error("get_equity_tax_lots", account_number=h.agentic.account_number, symbol="NOPE")
    assert (error["code"], error["field"]) == ("NOT_FOUND", "symbol")


def test_tools_report_unavailable_when_the_venue_runs_no_equity_desk() -> None:
    h = build_harness()
    h.venue.desks.clear()
    error = h.error("get_equity_orders", account_number=h.agentic.account_number)
    assert error["code"] == "UNAVAILABLE"


def _real_venue() -> Venue:
    venue = Venue(seed=3, clock=SteppedClock(start=START))
    venue.add_desk(EquityDesk(venue))
    return venue


def test_the_desk_trades_the_venues_seeded_market_by_default() -> None:
    venue = _real_venue()
    desk = equity_desk(venue)
    assert desk.listing("SIVBQ") is not None
    assert desk.listing("SIVBQ").tradeable is False  # type: ignore[union-attr]
    assert desk.listing("NOPE") is None
    account = venue.accounts.agentic.account_number
    placed = desk.place(
        {
            "account_number": account,
            "symbol": "AAPL",
            "side": "buy",
            "type": "market",
            "quantity": "1",
        }
    )
    assert isinstance(placed, object)
    clock = venue.clock
    assert isinstance(clock, SteppedClock)
    clock.advance(timedelta(seconds=2))
    venue.sync()
    [order] = desk.orders(account)
    [execution] = order.executions
    assert execution.price == venue.market.quote("AAPL", execution.timestamp).ask_price
    quote = desk.market.quote("AAPL", execution.timestamp)
    assert quote is not None
    assert quote.bid_size > 0


def test_review_of_a_sell_shows_the_expected_credit_and_fees() -> None:
    h = build_harness()
    h.place(symbol="AAPL", side="buy", type="market", quantity="10")
    h.advance(2)
    review = h.call(
        "review_equity_order",
        **h.order_args(symbol="AAPL", side="sell", type="market", quantity="10"),
    )
    checks = review["order_checks"]
    assert checks["estimated_credit"] == "1999.90"
    assert checks["estimated_fees"] == "0.07"
    assert any("fees" in w for w in checks["warnings"])


def test_positions_page_fifty_at_a_time() -> None:
    h = build_harness()
    for index in range(52):
        symbol = f"S{index:02d}"
        h.market.set(symbol, "9.99", "10.01", last="10.00")
        h.place(symbol=symbol, side="buy", type="market", quantity="1")
    h.advance(2)
    number = h.agentic.account_number
    first = h.call("get_equity_positions", account_number=number)
    assert [p["symbol"] for p in first["positions"]][:2] == ["S00", "S01"]
    assert len(first["positions"]) == 50
    rest = h.call("get_equity_positions", account_number=number, cursor=first["next"])
    assert [p["symbol"] for p in rest["positions"]] == ["S50", "S51"]
    assert rest["positions"][0]["market_value"] == "10.00"


def test_month_spans_end_on_the_same_day_clamped_to_the_shorter_month() -> None:
    h = build_harness(start=datetime(2026, 12, 31, 15, 0, tzinfo=UTC))
    rhs = h.agentic.rhs_account_number
    starts = {
        span: h.call("get_realized_pnl", account_number=rhs, span=span)["start_date"]
        for span in ("day", "week", "month", "3month", "ytd", "year", "all")
    }
    assert starts == {
        "day": "2026-12-31",
        "week": "2026-12-25",
        "month": "2026-11-30",
        "3month": "2026-09-30",
        "ytd": "2026-01-01",
        "year": "2025-12-31",
        "all": None,
    }


def test_on_the_seeded_market_a_big_order_fills_in_executions_no_bigger_than_the_ask_size() -> None:
    def run() -> list[dict[str, Any]]:
        venue = _real_venue()
        desk = equity_desk(venue)
        account = venue.accounts.agentic.account_number
        desk.place(
            {
                "account_number": account,
                "symbol": "F",
                "side": "buy",
                "type": "market",
                "quantity": "2000",
            }
        )
        clock = venue.clock
        assert isinstance(clock, SteppedClock)
        clock.advance(timedelta(seconds=2))
        venue.sync()
        [order] = desk.orders(account)
        assert order.state.value == "partially_filled"
        clock.advance(timedelta(minutes=5))
        venue.sync()
        assert order.state.value == "filled"
        for execution in order.executions:
            quote = venue.market.quote("F", execution.timestamp)
            assert execution.price == quote.ask_price
            assert execution.quantity <= quote.ask_size
        return [order_wire(o) for o in desk.orders(account)]

    assert run() == run()
