"""Comparing two policies key by key: what changed, and which changes loosen anything.

Loosening is whatever could let an agent do more with the account's money, and is an owner
act (it needs the owner code); a change that only tightens — or changes nothing that guards
money — needs none. Keys are named as in the policy file (``limits.max_order_usd``).

What loosens:

- ``mode`` to ``live``, ``real_money`` to true (together: arming live);
- ``approval``: ``always`` → ``above:X`` → ``never``, or a higher ``above:`` threshold;
  ``approval_ttl_s``: a longer life for a pending approval; ``approval_slippage_pct``: more
  room between the estimate the owner approved and the reviewed notional;
- every cap in ``limits`` (``CAP_DIRECTIONS``): a higher cap, or a lower ``min_cash_usd``;
- the pace (``_PACE``): a higher ``max_orders_per_minute`` or
  ``max_account_orders_per_minute``, a shorter ``duplicate_window_s`` (0, off, the shortest);
- ``limits.halt_cancels_open`` turned off (a breaker then leaves working orders at the venue);
- ``limits.max_adv_pct``: a higher percent, or off (unset) where it was set;
- ``cooldown.minutes``: a shorter cooldown (0, off, the shortest); ``cooldown.loss_streak``:
  more losses before one (0, not counted, the most); ``cooldown.loss_window_minutes``: a
  shorter window to count them in;
- ``symbols.allow``: a symbol allowed that was not (or ``*``); ``symbols.deny``: a denial
  dropped;
- ``orders.types`` / ``orders.sessions``: anything added; ``orders.fractional``, ``short``,
  ``margin``, ``reducing_exempt``: turned on.

- ``[crypto]`` added where there was none (``crypto``: crypto orders enabled); within it, a
  pair added to ``crypto.pairs``, a higher ``max_order_usd``, ``max_position_pct`` or
  ``price_collar_bps``, and a higher ``max_daily_usd`` or one dropped (the shared budget
  alone then caps crypto), or ``split_daily_budget`` turned on. ``crypto.route`` only chooses
  the lane: changed, never loosened.
- ``[options]`` added where there was none (``options``: option orders enabled); within it
  (``OPTION_CAP_DIRECTIONS``): a higher ``max_contracts``, ``max_premium_usd``,
  ``max_daily_premium_usd``, ``max_loss_usd``, ``max_days_to_expiry`` or
  ``price_collar_bps``, a lower ``min_days_to_expiry`` or ``no_open_last_minutes``; an
  underlying or a strategy added; ``undefined_risk`` or ``split_daily_budget`` turned on.

``paper.*`` changes what the paper account simulates, never what real money may do: it is
listed as changed, never as loosened.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from types import MappingProxyType

from ordergate.policy._config import Approval, ApprovalKind, Mode, PolicyConfig
from ordergate.policy._crypto_config import CRYPTO_KEYS, CryptoPolicy
from ordergate.policy._options_config import OPTIONS_KEYS, OptionsPolicy

__all__ = ["CAP_DIRECTIONS", "OPTION_CAP_DIRECTIONS", "changed_keys", "loosened_keys"]

CAP_DIRECTIONS: Mapping[str, bool] = MappingProxyType(
    {
        "max_order_usd": True,
        "max_daily_usd": True,
        "max_orders_per_day": True,
        "max_open_orders": True,
        "max_position_pct": True,
        "min_cash_usd": False,
        "drawdown_halt_bps": True,
        "max_quote_age_s": True,
        "max_spread_bps": True,
        "price_collar_bps": True,
        "daily_loss_halt_usd": True,
        "max_positions": True,
    }
)
"""Each cap of ``[limits]`` (also its ``PolicyConfig`` attribute) and whether a lower number
is the tighter one (``min_cash_usd`` is a floor: higher is tighter)."""

_PACE: tuple[str, ...] = (
    "duplicate_window_s",
    "max_orders_per_minute",
    "max_account_orders_per_minute",
)
"""The ``[limits]`` keys of the order pace (also ``PolicyConfig`` attributes): a shorter
duplicate window, or a higher rate, loosens. Kept apart from ``CAP_DIRECTIONS``, which is
also what a profile may override."""

OPTION_CAP_DIRECTIONS: Mapping[str, bool] = MappingProxyType(
    {
        "max_contracts": True,
        "max_premium_usd": True,
        "max_daily_premium_usd": True,
        "max_loss_usd": True,
        "min_days_to_expiry": False,
        "max_days_to_expiry": True,
        "no_open_last_minutes": False,
        "price_collar_bps": True,
    }
)
"""Each number of ``[options]`` and whether a lower one is the tighter."""
_OPTION_SWITCHES = ("undefined_risk", "split_daily_budget")
_OPTION_ORDER = tuple(sorted(OPTIONS_KEYS))

_COOLDOWN = {
    "minutes": "cooldown_minutes",
    "loss_streak": "loss_streak",
    "loss_window_minutes": "loss_window_minutes",
}
_SWITCHES = ("fractional", "short", "margin", "reducing_exempt")
_PAPER = {
    "paper_cash_usd": "paper.starting_cash_usd",
    "paper_slippage_bps": "paper.slippage_bps",
    "paper_account_type": "paper.account_type",
    "paper_option_level": "paper.option_level",
}


def _approval_rank(approval: Approval) -> tuple[int, Decimal]:
    """Orders approval rules from tightest to loosest."""
    if approval.kind is ApprovalKind.ALWAYS:
        return (0, Decimal(0))
    if approval.kind is ApprovalKind.ABOVE:
        assert approval.threshold is not None
        return (1, approval.threshold)
    return (2, Decimal(0))


def _allowed(policy: PolicyConfig) -> frozenset[str] | None:
    """The allowlist, ``None`` standing for every ticker."""
    return None if policy.allow_all else policy.allow


def loosened_keys(old: PolicyConfig, new: PolicyConfig) -> tuple[str, ...]:
    """The keys on which ``new`` lets more through than ``old``, in file order."""
    keys: list[str] = []
    if new.mode is Mode.LIVE and old.mode is not Mode.LIVE:
        keys.append("mode")
    if new.real_money and not old.real_money:
        keys.append("real_money")
    if _approval_rank(new.approval) > _approval_rank(old.approval):
        keys.append("approval")
    if new.approval_ttl_s > old.approval_ttl_s:
        keys.append("approval_ttl_s")
    if new.approval_slippage_pct > old.approval_slippage_pct:
        keys.append("approval_slippage_pct")
    for name, lower_is_tighter in CAP_DIRECTIONS.items():
        before, after = getattr(old, name), getattr(new, name)
        if (after > before) if lower_is_tighter else (after < before):
            keys.append(f"limits.{name}")
    if new.duplicate_window_s < old.duplicate_window_s:
        keys.append("limits.duplicate_window_s")
    keys.extend(f"limits.{name}" for name in _PACE[1:] if getattr(new, name) > getattr(old, name))
    if old.halt_cancels_open and not new.halt_cancels_open:
        keys.append("limits.halt_cancels_open")
    if old.max_adv_pct is not None and (
        new.max_adv_pct is None or new.max_adv_pct > old.max_adv_pct
    ):
        keys.append("limits.max_adv_pct")
    if new.cooldown_minutes < old.cooldown_minutes:
        keys.append("cooldown.minutes")
    if old.loss_streak and (not new.loss_streak or new.loss_streak > old.loss_streak):
        keys.append("cooldown.loss_streak")
    if new.loss_window_minutes < old.loss_window_minutes:
        keys.append("cooldown.loss_window_minutes")
    old_allowed, new_allowed = _allowed(old), _allowed(new)
    if old_allowed is not None and (new_allowed is None or not new_allowed <= old_allowed):
        keys.append("symbols.allow")
    if not old.deny <= new.deny:
        keys.append("symbols.deny")
    if not new.order_types <= old.order_types:
        keys.append("orders.types")
    if not new.sessions <= old.sessions:
        keys.append("orders.sessions")
    keys.extend(
        f"orders.{name}" for name in _SWITCHES if getattr(new, name) and not getattr(old, name)
    )
    keys.extend(_crypto_loosened(old.crypto, new.crypto))
    keys.extend(_loosened_options(old.options, new.options))
    return tuple(keys)


def _crypto_loosened(old: CryptoPolicy | None, new: CryptoPolicy | None) -> list[str]:
    if new is None:
        return []
    if old is None:
        return ["crypto"]
    keys: list[str] = []
    if not new.pairs <= old.pairs:
        keys.append("crypto.pairs")
    keys.extend(
        f"crypto.{name}"
        for name in ("max_order_usd", "max_position_pct", "price_collar_bps")
        if getattr(new, name) > getattr(old, name)
    )
    if old.max_daily_usd is not None and (
        new.max_daily_usd is None or new.max_daily_usd > old.max_daily_usd
    ):
        keys.append("crypto.max_daily_usd")
    if new.split_daily_budget and not old.split_daily_budget:
        keys.append("crypto.split_daily_budget")
    return keys


def _crypto_changed(old: CryptoPolicy | None, new: CryptoPolicy | None) -> list[str]:
    if old is None or new is None:
        return [] if old is new else ["crypto"]
    return [
        f"crypto.{name}" for name in sorted(CRYPTO_KEYS) if getattr(old, name) != getattr(new, name)
    ]


def _loosened_options(old: OptionsPolicy | None, new: OptionsPolicy | None) -> list[str]:
    if new is None:
        return []
    if old is None:
        return ["options"]
    keys: list[str] = []
    if not new.underlyings <= old.underlyings:
        keys.append("options.underlyings")
    if not new.strategies <= old.strategies:
        keys.append("options.strategies")
    for name, lower_is_tighter in OPTION_CAP_DIRECTIONS.items():
        before, after = getattr(old, name), getattr(new, name)
        if (after > before) if lower_is_tighter else (after < before):
            keys.append(f"options.{name}")
    keys.extend(
        f"options.{name}"
        for name in _OPTION_SWITCHES
        if getattr(new, name) and not getattr(old, name)
    )
    return keys


def changed_keys(old: PolicyConfig, new: PolicyConfig) -> tuple[str, ...]:
    """Every key on which ``new`` differs from ``old``, in file order."""
    keys = [
        name
        for name in ("mode", "real_money", "approval", "approval_ttl_s", "approval_slippage_pct")
        if getattr(old, name) != getattr(new, name)
    ]
    keys.extend(
        f"limits.{name}"
        for name in (*CAP_DIRECTIONS, *_PACE, "halt_cancels_open", "max_adv_pct")
        if getattr(old, name) != getattr(new, name)
    )
    if (old.allow_all, old.allow) != (new.allow_all, new.allow):
        keys.append("symbols.allow")
    if old.deny != new.deny:
        keys.append("symbols.deny")
    if old.order_types != new.order_types:
        keys.append("orders.types")
    if old.sessions != new.sessions:
        keys.append("orders.sessions")
    keys.extend(f"orders.{name}" for name in _SWITCHES if getattr(old, name) != getattr(new, name))
    keys.extend(key for name, key in _PAPER.items() if getattr(old, name) != getattr(new, name))
    keys.extend(
        f"cooldown.{key}"
        for key, name in _COOLDOWN.items()
        if getattr(old, name) != getattr(new, name)
    )
    keys.extend(_crypto_changed(old.crypto, new.crypto))
    if (old.options is None) != (new.options is None):
        keys.append("options")
    elif old.options is not None and new.options is not None:
        keys.extend(
            f"options.{name}"
            for name in _OPTION_ORDER
            if getattr(old.options, name) != getattr(new.options, name)
        )
    return tuple(keys)
