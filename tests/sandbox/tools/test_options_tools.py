"""Option tools: review, place, approvals, argument rules, listings, exercises, schemas.

Every successful contract-tool result here is validated against its captured output schema
by the harness (``Desks.raw``).
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from derivatives_tools_testkit import FRIDAY_CLOSE, REF, SATURDAY, Desks, build, leg


def _review(d: Desks, *legs: dict[str, Any], **args: Any) -> dict[str, Any]:
    return d.call("review_option_order", **d.option_args(*legs, **args))


def test_review_places_nothing_and_returns_quotes_checks_and_fees() -> None:
    d = build()
    call = d.option("call")
    review = _review(d, leg(call.id, ratio=None), quantity="2", price="3.00")
    assert review["legs"] == [
        {"option_id": call.id, "side": "buy", "position_effect": "open", "ratio_quantity": 1}
    ]
    assert (review["direction"], review["type"], review["quantity"]) == ("debit", "limit", "2")
    assert review["option_quotes"][0]["instrument_id"] == call.id
    checks = review["order_checks"]
    assert checks["alertType"] == "none"
    assert checks["details"]["estimated_cost"] == "600.00"
    assert review["fees"]["total_fee"] == "0.00"
    assert review["collateral"] is None
    assert review["customer_approval_required"] is False
    assert d.options.orders(d.number) == []
    assert d.agentic.holds == {}


def test_review_of_a_short_strangle_reports_its_cash_and_share_collateral() -> None:
    d = build(account_type="margin", option_level=3)
    d.give_shares("AAPL", 100)
    call, put = d.option("call", offset=2), d.option("put", offset=-2)
    review = _review(
        d, leg(call.id, "sell"), leg(put.id, "sell"), quantity="1", price="0.50", direction="credit"
    )
    assert review["direction"] == "credit"
    collateral = review["collateral"]
    assert collateral["cash"]["amount"] == f"{put.strike_price * 100:.2f}"
    assert collateral["equities"][0]["symbol"] == "AAPL"
    assert collateral["equities"][0]["quantity"] == "100"
    assert review["order_checks"]["details"]["estimated_credit"] == "50.00"


def test_review_on_a_saturday_says_the_order_waits_for_the_open() -> None:
    d = build(start=SATURDAY)
    review = _review(d, leg(d.option("call").id), quantity="1", price="1.00")
    checks = review["order_checks"]
    assert checks["alertType"] == "market_closed"
    assert checks["details"]["session"]["next_execution_at"] == "2026-12-07T14:30:00.000000Z"
    assert any("regular hours" in w for w in checks["details"]["warnings"])


def test_review_flags_missing_buying_power_and_place_refuses_it() -> None:
    d = build(cash=Decimal("50.00"))
    call = d.option("call")
    review = _review(d, leg(call.id), quantity="1", price="1.00")
    assert review["order_checks"]["alertType"] == "insufficient_buying_power"
    assert review["order_checks"]["details"]["buying_power"]["code"] == "INSUFFICIENT_BUYING_POWER"
    error = d.error("place_option_order", **d.option_args(leg(call.id), quantity="1", price="1.00"))
    assert error["code"] == "INSUFFICIENT_BUYING_POWER"


def test_with_trade_approval_on_place_returns_an_approval_and_no_order() -> None:
    d = build(approval_required=True)
    call = d.option("call")
    review = _review(d, leg(call.id), quantity="1", price="1.00")
    assert review["customer_approval_required"] is True
    assert review["customer_approval_required_reason"]
    args = d.option_args(leg(call.id), quantity="1", price="1.00", ref_id=REF)
    data = d.call("place_option_order", **args)
    assert "order" not in data
    approval = data["approval"]
    assert (approval["asset_class"], approval["state"]) == ("option", "pending")
    proposed = approval["proposed_order"]
    assert proposed["option_type"] == "call"
    assert proposed["strike_price"] == {"amount": str(call.strike_price), "currency_code": "USD"}
    assert proposed["estimated_cost"]["amount"] == "100.00"
    assert d.call("place_option_order", **args)["approval"] == approval
    assert d.call("get_option_orders", account_number=d.number)["orders"] == []
    assert d.options.approvals(d.number)[0].approval_id == approval["approval_id"]


def test_an_approval_for_several_legs_lists_them_as_sub_orders() -> None:
    d = build(approval_required=True, account_type="margin", option_level=3)
    call, put = d.option("call"), d.option("put")
    data = d.call(
        "place_option_order",
        **d.option_args(leg(call.id), leg(put.id), quantity="1", price="9.00", direction="debit"),
    )
    sub_orders = data["approval"]["proposed_order"]["sub_orders"]
    assert [s["is_primary"] for s in sub_orders] == [True, False]


def _two(d: Desks) -> tuple[str, str]:
    return d.option("call").id, d.option("put").id


@pytest.mark.parametrize(
    ("build_args", "code", "field"),
    [
        (lambda c, p: {"legs": []}, "INVALID_ARGUMENT", "legs"),
        (lambda c, p: {"legs": None}, "INVALID_ARGUMENT", "legs"),
        (lambda c, p: {"legs": [leg(c)] * 5}, "INVALID_ARGUMENT", "legs"),
        (lambda c, p: {"legs": [leg("nope")]}, "NOT_FOUND", "legs[0].option_id"),
        (lambda c, p: {"legs": [leg(c), leg("nope")]}, "NOT_FOUND", "legs[1].option_id"),
        (lambda c, p: {"legs": [leg(c), leg(c)]}, "INVALID_ARGUMENT", "legs[1].option_id"),
        (lambda c, p: {"legs": [leg(c, side="hold")]}, "INVALID_ARGUMENT", "legs[0].side"),
        (
            lambda c, p: {"legs": [leg(c, effect="roll")]},
            "INVALID_ARGUMENT",
            "legs[0].position_effect",
        ),
        (lambda c, p: {"legs": [leg(c, ratio=0)]}, "INVALID_ARGUMENT", "legs[0].ratio_quantity"),
        (lambda c, p: {"quantity": "1.5"}, "INVALID_ARGUMENT", "quantity"),
        (lambda c, p: {"quantity": "0"}, "INVALID_ARGUMENT", "quantity"),
        (lambda c, p: {"quantity": "many"}, "INVALID_ARGUMENT", "quantity"),
        (lambda c, p: {"type": "stop"}, "INVALID_ARGUMENT", "type"),
        (lambda c, p: {"price": None}, "INVALID_ARGUMENT", "price"),
        (lambda c, p: {"type": "market"}, "INVALID_ARGUMENT", "price"),
        (lambda c, p: {"price": "1.001"}, "INVALID_ARGUMENT", "price"),
        (lambda c, p: {"price": "-1"}, "INVALID_ARGUMENT", "price"),
        (lambda c, p: {"price": "cheap"}, "INVALID_ARGUMENT", "price"),
        (lambda c, p: {"stop_price": "1.00"}, "INVALID_ARGUMENT", "stop_price"),
        (lambda c, p: {"time_in_force": "ioc"}, "INVALID_ARGUMENT", "time_in_force"),
        (lambda c, p: {"market_hours": "extended_hours"}, "INVALID_ARGUMENT", "market_hours"),
        (lambda c, p: {"direction": "credit"}, "INVALID_ARGUMENT", "direction"),
        (lambda c, p: {"direction": "sideways"}, "INVALID_ARGUMENT", "direction"),
        (lambda c, p: {"legs": [leg(c), leg(p)]}, "INVALID_ARGUMENT", "direction"),
        (
            lambda c, p: {"legs": [leg(c), leg(p)], "direction": "credit"},
            "INVALID_ARGUMENT",
            "direction",
        ),
        (
            lambda c, p: {"legs": [leg(c), leg(p)], "direction": "debit", "type": "market"},
            "INVALID_ARGUMENT",
            "type",
        ),
    ],
)
def test_requests_outside_the_option_rules_are_refused_naming_the_argument(
    build_args: Any, code: str, field: str
) -> None:
    d = build(account_type="margin", option_level=3)
    call, put = _two(d)
    args: dict[str, Any] = {
        "account_number": d.number,
        "legs": [leg(call)],
        "quantity": "1",
        "price": "1.00",
    }
    args.update(build_args(call, put))
    args = {k: v for k, v in args.items() if v is not None or k == "legs"}
    error = d.error("review_option_order", **args)
    assert (error["code"], error["field"]) == (code, field)


def test_legs_on_two_underlyings_are_refused() -> None:
    d = build()
    error = d.error(
        "review_option_order",
        **d.option_args(
            leg(d.option("call").id),
            leg(d.option("call", symbol="SPY").id),
            quantity="1",
            price="1.00",
            direction="debit",
        ),
    )
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "legs[1].option_id")


def test_an_expired_contract_cannot_be_traded() -> None:
    d = build()
    call = d.option("call")
    d.set_time(FRIDAY_CLOSE + timedelta(hours=1))
    error = d.error(
        "review_option_order", **d.option_args(leg(call.id), quantity="1", price="1.00")
    )
    assert (error["code"], error["field"]) == ("OPTION_NOT_TRADABLE", "legs[0].option_id")


def test_a_read_only_account_cannot_place_but_can_list() -> None:
    d = build()
    args = d.option_args(leg(d.option("call").id), quantity="1", price="1.00")
    args["account_number"] = d.ira.account_number
    assert d.error("place_option_order", **args)["code"] == "ACCOUNT_NOT_AGENTIC"
    assert d.call("get_option_orders", account_number=d.ira.account_number) == {"orders": []}
    assert d.call("get_option_positions", account_number=d.ira.account_number) == {"positions": []}


def test_order_listings_validate_in_every_state_and_filter() -> None:
    d = build()
    d.venue.faults.update({"reject_orders": 1})
    call = d.option("call")
    rejected = d.place_option(leg(call.id), quantity="1", price="50.00")
    filled = d.place_option(leg(call.id), quantity="1", price="50.00")
    resting = d.place_option(leg(call.id), quantity="1", price="0.01", ref_id=REF)
    d.advance(2)
    cancelled = d.place_option(leg(call.id), quantity="1", price="0.01")
    assert d.call("cancel_option_order", account_number=d.number, order_id=cancelled["id"]) == {
        "accepted": True
    }
    listing = d.call("get_option_orders", account_number=d.number)["orders"]
    states = [o["state"] for o in listing]
    assert states == ["cancelled", "confirmed", "filled", "rejected"]
    assert listing[3]["id"] == rejected["id"]

    def ids(**filters: Any) -> list[str]:
        found = d.call("get_option_orders", account_number=d.number, **filters)["orders"]
        return [o["id"] for o in found]

    assert ids(state="filled") == [filled["id"]]
    assert ids(chain_ids=call.chain_id + ", other") == [o["id"] for o in listing]
    assert ids(chain_ids="other") == []
    assert ids(placed_agent="agentic") == [o["id"] for o in listing]
    assert ids(placed_agent="user") == []
    assert ids(underlying_type="equity") == [o["id"] for o in listing]
    assert ids(created_at_gte="2026-12-01T15:00:01Z") == [cancelled["id"]]
    assert ids(order_id=resting["id"]) == [resting["id"]]


@pytest.mark.parametrize(
    ("filters", "field"),
    [
        ({"state": "sleeping"}, "state"),
        ({"placed_agent": "robot"}, "placed_agent"),
        ({"underlying_type": "future"}, "underlying_type"),
        ({"created_at_gte": "yesterday"}, "created_at_gte"),
        ({"chain_ids": " , "}, "chain_ids"),
        ({"cursor": "bm90LW1pbmU"}, "cursor"),
    ],
)
def test_bad_order_filters_are_refused_by_name(filters: dict[str, str], field: str) -> None:
    d = build()
    error = d.error("get_option_orders", account_number=d.number, **filters)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


def test_order_listing_pages_fifty_at_a_time() -> None:
    d = build()
    call = d.option("call", offset=5)
    for _ in range(51):
        d.options.place(d.option_args(leg(call.id), quantity="1", price="0.01"))
    first = d.call("get_option_orders", account_number=d.number)
    assert len(first["orders"]) == 50
    second = d.call("get_option_orders", account_number=d.number, cursor=first["next"])
    assert len(second["orders"]) == 1
    assert "next" not in second


def test_positions_show_longs_shorts_pending_quantities_and_filter() -> None:
    d = build()
    call, put = d.option("call"), d.option("put")
    d.buy_to_open(call, 3)
    d.place_option(leg(put.id, "sell"), quantity="2", price="0.01")
    d.advance(2)
    d.place_option(leg(call.id, "sell", "close"), quantity="1", price="99.00")
    d.options.exercise({"account_number": d.number, "option_id": call.id, "quantity": 1})
    rows = d.call("get_option_positions", account_number=d.number)["positions"]
    by_id = {row["option_id"]: row for row in rows}
    assert (by_id[call.id]["type"], by_id[call.id]["quantity"]) == ("long", "3")
    assert by_id[call.id]["pending_sell_quantity"] == "1"
    assert by_id[call.id]["pending_exercise_quantity"] == "1"
    assert by_id[call.id]["intraday_quantity"] == "3"
    assert (by_id[put.id]["type"], by_id[put.id]["quantity"]) == ("short", "2")

    def option_ids(**filters: Any) -> list[str]:
        found = d.call("get_option_positions", account_number=d.number, **filters)["positions"]
        return [row["option_id"] for row in found]

    assert option_ids(type="short") == [put.id]
    assert option_ids(option_type="call") == [call.id]
    assert option_ids(option_ids=put.id) == [put.id]
    assert option_ids(chain_ids=call.chain_id) == [call.id, put.id]
    day = call.expiration_date.isoformat()
    assert option_ids(expiration_date=day) == [call.id, put.id]
    assert option_ids(expiration_date_lte=day, expiration_date_gte=day) == [call.id, put.id]
    assert option_ids(expiration_date_gte="2027-01-01") == []


def test_closed_positions_show_only_when_nonzero_is_false() -> None:
    d = build()
    call = d.option("call")
    d.buy_to_open(call)
    d.place_option(leg(call.id, "sell", "close"), quantity="1", type="market")
    d.advance(2)
    assert d.call("get_option_positions", account_number=d.number)["positions"] == []
    rows = d.call("get_option_positions", account_number=d.number, nonzero=False)["positions"]
    assert [(r["option_id"], r["quantity"]) for r in rows] == [(call.id, "0")]


@pytest.mark.parametrize(
    ("filters", "field"),
    [({"type": "both"}, "type"), ({"option_type": "swap"}, "option_type")],
)
def test_bad_position_filters_are_refused_by_name(filters: dict[str, str], field: str) -> None:
    d = build()
    error = d.error("get_option_positions", account_number=d.number, **filters)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


def test_a_position_on_its_expiration_day_shows_as_pending_expiration() -> None:
    d = build()
    call = d.option("call")
    d.buy_to_open(call)
    d.set_time(FRIDAY_CLOSE - timedelta(hours=2))
    row = d.call("get_option_positions", account_number=d.number)["positions"][0]
    assert row["pending_expiration_quantity"] == "1"
    assert row["intraday_quantity"] == "0"


def test_exercise_tools_report_the_request_and_its_withdrawal() -> None:
    d = build()
    call = d.option("call")
    d.buy_to_open(call)
    exercise = d.call(
        "exercise_option",
        account_number=d.number,
        option_id=call.id,
        quantity=1,
        reason="deep in the money",
        ref_id=REF,
    )["exercise"]
    assert (exercise["state"], exercise["equity_side"], exercise["ref_id"]) == (
        "pending",
        "buy",
        REF,
    )
    assert exercise["process_at"] == "2026-12-01T21:00:00.000000Z"
    withdrawn = d.call("cancel_option_exercise", account_number=d.number, option_id=call.id)
    assert withdrawn["accepted"] is True
    assert withdrawn["exercises"][0]["state"] == "cancelled"
    error = d.error("cancel_option_exercise", account_number=d.number, option_id=call.id)
    assert (error["code"], error["field"]) == ("NOT_FOUND", "option_id")


def test_cancelling_an_unknown_order_is_not_found() -> None:
    d = build()
    error = d.error("cancel_option_order", account_number=d.number, order_id="nope")
    assert (error["code"], error["field"]) == ("NOT_FOUND", "order_id")


def test_portfolio_and_realized_pnl_include_the_options_desk() -> None:
    d = build()
    call = d.option("call")
    d.buy_to_open(call, 2)
    portfolio = d.call("get_portfolio", account_number=d.number)
    assert Decimal(portfolio["options_value"]) == d.quote(call.id).mark_price * 200
    d.place_option(leg(call.id, "sell", "close"), quantity="2", type="market")
    d.advance(2)
    pnl = d.call("get_realized_pnl", account_number=d.rhs)
    option_row = next(r for r in pnl["by_asset_class"] if r["asset_class"] == "option")
    assert option_row["trade_count"] == 1
    history = d.call("get_pnl_trade_history", account_number=d.rhs, symbol="AAPL")
    assert history["trades"][0]["instrument_id"] == call.id


def test_review_of_a_market_order_and_of_a_cash_secured_put() -> None:
    d = build()
    call, put = d.option("call"), d.option("put")
    market = _review(d, leg(call.id), quantity="1", type="market")
    assert "price" not in market
    assert market["type"] == "market"
    secured = _review(d, leg(put.id, "sell"), quantity="1", price="0.50")
    assert secured["collateral"]["equities"] == []
    assert secured["collateral"]["cash"]["amount"] == f"{put.strike_price * 100:.2f}"


def test_a_credit_approval_proposes_an_estimated_credit() -> None:
    d = build(approval_required=True)
    put = d.option("put")
    data = d.call(
        "place_option_order", **d.option_args(leg(put.id, "sell"), quantity="1", price="0.50")
    )
    assert data["approval"]["proposed_order"]["estimated_credit"]["amount"] == "50.00"
