"""Order requests that break Robinhood's equity rules are refused, naming the field at fault."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from equity_testkit import Harness, build_harness

from ordergate.sandbox.tools import VenueError
from ordergate.sandbox.venue._equity_paging import decode_cursor

BUY = {"symbol": "AAPL", "side": "buy", "type": "market", "quantity": "1"}

REFUSALS: list[tuple[str, dict[str, Any], str, str]] = [
    ("unknown symbol", {"symbol": "ZZZZ"}, "NOT_FOUND", "symbol"),
    ("untradeable symbol", {"symbol": "HALT"}, "SYMBOL_NOT_TRADEABLE", "symbol"),
    ("side spelled wrong", {"side": "short"}, "INVALID_ARGUMENT", "side"),
    ("unknown type", {"type": "trailing_stop"}, "INVALID_ARGUMENT", "type"),
    ("no quantity nor amount", {"quantity": None}, "INVALID_ARGUMENT", "quantity"),
    ("both quantity and amount", {"dollar_amount": "10.00"}, "INVALID_ARGUMENT", "quantity"),
    (
        "dollar amount on a limit order",
        {"quantity": None, "dollar_amount": "10.00", "type": "limit", "limit_price": "199.00"},
        "INVALID_ARGUMENT",
        "dollar_amount",
    ),
    (
        "dollar amount in fractions of a cent",
        {"quantity": None, "dollar_amount": "10.001"},
        "INVALID_ARGUMENT",
        "dollar_amount",
    ),
    (
        "dollar amount under a dollar",
        {"quantity": None, "dollar_amount": "0.50"},
        "INVALID_ARGUMENT",
        "dollar_amount",
    ),
    ("limit without limit_price", {"type": "limit"}, "INVALID_ARGUMENT", "limit_price"),
    (
        "stop_limit without limit_price",
        {"type": "stop_limit", "stop_price": "210.00"},
        "INVALID_ARGUMENT",
        "limit_price",
    ),
    ("market with limit_price", {"limit_price": "199.00"}, "INVALID_ARGUMENT", "limit_price"),
    (
        "stop_market with limit_price",
        {"type": "stop_market", "stop_price": "210.00", "limit_price": "211.00"},
        "INVALID_ARGUMENT",
        "limit_price",
    ),
    ("stop_market without stop_price", {"type": "stop_market"}, "INVALID_ARGUMENT", "stop_price"),
    (
        "limit with stop_price",
        {"type": "limit", "limit_price": "199.00", "stop_price": "198.00"},
        "INVALID_ARGUMENT",
        "stop_price",
    ),
    ("market with stop_price", {"stop_price": "198.00"}, "INVALID_ARGUMENT", "stop_price"),
    ("unknown time in force", {"time_in_force": "ioc"}, "INVALID_ARGUMENT", "time_in_force"),
    ("unknown market hours", {"market_hours": "overnight"}, "INVALID_ARGUMENT", "market_hours"),
    (
        "market order in extended hours",
        {"market_hours": "extended_hours"},
        "INVALID_ARGUMENT",
        "market_hours",
    ),
    (
        "stop order in all-day hours",
        {"type": "stop_market", "stop_price": "210.00", "market_hours": "all_day_hours"},
        "INVALID_ARGUMENT",
        "market_hours",
    ),
    (
        "all-day order on a listing without 24-hour trading",
        {
            "symbol": "BRK.A",
            "type": "limit",
            "limit_price": "600000.00",
            "market_hours": "all_day_hours",
        },
        "INVALID_ARGUMENT",
        "market_hours",
    ),
    (
        "fractional limit order",
        {"type": "limit", "limit_price": "199.00", "quantity": "0.5"},
        "INVALID_ARGUMENT",
        "quantity",
    ),
    (
        "fractional quantity on a non-fractional listing",
        {"symbol": "BRK.A", "quantity": "0.01"},
        "INVALID_ARGUMENT",
        "quantity",
    ),
    (
        "dollar amount on a non-fractional listing",
        {"symbol": "BRK.A", "quantity": None, "dollar_amount": "100.00"},
        "INVALID_ARGUMENT",
        "dollar_amount",
    ),
    ("seven decimal places", {"quantity": "0.1234567"}, "INVALID_ARGUMENT", "quantity"),
    ("unparseable quantity", {"quantity": "n/a"}, "INVALID_ARGUMENT", "quantity"),
    ("zero quantity", {"quantity": "0"}, "INVALID_ARGUMENT", "quantity"),
    ("negative quantity", {"quantity": "-3"}, "INVALID_ARGUMENT", "quantity"),
    ("infinite quantity", {"quantity": "Infinity"}, "INVALID_ARGUMENT", "quantity"),
    (
        "unparseable limit price",
        {"type": "limit", "limit_price": "cheap"},
        "INVALID_ARGUMENT",
        "limit_price",
    ),
    (
        "sub-penny limit price above a dollar",
        {"type": "limit", "limit_price": "199.001"},
        "INVALID_ARGUMENT",
        "limit_price",
    ),
    (
        "non-positive stop price",
        {"type": "stop_market", "stop_price": "0"},
        "INVALID_ARGUMENT",
        "stop_price",
    ),
    (
        "tax lots on a buy",
        {"tax_lots": [{"open_lot_id": "x", "quantity": "1"}]},
        "INVALID_ARGUMENT",
        "tax_lots",
    ),
    ("unexpected argument", {"note": "hi"}, "INVALID_ARGUMENT", "note"),
    ("buy beyond buying power", {"quantity": "1000"}, "INSUFFICIENT_BUYING_POWER", "quantity"),
    (
        "dollar buy beyond buying power",
        {"quantity": None, "dollar_amount": "99999.00"},
        "INSUFFICIENT_BUYING_POWER",
        "dollar_amount",
    ),
]


def _args(h: Harness, changes: dict[str, Any]) -> dict[str, Any]:
    args = h.order_args(**BUY)
    for key, value in changes.items():
        if value is None:
            args.pop(key, None)
        else:
            args[key] = value
    return args


@pytest.mark.parametrize(
    ("changes", "code", "field"),
    [pytest.param(c, code, f, id=name) for name, c, code, f in REFUSALS],
)
def test_place_refuses_a_request_breaking_a_rule_naming_the_field(
    changes: dict[str, Any], code: str, field: str
) -> None:
    h = build_harness()
    error = h.error("place_equity_order", **_args(h, changes))
    assert (error["code"], error["field"]) == (code, field)
    assert h.desk.orders(h.agentic.account_number) == []
    assert h.agentic.holds == {}


@pytest.mark.parametrize(
    ("changes", "code", "field"),
    [
        pytest.param(c, code, f, id=name)
        for name, c, code, f in REFUSALS
        if code != "INSUFFICIENT_BUYING_POWER"
    ],
)
def test_review_refuses_the_same_requests_as_place(
    changes: dict[str, Any], code: str, field: str
) -> None:
    h = build_harness()
    error = h.error("review_equity_order", **_args(h, changes))
    assert (error["code"], error["field"]) == (code, field)


def test_orders_on_a_non_agentic_account_are_refused_but_its_reads_answer() -> None:
    h = build_harness()
    ira = h.ira.account_number
    for name in ("review_equity_order", "place_equity_order"):
        error = h.error(name, **{**BUY, "account_number": ira})
        assert (error["code"], error["field"]) == ("ACCOUNT_NOT_AGENTIC", "account_number")
    error = h.error("cancel_equity_order", account_number=ira, order_id="x")
    assert error["code"] == "ACCOUNT_NOT_AGENTIC"
    assert h.call("get_equity_orders", account_number=ira) == {"orders": []}
    assert h.call("get_equity_positions", account_number=ira) == {"positions": []}


def test_unknown_account_is_not_found() -> None:
    h = build_harness()
    error = h.error("place_equity_order", **{**BUY, "account_number": "000000000"})
    assert (error["code"], error["field"]) == ("NOT_FOUND", "account_number")


def _holding(h: Harness, shares: str = "10") -> list[dict[str, Any]]:
    h.place(symbol="AAPL", side="buy", type="market", quantity=shares)
    h.advance(2)
    h.place(symbol="AAPL", side="buy", type="market", quantity=shares)
    h.advance(2)
    lots: list[dict[str, Any]] = h.call(
        "get_equity_tax_lots", account_number=h.agentic.account_number, symbol="AAPL"
    )["tax_lots"]
    return lots


def test_selling_more_than_is_held_is_refused_as_a_short_sale() -> None:
    h = build_harness()
    _holding(h, "3")
    error = h.error(
        "place_equity_order",
        **h.order_args(symbol="AAPL", side="sell", type="market", quantity="7"),
    )
    assert (error["code"], error["field"]) == ("INSUFFICIENT_SHARES", "quantity")
    nothing = h.error(
        "place_equity_order",
        **h.order_args(symbol="MSFT", side="sell", type="market", quantity="1"),
    )
    assert nothing["code"] == "INSUFFICIENT_SHARES"


def test_shares_held_by_an_open_sell_cannot_be_sold_twice() -> None:
    h = build_harness()
    _holding(h, "3")
    h.place(symbol="AAPL", side="sell", type="limit", quantity="5", limit_price="250.00")
    error = h.error(
        "place_equity_order",
        **h.order_args(symbol="AAPL", side="sell", type="market", quantity="2"),
    )
    assert error["code"] == "INSUFFICIENT_SHARES"
    h.place(symbol="AAPL", side="sell", type="market", quantity="1")


@pytest.mark.parametrize(
    ("lots", "field"),
    [
        pytest.param(
            lambda ids: [{"open_lot_id": "nope", "quantity": "1"}], "tax_lots[0].open_lot_id"
        ),
        pytest.param(
            lambda ids: [{"open_lot_id": ids[0], "quantity": "1"}] * 2, "tax_lots[1].open_lot_id"
        ),
        pytest.param(
            lambda ids: [{"open_lot_id": ids[0], "quantity": "11"}], "tax_lots[0].quantity"
        ),
        pytest.param(
            lambda ids: [{"open_lot_id": ids[0], "quantity": "x"}], "tax_lots[0].quantity"
        ),
        pytest.param(lambda ids: [{"open_lot_id": ids[0], "quantity": ""}], "tax_lots[0].quantity"),
        pytest.param(lambda ids: [{"open_lot_id": ids[0], "quantity": "2"}], "tax_lots"),
        pytest.param(lambda ids: [{"open_lot_id": ids[0], "quantity": "1"}] * 31, "tax_lots"),
    ],
)
def test_tax_lots_must_exist_cover_the_quantity_and_number_at_most_thirty(
    lots: Any, field: str
) -> None:
    h = build_harness()
    ids = [lot["open_lot_id"] for lot in _holding(h)]
    args = h.order_args(symbol="AAPL", side="sell", type="market", quantity="3", tax_lots=lots(ids))
    error = h.error("place_equity_order", **args)
    assert error["field"] == field


def test_tax_lots_cannot_go_with_a_dollar_amount() -> None:
    h = build_harness()
    ids = [lot["open_lot_id"] for lot in _holding(h)]
    args = h.order_args(
        symbol="AAPL",
        side="sell",
        type="market",
        dollar_amount="100.00",
        tax_lots=[{"open_lot_id": ids[0], "quantity": "1"}],
    )
    assert h.error("place_equity_order", **args)["field"] == "tax_lots"


def test_empty_tax_lots_mean_first_in_first_out() -> None:
    h = build_harness()
    _holding(h)
    order = h.place(symbol="AAPL", side="sell", type="market", quantity="1", tax_lots=[])
    assert order["state"] == "queued"


def test_sub_dollar_prices_may_carry_four_decimals() -> None:
    h = build_harness()
    h.market.set("PENNY", "0.8500", "0.8600", last="0.8550")
    order = h.place(symbol="penny", side="buy", type="limit", quantity="100", limit_price="0.8525")
    assert (order["symbol"], order["price"]) == ("PENNY", "0.8525")
    error = h.error(
        "place_equity_order",
        **h.order_args(
            symbol="PENNY", side="buy", type="limit", quantity="100", limit_price="0.85251"
        ),
    )
    assert error["field"] == "limit_price"


def test_a_foreign_cursor_is_refused() -> None:
    with pytest.raises(VenueError) as caught:
        decode_cursor("equity-orders", "not-a-cursor!")
    assert caught.value.field == "cursor"
    assert decode_cursor("equity-orders", None) is None


def test_review_reports_missing_buying_power_without_refusing() -> None:
    h = build_harness(cash=Decimal("100.00"))
    review = h.call("review_equity_order", **h.order_args(**BUY))
    checks = review["order_checks"]
    assert checks["passed"] is False
    assert checks["buying_power"]["code"] == "INSUFFICIENT_BUYING_POWER"
    assert checks["buying_power"]["available"] == "100.00"
    assert checks["buying_power"]["required"] == "210.02"


def test_dollar_amount_too_small_for_a_millionth_of_a_share_is_refused() -> None:
    h = build_harness()
    h.market.set("GIANT", "2500000.00", "2500100.00", last="2500050.00")
    error = h.error(
        "place_equity_order",
        **h.order_args(symbol="GIANT", side="buy", type="market", dollar_amount="1.00"),
    )
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "dollar_amount")
