"""Advanced-order tools (listed but absent, as live) and the enrolment-link tools."""

from __future__ import annotations

from typing import Any

import pytest
from lists_testkit import Harness, build

_BRACKET = {
    "account_number": "123",
    "symbol": "AAPL",
    "side": "sell",
    "quantity": "2",
    "take_profit_limit_price": "300",
    "stop_loss_stop_price": "200",
}
_ORDER_ID = "00000000-0000-4000-8000-000000000000"


@pytest.fixture
def h() -> Harness:
    return build()


@pytest.mark.parametrize(
    ("name", "args"),
    [
        (
            "review_advanced_order",
            {**_BRACKET, "time_in_force": "gtc", "market_hours": "regular_hours"},
        ),
        ("place_advanced_order", {**_BRACKET, "ref_id": _ORDER_ID}),
        (
            "review_advanced_order",
            {
                **_BRACKET,
                "side": "buy",
                "take_profit_limit_price": "150",
                "stop_loss_stop_price": "200",
            },
        ),
        ("cancel_advanced_order", {"account_number": "123", "order_id": _ORDER_ID}),
        ("get_advanced_orders", {"account_number": "123"}),
        (
            "get_advanced_orders",
            {
                "account_number": "123",
                "contingency_type": "oco",
                "created_at_gte": "2026-11-01T00:00:00Z",
                "order_id": _ORDER_ID,
            },
        ),
    ],
)
def test_well_formed_advanced_order_calls_answer_that_the_tool_cannot_be_found(
    h: Harness, name: str, args: dict[str, Any]
) -> None:
    error = h.fail(name, **args)
    assert error["code"] == "NOT_FOUND"
    assert error["message"] == f"Tool {name} cannot be found."


@pytest.mark.parametrize(
    ("name", "args", "field"),
    [
        ("review_advanced_order", {**_BRACKET, "side": "hold"}, "side"),
        ("review_advanced_order", {**_BRACKET, "side": ""}, "side"),
        ("review_advanced_order", {**_BRACKET, "quantity": "-1"}, "quantity"),
        ("review_advanced_order", {**_BRACKET, "quantity": "lots"}, "quantity"),
        ("review_advanced_order", {**_BRACKET, "quantity": ""}, "quantity"),
        ("review_advanced_order", {**_BRACKET, "account_number": " "}, "account_number"),
        (
            "review_advanced_order",
            {**_BRACKET, "take_profit_limit_price": "150"},
            "take_profit_limit_price",
        ),
        (
            "review_advanced_order",
            {**_BRACKET, "side": "buy"},
            "take_profit_limit_price",
        ),
        ("review_advanced_order", {**_BRACKET, "time_in_force": "ioc"}, "time_in_force"),
        ("review_advanced_order", {**_BRACKET, "market_hours": "lunch"}, "market_hours"),
        ("place_advanced_order", {**_BRACKET, "ref_id": "not-a-uuid"}, "ref_id"),
        ("place_advanced_order", {k: v for k, v in _BRACKET.items() if k != "symbol"}, "symbol"),
        ("cancel_advanced_order", {"account_number": "123", "order_id": "x"}, "order_id"),
        (
            "get_advanced_orders",
            {"account_number": "123", "contingency_type": "oto"},
            "contingency_type",
        ),
        (
            "get_advanced_orders",
            {"account_number": "123", "created_at_gte": "then"},
            "created_at_gte",
        ),
        ("get_advanced_orders", {"account_number": "123", "order_id": "x"}, "order_id"),
    ],
)
def test_malformed_advanced_order_calls_are_invalid_before_anything_else(
    h: Harness, name: str, args: dict[str, Any], field: str
) -> None:
    error = h.fail(name, **args)
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", field)


def test_option_upgrade_info_offers_the_next_level_and_a_robinhood_link(h: Harness) -> None:
    agentic = h.venue.accounts.agentic
    info = h.call("get_option_level_upgrade_info", account_number=agentic.account_number)
    assert info["current_option_level"] == agentic.option_level
    assert info["status"] == "upgrade_available"
    assert [u["option_level"] for u in info["available_upgrades"]] == ["option_level_3"]
    assert info["enrollment_url"].startswith("https://robinhood.com/")
    assert agentic.account_number in info["enrollment_url"]


def test_an_account_at_its_ceiling_has_no_upgrade_link(h: Harness) -> None:
    ira = next(a for a in h.venue.accounts.all() if not a.agentic_allowed)
    assert h.call("get_option_level_upgrade_info", account_number=ira.account_number)[
        "available_upgrades"
    ] == [
        {
            "option_level": "option_level_2",
            "display_name": "Level 2",
            "strategies": ["long_call", "long_put"],
        }
    ]
    ira.option_level = "option_level_2"
    info = h.call("get_option_level_upgrade_info", account_number=ira.account_number)
    assert (info["status"], info["enrollment_url"], info["eligible_for_upgrade"]) == (
        "at_max_level",
        None,
        False,
    )


def test_option_upgrade_info_for_an_unknown_account_is_not_found(h: Harness) -> None:
    error = h.fail("get_option_level_upgrade_info", account_number="000")
    assert (error["code"], error["field"]) == ("NOT_FOUND", "account_number")


def test_crypto_onboarding_info_names_the_rhs_account_and_a_robinhood_link(h: Harness) -> None:
    info = h.call("get_crypto_account_onboarding_info")
    assert (
        info["crypto_account"]["rhs_account_number"] == h.venue.accounts.agentic.rhs_account_number
    )
    assert info["onboarding_url"].startswith("https://robinhood.com/")
    assert info["status"] == "approved"
    assert h.fail("get_crypto_account_onboarding_info", extra=True)["code"] == "INVALID_ARGUMENT"
