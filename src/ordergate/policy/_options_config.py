"""The policy file's ``[options]`` table, validated into a frozen ``OptionsPolicy``.

Without the table option orders are refused (``options_not_enabled``); with it, every key is
optional and takes the conservative default in ``OptionsPolicy``. As everywhere in the
policy, an unknown key is refused by name (``options.max_premium``), money is a string or an
integer (never a TOML float) and a bad value names its key.

``Strategy`` names the shapes ``ordergate.policy.options.recognise`` finds in an order's legs;
``strategies`` lists the ones the owner allows. Both live here, beside the policy file's
parser (``ordergate.policy._config``, which reads the table), so that the config needs
nothing of the options engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from ordergate.core import ConfigError
from ordergate.policy._symbols import is_plain_ticker

__all__ = ["OPTIONS_KEYS", "OptionsPolicy", "Strategy"]


class Strategy(StrEnum):
    """A shape recognised from an order's legs and the account's holdings."""

    LONG_CALL = "long_call"
    LONG_PUT = "long_put"
    COVERED_CALL = "covered_call"
    CASH_SECURED_PUT = "cash_secured_put"
    NAKED_CALL = "naked_call"
    NAKED_PUT = "naked_put"
    DEBIT_VERTICAL = "debit_vertical"
    CREDIT_VERTICAL = "credit_vertical"
    IRON_CONDOR = "iron_condor"
    IRON_BUTTERFLY = "iron_butterfly"
    STRADDLE = "straddle"
    STRANGLE = "strangle"
    CALENDAR = "calendar"
    CLOSING = "closing"
    UNRECOGNISED = "unrecognised"


_DEFAULT_STRATEGIES = frozenset(
    {
        Strategy.LONG_CALL,
        Strategy.LONG_PUT,
        Strategy.COVERED_CALL,
        Strategy.CASH_SECURED_PUT,
        Strategy.CLOSING,
    }
)
_MAX_BPS = 10_000
_MAX_DAYS = 3 * 366
_MAX_MINUTES = 390  # a regular session


@dataclass(frozen=True, slots=True)
class OptionsPolicy:
    """``[options]``: what an agent may do with options. Dollar figures are USD; premium
    is counted as premium per share × 100 × contracts, debit and credit alike.

    ``underlyings`` (default none): the symbols whose options may be traded.
    ``strategies`` (default the single-leg shapes and ``closing``): the shapes allowed.
    ``max_contracts`` (1): contracts per order (``quantity`` × the largest leg ratio).
    ``max_premium_usd`` (100): one order's premium. ``max_daily_premium_usd`` (500): premium
    in any rolling 24 h. ``max_loss_usd`` (100): the most one order's position can lose at
    expiry, computed from its legs. ``undefined_risk`` (false): whether an order whose loss
    is unbounded may pass at all. ``min_days_to_expiry`` (1) / ``max_days_to_expiry`` (60):
    the window every opening leg's expiry must fall in, in New York calendar days.
    ``no_open_last_minutes`` (30): no opening leg expiring today in the last N minutes of the
    session. ``price_collar_bps`` (1000): the net limit (or a market order's estimate) at
    most this far from the legs' net mid. ``split_daily_budget`` (false): by default option
    premium also counts against ``[limits] max_daily_usd`` together with equities; true
    gives options their own budget (``max_daily_premium_usd`` only).
    """

    underlyings: frozenset[str] = frozenset()
    strategies: frozenset[Strategy] = _DEFAULT_STRATEGIES
    max_contracts: int = 1
    max_premium_usd: Decimal = Decimal(100)
    max_daily_premium_usd: Decimal = Decimal(500)
    max_loss_usd: Decimal = Decimal(100)
    undefined_risk: bool = False
    min_days_to_expiry: int = 1
    max_days_to_expiry: int = 60
    no_open_last_minutes: int = 30
    price_collar_bps: int = 1000
    split_daily_budget: bool = False

    def __post_init__(self) -> None:
        for symbol in self.underlyings:
            if not isinstance(symbol, str) or not is_plain_ticker(symbol):
                raise ConfigError("options.underlyings", f"{symbol!r} is not a plain ticker")
        for strategy in self.strategies:
            if not isinstance(strategy, Strategy):
                raise ConfigError("options.strategies", f"{strategy!r} is not a strategy")
        for key in ("max_premium_usd", "max_daily_premium_usd", "max_loss_usd"):
            value = getattr(self, key)
            if not isinstance(value, Decimal) or not value.is_finite() or value <= 0:
                raise ConfigError(f"options.{key}", "must be a positive amount")
        for key, low, high in (
            ("max_contracts", 1, 10_000),
            ("min_days_to_expiry", 0, _MAX_DAYS),
            ("max_days_to_expiry", 0, _MAX_DAYS),
            ("no_open_last_minutes", 0, _MAX_MINUTES),
            ("price_collar_bps", 1, _MAX_BPS),
        ):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ConfigError(f"options.{key}", f"must be an integer from {low} to {high}")
        if self.max_days_to_expiry < self.min_days_to_expiry:
            raise ConfigError("options.max_days_to_expiry", "must be at least min_days_to_expiry")
        for key in ("undefined_risk", "split_daily_budget"):
            if not isinstance(getattr(self, key), bool):
                raise ConfigError(f"options.{key}", "must be true or false")


OPTIONS_KEYS = frozenset(OptionsPolicy.__dataclass_fields__)
"""The keys ``[options]`` may hold (each is also its ``OptionsPolicy`` attribute)."""
