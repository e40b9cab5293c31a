"""Crypto tools: preview, place, approvals, cancel, order listing and positions."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from derivatives_tools_testkit import REF, SATURDAY, Desks, build


def _bought(d: Desks, quantity: str = "2") -> dict[str, Any]:
    order = d.place_crypto(symbol="ETH-USD", side="buy", type="market", quantity=quantity)
    d.advance(2)
    return d.crypto_order(order["id"])


def test_preview_places_nothing_and_reports_estimate_checks_and_quote() -> None:
    d = build(start=SATURDAY)
    preview = d.call(
        "preview_crypto_order",
        **d.crypto_args(symbol="eth", side="buy", type="limit", quantity="2", limit_price="3000"),
    )
    assert (preview["symbol"], preview["rhs_account_number"]) == ("ETH-USD", d.rhs)
    assert preview["estimated_cost"] == "6000.00"
    assert preview["order_checks"]["passed"] is True
    assert preview["order_checks"]["increments"]["asset_increment"] == "0.000001"
    assert preview["quote"]["symbol"] == "ETH-USD"
    assert preview["customer_approval_required"] is False
    assert d.crypto.orders(d.number) == []
    assert d.agentic.holds == {}


def test_preview_of_a_market_sell_shows_the_credit_and_of_a_big_buy_the_shortfall() -> None:
    d = build(start=SATURDAY, cash=Decimal("5000.00"))
    _bought(d, "1")
    sell = d.call(
        "preview_crypto_order",
        **d.crypto_args(symbol="ETH-USD", side="sell", type="market", quantity="1"),
    )
    assert "estimated_credit" in sell
    big = d.call(
        "preview_crypto_order",
        **d.crypto_args(symbol="BTC-USD", side="buy", type="market", dollar_amount="9000.00"),
    )
    assert big["order_checks"]["passed"] is False
    assert any("buying power" in w for w in big["order_checks"]["warnings"])
    assert big["dollar_amount"] == "9000.00"


def test_place_returns_the_queued_order_with_its_terms() -> None:
    d = build(start=SATURDAY)
    order = d.place_crypto(
        symbol="BTC-USD",
        side="buy",
        type="limit",
        quantity="0.01",
        limit_price="50000.00",
        time_in_force="gfw",
        ref_id=REF,
    )
    assert (order["state"], order["type"], order["time_in_force"]) == ("queued", "limit", "gfw")
    assert (order["quantity"], order["limit_price"], order["ref_id"]) == ("0.01", "50000.00", REF)
    assert order["expires_at"] == "2026-12-07T05:00:00.000000Z"
    assert order["rhs_account_number"] == d.rhs


def test_with_trade_approval_on_place_returns_an_approval() -> None:
    d = build(start=SATURDAY, approval_required=True)
    preview = d.call(
        "preview_crypto_order",
        **d.crypto_args(symbol="ETH-USD", side="buy", type="market", quantity="1"),
    )
    assert preview["customer_approval_required_reason"]
    data = d.call(
        "place_crypto_order",
        **d.crypto_args(symbol="ETH-USD", side="buy", type="market", quantity="1"),
    )
    approval = data["approval"]
    assert (approval["asset_class"], approval["state"]) == ("crypto", "pending")
    assert approval["proposed_order"]["symbol"] == "ETH-USD"
    assert d.crypto.orders(d.number) == []
    assert d.crypto.approvals(d.number)[0].approval_id == approval["approval_id"]


def test_cancel_accepts_and_reports_the_canceled_order() -> None:
    d = build(start=SATURDAY)
    order = d.place_crypto(
        symbol="ETH-USD", side="buy", type="limit", quantity="1", limit_price="100.00"
    )
    data = d.call("cancel_crypto_order", rhs_account_number=d.rhs, order_id=order["id"])
    assert data["accepted"] is True
    assert data["order"]["state"] == "canceled"
    error = d.error("cancel_crypto_order", rhs_account_number=d.rhs, order_id=order["id"])
    assert error["code"] == "ORDER_NOT_CANCELLABLE"


def test_the_brokerage_account_number_is_not_an_rhs_account_number() -> None:
    d = build(start=SATURDAY)
    error = d.error(
        "place_crypto_order",
        rhs_account_number=d.number,
        symbol="ETH-USD",
        side="buy",
        type="market",
        quantity="1",
    )
    assert (error["code"], error["field"]) == ("NOT_FOUND", "rhs_account_number")


def test_order_listing_filters_by_side_state_group_symbol_and_time() -> None:
    d = build(start=SATURDAY)
    bought = _bought(d)
    d.advance(60)
    resting = d.place_crypto(
        symbol="BTC", side="buy", type="limit", quantity="0.01", limit_price="100.00"
    )
    sold = d.place_crypto(
        symbol="ETH-USD", side="sell", type="limit", quantity="1", limit_price="99999.00"
    )
    d.call("cancel_crypto_order", rhs_account_number=d.rhs, order_id=sold["id"])

    def ids(**filters: Any) -> list[str]:
        found = d.call("get_crypto_orders", rhs_account_number=d.rhs, **filters)["orders"]
        return [o["id"] for o in found]

    assert ids() == [sold["id"], resting["id"], bought["id"]]
    assert ids(side="sell") == [sold["id"]]
    assert ids(state="canceled") == [sold["id"]]
    assert ids(state_group="open") == [resting["id"]]
    assert ids(state_group="closed") == [sold["id"], bought["id"]]
    assert ids(symbol="eth") == [sold["id"], bought["id"]]
    assert ids(symbol="NOPE") == []
    assert ids(created_at_gte="2026-12-05T16:00:30Z") == [sold["id"], resting["id"]]
    assert ids(updated_at_gte="2026-12-05T16:00:30Z") == [sold["id"], resting["id"]]


@pytest.mark.parametrize(
    ("filters", "field"),
    [
        ({"side": "hold"}, "side"),
        ({"state": "cancelled"}, "state"),
        ({"state_group": "done"}, "state_group"),
        ({"created_at_gte": "soon"}, "created_at_gte"),
        ({"cursor": "bm9wZQ"}, "cursor"),
    ],
)
def test_bad_order_filters_are_refused_by_name(filters: dict[str, str], field: str) -> None:
    d = build(start=SATURDAY)
    error = d.error("get_crypto_orders", rhs_account_number=d.rhs, **filters)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


def test_order_listing_pages_fifty_at_a_time() -> None:
    d = build(start=SATURDAY)
    for _ in range(51):
        d.crypto.place(
            d.crypto_args(
                symbol="DOGE-USD", side="buy", type="limit", quantity="10", limit_price="0.01"
            )
        )
    first = d.call("get_crypto_orders", rhs_account_number=d.rhs)
    assert len(first["orders"]) == 50
    second = d.call("get_crypto_orders", rhs_account_number=d.rhs, cursor=first["next"])
    assert len(second["orders"]) == 1


def test_positions_show_units_held_for_sells_and_value_at_the_mark() -> None:
    d = build(start=SATURDAY)
    bought = _bought(d)
    d.place_crypto(
        symbol="ETH-USD", side="sell", type="limit", quantity="0.5", limit_price="99999.00"
    )
    rows = d.call("get_crypto_positions", rhs_account_number=d.rhs)["positions"]
    assert len(rows) == 1
    row = rows[0]
    assert (row["currency_code"], row["quantity"]) == ("ETH", "2")
    assert (row["quantity_held_for_sells"], row["quantity_available"]) == ("0.5", "1.5")
    assert row["cost_basis"] == bought["executed_notional"]
    mark = d.venue.market.crypto_quote("ETH-USD").mark_price
    assert row["market_value"] == f"{mark * 2:.2f}"
    other = d.call("get_crypto_positions", rhs_account_number=d.ira.rhs_account_number)
    assert other == {"positions": []}


def test_portfolio_and_pnl_include_the_crypto_desk() -> None:
    d = build(start=SATURDAY)
    _bought(d)
    portfolio = d.call("get_portfolio", account_number=d.number)
    assert Decimal(portfolio["crypto_value"]) > 0
    sell = d.place_crypto(symbol="ETH-USD", side="sell", type="market", quantity="2")
    d.advance(2)
    assert d.crypto_order(sell["id"])["state"] == "filled"
    history = d.call("get_pnl_trade_history", account_number=d.rhs, symbol="ETH")
    assert history["trades"][0]["asset_class"] == "crypto"
    assert d.call("get_crypto_positions", rhs_account_number=d.rhs) == {"positions": []}
