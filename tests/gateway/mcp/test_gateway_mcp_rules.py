"""The gateway's rules on their own: where a tool call goes by the words of its name, and
which arguments a filing can name."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from ordergate.core import MarketHours, OrderType, Side, TimeInForce
from ordergate.gateway.mcp import Route, route
from ordergate.gateway.mcp._proposal import NotFiled, proposal_from_arguments

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        name: {"type": "string"}
        for name in (
            "account_number", "symbol", "side", "type", "quantity", "dollar_amount",
            "limit_price", "stop_price", "time_in_force", "market_hours", "tax_lots", "ref_id",
        )
    },
    "required": ["account_number", "symbol", "side", "type"],
}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "expected", "code"),
    [
        ("place_equity_order", Route.ORDER, ""),
        ("get_equity_quotes", Route.FORWARD, ""),
        ("search", Route.FORWARD, ""),
        ("review_option_order", Route.OPTION_REVIEW, ""),
        ("place_option_order", Route.OPTION_ORDER, ""),
        ("cancel_option_order", Route.CANCEL, ""),
        ("place_option_spread_order", Route.REFUSE, "OPTIONS_NOT_FILED"),
        ("replace_option_order", Route.OPTION_REPLACE, ""),
        ("replace_option_spread_order", Route.REFUSE, "OPTIONS_NOT_FILED"),
        ("preview_crypto_order", Route.CRYPTO_PREVIEW, ""),
        ("get_option_level_upgrade_info", Route.FORWARD, ""),
        ("cancel_crypto_order", Route.CANCEL, ""),
        ("delete_alert", Route.CANCEL, ""),
        ("place_crypto_order", Route.CRYPTO_ORDER, ""),
        ("place_crypto_recurring_order", Route.REFUSE, "CRYPTO_NOT_FILED"),
        ("exercise_option", Route.OPTION_EXERCISE, ""),
        ("cancel_option_exercise", Route.OPTION_EXERCISE, ""),
        ("place_advanced_order", Route.REFUSE, "ADVANCED_NOT_FILED"),
        ("withdraw_cash", Route.REFUSE, "MOVES_MONEY"),
        ("deposit", Route.REFUSE, "MOVES_MONEY"),
        ("replace_equity_order", Route.REFUSE, "REPLACE_NOT_FILED"),
        ("submit_equity_order_v2", Route.REFUSE, "NOT_FILED"),
        ("create_alert", Route.REFUSE, "WRITE_NOT_FILED"),
        ("", Route.REFUSE, "WRITE_NOT_FILED"),
    ],
)
def test_a_tool_is_routed_by_the_words_of_its_name(name: str, expected: Route, code: str) -> None:
    descriptor = {"name": name, "description": "Returns a status."}
    routing = route(descriptor, order_tool="place_equity_order")
    assert routing.route is expected
    assert routing.code == code
    assert bool(routing.message) is (expected is Route.REFUSE)


def test_without_an_equity_order_tool_every_placing_tool_is_refused() -> None:
    routing = route({"name": "place_equity_order"}, order_tool=None)
    assert routing.route is Route.REFUSE and routing.code == "NOT_FILED"


def test_destructive_annotations_refuse_all_but_cancels_and_the_wrapped_order_tool() -> None:
    marked = {"annotations": {"destructiveHint": True}}
    assert route({"name": "get_accounts", **marked}, order_tool=None).code == "DESTRUCTIVE"
    assert route({"name": "cancel_equity_order", **marked}, order_tool=None).route is Route.CANCEL
    order = route({"name": "place_equity_order", **marked}, order_tool="place_equity_order")
    assert order.route is Route.ORDER
    unmarked = {"annotations": {"destructiveHint": False}}
    assert route({"name": "get_accounts", **unmarked}, order_tool=None).route is Route.FORWARD


def test_the_filings_fields_become_a_proposal() -> None:
    proposal = proposal_from_arguments(
        {
            "account_number": "123",
            "symbol": "spy",
            "side": "sell",
            "type": "stop_limit",
            "quantity": Decimal("2.5"),
            "limit_price": "10.05",
            "stop_price": 10,
            "time_in_force": "gtc",
            "market_hours": "extended_hours",
            "dollar_amount": None,
        },
        SCHEMA,
    )
    assert proposal.symbol == "SPY"
    assert proposal.side is Side.SELL
    assert proposal.order_type is OrderType.STOP_LIMIT
    assert proposal.quantity == Decimal("2.5") and proposal.notional is None
    assert proposal.limit_price == Decimal("10.05") and proposal.stop_price == Decimal(10)
    assert proposal.time_in_force is TimeInForce.GTC
    assert proposal.market_hours is MarketHours.EXTENDED_HOURS
    assert proposal.account == "123"


@pytest.mark.parametrize(
    ("arguments", "schema", "code", "says"),
    [
        ({"symbol": "SPY", "side": "buy", "type": "market"}, {"required": ["instrument_id"]},
         "TOOL_NOT_FILEABLE", "requires `instrument_id`"),
        ({"symbol": "SPY", "side": "buy", "type": "market"}, {"required": [7]},
         "TOOL_NOT_FILEABLE", "requires a field"),
        ({"symbol": "SPY", "side": "buy", "quantity": "1"}, {"required": []},
         "MISSING_ARGUMENT", "The order's type is required"),
        ({"symbol": "SPY", "type": "market", "quantity": "1"}, {"required": []},
         "MISSING_ARGUMENT", "symbol and side are required"),
        ({"symbol": 5, "side": "buy", "type": "market", "quantity": "1"}, {},
         "INVALID_ARGUMENT", "`symbol` must be text"),
        ({"symbol": "SPY", "side": 1, "type": "market", "quantity": "1"}, {},
         "INVALID_ARGUMENT", "`side` must be one of buy, sell"),
        ({"symbol": "SPY", "side": "buy", "type": "market", "quantity": True}, {},
         "INVALID_ARGUMENT", "`quantity` must be a decimal number"),
        ({"symbol": "SPY", "side": "buy", "type": "market", "quantity": "-1"}, {},
         "INVALID_ORDER", "(quantity: must be positive)"),
        ({"symbol": "SPY", "side": "buy", "type": "market", "quantity": "1",
          "market_hours": "regular_hours", "stop_price": "5"}, {},
         "INVALID_ORDER", "(stop_price: not for this order type)"),
    ],
)  # fmt: skip
def test_arguments_that_cannot_be_filed_are_refused_with_a_sentence(
    arguments: dict[str, Any], schema: dict[str, Any], code: str, says: str
) -> None:
    merged = {**SCHEMA, **schema}
    with pytest.raises(NotFiled) as refused:
        proposal_from_arguments({"account_number": "123", **arguments}, merged)
    assert refused.value.code == code
    assert says in refused.value.message


def test_a_schema_without_properties_files_nothing() -> None:
    with pytest.raises(NotFiled) as refused:
        proposal_from_arguments({"symbol": "SPY"}, {})
    assert refused.value.code == "ARGUMENT_NOT_FILED"
    assert "(none)" in refused.value.message


def test_a_refusal_names_the_proposals_field_when_the_schema_has_no_name_for_it() -> None:
    schema: dict[str, Any] = {
        "properties": {"symbol": {}, "side": {}, "type": {}, "dollar_amount": {}}
    }
    with pytest.raises(NotFiled) as refused:
        proposal_from_arguments({"symbol": "SPY", "side": "buy", "type": "market"}, schema)
    assert "(quantity: give exactly one of quantity and notional)" in refused.value.message


@pytest.mark.parametrize(
    "symbol", [" SPY", "SPY ", "SPY\n", "\tSPY", "SPY\u00a0", "\u3000SPY", "SPY\x00", "\u200bSPY"]
)
@pytest.mark.req("gateway.bypass.symbol-padding")
def test_a_symbol_with_space_or_a_control_character_around_it_is_refused_not_stripped(
    symbol: str,
) -> None:
    arguments = {"symbol": symbol, "side": "buy", "type": "market", "quantity": "1"}
    with pytest.raises(NotFiled) as refused:
        proposal_from_arguments({"account_number": "123", **arguments}, SCHEMA)
    assert refused.value.code == "INVALID_ARGUMENT"
    assert "`symbol`" in refused.value.message


@pytest.mark.parametrize("account", [" 5QR12345", "5QR12345\n", ""])
def test_an_account_with_space_around_it_is_refused_not_stripped(account: str) -> None:
    arguments = {"symbol": "SPY", "side": "buy", "type": "market", "quantity": "1"}
    with pytest.raises(NotFiled) as refused:
        proposal_from_arguments({**arguments, "account_number": account}, SCHEMA)
    assert refused.value.code == "INVALID_ARGUMENT"
    assert "`account_number`" in refused.value.message
