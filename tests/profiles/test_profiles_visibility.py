"""What each built-in profile sees of the full inventory, and how a call outside it is refused."""

from __future__ import annotations

from typing import Any

import pytest

from ordergate.inventory import load_inventory
from ordergate.policy import DEFAULTS
from ordergate.profiles import Permission, Profile, load_profiles, refusal_for, visible_tools

PROFILES = load_profiles(None, DEFAULTS)


def _listing() -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    for spec in load_inventory().values():
        tool: dict[str, Any] = {"name": spec.name, "inputSchema": spec.input_schema}
        if spec.annotations is not None:
            tool["annotations"] = spec.annotations
        tools.append(tool)
    return tools


def _visible(profile: str) -> set[str]:
    return {tool["name"] for tool in visible_tools(PROFILES[profile], _listing())}


WRITES = ("place_", "cancel_", "review_", "preview_crypto", "exercise_", "create_", "update_")


def test_monitor_sees_reads_and_no_place_cancel_review_or_write() -> None:
    seen = _visible("monitor")
    assert {"get_portfolio", "get_accounts", "get_equity_quotes", "get_equity_orders"} <= seen
    assert {"get_equity_news", "get_equity_positions", "search"} <= seen
    assert not {name for name in seen if name.startswith(WRITES)}
    assert not {"add_to_watchlist", "delete_alert", "mark_alerts_read"} & seen


def test_trader_sees_reads_and_the_equity_order_path_but_no_other_placing() -> None:
    seen = _visible("trader")
    assert {"review_equity_order", "place_equity_order", "cancel_equity_order"} <= seen
    assert _visible("monitor") < seen
    assert not {"place_option_order", "place_crypto_order", "place_advanced_order"} & seen
    assert "exercise_option" not in seen
    assert not {"review_option_order", "cancel_option_order", "cancel_option_exercise"} & seen
    assert not {"create_watchlist", "create_alert", "create_scan"} & seen
    assert {name for name in seen if name.startswith("place_")} == {"place_equity_order"}


def test_researcher_sees_market_and_research_but_no_account_data_or_orders() -> None:
    seen = _visible("researcher")
    assert {"get_equity_quotes", "get_option_chains", "search", "get_popular_watchlists"} <= seen
    assert {"get_equity_news", "get_earnings_calendar", "get_sec_filing", "preview_scan"} <= seen
    assert not {
        "get_portfolio", "get_accounts", "get_equity_positions", "get_equity_orders",
        "get_realized_pnl", "get_watchlists", "get_alerts", "get_equity_tax_lots",
    } & seen  # fmt: skip
    assert not {name for name in seen if name.startswith(WRITES)}


def test_the_three_builtins_together_never_see_a_money_move_or_non_equity_placing() -> None:
    never = {"exercise_option", "place_option_order", "place_crypto_order", "place_advanced_order"}
    for name in PROFILES:
        assert not never & _visible(name)


def test_kept_names_stay_listed_whatever_the_profile_and_nameless_tools_drop() -> None:
    tools = [{"name": "gate_how"}, {"name": "place_equity_order"}, {"description": "x"}]
    shown = visible_tools(PROFILES["monitor"], tools, keep={"gate_how"})
    assert shown == [{"name": "gate_how"}]


def test_a_destructive_tool_is_hidden_even_from_a_profile_with_its_permission() -> None:
    tools = [{"name": "get_equity_quotes", "annotations": {"destructiveHint": True}}]
    assert visible_tools(PROFILES["trader"], tools) == []


def test_a_monitor_call_to_place_is_refused_with_the_plain_sentence() -> None:
    assert refusal_for(PROFILES["monitor"], "place_equity_order") == (
        "this connection's profile 'monitor' does not permit placing orders (orders.place)"
    )


@pytest.mark.parametrize(
    ("profile", "tool", "permission"),
    [
        ("monitor", "cancel_equity_order", "orders.cancel"),
        ("monitor", "review_equity_order", "orders.review"),
        ("researcher", "get_portfolio", "account.read"),
        ("researcher", "get_equity_orders", "orders.read"),
        ("trader", "create_alert", "alerts.write"),
    ],
)
def test_a_call_outside_the_profile_is_refused_naming_the_missing_permission(
    profile: str, tool: str, permission: str
) -> None:
    sentence = refusal_for(PROFILES[profile], tool)
    assert sentence is not None
    assert sentence.startswith(f"this connection's profile '{profile}' does not permit ")
    assert sentence.endswith(f"({permission})")


def test_a_permitted_call_has_no_refusal() -> None:
    assert refusal_for(PROFILES["trader"], "place_equity_order") is None
    assert refusal_for(PROFILES["researcher"], "get_equity_quotes") is None


def test_a_tool_no_profile_may_call_is_refused_even_for_a_profile_holding_everything() -> None:
    everything = Profile("all", "", frozenset(Permission))
    sentence = refusal_for(everything, "transfer_funds")
    assert sentence is not None
    assert "transfer_funds" in sentence
