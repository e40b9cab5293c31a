"""Which permission each Robinhood tool needs: every tool of the inventory decided, by name."""

from __future__ import annotations

import pytest

from ordergate.inventory import load_inventory
from ordergate.profiles import PERMISSION_PHRASES, Permission, permission_for

A = Permission.ACCOUNT_READ
M = Permission.MARKET_READ
R = Permission.RESEARCH_READ
O = Permission.ORDERS_READ  # noqa: E741
REVIEW = Permission.ORDERS_REVIEW
PLACE = Permission.ORDERS_PLACE
CANCEL = Permission.ORDERS_CANCEL
WATCH = Permission.WATCHLISTS_WRITE
ALERT = Permission.ALERTS_WRITE
SCAN = Permission.SCANNER_WRITE
C_PLACE = Permission.CRYPTO_PLACE
C_CANCEL = Permission.CRYPTO_CANCEL
O_REVIEW = Permission.OPTIONS_REVIEW
O_PLACE = Permission.OPTIONS_PLACE
O_CANCEL = Permission.OPTIONS_CANCEL

# Every tool of the captured inventory and the permission it needs (None: no profile).
EXPECTED: dict[str, Permission | None] = {
    "add_option_to_watchlist": WATCH, "add_to_watchlist": WATCH,
    "cancel_advanced_order": CANCEL, "cancel_crypto_order": C_CANCEL,
    "cancel_equity_order": CANCEL, "cancel_option_exercise": O_CANCEL,
    "cancel_option_order": O_CANCEL, "create_alert": ALERT, "create_scan": SCAN,
    "create_watchlist": WATCH, "delete_alert": ALERT, "exercise_option": O_PLACE,
    "follow_watchlist": WATCH, "get_accounts": A, "get_advanced_orders": O,
    "get_alert_log": A, "get_alerts": A, "get_crypto_account_onboarding_info": A,
    "get_crypto_orders": O, "get_crypto_positions": A, "get_crypto_quotes": M,
    "get_currency_pairs": M, "get_earnings_calendar": R, "get_earnings_results": R,
    "get_equity_analyst_ratings": R, "get_equity_fundamentals": R,
    "get_equity_historicals": M, "get_equity_news": R, "get_equity_orders": O,
    "get_equity_positions": A, "get_equity_price_book": M, "get_equity_quotes": M,
    "get_equity_tax_lots": A, "get_equity_technical_indicators": R,
    "get_equity_tradability": A, "get_financials": R, "get_index_historicals": M,
    "get_index_quotes": M, "get_indexes": M, "get_limited_margin_upgrade_info": A,
    "get_option_chains": M, "get_option_historicals": M, "get_option_instruments": M,
    "get_option_level_upgrade_info": A, "get_option_orders": O, "get_option_positions": A,
    "get_option_quotes": M, "get_option_watchlist": A, "get_pnl_trade_history": A,
    "get_politician_trades": R, "get_popular_watchlists": M, "get_portfolio": A,
    "get_realized_pnl": A, "get_scanner_datapoints": M, "get_scanner_filter_specs": M,
    "get_scans": A, "get_sec_filing": R, "get_sec_filing_facts": R,
    "get_sec_filing_facts_catalog": R, "get_sec_filing_index": R,
    "get_trade_approval_setting": A, "get_watchlist_items": A, "get_watchlists": A,
    "mark_alerts_read": ALERT, "place_advanced_order": None, "place_crypto_order": C_PLACE,
    "place_equity_order": PLACE, "place_option_order": O_PLACE, "preview_crypto_order": REVIEW,
    "preview_scan": M, "remove_from_watchlist": WATCH, "remove_option_from_watchlist": WATCH,
    "review_advanced_order": REVIEW, "review_equity_order": REVIEW,
    "review_option_order": O_REVIEW, "run_scan": A, "search": M, "unfollow_watchlist": WATCH,
    "update_alert": ALERT, "update_scan_config": SCAN, "update_scan_filters": SCAN,
    "update_watchlist": WATCH,
}  # fmt: skip


def test_every_inventory_tool_maps_to_its_decided_permission_or_to_none() -> None:
    inventory = load_inventory()
    assert set(inventory) == set(EXPECTED)
    decided = {name: permission_for(name, spec.annotations) for name, spec in inventory.items()}
    assert decided == EXPECTED


def test_every_permission_is_needed_by_some_inventory_tool_and_has_a_phrase() -> None:
    # orders.cancel_any widens orders.cancel (which orders a cancel may name): no tool needs it.
    needed = set(Permission) - {Permission.ORDERS_CANCEL_ANY}
    assert {p for p in EXPECTED.values() if p is not None} == needed
    assert set(PERMISSION_PHRASES) == set(Permission)


def test_the_vocabulary_is_the_issues_ten_permissions_cancel_any_the_option_three_and_crypto() -> (
    None
):
    assert {p.value for p in Permission} == {
        "account.read", "market.read", "research.read", "orders.read", "orders.review",
        "orders.place", "orders.cancel", "watchlists.write", "alerts.write", "scanner.write",
        "orders.cancel_any", "options.review", "options.place", "options.cancel",
        "crypto.place", "crypto.cancel",
    }  # fmt: skip


def test_option_orders_and_exercise_requests_need_the_option_permissions() -> None:
    assert permission_for("place_option_order") is Permission.OPTIONS_PLACE
    assert permission_for("review_option_order") is Permission.OPTIONS_REVIEW
    assert permission_for("cancel_option_order") is Permission.OPTIONS_CANCEL
    # A request only: every exercise and its withdrawal is held for the owner.
    assert permission_for("exercise_option") is Permission.OPTIONS_PLACE
    assert permission_for("cancel_option_exercise") is Permission.OPTIONS_CANCEL
    assert permission_for("place_option_spread_order") is None
    # A new filing (the gateway also asks options.cancel of it: it cancels the replaced one).
    assert permission_for("replace_option_order") is Permission.OPTIONS_PLACE
    assert permission_for("replace_option_spread_order") is None


@pytest.mark.parametrize(
    "name",
    [
        "frobnicate_watchlist", "enable_margin", "set_alert", "rename_watchlist",
        "gate_how", "", "___", "transfer_funds", "withdraw_cash", "deposit_funds",
        "submit_order_status_report", "place_option_spread_order", "sell_equity",
        "replace_equity_order", "revoke_token",
    ],
)  # fmt: skip
def test_an_unknown_verb_or_a_money_move_needs_a_permission_no_profile_has(name: str) -> None:
    assert permission_for(name) is None


def test_the_gateways_equity_order_tool_needs_orders_place() -> None:
    assert permission_for("place_order") is Permission.ORDERS_PLACE
    assert permission_for("submit_equity_order") is Permission.ORDERS_PLACE
    assert permission_for("place_crypto_order") is Permission.CRYPTO_PLACE
    assert permission_for("place_crypto_bundle_order") is None


def test_a_read_with_unknown_objects_needs_account_read_the_most_private_read() -> None:
    assert permission_for("get_dividends") is Permission.ACCOUNT_READ
    # a private object beats a public one in the same name
    assert permission_for("get_portfolio_historicals") is Permission.ACCOUNT_READ


def test_a_write_naming_two_objects_is_refused_rather_than_guessed() -> None:
    assert permission_for("add_alert_to_watchlist") is None


def test_a_destructive_annotation_takes_the_permission_away_unless_it_cancels() -> None:
    destructive = {"destructiveHint": True}
    assert permission_for("get_equity_quotes", destructive) is None
    assert permission_for("add_to_watchlist", destructive) is None
    assert permission_for("cancel_equity_order", destructive) is Permission.ORDERS_CANCEL


def test_a_read_only_annotation_cannot_grant_a_write_a_read_permission() -> None:
    assert permission_for("place_advanced_order", {"readOnlyHint": True}) is None
    assert permission_for("place_crypto_order", {"readOnlyHint": True}) is Permission.CRYPTO_PLACE
    assert permission_for("place_option_order", {"readOnlyHint": True}) is Permission.OPTIONS_PLACE
    assert permission_for("create_alert", {"readOnlyHint": True}) is Permission.ALERTS_WRITE


def test_a_simulation_without_an_order_needs_the_read_permission_of_its_objects() -> None:
    assert permission_for("preview_quotes") is Permission.MARKET_READ
    assert permission_for("estimate_tax_lots") is Permission.ACCOUNT_READ


@pytest.mark.req("gateway.bypass.cancel-foreign-order")
def test_no_built_in_profile_may_cancel_orders_the_connection_did_not_file() -> None:
    from ordergate.policy import PolicyConfig
    from ordergate.profiles import load_profiles

    profiles = load_profiles(None, PolicyConfig())
    assert Permission("orders.cancel_any") is Permission.ORDERS_CANCEL_ANY
    assert [name for name, p in profiles.items() if p.allows(Permission.ORDERS_CANCEL_ANY)] == []
