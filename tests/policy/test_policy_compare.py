"""Comparing policies: which keys changed, and which of them loosen what an agent may do."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ordergate.core import MarketHours, OrderType
from ordergate.policy import (
    CAP_DIRECTIONS,
    DEFAULT_POLICY_TOML,
    Approval,
    ApprovalKind,
    Mode,
    PolicyConfig,
    changed_keys,
    loosened_keys,
    parse_policy,
)

BASE = parse_policy(DEFAULT_POLICY_TOML)


@pytest.mark.req("owner.policy.loosening-named")
@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"mode": Mode.LIVE}, "mode"),
        ({"real_money": True}, "real_money"),
        ({"approval": Approval(ApprovalKind.NEVER)}, "approval"),
        ({"approval": Approval(ApprovalKind.ABOVE, Decimal(50))}, "approval"),
        ({"approval_ttl_s": 3600}, "approval_ttl_s"),
        ({"approval_slippage_pct": Decimal(5)}, "approval_slippage_pct"),
        ({"max_order_usd": Decimal(101)}, "limits.max_order_usd"),
        ({"max_orders_per_day": 21}, "limits.max_orders_per_day"),
        ({"drawdown_halt_bps": 2000}, "limits.drawdown_halt_bps"),
        ({"duplicate_window_s": 29}, "limits.duplicate_window_s"),
        ({"duplicate_window_s": 0}, "limits.duplicate_window_s"),
        ({"max_orders_per_minute": 6}, "limits.max_orders_per_minute"),
        ({"max_account_orders_per_minute": 11}, "limits.max_account_orders_per_minute"),
        ({"allow": frozenset({"SPY", "VTI", "AAPL"})}, "symbols.allow"),
        ({"allow_all": True}, "symbols.allow"),
        ({"order_types": frozenset(OrderType)}, "orders.types"),
        ({"sessions": frozenset(MarketHours)}, "orders.sessions"),
        ({"short": True}, "orders.short"),
        ({"margin": True}, "orders.margin"),
    ],
)
def test_each_kind_of_loosening_is_named_by_its_key(change: dict[str, object], key: str) -> None:
    looser = replace(BASE, **change)  # type: ignore[arg-type]
    assert loosened_keys(BASE, looser) == (key,)
    assert key in changed_keys(BASE, looser)
    assert loosened_keys(looser, BASE) == ()


def test_a_lower_cash_floor_and_a_dropped_denial_loosen() -> None:
    floor = replace(BASE, min_cash_usd=Decimal(100))
    assert loosened_keys(floor, BASE) == ("limits.min_cash_usd",)
    denying = replace(BASE, deny=frozenset({"GME"}))
    assert loosened_keys(denying, BASE) == ("symbols.deny",)


def test_tightening_and_paper_settings_change_keys_without_loosening_any() -> None:
    tighter = replace(
        BASE,
        max_order_usd=Decimal(50),
        allow=frozenset({"SPY"}),
        approval=Approval(ApprovalKind.ALWAYS),
        paper_cash_usd=Decimal(50_000),
        paper_slippage_bps=5,
        paper_account_type="margin",
        paper_option_level=3,
        fractional=False,
    )
    assert loosened_keys(BASE, tighter) == ()
    assert set(changed_keys(BASE, tighter)) == {
        "limits.max_order_usd",
        "symbols.allow",
        "orders.fractional",
        "paper.starting_cash_usd",
        "paper.slippage_bps",
        "paper.account_type",
        "paper.option_level",
    }


def test_a_higher_above_threshold_loosens_and_a_lower_one_tightens() -> None:
    at_100 = replace(BASE, approval=Approval(ApprovalKind.ABOVE, Decimal(100)))
    at_200 = replace(BASE, approval=Approval(ApprovalKind.ABOVE, Decimal(200)))
    assert loosened_keys(at_100, at_200) == ("approval",)
    assert loosened_keys(at_200, at_100) == ()


_CAP_VALUES = st.fixed_dictionaries(
    {name: st.integers(min_value=1, max_value=50) for name in CAP_DIRECTIONS}
)


def _with_caps(values: dict[str, int]) -> PolicyConfig:
    caps = {
        name: Decimal(value) if isinstance(getattr(BASE, name), Decimal) else value
        for name, value in values.items()
    }
    return replace(BASE, **caps)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(_CAP_VALUES, _CAP_VALUES)
def test_a_change_of_caps_loosens_exactly_the_caps_that_let_more_through(
    before: dict[str, int], after: dict[str, int]
) -> None:
    old, new = _with_caps(before), _with_caps(after)
    expected = tuple(
        f"limits.{name}"
        for name, lower_is_tighter in CAP_DIRECTIONS.items()
        if (after[name] > before[name] if lower_is_tighter else after[name] < before[name])
    )
    assert loosened_keys(old, new) == expected
    assert loosened_keys(new, old) == () or not set(loosened_keys(new, old)) & set(expected)
    assert loosened_keys(old, old) == () and changed_keys(old, old) == ()


def test_turning_halt_cancels_open_off_loosens_and_turning_it_on_tightens() -> None:
    cancelling = replace(BASE, halt_cancels_open=True)
    assert loosened_keys(cancelling, BASE) == ("limits.halt_cancels_open",)
    assert loosened_keys(BASE, cancelling) == ()
    assert changed_keys(BASE, cancelling) == ("limits.halt_cancels_open",)


def test_raising_or_unsetting_max_adv_pct_loosens_and_setting_or_lowering_it_tightens() -> None:
    capped = replace(BASE, max_adv_pct=Decimal("0.5"))
    assert loosened_keys(BASE, capped) == ()
    assert loosened_keys(capped, BASE) == ("limits.max_adv_pct",)
    assert loosened_keys(capped, replace(BASE, max_adv_pct=Decimal("0.6"))) == (
        "limits.max_adv_pct",
    )
    assert loosened_keys(capped, replace(BASE, max_adv_pct=Decimal("0.4"))) == ()
    assert changed_keys(BASE, capped) == ("limits.max_adv_pct",)


def test_a_shorter_cooldown_loosens_and_a_longer_one_tightens() -> None:
    cooling = replace(BASE, cooldown_minutes=30)
    assert loosened_keys(BASE, cooling) == ()
    assert loosened_keys(cooling, BASE) == ("cooldown.minutes",)
    assert changed_keys(BASE, cooling) == ("cooldown.minutes",)


def test_a_longer_streak_or_a_shorter_loss_window_loosens() -> None:
    counting = replace(BASE, loss_streak=3, loss_window_minutes=60)
    assert loosened_keys(counting, BASE) == ("cooldown.loss_streak",)
    assert loosened_keys(counting, replace(counting, loss_streak=4)) == ("cooldown.loss_streak",)
    assert loosened_keys(counting, replace(counting, loss_streak=2)) == ()
    shorter = replace(counting, loss_window_minutes=59)
    assert loosened_keys(counting, shorter) == ("cooldown.loss_window_minutes",)
    assert changed_keys(counting, shorter) == ("cooldown.loss_window_minutes",)
