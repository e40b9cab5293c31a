"""Every contract tool, called over the wire, answers what its captured output schema allows.

One venue takes a tour that calls each of the tools with an output schema, with results in
several states (orders queued, working, partly filled, filled, cancelled, rejected; an
approval instead of an order); every ``structuredContent`` is validated against the schema
of its tool.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from order_testkit import Trader, ref_id
from venue_testkit import VenueClient, running_venue

from ordergate.inventory import ToolSpec, load_inventory

CONTRACT: dict[str, ToolSpec] = {
    name: spec for name, spec in load_inventory().items() if spec.output_schema is not None
}

Results = dict[str, list[dict[str, Any]]]


class Recorder:
    """Calls tools on a venue and keeps every successful ``structuredContent`` by tool."""

    def __init__(self, client: VenueClient) -> None:
        self.client = client
        self.results: Results = defaultdict(list)

    def __call__(self, tool: str, arguments: dict[str, Any] | None = None) -> Any:
        result = self.client.call(tool, arguments)
        assert result["isError"] is False, (tool, result)
        self.results[tool].append(result["structuredContent"])
        return result["structuredContent"]["data"]


def _equities(call: Recorder, trader: Trader) -> None:
    account = trader.account
    call("search", {"query": "apple"})
    call("search", {"query": "bitcoin", "asset_type": "crypto"})
    call("search", {"query": "S&P", "limit": 3})
    call("get_equity_quotes", {"symbols": ["AAPL", "F", "TLRY", "SIVBQ"]})
    call("get_equity_price_book", {"symbols": ["AAPL", "TLRY"]})
    call(
        "get_equity_historicals",
        {"symbols": ["AAPL", "SPY"], "start_time": "2026-11-02T14:30:00Z", "interval": "day"},
    )
    call(
        "get_equity_historicals",
        {"symbols": ["AAPL"], "start_time": "2026-11-30T14:30:00Z", "interval": "hour"},
    )
    call("get_equity_tradability", {"account_number": account, "symbols": ["AAPL", "BRK.A"]})
    call("get_equity_tradability", {"account_number": account, "symbols": ["SIVBQ", "ZZZZZ"]})

    call("review_equity_order", trader.terms("AAPL", quantity="2"))
    call("review_equity_order", trader.terms("AAPL", dollar_amount="150.00"))
    call("review_equity_order", trader.terms("AAPL", quantity="10000"))
    call(
        "review_equity_order",
        trader.terms(
            "MSFT", type="stop_limit", stop_price="600.00", limit_price="610.00", quantity="1"
        ),
    )

    def place(symbol: str, n: int, **terms: Any) -> str:
        data = call("place_equity_order", trader.terms(symbol, ref_id=ref_id(n), **terms))
        order_id: str = data["order"]["id"]
        return order_id

    place("AAPL", 1, quantity="2")
    place("AAPL", 2, dollar_amount="150.00")
    resting = place("AAPL", 3, type="limit", limit_price="200.00", quantity="1")
    place("MSFT", 4, type="stop_limit", stop_price="900.00", limit_price="910.00", quantity="1")
    place("MSFT", 5, type="stop_market", stop_price="900.00", quantity="1", time_in_force="gtc")
    place("AAPL", 6, type="limit", limit_price="200.00", quantity="1", market_hours="all_day_hours")
    big = place("F", 7, quantity="1000")
    trader.client.faults(reject_orders=1)
    place("AAPL", 8, quantity="1")
    call("get_equity_orders", {"account_number": account})  # all queued

    trader.client.step(2)
    call("get_equity_orders", {"account_number": account})  # confirmed, filled, partial
    call("cancel_equity_order", {"account_number": account, "order_id": big})
    call("cancel_equity_order", {"account_number": account, "order_id": resting})
    place("AAPL", 9, side="sell", quantity="1")
    trader.client.step(2)
    call("get_equity_orders", {"account_number": account})
    call("get_equity_orders", {"account_number": account, "state": "filled", "symbol": "AAPL"})
    call("get_equity_orders", {"account_number": account, "order_id": big})
    call("get_equity_orders", {"account_number": account, "placed_agent": "user"})
    call("get_portfolio", {"account_number": account})


def _options(call: Recorder, trader: Trader) -> None:
    account = trader.account
    call("get_option_chains", {})
    chain = call("get_option_chains", {"underlying_symbol": "AAPL"})["chains"][0]
    call("get_option_chains", {"ids": chain["id"]})
    expiry = chain["expiration_dates"][1]
    calls = call(
        "get_option_instruments",
        {"chain_symbol": "AAPL", "expiration_dates": expiry, "type": "call"},
    )["instruments"]
    call("get_option_instruments", {"chain_id": chain["id"], "state": "active"})
    near = calls[len(calls) // 2]
    far = calls[-1]
    call("get_option_instruments", {"ids": f"{near['id']},{far['id']}"})
    quotes = call("get_option_quotes", {"instrument_ids": [near["id"], far["id"]]})["results"]
    call(
        "get_option_historicals",
        {"instrument_ids": [near["id"]], "start_time": "2026-11-30T14:30:00Z", "interval": "hour"},
    )
    ask = Decimal(quotes[0]["quote"]["ask_price"])

    def leg(option: dict[str, Any], side: str) -> dict[str, Any]:
        return {
            "option_id": option["id"],
            "side": side,
            "position_effect": "open",
            "ratio_quantity": 1,
        }

    puts = call(
        "get_option_instruments",
        {"chain_symbol": "AAPL", "expiration_dates": expiry, "type": "put"},
    )["instruments"]
    marketable = {
        "account_number": account,
        "legs": [leg(near, "buy")],
        "quantity": "1",
        "type": "limit",
        "price": str(ask + 1),
        "direction": "debit",
    }
    resting_terms = {**marketable, "legs": [leg(far, "buy")], "price": "0.01"}
    # A put sold to open is secured by cash, which an option_level_2 account may do.
    secured_put = {**marketable, "legs": [leg(puts[0], "sell")], "direction": "credit"}
    call("review_option_order", marketable)
    call("review_option_order", resting_terms)
    call("review_option_order", {**secured_put, "price": "0.01"})
    filled = call("place_option_order", {**marketable, "ref_id": ref_id(101)})["order"]
    resting = call("place_option_order", {**resting_terms, "ref_id": ref_id(102)})["order"]
    call("get_option_orders", {"account_number": account})
    trader.client.step(3)
    call("cancel_option_order", {"account_number": account, "order_id": resting["id"]})
    call("get_option_orders", {"account_number": account})
    call("get_option_orders", {"account_number": account, "order_id": filled["id"]})
    call("get_option_positions", {"account_number": account})
    call("get_option_positions", {"account_number": account, "nonzero": False})
    call("get_portfolio", {"account_number": account})


def _approvals(call: Recorder, trader: Trader) -> None:
    account = trader.account
    call("get_trade_approval_setting", {"account_number": account})
    trader.client.admin("approval", {"human_must_approve_trades": True})
    call("get_trade_approval_setting", {"account_number": account})
    call("review_equity_order", trader.terms("AAPL", quantity="1"))
    call("place_equity_order", trader.terms("AAPL", quantity="1", ref_id=ref_id(201)))
    call(
        "place_equity_order",
        trader.terms("AAPL", side="sell", type="limit", limit_price="900.00", quantity="1"),
    )
    option = call("get_option_instruments", {"chain_symbol": "SPY", "type": "put"})["instruments"][
        0
    ]
    order = {
        "account_number": account,
        "legs": [{"option_id": option["id"], "side": "buy", "position_effect": "open"}],
        "quantity": "1",
        "type": "limit",
        "price": "0.01",
        "direction": "debit",
    }
    call("review_option_order", order)
    call("place_option_order", {**order, "ref_id": ref_id(202)})


def _after_the_close(call: Recorder, trader: Trader) -> None:
    trader.client.admin("clock", {"set": "2026-12-01T22:30:00+00:00"})
    call("get_equity_quotes", {"symbols": ["AAPL", "MSFT"]})
    call("get_equity_orders", {"account_number": trader.account})
    call("get_option_orders", {"account_number": trader.account})
    for account in call("get_accounts")["accounts"]:
        call("get_portfolio", {"account_number": account["account_number"]})
        call("get_trade_approval_setting", {"account_number": account["account_number"]})
        call("get_equity_orders", {"account_number": account["account_number"]})


@pytest.fixture(scope="module")
def exercised() -> Results:
    with running_venue() as client:
        call = Recorder(client)
        trader = Trader.on(client)
        call("get_accounts")
        _equities(call, trader)
        _options(call, trader)
        _approvals(call, trader)
        _after_the_close(call, trader)
        return dict(call.results)


@pytest.mark.req("mcp.tools.output-valid")
def test_the_tour_calls_every_contract_tool(exercised: Results) -> None:
    assert set(CONTRACT) - set(exercised) == set()


@pytest.mark.req("mcp.tools.output-valid")
@pytest.mark.parametrize("tool", sorted(CONTRACT))
def test_every_result_of_a_contract_tool_matches_its_output_schema(
    exercised: Results, tool: str
) -> None:
    schema = CONTRACT[tool].output_schema
    assert schema is not None
    validator = Draft202012Validator(schema)
    assert exercised.get(tool), f"{tool} was never called"
    for content in exercised[tool]:
        problems = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(content)]
        assert problems == [], (tool, content)


def _states(results: list[dict[str, Any]], key: str) -> set[str]:
    return {order["state"] for content in results for order in content["data"][key]}


@pytest.mark.req("mcp.tools.output-valid")
def test_equity_orders_were_validated_in_every_state_of_their_life(exercised: Results) -> None:
    seen = _states(exercised["get_equity_orders"], "orders")
    assert {
        "queued",
        "confirmed",
        "partially_filled",
        "filled",
        "cancelled",
        "partially_filled_rest_cancelled",
        "rejected",
    } <= seen


@pytest.mark.req("mcp.tools.output-valid")
def test_option_orders_were_validated_queued_filled_and_cancelled(exercised: Results) -> None:
    assert {"queued", "filled", "cancelled"} <= _states(exercised["get_option_orders"], "orders")


@pytest.mark.req("mcp.tools.output-valid")
@pytest.mark.parametrize("tool", ["place_equity_order", "place_option_order"])
def test_placing_was_validated_both_as_an_order_and_as_an_approval(
    exercised: Results, tool: str
) -> None:
    answers = [content["data"] for content in exercised[tool]]
    assert any(data.get("order") for data in answers)
    assert any(data.get("approval") for data in answers)


@pytest.mark.req("mcp.tools.output-valid")
def test_option_positions_were_validated_with_an_open_position(exercised: Results) -> None:
    assert any(content["data"]["positions"] for content in exercised["get_option_positions"])
