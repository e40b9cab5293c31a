"""The same orders on the seeded sandbox venue and on the engine fed observed prices give the
same answers, to the cent.

Hypothesis draws a sequence of steps: market buys and sells in shares and in dollars, partial
sells, limits that rest and later cross (``gfd`` and ``gtc``), extended-hours limits, orders
the venue refuses (extended-hours market orders, sub-cent dollar amounts), cancels, clock
steps of seconds, hours and across the close, 2- or 3-for-1 splits, and the engine's process
restarting (a new ``EquityEngine`` on the book, carrying on from what was committed).

Each step runs first on the seeded venue (a ``Venue`` whose equity desk reads the seeded
market through a recorder), then on an ``EquityEngine`` kept in SQLite whose only prices are
the quotes the recorder saw, handed to its ``ObservedPrices`` (the same price path, as paper
will be handed the upstream's quotes), and a split the seeded venue made is announced to the
engine's feed. After every step the two answer every read (orders with their executions,
positions with average cost and unrealised P&L, tax lots, portfolio and cash, realised P&L and
closed trades) identically, and every call in between answered identically too.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from engine_pair_testkit import SYMBOLS, Pair, build_pair
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from ordergate.store import engine_for, migrate, normalise_url

CENT = Decimal("0.01")


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    path: Path = tmp_path_factory.mktemp("differential") / "ledger.db"
    engine = engine_for(normalise_url(f"sqlite:///{path}"))
    migrate(engine)
    try:
        yield engine
    finally:
        engine.dispose()


# -- the steps ------------------------------------------------------------------------------

symbols = st.sampled_from(SYMBOLS)
shares = st.integers(min_value=1, max_value=12).map(str)
dollars = st.integers(min_value=100, max_value=50_000).map(lambda cents: str(cents * CENT))
fractions = st.sampled_from([Decimal("0.25"), Decimal("0.5"), Decimal("1")])
offsets = st.integers(min_value=0, max_value=40).map(lambda bps: Decimal(bps) / 10_000)

steps = st.one_of(
    st.tuples(st.just("buy_shares"), symbols, shares),
    st.tuples(st.just("buy_dollars"), symbols, dollars),
    st.tuples(st.just("sell_part"), symbols, fractions),
    st.tuples(st.just("limit_buy"), symbols, offsets, st.sampled_from(["gfd", "gtc"])),
    st.tuples(st.just("limit_sell"), symbols, offsets, st.sampled_from(["gfd", "gtc"])),
    st.tuples(st.just("extended_limit"), symbols, offsets),
    st.tuples(st.just("refused"), symbols, st.sampled_from(["extended_market", "sub_cent"])),
    st.tuples(st.just("cancel_newest")),
    st.tuples(st.just("wait"), st.sampled_from([2, 30, 600, 3_600, 4 * 3_600, 20 * 3_600])),
    st.tuples(st.just("split"), symbols, st.sampled_from([Decimal(2), Decimal(3)])),
    st.tuples(st.just("restart")),
)


def _run(pair: Pair, step: tuple[Any, ...]) -> None:
    kind = step[0]
    order = {"account_number": pair.account.account_number}
    if kind == "buy_shares":
        pair.call("place_equity_order", **order, symbol=step[1], side="buy", type="market",
                  quantity=step[2])  # fmt: skip
    elif kind == "buy_dollars":
        pair.call("place_equity_order", **order, symbol=step[1], side="buy", type="market",
                  dollar_amount=step[2])  # fmt: skip
    elif kind == "sell_part":
        held = pair.held(step[1])
        quantity = (held * step[2]).quantize(Decimal("0.000001"))
        if quantity > 0:
            pair.call("place_equity_order", **order, symbol=step[1], side="sell",
                      type="market", quantity=str(quantity))  # fmt: skip
    elif kind in ("limit_buy", "limit_sell", "extended_limit"):
        bid = pair.bid(step[1])
        buying = kind != "limit_sell"
        limit = bid * (1 - step[2]) if buying else bid * (1 + step[2])
        tick = CENT if limit >= 1 else Decimal("0.0001")
        args = {"symbol": step[1], "type": "limit", "limit_price": str(limit.quantize(tick))}
        if kind == "extended_limit":
            args |= {"side": "buy", "quantity": "1", "market_hours": "extended_hours"}
        elif buying:
            args |= {"side": "buy", "quantity": "2", "time_in_force": step[3]}
        else:
            held = pair.held(step[1])
            if held < 1:
                return
            args |= {"side": "sell", "quantity": "1", "time_in_force": step[3]}
        pair.call("place_equity_order", **order, **args)
    elif kind == "refused":
        args = {"symbol": step[1], "side": "buy", "type": "market"}
        if step[2] == "extended_market":
            args |= {"quantity": "1", "market_hours": "extended_hours"}
        else:
            args |= {"dollar_amount": "10.005"}
        assert pair.call("place_equity_order", **order, **args)["isError"]
    elif kind == "cancel_newest":
        orders = pair.data("get_equity_orders").get("orders", [])
        open_ones = [o for o in orders if o["state"] in ("queued", "confirmed", "partially_filled")]
        if open_ones:
            pair.call("cancel_equity_order", **order, order_id=open_ones[0]["id"])
    elif kind == "wait":
        pair.clock.advance(timedelta(seconds=step[1]))
    elif kind == "restart":
        pair.restart()
    else:
        pair.split(step[1], step[2])


@settings(
    max_examples=25,
    stateful_step_count=12,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(steps, min_size=1, max_size=12))
def test_the_engine_on_observed_prices_answers_as_the_seeded_venue(
    database: Engine, plan: list[tuple[Any, ...]]
) -> None:
    pair = build_pair(database)
    for step in plan:
        _run(pair, step)
        pair.compare_everything()
    pair.clock.advance(timedelta(days=1))
    pair.compare_everything()


def test_a_known_path_fills_rests_expires_splits_and_agrees_to_the_cent(database: Engine) -> None:
    """One fixed sequence covering every kind of step, so the harness itself is exercised
    the same way on every run."""
    pair = build_pair(database)
    plan: list[tuple[Any, ...]] = [
        ("buy_shares", "SPY", "10"),
        ("wait", 30),
        ("buy_dollars", "SPY", "250.55"),
        ("wait", 600),
        ("sell_part", "SPY", Decimal("0.5")),
        ("wait", 30),
        ("limit_buy", "AAPL", Decimal("0"), "gfd"),
        ("limit_sell", "SPY", Decimal("0.004"), "gtc"),
        ("extended_limit", "AAPL", Decimal("0.001")),
        ("refused", "SPY", "extended_market"),
        ("refused", "SPY", "sub_cent"),
        ("wait", 4 * 3_600),
        ("wait", 20 * 3_600),
        ("cancel_newest",),
        ("split", "SPY", Decimal(2)),
        ("restart",),
        ("wait", 3_600),
        ("sell_part", "SPY", Decimal("1")),
        ("wait", 30),
    ]
    for step in plan:
        _run(pair, step)
        pair.compare_everything()
    orders = pair.data("get_equity_orders")["orders"]
    states = {o["state"] for o in orders}
    assert "filled" in states
    assert states & {"cancelled", "partially_filled_rest_cancelled"}
