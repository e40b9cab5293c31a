"""The equity desk's order lifecycle and rules, driven over real loopback HTTP.

Tests that move the clock get a venue each (fills move the money they count); the others
share one venue whose clock never moves.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from order_testkit import Trader, cents_down, collared, ref_id, regulatory_fees
from venue_testkit import running_venue

# Saturday 2026-12-05, 10:00 in New York: no session until Monday's open at 14:30 UTC.
SATURDAY = datetime(2026, 12, 5, 15, 0, tzinfo=UTC)
MONDAY_OPEN = "2026-12-07T14:30:00.000000Z"


@pytest.fixture
def trader() -> Iterator[Trader]:
    """A fresh venue (Tuesday 10:00 New York, regular session) and its agentic account."""
    with running_venue() as client:
        yield Trader.on(client)


@pytest.fixture(scope="module")
def idle() -> Iterator[Trader]:
    """One venue whose clock never moves: nothing placed on it ever fills or expires."""
    with running_venue() as client:
        yield Trader.on(client)


def _filled_buy(trader: Trader, symbol: str, quantity: str) -> dict[str, Any]:
    order = trader.place(symbol, quantity=quantity)
    return trader.step_until(order["id"], {"filled"})


# -- a market buy, step by step ---------------------------------------------------------------


@pytest.mark.req("sandbox.orders.async-fills")
def test_market_buy_is_queued_and_does_not_fill_before_the_clock_moves(idle: Trader) -> None:
    trader = idle
    placed = trader.place("AAPL", quantity="3")
    assert placed["state"] == "queued"
    assert placed["type"] == "market"
    assert placed["trigger"] == "immediate"
    assert placed["placed_agent"] == "agentic"
    read_back = trader.order(placed["id"])
    assert read_back["state"] == "queued"
    assert read_back["executions"] == []
    assert read_back["cumulative_quantity"] == "0"
    assert read_back["average_price"] is None
    assert trader.position("AAPL") is None


@pytest.mark.req("sandbox.orders.async-fills")
def test_market_buy_is_confirmed_after_a_second_then_fills_at_the_ask(trader: Trader) -> None:
    placed = trader.place("AAPL", quantity="3")
    trader.client.step(1)
    confirmed = trader.order(placed["id"])
    assert confirmed["state"] == "confirmed"
    assert confirmed["executions"] == []

    trader.client.step(1)
    ask_now = trader.quote("AAPL")["ask_price"]
    filled = trader.order(placed["id"])
    assert filled["state"] == "filled"
    (execution,) = filled["executions"]
    assert execution["quantity"] == "3"
    assert execution["price"] == ask_now
    assert execution["fees"] == "0.00"
    assert execution["timestamp"] == "2026-12-01T15:00:02.000000Z"
    assert filled["cumulative_quantity"] == "3"
    assert Decimal(filled["average_price"]) == Decimal(execution["price"])
    assert filled["fees"] == "0.00"
    assert filled["last_transaction_at"] == execution["timestamp"]


@pytest.mark.req("sandbox.orders.async-fills")
def test_market_buy_holds_buying_power_at_the_ask_collared_five_percent_above(
    idle: Trader,
) -> None:
    trader = idle
    cash = trader.cash()
    before = trader.buying_power()
    ask = trader.quote("AAPL")["ask_price"]
    trader.place("AAPL", quantity="4")
    assert trader.cash() == cash
    assert before - trader.buying_power() == 4 * collared(ask)


@pytest.mark.req("sandbox.orders.async-fills")
def test_filled_market_buy_moves_the_position_cash_and_buying_power(trader: Trader) -> None:
    cash_before = trader.cash()
    filled = _filled_buy(trader, "AAPL", "5")
    price = Decimal(filled["executions"][0]["price"])

    assert trader.cash() == cash_before - 5 * price
    assert trader.buying_power() == trader.cash()
    position = trader.position("AAPL")
    assert position is not None
    assert position["quantity"] == "5"
    assert Decimal(position["average_buy_price"]) == price
    assert Decimal(position["cost_basis"]) == 5 * price
    assert position["shares_available_for_sells"] == "5"
    portfolio = trader.portfolio()
    assert Decimal(portfolio["equity_value"]) == Decimal(position["market_value"])
    assert Decimal(portfolio["total_value"]) == trader.cash() + Decimal(position["market_value"])


@pytest.mark.req("sandbox.orders.async-fills")
def test_market_sell_fills_at_the_bid_and_pays_regulatory_fees(trader: Trader) -> None:
    _filled_buy(trader, "AAPL", "10")
    cash_before = trader.cash()
    sell = trader.place("AAPL", side="sell", quantity="10")
    trader.client.step(2)
    bid_now = trader.quote("AAPL")["bid_price"]
    sold = trader.order(sell["id"])

    assert sold["state"] == "filled"
    (execution,) = sold["executions"]
    assert execution["price"] == bid_now
    fees = regulatory_fees(Decimal(bid_now), Decimal(10))
    assert Decimal(execution["fees"]) == Decimal(sold["fees"]) == fees > 0
    assert trader.cash() == cash_before + 10 * Decimal(bid_now) - fees
    assert trader.position("AAPL") is None


# -- limits and size ------------------------------------------------------------------------------


@pytest.mark.req("sandbox.orders.async-fills")
def test_resting_limit_buy_waits_until_the_market_crosses_it_and_fills_no_worse(
    trader: Trader,
) -> None:
    limit = cents_down(Decimal(trader.quote("AAPL")["ask_price"]) * Decimal("0.95"))
    placed = trader.place("AAPL", type="limit", limit_price=str(limit), quantity="2")
    assert placed["type"] == "limit"
    assert placed["price"] == str(limit)

    trader.client.step(120)
    resting = trader.order(placed["id"])
    assert resting["state"] == "confirmed"
    assert resting["executions"] == []

    trader.client.admin("shock", {"symbol": "AAPL", "pct": "-10"})
    trader.client.step(2)
    filled = trader.order(placed["id"])
    assert filled["state"] == "filled"
    (execution,) = filled["executions"]
    assert Decimal(execution["price"]) < limit
    assert Decimal(filled["average_price"]) == Decimal(execution["price"])


def test_stop_orders_read_back_as_robinhood_spells_them(idle: Trader) -> None:
    stop_limit = idle.place(
        "MSFT", type="stop_limit", stop_price="900.00", limit_price="910.00", quantity="1"
    )
    stop_market = idle.place("MSFT", type="stop_market", stop_price="900.00", quantity="1")
    assert (stop_limit["type"], stop_limit["trigger"]) == ("limit", "stop")
    assert (stop_limit["price"], stop_limit["stop_price"]) == ("910.00", "900.00")
    assert (stop_market["type"], stop_market["trigger"]) == ("market", "stop")
    assert (stop_market["price"], stop_market["stop_price"]) == (None, "900.00")


@pytest.mark.req("sandbox.orders.async-fills")
def test_buy_stop_waits_for_the_last_trade_to_reach_its_stop_then_fills(trader: Trader) -> None:
    stop = cents_down(Decimal(trader.quote("AAPL")["last_trade_price"]) * Decimal("1.03"))
    placed = trader.place("AAPL", type="stop_market", stop_price=str(stop), quantity="1")
    trader.client.step(60)
    assert trader.order(placed["id"])["executions"] == []

    trader.client.admin("shock", {"symbol": "AAPL", "pct": "6"})
    trader.client.step(2)
    filled = trader.order(placed["id"])
    assert filled["state"] == "filled"
    assert Decimal(filled["average_price"]) >= stop


@pytest.mark.req("sandbox.orders.async-fills")
def test_order_bigger_than_the_displayed_size_fills_in_several_executions(
    trader: Trader,
) -> None:
    # The venue shows at most 500 shares at the ask, so 1000 shares need two looks or more.
    placed = trader.place("F", quantity="1000")
    trader.client.step(2)
    partial = trader.order(placed["id"])
    assert partial["state"] == "partially_filled"
    assert len(partial["executions"]) == 1
    assert 0 < Decimal(partial["cumulative_quantity"]) < 1000

    filled = trader.step_until(placed["id"], {"filled"})
    executions = filled["executions"]
    assert len(executions) >= 2
    quantities = [Decimal(e["quantity"]) for e in executions]
    assert sum(quantities) == Decimal(filled["cumulative_quantity"]) == 1000
    stamps = [e["timestamp"] for e in executions]
    assert stamps == sorted(set(stamps))
    notional = sum((Decimal(e["price"]) * Decimal(e["quantity"]) for e in executions), Decimal(0))
    assert Decimal(filled["average_price"]) == (notional / 1000).quantize(Decimal("0.0001"))
    position = trader.position("F")
    assert position is not None
    assert position["quantity"] == "1000"


# -- cancelling -----------------------------------------------------------------------------------


@pytest.mark.req("sandbox.orders.cancel")
def test_cancelling_an_open_order_cancels_it_and_releases_its_hold(trader: Trader) -> None:
    cash = trader.cash()
    placed = trader.place("AAPL", type="limit", limit_price="200.00", quantity="3")
    trader.client.step(5)
    assert trader.buying_power() == cash - Decimal("600.00")

    assert trader.cancel(placed["id"]) == {"accepted": True}
    cancelled = trader.order(placed["id"])
    assert cancelled["state"] == "cancelled"
    assert cancelled["executions"] == []
    assert trader.buying_power() == trader.cash() == cash


@pytest.mark.req("sandbox.orders.cancel")
def test_cancelling_a_partly_filled_order_keeps_the_fills_and_cancels_the_rest(
    trader: Trader,
) -> None:
    placed = trader.place("F", quantity="1000")
    trader.client.step(2)
    partial = trader.order(placed["id"])
    assert partial["state"] == "partially_filled"

    trader.cancel(placed["id"])
    trader.client.step(30)
    ended = trader.order(placed["id"])
    assert ended["state"] == "partially_filled_rest_cancelled"
    assert ended["executions"] == partial["executions"]
    assert ended["cumulative_quantity"] == partial["cumulative_quantity"]
    position = trader.position("F")
    assert position is not None
    assert position["quantity"] == partial["cumulative_quantity"]
    assert trader.buying_power() == trader.cash()


@pytest.mark.req("sandbox.orders.cancel")
def test_cancelling_a_filled_order_is_refused_naming_the_order(trader: Trader) -> None:
    filled = _filled_buy(trader, "AAPL", "1")
    error = trader.client.error(
        "cancel_equity_order", {"account_number": trader.account, "order_id": filled["id"]}
    )
    assert (error["code"], error["field"]) == ("ORDER_NOT_CANCELLABLE", "order_id")
    assert trader.order(filled["id"])["state"] == "filled"


# -- faults ---------------------------------------------------------------------------------------


@pytest.mark.req("sandbox.faults")
def test_forced_rejection_fault_rejects_the_next_order_with_its_reason(trader: Trader) -> None:
    cash = trader.cash()
    trader.client.faults(reject_orders=1, reject_reason="Simulated: price band breached.")
    doomed = trader.place("AAPL", quantity="2")
    spared = trader.place("MSFT", quantity="1")
    assert doomed["state"] == "queued"
    trader.client.step(1)

    rejected = trader.order(doomed["id"])
    assert rejected["state"] == "rejected"
    assert rejected["reject_reason"] == "Simulated: price band breached."
    assert rejected["executions"] == []
    assert "reject_reason" not in trader.order(spared["id"])
    assert trader.order(spared["id"])["state"] == "confirmed"
    trader.cancel(spared["id"])
    assert trader.buying_power() == cash


# -- outside regular hours ------------------------------------------------------------------------


@pytest.mark.req("sandbox.orders.after-hours-queue")
def test_market_order_placed_on_a_weekend_fills_only_after_the_next_regular_open() -> None:
    with running_venue(start=SATURDAY) as client:
        trader = Trader.on(client)
        placed = trader.place("AAPL", quantity="2")
        client.admin("clock", {"set": "2026-12-07T14:29:59+00:00"})
        waiting = trader.order(placed["id"])
        assert waiting["executions"] == []
        assert waiting["state"] in {"queued", "confirmed"}

        client.step(5)
        filled = trader.order(placed["id"])
        assert filled["state"] == "filled"
        assert filled["executions"][0]["timestamp"] >= MONDAY_OPEN


@pytest.mark.req("sandbox.orders.after-hours-queue")
def test_market_order_placed_on_a_weekend_stays_queued_until_the_next_open() -> None:
    # VENUE BUG (see the report): the equity desk confirms one second after placement
    # even when no session is open; the reference and the options desk keep such an
    # order ``queued`` until the next regular open.
    with running_venue(start=SATURDAY) as client:
        trader = Trader.on(client)
        placed = trader.place("AAPL", quantity="2")
        client.step(3600)
        assert trader.order(placed["id"])["state"] == "queued"


@pytest.mark.req("sandbox.orders.time-in-force")
def test_gfd_limit_order_still_open_at_the_close_is_cancelled_at_the_close(
    trader: Trader,
) -> None:
    cash = trader.cash()
    placed = trader.place("AAPL", type="limit", limit_price="200.00", quantity="2")
    assert placed["time_in_force"] == "gfd"
    trader.client.admin("clock", {"set": "2026-12-01T20:59:59+00:00"})
    assert trader.order(placed["id"])["state"] == "confirmed"

    trader.client.step(2)
    expired = trader.order(placed["id"])
    assert expired["state"] == "cancelled"
    assert expired["last_transaction_at"] == "2026-12-01T21:00:00.000000Z"
    assert trader.buying_power() == cash


@pytest.mark.req("sandbox.orders.time-in-force")
def test_gtc_limit_order_stays_open_past_the_close(trader: Trader) -> None:
    cash = trader.cash()
    placed = trader.place(
        "AAPL", type="limit", limit_price="200.00", quantity="2", time_in_force="gtc"
    )
    trader.client.admin("clock", {"set": "2026-12-02T14:00:00+00:00"})
    still = trader.order(placed["id"])
    assert still["state"] == "confirmed"
    assert still["time_in_force"] == "gtc"
    assert trader.buying_power() == cash - Decimal("400.00")


# -- ref_id and approval --------------------------------------------------------------------------


@pytest.mark.req("sandbox.orders.ref-id-dedupe")
def test_the_same_ref_id_twice_returns_the_same_order_and_places_one(idle: Trader) -> None:
    terms = {"type": "limit", "limit_price": "150.00", "quantity": "1", "ref_id": ref_id(4242)}
    first = idle.place("MSFT", **terms)
    held = idle.buying_power()
    again = idle.place("MSFT", **terms)

    assert again["id"] == first["id"]
    assert again["ref_id"] == ref_id(4242)
    assert [o["id"] for o in idle.orders() if o["ref_id"] == ref_id(4242)] == [first["id"]]
    assert idle.buying_power() == held


@pytest.mark.req("sandbox.orders.ref-id-dedupe")
def test_a_ref_id_that_is_not_a_uuid_is_refused_naming_ref_id(idle: Trader) -> None:
    count = len(idle.orders())
    error = idle.refusal("AAPL", quantity="1", ref_id="order-1")
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "ref_id")
    assert len(idle.orders()) == count


@pytest.mark.req("sandbox.orders.approval-setting")
def test_with_trade_approval_on_placing_returns_an_approval_instead_of_an_order() -> None:
    with running_venue() as client:
        trader = Trader.on(client)
        client.admin("approval", {"human_must_approve_trades": True})
        setting = client.data("get_trade_approval_setting", {"account_number": trader.account})
        assert setting["setting"]["human_must_approve_trades"] is True
        cash = trader.cash()

        data = client.data("place_equity_order", trader.terms("AAPL", quantity="2"))
        assert data.get("order") is None
        approval = data["approval"]
        assert approval["account_number"] == trader.account
        assert approval["state"] == "pending"
        proposed = approval["proposed_order"]
        assert (proposed["symbol"], proposed["side"], proposed["quantity"]) == ("AAPL", "buy", "2")
        assert trader.orders() == []
        client.step(5)
        assert trader.orders() == []
        assert trader.buying_power() == cash


# -- the rules, each refused naming its field -----------------------------------------------------

_RULES: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "both quantity and dollar_amount": (
        "AAPL",
        {"quantity": "1", "dollar_amount": "100.00"},
        "INVALID_ARGUMENT",
        "quantity",
    ),
    "neither quantity nor dollar_amount": ("AAPL", {}, "INVALID_ARGUMENT", "quantity"),
    "dollar_amount on a limit order": (
        "AAPL",
        {"type": "limit", "limit_price": "200.00", "dollar_amount": "100.00"},
        "INVALID_ARGUMENT",
        "dollar_amount",
    ),
    "limit order without limit_price": (
        "AAPL",
        {"type": "limit", "quantity": "1"},
        "INVALID_ARGUMENT",
        "limit_price",
    ),
    "limit_price on a market order": (
        "AAPL",
        {"quantity": "1", "limit_price": "200.00"},
        "INVALID_ARGUMENT",
        "limit_price",
    ),
    "stop_market order without stop_price": (
        "AAPL",
        {"type": "stop_market", "quantity": "1"},
        "INVALID_ARGUMENT",
        "stop_price",
    ),
    "fractional quantity on a limit order": (
        "AAPL",
        {"type": "limit", "limit_price": "200.00", "quantity": "0.5"},
        "INVALID_ARGUMENT",
        "quantity",
    ),
    "fractional quantity in extended hours": (
        "AAPL",
        {
            "type": "limit",
            "limit_price": "200.00",
            "quantity": "0.5",
            "market_hours": "extended_hours",
        },
        "INVALID_ARGUMENT",
        "quantity",
    ),
    "market order in extended hours": (
        "AAPL",
        {"quantity": "1", "market_hours": "extended_hours"},
        "INVALID_ARGUMENT",
        "market_hours",
    ),
    "short sale": ("NVDA", {"side": "sell", "quantity": "1"}, "INSUFFICIENT_SHARES", "quantity"),
    "unknown symbol": ("ZZZZZ", {"quantity": "1"}, "NOT_FOUND", "symbol"),
    "untradeable symbol": ("SIVBQ", {"quantity": "1"}, "SYMBOL_NOT_TRADEABLE", "symbol"),
    "insufficient buying power": (
        "AAPL",
        {"quantity": "10000"},
        "INSUFFICIENT_BUYING_POWER",
        "quantity",
    ),
    "unparseable quantity": ("AAPL", {"quantity": "n/a"}, "INVALID_ARGUMENT", "quantity"),
    "fraction of a symbol that trades in whole shares": (
        "BRK.A",
        {"quantity": "0.01"},
        "INVALID_ARGUMENT",
        "quantity",
    ),
    "limit_price off the cent tick": (
        "AAPL",
        {"type": "limit", "limit_price": "200.001", "quantity": "1"},
        "INVALID_ARGUMENT",
        "limit_price",
    ),
}


@pytest.mark.req("sandbox.orders.rules")
@pytest.mark.req("mcp.tools.business-errors-are-results")
@pytest.mark.parametrize("rule", sorted(_RULES))
def test_each_order_rule_is_refused_naming_its_field(idle: Trader, rule: str) -> None:
    symbol, terms, code, field = _RULES[rule]
    count = len(idle.orders())
    error = idle.refusal(symbol, **terms)
    assert (error["code"], error["field"]) == (code, field)
    assert len(idle.orders()) == count


@pytest.mark.req("sandbox.orders.rules")
def test_an_account_that_is_not_agentic_cannot_place_orders(idle: Trader) -> None:
    accounts = idle.client.data("get_accounts")["accounts"]
    (other,) = [a["account_number"] for a in accounts if not a["agentic_allowed"]]
    error = idle.client.error(
        "place_equity_order", {**idle.terms("AAPL", quantity="1"), "account_number": other}
    )
    assert (error["code"], error["field"]) == ("ACCOUNT_NOT_AGENTIC", "account_number")
    assert idle.client.data("get_equity_orders", {"account_number": other})["orders"] == []


@pytest.mark.req("sandbox.orders.rules")
def test_review_checks_the_same_rules_and_places_nothing(idle: Trader) -> None:
    count = len(idle.orders())
    refused = idle.client.error(
        "review_equity_order", idle.terms("AAPL", type="limit", quantity="1")
    )
    assert refused["field"] == "limit_price"
    review = idle.client.data("review_equity_order", idle.terms("AAPL", quantity="1"))
    assert review["order_checks"]["passed"] is True
    assert len(idle.orders()) == count
