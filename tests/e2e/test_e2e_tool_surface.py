"""The served tool surface equals the reference capture, and arguments are checked strictly."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from reference import REFERENCE
from venue_testkit import VenueClient, running_venue


@pytest.fixture(scope="module")
def venue() -> Iterator[VenueClient]:
    with running_venue() as client:
        client.initialize()
        yield client


def _served(venue: VenueClient) -> dict[str, dict[str, Any]]:
    tools: dict[str, dict[str, Any]] = {}
    cursor: str | None = None
    for _ in range(20):
        result = venue.rpc("tools/list", {"cursor": cursor} if cursor else {})["result"]
        tools.update({tool["name"]: tool for tool in result["tools"]})
        cursor = result.get("nextCursor")
        if cursor is None:
            return tools
    raise AssertionError("tools/list never ended")


def _captured(name: str) -> Any:
    return json.loads((REFERENCE / name).read_text())


@pytest.mark.req("mcp.tools.schemas-exact")
def test_contract_tools_are_served_with_exactly_the_captured_schemas(venue: VenueClient) -> None:
    served = _served(venue)
    for file_name in (
        "contract-1.7.0.json",
        "market-data-1.7.0.json",
        "options-research-1.8.0.json",
    ):
        for name, captured in _captured(file_name)["tools"].items():
            tool = served[name]
            assert tool["inputSchema"] == captured["inputSchema"], name
            assert tool["outputSchema"] == captured["outputSchema"], name
            assert tool.get("annotations") == captured.get("annotations"), name


@pytest.mark.req("mcp.tools.schemas-exact")
def test_inventory_tools_are_served_with_the_captured_input_schema(venue: VenueClient) -> None:
    served = _served(venue)
    inventory = _captured("inventory-2026-09-21.json")["tools"]
    assert {tool["name"] for tool in inventory} <= set(served)
    for captured in inventory:
        assert served[captured["name"]]["inputSchema"] == captured["inputSchema"]
    for tool in served.values():
        assert tool["description"].strip(), tool["name"]


@pytest.mark.req("mcp.tools.strict-arguments")
@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"symbols": ["AAPL"], "extra": 1}, "extra"),
        ({}, "symbols"),
        ({"symbols": "AAPL"}, "symbols"),
        ({"symbols": [1]}, "symbols[0]"),
        ({"symbols": [None]}, "symbols[0]"),
    ],
    ids=["unexpected-field", "missing-required", "wrong-type", "wrong-item-type", "null-item"],
)
def test_each_kind_of_invalid_argument_is_refused_naming_the_field(
    venue: VenueClient, arguments: dict[str, Any], field: str
) -> None:
    error = venue.error("get_equity_quotes", arguments)
    assert error["code"] == "INVALID_ARGUMENT"
    assert error["field"] == field


@pytest.mark.req("mcp.tools.strict-arguments")
def test_nullable_arrays_accept_null(venue: VenueClient) -> None:
    account = venue.agentic_account()["account_number"]
    order = {
        "account_number": account,
        "symbol": "AAPL",
        "side": "buy",
        "type": "market",
        "quantity": "1",
        "tax_lots": None,
    }
    assert venue.call("review_equity_order", order)["isError"] is False


@pytest.mark.req("mcp.tools.strict-arguments")
def test_nested_objects_are_strict_too(venue: VenueClient) -> None:
    account = venue.agentic_account()["account_number"]
    order = {
        "account_number": account,
        "symbol": "AAPL",
        "side": "sell",
        "type": "market",
        "quantity": "1",
        "tax_lots": [{"open_lot_id": "x", "quantity": "1", "price": "1"}],
    }
    error = venue.error("review_equity_order", order)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "tax_lots[0].price")


@pytest.mark.req("mcp.tools.strict-arguments")
def test_arguments_that_are_not_an_object_are_refused(venue: VenueClient) -> None:
    result = venue.rpc("tools/call", {"name": "get_accounts", "arguments": ["x"]})["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["error"]["field"] == "arguments"


@pytest.mark.req("mcp.tools.business-errors-are-results")
def test_business_failures_come_back_as_results_with_is_error(venue: VenueClient) -> None:
    result = venue.call("get_portfolio", {"account_number": "000000000"})
    assert result["isError"] is True
    assert result["structuredContent"]["error"]["code"] == "NOT_FOUND"
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


@pytest.mark.req("mcp.tools.business-errors-are-results")
def test_successful_results_carry_data_and_guide_with_a_text_copy(venue: VenueClient) -> None:
    result = venue.call("get_accounts")
    structured = result["structuredContent"]
    assert set(structured) == {"data", "guide"}
    assert structured["guide"]
    assert json.loads(result["content"][0]["text"]) == structured


def test_advanced_orders_are_listed_but_answer_that_they_cannot_be_found(
    venue: VenueClient,
) -> None:
    assert "place_advanced_order" in _served(venue)
    error = venue.error("get_advanced_orders", {"account_number": "1"})
    assert error["code"] == "NOT_FOUND"
