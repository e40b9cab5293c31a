"""Named capabilities resolved by name words and schema, on the sandbox and on foreign names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from capability_testkit import CRYPTO_TOOL_NAMES, FOREIGN, sandbox_tools, tool, without

from ordergate.core import ToolError
from ordergate.discovery._capabilities import (
    CAPABILITIES,
    CRYPTO_CAPABILITIES,
    AmbiguousCapability,
    ToolUnavailable,
    accepts_crypto_pair,
    candidates,
    resolve,
    resolve_all,
)
from ordergate.discovery._classify import Classifier
from ordergate.inventory import ToolClass

REQUIRED = {
    "review_order", "place_order", "cancel_order", "list_orders", "list_positions", "quotes",
    "accounts", "crypto_preview", "crypto_place", "crypto_cancel", "crypto_quotes",
    "option_review", "option_place", "option_cancel", "option_chains", "historicals",
    "portfolio",
}  # fmt: skip

ON_THE_SANDBOX = {
    "review_order": "review_equity_order",
    "place_order": "place_equity_order",
    "cancel_order": "cancel_equity_order",
    "list_orders": "get_equity_orders",
    "list_positions": "get_equity_positions",
    "quotes": "get_equity_quotes",
    "accounts": "get_accounts",
    "crypto_preview": "preview_crypto_order",
    "crypto_place": "place_crypto_order",
    "crypto_cancel": "cancel_crypto_order",
    "crypto_quotes": "get_crypto_quotes",
    "option_review": "review_option_order",
    "option_place": "place_option_order",
    "option_cancel": "cancel_option_order",
    "option_chains": "get_option_chains",
    "historicals": "get_equity_historicals",
    "portfolio": "get_portfolio",
}


def names(tools: Sequence[Mapping[str, Any]]) -> list[str]:
    return [t["name"] for t in tools]


def test_every_named_capability_is_declared() -> None:
    assert set(CAPABILITIES) >= REQUIRED
    assert set(CRYPTO_CAPABILITIES) <= set(CAPABILITIES)


@pytest.mark.req("discovery.capabilities.by-name-and-schema")
@pytest.mark.parametrize(("capability", "expected"), sorted(ON_THE_SANDBOX.items()))
def test_each_capability_matches_exactly_one_tool_of_the_82_tool_sandbox_surface(
    capability: str, expected: str
) -> None:
    tools = sandbox_tools()
    assert len(tools) == 82
    assert names(candidates(capability, tools)) == [expected]
    assert resolve(capability, tools)["name"] == expected


def test_resolve_all_names_every_capability_on_the_sandbox_surface() -> None:
    assert resolve_all(sandbox_tools()) == ON_THE_SANDBOX


@pytest.mark.req("discovery.capabilities.by-name-and-schema")
@pytest.mark.parametrize("capability", sorted(FOREIGN))
def test_each_capability_resolves_on_names_we_do_not_control(capability: str) -> None:
    surface = list(FOREIGN.values())
    assert names(candidates(capability, surface)) == [FOREIGN[capability]["name"]]


def test_the_foreign_surface_covers_every_capability() -> None:
    assert set(FOREIGN) == set(CAPABILITIES)
    resolved = resolve_all(list(FOREIGN.values()))
    assert resolved == {name: FOREIGN[name]["name"] for name in CAPABILITIES}


@pytest.mark.req("discovery.capabilities.by-name-and-schema")
def test_a_description_never_makes_or_unmakes_a_match() -> None:
    lure = tool(
        "get_weather", "symbol", "side", "type", description="Places an equity order (buy/sell)"
    )
    assert candidates("place_order", [lure]) == []
    honest = tool(
        "place_stock_order", "account_number", "symbol", "side", "type",
        description="Read-only: lists the weather",
    )  # fmt: skip
    assert resolve("place_order", [lure, honest]) is honest


@pytest.mark.req("discovery.capabilities.by-name-and-schema")
def test_a_missing_capability_raises_tool_unavailable_listing_the_available_tools() -> None:
    tools = without(sandbox_tools(), *CRYPTO_TOOL_NAMES)
    with pytest.raises(ToolUnavailable) as raised:
        resolve("crypto_place", tools)
    error = raised.value
    assert isinstance(error, ToolError)
    assert error.code == "tool_unavailable"
    assert error.capability == "crypto_place"
    assert error.available == tuple(sorted(names(tools)))
    assert len(error.available) == 78
    assert "get_accounts" in str(error)


def test_an_empty_listing_leaves_every_capability_unresolved() -> None:
    assert set(resolve_all([]).values()) == {None}
    with pytest.raises(ToolUnavailable) as raised:
        resolve("quotes", [])
    assert raised.value.available == ()


@pytest.mark.parametrize(
    ("capability", "impostor"),
    [
        # OCO orders require fields an order cannot fill; their cancel names them "advanced".
        ("place_order", "place_advanced_order"),
        ("review_order", "review_advanced_order"),
        ("cancel_order", "cancel_advanced_order"),
        ("list_orders", "get_advanced_orders"),
        # crypto and option families never stand in for equities
        ("place_order", "place_crypto_order"),
        ("review_order", "preview_crypto_order"),
        ("cancel_order", "cancel_crypto_order"),
        ("quotes", "get_crypto_quotes"),
        ("quotes", "get_index_quotes"),
        ("quotes", "get_option_quotes"),
        ("list_positions", "get_crypto_positions"),
        ("place_order", "place_option_order"),
        ("historicals", "get_option_historicals"),
        ("historicals", "get_pnl_trade_history"),
        ("accounts", "get_crypto_account_onboarding_info"),
        ("option_cancel", "cancel_option_exercise"),
        ("option_place", "exercise_option"),
        ("crypto_quotes", "get_currency_pairs"),
    ],
)
def test_look_alike_tools_do_not_stand_in_for_a_capability(capability: str, impostor: str) -> None:
    surface = [t for t in sandbox_tools() if t["name"] == impostor]
    assert len(surface) == 1
    assert candidates(capability, surface) == []


def test_a_money_verb_naming_an_existing_order_is_an_amendment_not_a_placement() -> None:
    amend = tool("submit_equity_order", "order_id", "symbol", "side", "type")
    assert candidates("place_order", [amend]) == []


def test_a_create_verb_resolves_place_order_only_once_an_override_pins_it_as_money() -> None:
    create = tool("create_stock_order", "account_id", "symbol", "side", "type")
    with pytest.raises(ToolUnavailable):
        resolve("place_order", [create])
    pinned = Classifier({"create_stock_order": ToolClass.MONEY})
    assert resolve("place_order", [create], classifier=pinned) is create
    assert resolve_all([create], classifier=pinned)["place_order"] == "create_stock_order"


def test_the_reference_tool_wins_over_a_look_alike_that_appears_next_to_it() -> None:
    tools = [*sandbox_tools(), tool("place_equity_order_v2", "account_number", "symbol", "side")]
    assert len(candidates("place_order", tools)) == 2
    assert resolve("place_order", tools)["name"] == "place_equity_order"


def test_several_read_tools_resolve_to_the_shortest_name_then_the_first_alphabetically() -> None:
    tools = [
        tool("list_stock_quotes", "symbols"),
        tool("get_stock_quotes", "symbols"),
        tool("get_all_the_stock_quotes", "symbols"),
    ]
    assert resolve("quotes", tools)["name"] == "get_stock_quotes"


@pytest.mark.parametrize(
    ("capability", "first", "second"),
    [
        (
            "place_order",
            tool("submit_stock_order", "symbol", "side"),
            tool("place_share_order", "symbol", "side"),
        ),
        (
            "crypto_cancel",
            tool("cancel_crypto_trade", "id"),
            tool("cancel_coin_order", "order_id", "rhs_account_number"),
        ),
        (
            "review_order",
            tool("review_stock_order", "ticker", "side"),
            tool("preview_stock_order", "ticker", "side"),
        ),
    ],
)
def test_several_non_read_tools_without_the_reference_are_refused_as_ambiguous(
    capability: str, first: dict[str, object], second: dict[str, object]
) -> None:
    tools = [first, second]
    with pytest.raises(AmbiguousCapability) as raised:
        resolve(capability, tools)
    error = raised.value
    assert isinstance(error, ToolUnavailable)
    assert error.code == "ambiguous_capability"
    assert error.candidates == tuple(sorted([str(first["name"]), str(second["name"])]))
    assert resolve_all(tools)[capability] is None


def test_an_unknown_capability_name_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="teleport"):
        resolve("teleport", sandbox_tools())


@pytest.mark.parametrize(
    ("descriptor", "expected"),
    [
        (tool("submit_crypto_trade", "pair", "side"), True),
        (tool("get_coin_quotes", "currency_pair_ids"), True),
        (tool("place_coin_order", "symbol", "rhs_account_number"), True),
        (tool("get_crypto_quotes", "symbols"), True),
        (tool("place_equity_order", "symbol", "account_number"), False),
        (tool("get_crypto_positions", "rhs_account_number"), False),
    ],
)
def test_a_crypto_pair_is_accepted_by_pair_property_or_by_symbol_in_a_crypto_tool(
    descriptor: dict[str, object], expected: bool
) -> None:
    assert accepts_crypto_pair(descriptor) is expected


def test_malformed_descriptors_are_looked_at_without_failing() -> None:
    quotes_schema = {"properties": {"symbols": {}}, "required": [1]}
    tools: list[dict[str, object]] = [
        {"name": 3},
        {"name": "get_accounts", "inputSchema": "not a schema"},
        {"name": "get_portfolio", "inputSchema": {"properties": [], "required": "x"}},
        {"name": "get_equity_quotes", "inputSchema": quotes_schema},
        {"name": ""},
    ]
    resolved = resolve_all(tools)
    assert resolved["accounts"] == "get_accounts"
    assert resolved["quotes"] == "get_equity_quotes"
    assert resolved["portfolio"] is None
    with pytest.raises(ToolUnavailable) as raised:
        resolve("portfolio", tools)
    assert raised.value.available == ("", "get_accounts", "get_equity_quotes", "get_portfolio")
