"""The policy file (TOML) validated into a frozen ``PolicyConfig``.

Every key is optional and then takes its conservative default (``DEFAULTS`` below). A bad
file is refused with ``ConfigError(key, reason)`` naming the dotted key
(``limits.max_order_usd``); an **unknown key is an error**, because a misspelt cap must never
be silently ignored. Money and percentages are ``Decimal`` written as TOML strings or
integers; a TOML float is refused (money is never a binary float). Decimal limits are
positive (``min_cash_usd`` may be zero); integer limits are positive integers.

The config also carries what the engine's hot path would otherwise recompute on every call
(frozensets, the session coverage), so ``evaluate`` only reads attributes.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from ordergate.core import ConfigError, MarketHours, OrderType
from ordergate.policy._crypto_config import CRYPTO_KEYS, CryptoPolicy, CryptoRoute
from ordergate.policy._options_config import OPTIONS_KEYS, OptionsPolicy, Strategy
from ordergate.policy._symbols import is_plain_ticker, normalise_symbol

__all__ = [
    "ALL_SYMBOLS",
    "DEFAULTS",
    "SESSION_COVERAGE",
    "Approval",
    "ApprovalKind",
    "MarketSession",
    "Mode",
    "PolicyConfig",
    "load_policy",
    "parse_policy",
    "policy_from_mapping",
]

ALL_SYMBOLS = "*"
"""In ``[symbols] allow``: every plain ticker (the deny list still applies)."""


class Mode(StrEnum):
    PAPER = "paper"
    LIVE = "live"


class MarketSession(StrEnum):
    """The market's session right now (the sandbox market's vocabulary)."""

    REGULAR = "regular"
    PRE_MARKET = "pre_market"
    AFTER_HOURS = "after_hours"
    OVERNIGHT = "overnight"
    CLOSED = "closed"


# Which current sessions an order's ``market_hours`` may be sent in. Closed is in none: an
# order queued for the next open fills at a price no check has seen.
SESSION_COVERAGE: Mapping[MarketHours, frozenset[MarketSession]] = {
    MarketHours.REGULAR_HOURS: frozenset({MarketSession.REGULAR}),
    MarketHours.EXTENDED_HOURS: frozenset(
        {MarketSession.REGULAR, MarketSession.PRE_MARKET, MarketSession.AFTER_HOURS}
    ),
    MarketHours.ALL_DAY_HOURS: frozenset(
        {
            MarketSession.REGULAR,
            MarketSession.PRE_MARKET,
            MarketSession.AFTER_HOURS,
            MarketSession.OVERNIGHT,
        }
    ),
}


# Decimal limits and whether zero is allowed; integer limits (all positive).
_DECIMAL_LIMITS = {
    "max_order_usd": False,
    "max_daily_usd": False,
    "max_position_pct": False,
    "min_cash_usd": True,
    "daily_loss_halt_usd": False,
}
_INTEGER_LIMITS = (
    "max_orders_per_day",
    "max_open_orders",
    "drawdown_halt_bps",
    "max_quote_age_s",
    "max_spread_bps",
    "price_collar_bps",
    "max_positions",
    "max_orders_per_minute",
    "max_account_orders_per_minute",
)
_LIMIT_SWITCHES = frozenset({"halt_cancels_open"})
_MAX_BPS = 10_000
_PAPER_ACCOUNT_TYPES = ("cash", "margin")
"""The account types a paper book may take (the venue's agentic account types)."""
_PAPER_OPTION_LEVELS = (1, 2, 3)
"""The option levels a paper book may take (the venue's)."""
# The duplicate window reads back at most this far (the ledger's own rolling window).
_MAX_DUPLICATE_WINDOW_S = 24 * 3600
_MAX_COOLDOWN_MINUTES = 7 * 24 * 60
_MAX_LOSS_STREAK = 100


class ApprovalKind(StrEnum):
    ALWAYS = "always"
    NEVER = "never"
    ABOVE = "above"


@dataclass(frozen=True, slots=True)
class Approval:
    """When a person must approve: always, never, or above a notional (``above:250``)."""

    kind: ApprovalKind
    threshold: Decimal | None = None

    def requires(self, notional: Decimal | None) -> bool:
        """Whether an order of ``notional`` needs approval; an unknown notional always does."""
        if self.kind is ApprovalKind.ALWAYS:
            return True
        if self.kind is ApprovalKind.NEVER:
            return False
        assert self.threshold is not None
        return notional is None or notional > self.threshold

    def __str__(self) -> str:
        if self.kind is ApprovalKind.ABOVE:
            return f"above:{self.threshold}"
        return self.kind.value


@dataclass(frozen=True, slots=True)
class PolicyConfig:
    """A validated policy. Build it with ``load_policy``/``parse_policy`` or directly.

    Percentages are percent (``20`` = 20 %), ``*_bps`` basis points (100 = 1 %).
    ``allow`` empty means no symbol is allowed; ``allow_all`` is ``allow = ["*"]``.
    ``reducing_exempt``: orders that only reduce or close a position skip the spend caps,
    the concentration and cash rules and the drawdown/daily-loss breakers.
    ``real_money``: with ``mode = "live"``, the person's explicit consent to real orders;
    live mode without it runs in paper. ``approval_ttl_s``: how long a pending approval
    lives. ``approval_slippage_pct``: how far (percent) the reviewed notional of an approved
    order may exceed the estimate the owner approved before it is held for the owner again.
    ``paper_*`` (``[paper]``): the paper account's starting cash and fill slippage.
    ``duplicate_window_s``: an order with the same filed terms as one this identity had
    accepted less than this many seconds ago is refused (0: off). ``max_orders_per_minute``
    and ``max_account_orders_per_minute``: accepted orders in any rolling minute, per
    identity and per account. ``halt_cancels_open``: a breaker that trips (a refusal
    ``drawdown_halt`` or ``daily_loss_halt``) also cancels every working order, as
    ``ordergate pause --cancel-open`` does. ``max_adv_pct`` (``None``: off): an order's
    quantity may be at most this percent of the symbol's recent average daily volume.
    ``cooldown_minutes`` (``[cooldown] minutes``; 0: off): how long buys are refused after a
    breaker was last found tripped, or after ``loss_streak`` losing closed trades (0: not
    counted) within ``loss_window_minutes``. ``crypto`` (``[crypto]``; ``None``: the table
    is absent and every crypto order is refused): see ``CryptoPolicy``.
    counted) within ``loss_window_minutes``. ``options`` (``[options]``; ``None``: the
    table is absent and every option order is refused): see ``OptionsPolicy``.
    ``paper_account_type`` and ``paper_option_level`` (``[paper] account_type``,
    ``option_level``; ``None``: the upstream's agentic account's own): the paper book's
    account type (``cash`` | ``margin``) and option level (1–3), as the venue's engine
    applies them to option orders (multi-leg needs margin at level 3).
    """

    mode: Mode = Mode.PAPER
    approval: Approval = field(default_factory=lambda: Approval(ApprovalKind.ALWAYS))
    max_order_usd: Decimal = Decimal(100)
    max_daily_usd: Decimal = Decimal(500)
    max_orders_per_day: int = 20
    max_open_orders: int = 5
    max_position_pct: Decimal = Decimal(20)
    min_cash_usd: Decimal = Decimal(0)
    drawdown_halt_bps: int = 1000
    max_quote_age_s: int = 15
    max_spread_bps: int = 50
    price_collar_bps: int = 300
    daily_loss_halt_usd: Decimal = Decimal(250)
    max_positions: int = 10
    duplicate_window_s: int = 30
    max_orders_per_minute: int = 5
    max_account_orders_per_minute: int = 10
    halt_cancels_open: bool = False
    max_adv_pct: Decimal | None = None
    cooldown_minutes: int = 0
    loss_streak: int = 0
    loss_window_minutes: int = 60
    allow: frozenset[str] = frozenset()
    allow_all: bool = False
    deny: frozenset[str] = frozenset()
    order_types: frozenset[OrderType] = frozenset({OrderType.MARKET, OrderType.LIMIT})
    sessions: frozenset[MarketHours] = frozenset({MarketHours.REGULAR_HOURS})
    fractional: bool = True
    short: bool = False
    margin: bool = False
    reducing_exempt: bool = True
    real_money: bool = False
    approval_ttl_s: int = 900
    approval_slippage_pct: Decimal = Decimal(2)
    paper_cash_usd: Decimal = Decimal(10_000)
    paper_slippage_bps: int = 0
    paper_account_type: str | None = None
    paper_option_level: int | None = None
    crypto: CryptoPolicy | None = None
    options: OptionsPolicy | None = None
    max_quote_age: timedelta = field(init=False, repr=False, compare=False)
    cooldown: timedelta = field(init=False, repr=False, compare=False)
    loss_window: timedelta = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for key, allow_zero in _DECIMAL_LIMITS.items():
            value = getattr(self, key)
            if not isinstance(value, Decimal) or not value.is_finite():
                raise ConfigError(f"limits.{key}", "must be a finite Decimal")
            if value < 0 or (value == 0 and not allow_zero):
                raise ConfigError(
                    f"limits.{key}", "must be zero or more" if allow_zero else "must be positive"
                )
        slippage = self.approval_slippage_pct
        if not isinstance(slippage, Decimal) or not slippage.is_finite():
            raise ConfigError("approval_slippage_pct", "must be a finite Decimal")
        if not 0 <= slippage <= 100:
            raise ConfigError("approval_slippage_pct", "must be from 0 to 100 (percent)")
        if not isinstance(self.paper_cash_usd, Decimal) or not self.paper_cash_usd.is_finite():
            raise ConfigError("paper.starting_cash_usd", "must be a finite Decimal")
        if self.paper_cash_usd <= 0:
            raise ConfigError("paper.starting_cash_usd", "must be positive")
        for key, value, low in (
            ("paper.slippage_bps", self.paper_slippage_bps, 0),
            ("approval_ttl_s", self.approval_ttl_s, 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(key, f"must be an integer of at least {low}")
        if self.paper_slippage_bps > _MAX_BPS:
            raise ConfigError("paper.slippage_bps", f"must be at most {_MAX_BPS} (basis points)")
        account_type = self.paper_account_type
        if account_type is not None and account_type not in _PAPER_ACCOUNT_TYPES:
            raise ConfigError(
                "paper.account_type", f"must be one of {', '.join(_PAPER_ACCOUNT_TYPES)}"
            )
        level = self.paper_option_level
        if level is not None and (isinstance(level, bool) or level not in _PAPER_OPTION_LEVELS):
            levels = ", ".join(str(item) for item in _PAPER_OPTION_LEVELS)
            raise ConfigError("paper.option_level", f"must be one of {levels}")
        if self.max_position_pct > 100:
            raise ConfigError("limits.max_position_pct", "must be at most 100 (percent)")
        for key in _INTEGER_LIMITS:
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ConfigError(f"limits.{key}", "must be a positive integer")
            if key.endswith("_bps") and value > _MAX_BPS:
                raise ConfigError(f"limits.{key}", f"must be at most {_MAX_BPS} (basis points)")
        window = self.duplicate_window_s
        if isinstance(window, bool) or not isinstance(window, int):
            raise ConfigError("limits.duplicate_window_s", "must be an integer")
        if not 0 <= window <= _MAX_DUPLICATE_WINDOW_S:
            raise ConfigError(
                "limits.duplicate_window_s",
                f"must be from 0 (off) to {_MAX_DUPLICATE_WINDOW_S} (seconds)",
            )
        adv = self.max_adv_pct
        if adv is not None:
            if not isinstance(adv, Decimal) or not adv.is_finite():
                raise ConfigError("limits.max_adv_pct", "must be a finite Decimal")
            if not 0 < adv <= 100:
                raise ConfigError("limits.max_adv_pct", "must be above 0 and at most 100 (percent)")
        for key in _LIMIT_SWITCHES:
            if not isinstance(getattr(self, key), bool):
                raise ConfigError(f"limits.{key}", "must be true or false")
        if not self.order_types:
            raise ConfigError("orders.types", "must name at least one")
        if not self.sessions:
            raise ConfigError("orders.sessions", "must name at least one")
        for key, symbols in (("symbols.allow", self.allow), ("symbols.deny", self.deny)):
            for symbol in symbols:
                if not is_plain_ticker(symbol):
                    raise ConfigError(key, f"{symbol!r} is not a plain upper-case ticker")
        minutes = self.cooldown_minutes
        if isinstance(minutes, bool) or not isinstance(minutes, int):
            raise ConfigError("cooldown.minutes", "must be an integer")
        if not 0 <= minutes <= _MAX_COOLDOWN_MINUTES:
            raise ConfigError(
                "cooldown.minutes", f"must be from 0 (off) to {_MAX_COOLDOWN_MINUTES} (a week)"
            )
        if self.crypto is not None and not isinstance(self.crypto, CryptoPolicy):
            raise ConfigError("crypto", "must be a table")
        if self.options is not None and not isinstance(self.options, OptionsPolicy):
            raise ConfigError("options", "must be a table")
        object.__setattr__(self, "max_quote_age", timedelta(seconds=self.max_quote_age_s))
        for key, value, low, high in (
            ("cooldown.loss_streak", self.loss_streak, 0, _MAX_LOSS_STREAK),
            ("cooldown.loss_window_minutes", self.loss_window_minutes, 1, _MAX_COOLDOWN_MINUTES),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ConfigError(key, f"must be an integer from {low} to {high}")
        object.__setattr__(self, "cooldown", timedelta(minutes=minutes))
        object.__setattr__(self, "loss_window", timedelta(minutes=self.loss_window_minutes))


DEFAULTS = PolicyConfig()


# -- loading -------------------------------------------------------------------------------


class _TomlFloat(str):
    """A TOML float's source text, kept only so it can be refused by key."""

    __slots__ = ()


def load_policy(path: Path) -> PolicyConfig:
    """Read and validate the policy file at ``path``. Raises ``ConfigError``, ``OSError``."""
    return parse_policy(path.read_text(encoding="utf-8"))


def parse_policy(text: str) -> PolicyConfig:
    """Validate policy TOML text. Raises ``ConfigError`` naming the key and the reason."""
    try:
        document = tomllib.loads(text, parse_float=_TomlFloat)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError("policy", f"not valid TOML ({error})") from None
    return policy_from_mapping(document)


_TABLES: dict[str, frozenset[str]] = {
    "limits": frozenset(
        {
            "max_order_usd",
            "max_daily_usd",
            "max_orders_per_day",
            "max_open_orders",
            "max_position_pct",
            "min_cash_usd",
            "drawdown_halt_bps",
            "max_quote_age_s",
            "max_spread_bps",
            "price_collar_bps",
            "daily_loss_halt_usd",
            "max_positions",
            "duplicate_window_s",
            "max_orders_per_minute",
            "max_account_orders_per_minute",
            "halt_cancels_open",
            "max_adv_pct",
        }
    ),
    "symbols": frozenset({"allow", "deny"}),
    "orders": frozenset({"types", "sessions", "fractional", "short", "margin", "reducing_exempt"}),
    "paper": frozenset({"starting_cash_usd", "slippage_bps", "account_type", "option_level"}),
    "cooldown": frozenset({"minutes", "loss_streak", "loss_window_minutes"}),
    "crypto": CRYPTO_KEYS,
    "options": OPTIONS_KEYS,
}
_TOP = frozenset({"mode", "approval", "real_money", "approval_ttl_s", "approval_slippage_pct"})

_E = TypeVar("_E", bound=StrEnum)


def policy_from_mapping(document: Mapping[str, Any]) -> PolicyConfig:
    """Validate an already-parsed policy document (what ``tomllib`` returns)."""
    for key in document:
        if key not in _TOP and key not in _TABLES:
            raise ConfigError(key, "unknown key")
    values: dict[str, Any] = {}
    if "mode" in document:
        values["mode"] = _enum("mode", document["mode"], Mode)
    if "approval" in document:
        values["approval"] = _approval(document["approval"])
    if "real_money" in document:
        values["real_money"] = _boolean("real_money", document["real_money"])
    if "approval_ttl_s" in document:
        values["approval_ttl_s"] = _integer("approval_ttl_s", document["approval_ttl_s"])
    if "approval_slippage_pct" in document:
        values["approval_slippage_pct"] = _decimal(
            "approval_slippage_pct", document["approval_slippage_pct"]
        )
    for table, known in _TABLES.items():
        if table not in document:
            continue
        body = document[table]
        if not isinstance(body, dict):
            raise ConfigError(table, "must be a table")
        for key in body:
            if key not in known:
                raise ConfigError(f"{table}.{key}", "unknown key")
    limits = document.get("limits", {})
    for key, value in limits.items():
        dotted = f"limits.{key}"
        if key in _LIMIT_SWITCHES:
            values[key] = _boolean(dotted, value)
        elif key in _DECIMAL_LIMITS or key == "max_adv_pct":
            values[key] = _decimal(dotted, value)
        else:
            values[key] = _integer(dotted, value)
    symbols = document.get("symbols", {})
    if "allow" in symbols:
        allow = _symbol_list("symbols.allow", symbols["allow"], wildcard=True)
        values["allow_all"] = ALL_SYMBOLS in allow
        values["allow"] = allow - {ALL_SYMBOLS}
    if "deny" in symbols:
        values["deny"] = _symbol_list("symbols.deny", symbols["deny"], wildcard=False)
    orders = document.get("orders", {})
    if "types" in orders:
        values["order_types"] = _enum_set("orders.types", orders["types"], OrderType)
    if "sessions" in orders:
        values["sessions"] = _enum_set("orders.sessions", orders["sessions"], MarketHours)
    for key in ("fractional", "short", "margin", "reducing_exempt"):
        if key in orders:
            values[key] = _boolean(f"orders.{key}", orders[key])
    paper = document.get("paper", {})
    if "starting_cash_usd" in paper:
        values["paper_cash_usd"] = _decimal("paper.starting_cash_usd", paper["starting_cash_usd"])
    if "slippage_bps" in paper:
        values["paper_slippage_bps"] = _integer("paper.slippage_bps", paper["slippage_bps"])
    if "account_type" in paper:
        account_type = paper["account_type"]
        if not isinstance(account_type, str) or isinstance(account_type, _TomlFloat):
            raise ConfigError("paper.account_type", "must be a string")
        values["paper_account_type"] = account_type.strip().lower()
    if "option_level" in paper:
        values["paper_option_level"] = _integer("paper.option_level", paper["option_level"])
    cooldown = document.get("cooldown", {})
    if "minutes" in cooldown:
        values["cooldown_minutes"] = _integer("cooldown.minutes", cooldown["minutes"])
    for key in ("loss_streak", "loss_window_minutes"):
        if key in cooldown:
            values[key] = _integer(f"cooldown.{key}", cooldown[key])
    if "crypto" in document:
        values["crypto"] = _crypto(document["crypto"])
    if "options" in document:
        values["options"] = _options(document["options"])
    return PolicyConfig(**values)


def _crypto(body: Mapping[str, Any]) -> CryptoPolicy:
    """``[crypto]`` (its keys already checked against ``CRYPTO_KEYS``)."""
    values: dict[str, Any] = {}
    for key, value in body.items():
        dotted = f"crypto.{key}"
        if key == "pairs":
            values[key] = _pair_list(dotted, value)
        elif key == "route":
            values[key] = _enum(dotted, value, CryptoRoute)
        elif key == "price_collar_bps":
            values[key] = _integer(dotted, value)
        elif key == "split_daily_budget":
            values[key] = _boolean(dotted, value)
        else:
            values[key] = _decimal(dotted, value)
    return CryptoPolicy(**values)


def _pair_list(key: str, value: object) -> frozenset[str]:
    if not isinstance(value, list):
        raise ConfigError(key, "must be a list of pairs like BTC-USD")
    pairs: set[str] = set()
    for index, item in enumerate(value):
        if not isinstance(item, str) or isinstance(item, _TomlFloat):
            raise ConfigError(f"{key}[{index}]", "must be a pair like BTC-USD")
        pairs.add(item.strip(" \t").upper())
    return frozenset(pairs)


_OPTION_MONEY = frozenset({"max_premium_usd", "max_daily_premium_usd", "max_loss_usd"})
_OPTION_SWITCHES = frozenset({"undefined_risk", "split_daily_budget"})


def _options(body: Mapping[str, Any]) -> OptionsPolicy:
    """``[options]`` (its keys already checked against ``OPTIONS_KEYS``)."""
    values: dict[str, Any] = {}
    for key, value in body.items():
        dotted = f"options.{key}"
        if key == "underlyings":
            values[key] = _symbol_list(dotted, value, wildcard=False)
        elif key == "strategies":
            values[key] = _enum_set(dotted, value, Strategy)
        elif key in _OPTION_MONEY:
            values[key] = _decimal(dotted, value)
        elif key in _OPTION_SWITCHES:
            values[key] = _boolean(dotted, value)
        else:
            values[key] = _integer(dotted, value)
    return OptionsPolicy(**values)


def _refuse_float(key: str, value: object) -> None:
    if isinstance(value, _TomlFloat):
        raise ConfigError(key, 'a float is not allowed: write the amount as a string ("12.50")')


def _decimal(key: str, value: object) -> Decimal:
    """Parse only; ``PolicyConfig`` checks the range (and names the key) on construction."""
    _refuse_float(key, value)
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ConfigError(key, "must be a decimal string or an integer")
    try:
        parsed = Decimal(value.strip() if isinstance(value, str) else value)
    except InvalidOperation:
        raise ConfigError(key, "not a decimal number") from None
    if not parsed.is_finite():
        raise ConfigError(key, "must be a finite number")
    return parsed


def _integer(key: str, value: object) -> int:
    _refuse_float(key, value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, "must be an integer")
    return value


def _boolean(key: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(key, "must be true or false")
    return value


def _enum(key: str, value: object, kind: type[_E]) -> _E:
    if not isinstance(value, str) or isinstance(value, _TomlFloat):
        raise ConfigError(key, f"must be one of {', '.join(kind)}")
    try:
        return kind(value.strip().lower())
    except ValueError:
        raise ConfigError(key, f"must be one of {', '.join(kind)}") from None


def _enum_set(key: str, value: object, kind: type[_E]) -> frozenset[_E]:
    if not isinstance(value, list):
        raise ConfigError(key, "must be a list")
    return frozenset(_enum(f"{key}[{index}]", item, kind) for index, item in enumerate(value))


def _symbol_list(key: str, value: object, *, wildcard: bool) -> frozenset[str]:
    if not isinstance(value, list):
        raise ConfigError(key, "must be a list of ticker symbols")
    symbols: set[str] = set()
    for index, item in enumerate(value):
        item_key = f"{key}[{index}]"
        if not isinstance(item, str) or isinstance(item, _TomlFloat):
            raise ConfigError(item_key, "must be a ticker symbol string")
        # The owner typed this list: spaces and tabs around an entry are trimmed (a trimmed
        # entry names only the ticker it shows); a proposal's symbol never is.
        entry = item.strip(" \t")
        if wildcard and entry == ALL_SYMBOLS:
            symbols.add(ALL_SYMBOLS)
            continue
        symbol = normalise_symbol(entry)
        if symbol is None:
            raise ConfigError(item_key, "not a plain ticker (ASCII letters, digits, one '.')")
        symbols.add(symbol)
    return frozenset(symbols)


def _approval(value: object) -> Approval:
    reason = 'must be "always", "never" or "above:<usd>"'
    if not isinstance(value, str) or isinstance(value, _TomlFloat):
        raise ConfigError("approval", reason)
    text = value.strip().lower()
    if text in (ApprovalKind.ALWAYS, ApprovalKind.NEVER):
        return Approval(ApprovalKind(text))
    prefix, separator, amount = text.partition(":")
    if prefix != ApprovalKind.ABOVE or not separator:
        raise ConfigError("approval", reason)
    threshold = _decimal("approval", amount)
    if threshold <= 0:
        raise ConfigError("approval", "the amount after above: must be positive")
    return Approval(ApprovalKind.ABOVE, threshold)
