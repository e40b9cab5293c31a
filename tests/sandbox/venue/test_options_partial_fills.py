"""The options desk fills at most what the quotes display: one look takes the units every
leg's displayed size covers (a leg's size over its ratio), so an order bigger than the book
fills over several looks, ``partially_filled`` in between, its premium the sum of its fills
and its hold shrinking to what is left; a cancel then ends it
``partially_filled_rest_cancelled``. Deterministic: the sizes are the seeded market's."""

from __future__ import annotations

from decimal import Decimal

from derivatives_testkit import build, leg

from ordergate.sandbox.market import MULTIPLIER

BIG = 400  # more contracts than any seeded quote displays (at most 150 a side)


def test_an_order_bigger_than_the_displayed_size_fills_over_several_looks() -> None:
    d = build(cash=Decimal("10000000.00"))
    call = d.option("call", offset=4)
    ask = d.quote(call.id).ask_price
    order = d.place_option(leg(call.id), quantity=str(BIG), price=str(ask + 1))
    d.advance(2)  # confirmed, then one look
    partial = d.option_order(order["id"])
    processed = int(partial["processed_quantity"])
    assert partial["state"] == "partially_filled"
    assert 0 < processed < BIG
    assert int(partial["pending_quantity"]) == BIG - processed
    executions = partial["legs"][0]["executions"]
    assert len(executions) == 1 and int(executions[0]["quantity"]) == processed
    held = d.agentic.holds[f"option:{order['id']}"]
    assert held == (ask + 1) * MULTIPLIER * (BIG - processed)
    for _ in range(20):
        if d.option_order(order["id"])["state"] == "filled":
            break
        d.advance(1)
    filled = d.option_order(order["id"])
    assert filled["state"] == "filled"
    assert filled["processed_quantity"] == str(BIG)
    fills = filled["legs"][0]["executions"]
    assert len(fills) > 1
    paid = sum(Decimal(e["price"]) * int(e["quantity"]) for e in fills) * MULTIPLIER
    assert Decimal(filled["processed_premium"]) == paid
    assert d.agentic.holds == {}
    assert d.options.positions.quantity(d.number, call.id) == BIG


def test_a_spread_fills_in_whole_units_within_every_legs_displayed_size() -> None:
    d = build(cash=Decimal("10000000.00"), account_type="margin", option_level=3)
    low, high = d.option("call"), d.option("call", offset=2)
    ask, bid = d.quote(low.id).ask_price, d.quote(high.id).bid_price
    order = d.place_option(
        leg(low.id), leg(high.id, "sell"), quantity=str(BIG), type="limit",
        price=str(ask - bid + 1), direction="debit",
    )  # fmt: skip
    d.advance(2)
    partial = d.option_order(order["id"])
    processed = int(partial["processed_quantity"])
    assert partial["state"] == "partially_filled" and 0 < processed < BIG
    legs = partial["legs"]
    assert [int(item["executions"][0]["quantity"]) for item in legs] == [processed, processed]
    assert d.options.positions.quantity(d.number, low.id) == processed
    assert d.options.positions.quantity(d.number, high.id) == -processed


def test_cancelling_a_partly_filled_order_ends_it_rest_cancelled_and_keeps_its_fills() -> None:
    d = build(cash=Decimal("10000000.00"))
    call = d.option("call", offset=4)
    ask = d.quote(call.id).ask_price
    order = d.place_option(leg(call.id), quantity=str(BIG), price=str(ask + 1))
    d.advance(2)
    processed = int(d.option_order(order["id"])["processed_quantity"])
    d.options.cancel(d.number, order["id"])
    ended = d.option_order(order["id"])
    assert ended["state"] == "partially_filled_rest_cancelled"
    assert ended["processed_quantity"] == str(processed)
    assert ended["canceled_quantity"] == str(BIG - processed)
    assert ended["pending_quantity"] == "0"
    assert d.agentic.holds == {}
    assert d.options.positions.quantity(d.number, call.id) == processed
