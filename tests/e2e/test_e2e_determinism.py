"""Same seed, same start, same calls and clock steps: the same answers, byte for byte.

Two venues run side by side and take the same script in lock step, so the first answer that
differs is the one reported. Everything a tool or the state route answers is compared
(orders with their ids, executions, quotes, positions, portfolio); only the bearer tokens and
MCP session ids, which are secrets drawn at random, are not part of any answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from order_testkit import Trader, ref_id
from venue_testkit import VenueClient, running_venue

SYMBOLS = ["AAPL", "MSFT", "F", "TLRY", "SPY"]


def script(client: VenueClient) -> Iterator[tuple[str, Any]]:
    """Calls and clock steps; yields what each call answered, named by what was asked."""
    trader = Trader.on(client)
    account = trader.account

    def call(tool: str, arguments: dict[str, Any] | None = None) -> tuple[str, Any]:
        return f"{tool} {arguments}", client.call(tool, arguments)

    def place(symbol: str, **terms: Any) -> tuple[str, Any]:
        return call("place_equity_order", trader.terms(symbol, **terms))

    def step(seconds: int) -> tuple[str, Any]:
        return f"step {seconds}", client.step(seconds)

    yield call("get_accounts")
    yield call("get_equity_quotes", {"symbols": SYMBOLS})
    yield call("get_equity_price_book", {"symbols": ["AAPL", "F"]})
    # Without a ref_id the venue makes one up; it must make up the same one.
    yield place("AAPL", quantity="3")
    yield place("F", quantity="1000", ref_id=ref_id(1))
    yield place("MSFT", type="limit", limit_price="500.00", quantity="2", time_in_force="gtc")
    yield place("SPY", dollar_amount="250.00")
    yield step(1)
    yield call("get_equity_orders", {"account_number": account})
    yield step(2)
    yield call("get_equity_orders", {"account_number": account})
    yield "shock", client.admin("shock", {"symbol": "MSFT", "pct": "-12"})
    yield step(7)
    yield call("get_equity_orders", {"account_number": account})
    yield place("AAPL", side="sell", quantity="1")
    yield step(30)
    yield call("get_equity_orders", {"account_number": account})
    yield call("get_equity_positions", {"account_number": account})
    yield call("get_equity_tax_lots", {"account_number": account, "symbol": "F"})
    yield call("get_portfolio", {"account_number": account})
    yield call("get_equity_quotes", {"symbols": SYMBOLS})
    chain = client.data("get_option_chains", {"underlying_symbol": "SPY"})["chains"][0]
    yield call(
        "get_option_instruments",
        {"chain_symbol": "SPY", "expiration_dates": chain["expiration_dates"][0], "type": "put"},
    )
    yield step(3600)
    yield call("get_equity_quotes", {"symbols": SYMBOLS})
    yield call("get_portfolio", {"account_number": account})
    yield "state", client.admin("state")


@pytest.mark.req("sandbox.determinism")
def test_same_seed_same_start_same_calls_give_identical_answers() -> None:
    with running_venue(seed=11) as first, running_venue(seed=11) as second:
        assert first.token != second.token
        answers = 0
        for ours, theirs in zip(script(first), script(second), strict=True):
            assert ours == theirs
            answers += 1
        orders = first.data("get_equity_orders", {"account_number": Trader.on(first).account})
    assert answers > 20
    executions = [e for order in orders["orders"] for e in order["executions"]]
    assert len(executions) >= 3, "the script should have traded"


@pytest.mark.req("sandbox.determinism")
def test_a_different_seed_gives_different_quotes() -> None:
    with running_venue(seed=11) as first, running_venue(seed=12) as second:
        ours = first.data("get_equity_quotes", {"symbols": SYMBOLS})["results"]
        theirs = second.data("get_equity_quotes", {"symbols": SYMBOLS})["results"]
    assert [r["quote"]["symbol"] for r in ours] == [r["quote"]["symbol"] for r in theirs]
    prices = [(r["quote"]["bid_price"], r["quote"]["ask_price"]) for r in ours]
    other = [(r["quote"]["bid_price"], r["quote"]["ask_price"]) for r in theirs]
    assert all(a != b for a, b in zip(prices, other, strict=True))
