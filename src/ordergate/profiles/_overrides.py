"""A profile's policy overrides: caps and lists that can only tighten the account policy.

A profile file's ``policy`` table uses the policy file's own layout and value rules (so
``"12.50"`` not ``12.5``; the values are checked by ``ordergate.policy.policy_from_mapping``)
but accepts only what tightens by construction:

- ``limits.*``: every cap of the policy. A lower number is tighter, except
  ``min_cash_usd``, a floor, where a higher number is tighter; ``max_adv_pct`` set where the
  policy leaves it off, or lower; ``halt_cancels_open`` turned on (never off).
- ``cooldown.minutes``: a longer cooldown; ``cooldown.loss_streak``: fewer losses (set where
  the policy counts none); ``cooldown.loss_window_minutes``: a longer window.
- ``symbols.allow``: tickers the profile may trade; every one must be allowed by the
  policy (anything is, when the policy allows ``*``). ``symbols.deny``: extra denials.
- ``orders.types`` and ``orders.sessions``: a subset of the policy's.

Everything else (mode, approval, booleans, paper settings) is refused as an unknown key:
those are the account owner's to set. ``check_tightens`` refuses an override looser than
the policy, naming the key; ``PolicyOverrides.apply`` returns the policy tightened, and
takes the tighter value of each pair even when called unchecked, so it can never loosen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from ordergate.core import ConfigError, MarketHours, OrderType
from ordergate.policy import CAP_DIRECTIONS, PolicyConfig, policy_from_mapping

__all__ = ["PolicyOverrides", "check_tightens", "parse_overrides"]

_CAPS = CAP_DIRECTIONS
_TABLES: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "limits": frozenset({*_CAPS, "max_adv_pct", "halt_cancels_open"}),
        "symbols": frozenset({"allow", "deny"}),
        "orders": frozenset({"types", "sessions"}),
        "cooldown": frozenset({"minutes", "loss_streak", "loss_window_minutes"}),
    }
)


@dataclass(frozen=True, slots=True)
class PolicyOverrides:
    """Optional tighter caps and narrower lists; ``None`` (or empty ``deny``) keeps the
    policy's value. Build it with ``parse_overrides`` or directly."""

    max_order_usd: Decimal | None = None
    max_daily_usd: Decimal | None = None
    max_orders_per_day: int | None = None
    max_open_orders: int | None = None
    max_position_pct: Decimal | None = None
    min_cash_usd: Decimal | None = None
    drawdown_halt_bps: int | None = None
    max_quote_age_s: int | None = None
    max_spread_bps: int | None = None
    price_collar_bps: int | None = None
    daily_loss_halt_usd: Decimal | None = None
    max_positions: int | None = None
    max_adv_pct: Decimal | None = None
    halt_cancels_open: bool | None = None
    cooldown_minutes: int | None = None
    loss_streak: int | None = None
    loss_window_minutes: int | None = None
    allow: frozenset[str] | None = None
    deny: frozenset[str] = frozenset()
    order_types: frozenset[OrderType] | None = None
    sessions: frozenset[MarketHours] | None = None

    def apply(self, policy: PolicyConfig) -> PolicyConfig:
        """A copy of ``policy`` tightened by these overrides (never loosened).

        Raises ``ConfigError`` only when the result is no valid policy (an ``orders.types``
        or ``orders.sessions`` with nothing in common with the policy's, which
        ``check_tightens`` refuses first).
        """
        values: dict[str, Any] = {}
        for name, lower_is_tighter in _CAPS.items():
            wanted = getattr(self, name)
            if wanted is None:
                continue
            current = getattr(policy, name)
            values[name] = min(current, wanted) if lower_is_tighter else max(current, wanted)
        adv = self.max_adv_pct
        if adv is not None:
            values["max_adv_pct"] = (
                adv if policy.max_adv_pct is None else min(policy.max_adv_pct, adv)
            )
        if self.halt_cancels_open:
            values["halt_cancels_open"] = True
        if self.cooldown_minutes is not None:
            values["cooldown_minutes"] = max(policy.cooldown_minutes, self.cooldown_minutes)
        streak = self.loss_streak
        if streak:
            values["loss_streak"] = (
                min(policy.loss_streak, streak) if policy.loss_streak else streak
            )
        if self.loss_window_minutes is not None:
            values["loss_window_minutes"] = max(
                policy.loss_window_minutes, self.loss_window_minutes
            )
        if self.allow is not None:
            values["allow"] = self.allow if policy.allow_all else policy.allow & self.allow
            values["allow_all"] = False
        if self.deny:
            values["deny"] = policy.deny | self.deny
        if self.order_types is not None:
            values["order_types"] = policy.order_types & self.order_types
        if self.sessions is not None:
            values["sessions"] = policy.sessions & self.sessions
        return replace(policy, **values) if values else policy


def check_tightens(overrides: PolicyOverrides, policy: PolicyConfig) -> None:
    """Raise ``ConfigError`` naming the key (``policy.limits.max_order_usd``) of the first
    override looser than ``policy``: a higher cap, a lower floor, a symbol the policy's
    allowlist lacks, an order type or session the policy does not allow."""
    for name, lower_is_tighter in _CAPS.items():
        wanted = getattr(overrides, name)
        if wanted is None:
            continue
        current = getattr(policy, name)
        if (wanted > current) if lower_is_tighter else (wanted < current):
            direction = "at most" if lower_is_tighter else "at least"
            raise ConfigError(
                f"policy.limits.{name}",
                f"{wanted} would loosen the account policy: a profile's value must be "
                f"{direction} the policy's {current}",
            )
    adv, current_adv = overrides.max_adv_pct, policy.max_adv_pct
    if adv is not None and current_adv is not None and adv > current_adv:
        raise ConfigError(
            "policy.limits.max_adv_pct",
            f"{adv} would loosen the account policy: a profile's value must be at most the "
            f"policy's {current_adv}",
        )
    if overrides.halt_cancels_open is False and policy.halt_cancels_open:
        raise ConfigError(
            "policy.limits.halt_cancels_open",
            "false would loosen the account policy, which cancels working orders on a breaker",
        )
    minutes = overrides.cooldown_minutes
    if minutes is not None and minutes < policy.cooldown_minutes:
        raise ConfigError(
            "policy.cooldown.minutes",
            f"{minutes} would loosen the account policy: a profile's value must be at least the "
            f"policy's {policy.cooldown_minutes}",
        )
    streak = overrides.loss_streak
    if streak is not None and policy.loss_streak and not 0 < streak <= policy.loss_streak:
        raise ConfigError(
            "policy.cooldown.loss_streak",
            f"{streak} would loosen the account policy: a profile's value must be from 1 to the "
            f"policy's {policy.loss_streak}",
        )
    window = overrides.loss_window_minutes
    if window is not None and window < policy.loss_window_minutes:
        raise ConfigError(
            "policy.cooldown.loss_window_minutes",
            f"{window} would loosen the account policy: a profile's value must be at least the "
            f"policy's {policy.loss_window_minutes}",
        )
    if overrides.allow is not None and not policy.allow_all:
        extra = sorted(overrides.allow - policy.allow)
        if extra:
            raise ConfigError(
                "policy.symbols.allow",
                f"{', '.join(extra)} not in the account policy's allowlist; a profile may "
                "only narrow it",
            )
    _check_subset("policy.orders.types", overrides.order_types, policy.order_types)
    _check_subset("policy.orders.sessions", overrides.sessions, policy.sessions)


def _check_subset(key: str, wanted: frozenset[str] | None, allowed: frozenset[str]) -> None:
    extra = sorted(wanted - allowed) if wanted is not None else []
    if extra:
        raise ConfigError(
            key,
            f"{', '.join(extra)} not allowed by the account policy; a profile may only narrow "
            "the list",
        )


def parse_overrides(document: object) -> PolicyOverrides:
    """Validate a profile's ``policy`` table (``None`` is no overrides).

    Raises ``ConfigError`` naming the dotted key under ``policy.``: an unknown table or key,
    a value the policy file would refuse, a wildcard allowlist.
    """
    if document is None:
        return PolicyOverrides()
    if not isinstance(document, Mapping):
        raise ConfigError("policy", "must be a mapping of limits, symbols, orders and cooldown")
    for table, body in document.items():
        if table not in _TABLES:
            raise ConfigError(
                f"policy.{table}",
                "unknown key (a profile may set limits, symbols, orders, cooldown)",
            )
        if not isinstance(body, Mapping):
            raise ConfigError(f"policy.{table}", "must be a mapping")
        for key in body:
            if key not in _TABLES[table]:
                known = ", ".join(sorted(_TABLES[table]))
                raise ConfigError(f"policy.{table}.{key}", f"unknown key (known: {known})")
    symbols = document.get("symbols", {})
    for key, items in symbols.items():
        for index, item in enumerate(items if isinstance(items, list) else ()):
            if isinstance(item, bool):
                raise ConfigError(
                    f"policy.symbols.{key}[{index}]",
                    'YAML read this ticker as true/false: quote it ("ON")',
                )
    try:
        parsed = policy_from_mapping({table: dict(body) for table, body in document.items()})
    except ConfigError as error:
        raise ConfigError(f"policy.{error.key}", error.reason) from None
    if parsed.allow_all:
        raise ConfigError(
            "policy.symbols.allow",
            "a profile's allowlist names tickers; leave it out to keep the policy's",
        )
    values: dict[str, Any] = {name: getattr(parsed, name) for name in document.get("limits", {})}
    if "allow" in symbols:
        values["allow"] = parsed.allow
    if "deny" in symbols:
        values["deny"] = parsed.deny
    orders = document.get("orders", {})
    if "types" in orders:
        values["order_types"] = parsed.order_types
    if "sessions" in orders:
        values["sessions"] = parsed.sessions
    cooldown = document.get("cooldown", {})
    if "minutes" in cooldown:
        values["cooldown_minutes"] = parsed.cooldown_minutes
    for key in ("loss_streak", "loss_window_minutes"):
        if key in cooldown:
            values[key] = getattr(parsed, key)
    return PolicyOverrides(**values)
