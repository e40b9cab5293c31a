"""The same crypto orders on the seeded sandbox venue and on the engine fed observed crypto
quotes give the same orders, fills, holdings, cost and cash, to the cent.

Each step runs first on the seeded venue (its crypto desk reading the seeded market through a
recorder), then on an ``EquityEngine`` in SQLite whose only crypto prices are the quotes the
recorder saw, handed to its ``ObservedCryptoPrices`` (the same price path, as paper is handed
the upstream's ``get_crypto_quotes``). Steps: market buys and sells by units and by dollars,
limits that rest and later cross, a buy bigger than one look fills (a partial fill), a cancel,
an order the venue refuses, clock steps, and the engine's process restarting. After every
step the two answer every read identically (``Pair.compare_everything``).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from engine_pair_testkit import PAIRS, Pair, build_pair
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from ordergate.store import engine_for, migrate, normalise_url


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    path: Path = tmp_path_factory.mktemp("crypto-differential") / "ledger.db"
    engine = engine_for(normalise_url(f"sqlite:///{path}"))
    migrate(engine)
    try:
        yield engine
    finally:
        engine.dispose()


pairs = st.sampled_from(PAIRS)
steps = st.one_of(
    st.tuples(st.just("buy_units"), pairs, st.sampled_from(["0.01", "0.05", "0.2"])),
    st.tuples(st.just("buy_dollars"), pairs, st.sampled_from(["25.00", "500.00", "1234.56"])),
    st.tuples(st.just("sell_part"), pairs, st.sampled_from([Decimal("0.5"), Decimal(1)])),
    st.tuples(st.just("limit_buy"), pairs, st.sampled_from([Decimal("0.001"), Decimal("0.01")])),
    st.tuples(st.just("big_buy"), st.just("BTC-USD")),
    st.tuples(st.just("refused"), pairs),
    st.tuples(st.just("cancel_newest")),
    st.tuples(st.just("wait"), st.sampled_from([1, 2, 30, 600, 3_600, 20 * 3_600])),
    st.tuples(st.just("restart")),
)


def _rhs(pair: Pair) -> str:
    return pair.account.rhs_account_number


def _held(pair: Pair, symbol: str) -> Decimal:
    result = pair.call("get_crypto_positions", rhs_account_number=_rhs(pair))
    rows = result["structuredContent"]["data"]["positions"]
    code = symbol.split("-")[0]
    found = [row for row in rows if row["currency_code"] == code]
    return Decimal(found[0]["quantity_available"]) if found else Decimal(0)


def _run(pair: Pair, step: tuple[Any, ...]) -> None:
    kind = step[0]
    order: dict[str, Any] = {"rhs_account_number": _rhs(pair)}
    if kind == "buy_units":
        pair.call("place_crypto_order", **order, symbol=step[1], side="buy", type="market",
                  quantity=step[2])  # fmt: skip
    elif kind == "buy_dollars":
        pair.call("place_crypto_order", **order, symbol=step[1], side="buy", type="market",
                  dollar_amount=step[2])  # fmt: skip
    elif kind == "sell_part":
        quantity = (_held(pair, step[1]) * step[2]).quantize(Decimal("0.00000001"))
        if quantity > 0:
            pair.call("place_crypto_order", **order, symbol=step[1], side="sell",
                      type="market", quantity=str(quantity))  # fmt: skip
    elif kind == "limit_buy":
        pair.seeded.sync()
        quote = pair.crypto_recorder.quote(step[1], pair.clock.now())
        limit = (quote.bid_price * (1 - step[2])).quantize(Decimal("0.01"))
        pair.call("place_crypto_order", **order, symbol=step[1], side="buy", type="limit",
                  quantity="0.01", limit_price=str(limit))  # fmt: skip
    elif kind == "big_buy":
        pair.call("place_crypto_order", **order, symbol=step[1], side="buy", type="market",
                  quantity="0.6")  # fmt: skip
    elif kind == "refused":
        result = pair.call("place_crypto_order", **order, symbol=step[1], side="sell",
                           type="market", quantity="1000")  # fmt: skip
        assert result["isError"]
    elif kind == "cancel_newest":
        listed = pair.call("get_crypto_orders", **order)["structuredContent"]["data"]["orders"]
        open_ones = [o for o in listed if o["state"] in ("queued", "confirmed", "partially_filled")]
        if open_ones:
            pair.call("cancel_crypto_order", **order, order_id=open_ones[0]["id"])
    elif kind == "wait":
        pair.clock.advance(timedelta(seconds=step[1]))
    else:
        pair.restart()


def test_a_known_crypto_path_fills_rests_cancels_and_agrees_to_the_cent(database: Engine) -> None:
    pair = build_pair(database)
    plan: list[tuple[Any, ...]] = [
        ("buy_units", "BTC-USD", "0.05"),
        ("wait", 2),
        ("buy_dollars", "ETH-USD", "500.00"),
        ("wait", 2),
        ("big_buy", "BTC-USD"),
        ("wait", 2),
        ("wait", 1),
        ("wait", 30),
        ("sell_part", "BTC-USD", Decimal("0.5")),
        ("wait", 2),
        ("limit_buy", "ETH-USD", Decimal("0.001")),
        ("limit_buy", "BTC-USD", Decimal("0.01")),
        ("refused", "BTC-USD"),
        ("restart",),
        ("wait", 3_600),
        ("cancel_newest",),
        ("wait", 20 * 3_600),
        ("sell_part", "ETH-USD", Decimal(1)),
        ("wait", 2),
    ]
    for step in plan:
        _run(pair, step)
        pair.compare_everything()
    listed = pair.call("get_crypto_orders", rhs_account_number=_rhs(pair))
    states = {o["state"] for o in listed["structuredContent"]["data"]["orders"]}
    assert "filled" in states and "canceled" in states


@settings(
    max_examples=15,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(steps, min_size=1, max_size=10))
def test_the_engine_on_observed_crypto_quotes_answers_as_the_seeded_venue(
    database: Engine, plan: list[tuple[Any, ...]]
) -> None:
    pair = build_pair(database)
    for step in plan:
        _run(pair, step)
        pair.compare_everything()
    pair.clock.advance(timedelta(days=1))
    pair.compare_everything()
