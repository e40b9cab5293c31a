"""A profile's policy overrides only tighten: applied as the tighter value, looser refused."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ordergate.core import ConfigError, MarketHours, OrderType
from ordergate.policy import DEFAULTS, PolicyConfig
from ordergate.profiles import PolicyOverrides, check_tightens, parse_overrides

POLICY = PolicyConfig(
    max_order_usd=Decimal(100),
    max_daily_usd=Decimal(500),
    max_orders_per_day=20,
    min_cash_usd=Decimal(50),
    allow=frozenset({"AAPL", "MSFT", "SPY"}),
    deny=frozenset({"GME"}),
)


def test_tightening_overrides_are_applied_to_a_copy_of_the_policy() -> None:
    overrides = parse_overrides(
        {
            "limits": {"max_order_usd": "25.50", "max_daily_usd": 100, "max_orders_per_day": 3},
            "symbols": {"allow": ["aapl"], "deny": ["TSLA"]},
            "orders": {"types": ["limit"], "sessions": ["regular_hours"]},
        }
    )
    check_tightens(overrides, POLICY)
    tightened = overrides.apply(POLICY)
    assert tightened.max_order_usd == Decimal("25.50")
    assert tightened.max_daily_usd == Decimal(100)
    assert tightened.max_orders_per_day == 3
    assert tightened.allow == {"AAPL"}
    assert tightened.deny == {"GME", "TSLA"}
    assert tightened.order_types == {OrderType.LIMIT}
    assert tightened.sessions == {MarketHours.REGULAR_HOURS}
    assert tightened.max_open_orders == POLICY.max_open_orders
    assert POLICY.max_order_usd == Decimal(100)  # the account policy itself is untouched


def test_no_overrides_leave_the_policy_as_it_is() -> None:
    assert parse_overrides(None).apply(POLICY) == POLICY


@pytest.mark.parametrize(
    ("document", "key"),
    [
        ({"limits": {"max_order_usd": "100.01"}}, "policy.limits.max_order_usd"),
        ({"limits": {"max_daily_usd": 501}}, "policy.limits.max_daily_usd"),
        ({"limits": {"max_orders_per_day": 21}}, "policy.limits.max_orders_per_day"),
        ({"limits": {"min_cash_usd": "49"}}, "policy.limits.min_cash_usd"),
        ({"symbols": {"allow": ["AAPL", "NVDA"]}}, "policy.symbols.allow"),
        ({"orders": {"types": ["stop_market"]}}, "policy.orders.types"),
        ({"orders": {"sessions": ["all_day_hours"]}}, "policy.orders.sessions"),
    ],
)
def test_an_override_looser_than_the_policy_is_refused_naming_its_key(
    document: dict[str, object], key: str
) -> None:
    overrides = parse_overrides(document)
    with pytest.raises(ConfigError) as caught:
        check_tightens(overrides, POLICY)
    assert caught.value.key == key


def test_a_floor_tightens_upward_and_an_equal_value_is_not_looser() -> None:
    overrides = parse_overrides({"limits": {"min_cash_usd": "75", "max_order_usd": "100"}})
    check_tightens(overrides, POLICY)
    assert overrides.apply(POLICY).min_cash_usd == Decimal(75)


def test_any_allowlist_tightens_a_policy_that_allows_every_ticker() -> None:
    open_policy = PolicyConfig(allow_all=True)
    overrides = parse_overrides({"symbols": {"allow": ["NVDA"]}})
    check_tightens(overrides, open_policy)
    tightened = overrides.apply(open_policy)
    assert tightened.allow == {"NVDA"}
    assert tightened.allow_all is False


def test_apply_never_loosens_even_when_the_check_was_skipped() -> None:
    loose = PolicyOverrides(max_order_usd=Decimal(1000), min_cash_usd=Decimal(0))
    tightened = loose.apply(POLICY)
    assert tightened.max_order_usd == Decimal(100)
    assert tightened.min_cash_usd == Decimal(50)
    assert PolicyOverrides(allow=frozenset({"NVDA", "AAPL"})).apply(POLICY).allow == {"AAPL"}


@pytest.mark.parametrize(
    ("document", "key"),
    [
        ({"mode": "live"}, "policy.mode"),
        ({"approval": "never"}, "policy.approval"),
        ({"orders": {"short": False}}, "policy.orders.short"),
        ({"limits": {"max_order_dollars": "5"}}, "policy.limits.max_order_dollars"),
        ({"paper": {"starting_cash_usd": "5"}}, "policy.paper"),
    ],
)
def test_a_key_that_is_not_a_tightening_override_is_reported_by_name(
    document: dict[str, object], key: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_overrides(document)
    assert caught.value.key == key


@pytest.mark.parametrize(
    ("document", "key"),
    [
        ({"limits": {"max_order_usd": 12.5}}, "policy.limits.max_order_usd"),
        ({"limits": {"max_order_usd": "0"}}, "policy.limits.max_order_usd"),
        ({"limits": {"max_orders_per_day": True}}, "policy.limits.max_orders_per_day"),
        ({"symbols": {"allow": ["*"]}}, "policy.symbols.allow"),
        ({"symbols": {"allow": [True]}}, "policy.symbols.allow[0]"),
        ({"orders": {"types": []}}, "policy.orders.types"),
        ({"limits": ["max_order_usd"]}, "policy.limits"),
        (["limits"], "policy"),
    ],
)
def test_a_bad_override_value_is_refused_naming_its_key(document: object, key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_overrides(document)
    assert caught.value.key == key


def test_the_default_policy_accepts_every_builtin_cap_lowered() -> None:
    overrides = parse_overrides({"limits": {"max_order_usd": "1", "max_positions": 1}})
    check_tightens(overrides, DEFAULTS)
    assert overrides.apply(DEFAULTS).max_positions == 1


def test_a_profile_sets_max_adv_pct_and_halt_cancels_open_only_tighter() -> None:
    overrides = parse_overrides({"limits": {"max_adv_pct": "0.5", "halt_cancels_open": True}})
    check_tightens(overrides, POLICY)
    tightened = overrides.apply(POLICY)
    assert tightened.max_adv_pct == Decimal("0.5") and tightened.halt_cancels_open
    capped = PolicyConfig(max_adv_pct=Decimal("0.25"), halt_cancels_open=True)
    assert overrides.apply(capped).max_adv_pct == Decimal("0.25")
    looser = parse_overrides({"limits": {"max_adv_pct": "0.26"}})
    with pytest.raises(ConfigError) as caught:
        check_tightens(looser, capped)
    assert caught.value.key == "policy.limits.max_adv_pct"
    assert looser.apply(capped).max_adv_pct == Decimal("0.25")
    off = parse_overrides({"limits": {"halt_cancels_open": False}})
    with pytest.raises(ConfigError) as caught:
        check_tightens(off, capped)
    assert caught.value.key == "policy.limits.halt_cancels_open"
    assert off.apply(capped).halt_cancels_open
    check_tightens(off, POLICY)
    assert not off.apply(POLICY).halt_cancels_open


def test_a_profile_may_only_lengthen_the_cooldown() -> None:
    longer = parse_overrides({"cooldown": {"minutes": 45}})
    check_tightens(longer, POLICY)
    assert longer.apply(POLICY).cooldown_minutes == 45
    cooling = PolicyConfig(cooldown_minutes=60)
    with pytest.raises(ConfigError) as caught:
        check_tightens(longer, cooling)
    assert caught.value.key == "policy.cooldown.minutes"
    assert longer.apply(cooling).cooldown_minutes == 60


def test_a_profile_may_only_count_a_shorter_streak_over_a_longer_window() -> None:
    tighter = parse_overrides({"cooldown": {"loss_streak": 2, "loss_window_minutes": 120}})
    check_tightens(tighter, POLICY)
    applied = tighter.apply(POLICY)
    assert (applied.loss_streak, applied.loss_window_minutes) == (2, 120)
    counting = PolicyConfig(loss_streak=1, loss_window_minutes=240)
    with pytest.raises(ConfigError) as caught:
        check_tightens(tighter, counting)
    assert caught.value.key == "policy.cooldown.loss_streak"
    assert tighter.apply(counting).loss_streak == 1
    assert tighter.apply(counting).loss_window_minutes == 240
    shorter = parse_overrides({"cooldown": {"loss_window_minutes": 30}})
    with pytest.raises(ConfigError) as caught:
        check_tightens(shorter, POLICY)
    assert caught.value.key == "policy.cooldown.loss_window_minutes"
