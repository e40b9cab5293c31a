"""Reason codes: the stable vocabulary of every policy decision.

A code is part of the public contract: the ledger journals it, the gateway shows it to the
agent, tests assert on it. Values never change once released; new checks add new codes.

Missing data is a refusal too (fail closed): ``missing_data:<field>`` names the state or
terms field the check needed, e.g. ``missing_data:equity``. ``no_quote`` is the special case
of having no quote at all.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ReasonCode"]


class ReasonCode(StrEnum):
    # Operator and trading state
    PAUSED = "paused"
    HALTED = "halted"
    REDUCING_ONLY = "reducing_only"
    # The instrument
    SYMBOL_MALFORMED = "symbol_malformed"
    SYMBOL_DENIED = "symbol_denied"
    SYMBOL_NOT_ALLOWED = "symbol_not_allowed"
    NOT_TRADABLE = "not_tradable"
    # The order's shape
    ORDER_TYPE_NOT_ALLOWED = "order_type_not_allowed"
    SESSION_NOT_ALLOWED = "session_not_allowed"
    OUTSIDE_SESSION = "outside_session"
    FRACTIONAL_NOT_ALLOWED = "fractional_not_allowed"
    FRACTIONAL_MINIMUM = "fractional_minimum"
    SHORT_SELL = "short_sell"
    # Market quality
    NO_QUOTE = "no_quote"
    QUOTE_SYMBOL_MISMATCH = "quote_symbol_mismatch"
    STALE_QUOTE = "stale_quote"
    CROSSED_QUOTE = "crossed_quote"
    SPREAD_TOO_WIDE = "spread_too_wide"
    PRICE_COLLAR = "price_collar"
    SIZE_VS_ADV = "size_vs_adv"
    # Rate limits
    MAX_ORDERS_PER_DAY = "max_orders_per_day"
    MAX_OPEN_ORDERS = "max_open_orders"
    DUPLICATE_ORDER = "duplicate_order"
    ORDER_RATE = "order_rate"
    # Money
    INSUFFICIENT_BUYING_POWER = "insufficient_buying_power"
    MAX_ORDER_USD = "max_order_usd"
    MAX_DAILY_USD = "max_daily_usd"
    MAX_POSITION_PCT = "max_position_pct"
    MIN_CASH = "min_cash"
    MAX_POSITIONS = "max_positions"
    # Breakers and reconciliation
    DRAWDOWN_HALT = "drawdown_halt"
    DAILY_LOSS_HALT = "daily_loss_halt"
    COOLDOWN = "cooldown"
    UNKNOWN_BROKER_ORDERS = "unknown_broker_orders"
    # Crypto (``ordergate.policy.crypto``)
    CRYPTO_NOT_ENABLED = "crypto_not_enabled"
    CRYPTO_PAIR_NOT_ALLOWED = "crypto_pair_not_allowed"
    CRYPTO_MIN_ORDER_SIZE = "crypto_min_order_size"
    CRYPTO_INCREMENT = "crypto_increment"
    # Options (``ordergate.policy.options``)
    OPTIONS_NOT_ENABLED = "options_not_enabled"
    OPTION_UNDERLYING_NOT_ALLOWED = "option_underlying_not_allowed"
    OPTION_STRATEGY_NOT_ALLOWED = "option_strategy_not_allowed"
    OPTION_UNDEFINED_RISK = "option_undefined_risk"
    OPTION_CONTRACTS_OVER_CAP = "option_contracts_over_cap"
    OPTION_EXPIRY_OUTSIDE_WINDOW = "option_expiry_outside_window"
    OPTION_OPEN_TOO_LATE = "option_open_too_late"
    OPTION_PRICE_COLLAR = "option_price_collar"
    OPTION_PREMIUM_OVER_CAP = "option_premium_over_cap"
    OPTION_DAILY_PREMIUM_OVER_CAP = "option_daily_premium_over_cap"
    OPTION_MAX_LOSS_OVER_CAP = "option_max_loss_over_cap"
    # Missing data: the check could not run, so it refuses.
    MISSING_NOW = "missing_data:now"
    MISSING_PAUSED = "missing_data:paused"
    MISSING_TRADING_STATE = "missing_data:trading_state"
    MISSING_SESSION = "missing_data:session"
    MISSING_TRADABLE = "missing_data:tradable"
    MISSING_EQUITY = "missing_data:equity"
    MISSING_HIGH_WATER_MARK = "missing_data:high_water_mark"
    MISSING_SESSION_START_EQUITY = "missing_data:session_start_equity"
    MISSING_CASH = "missing_data:cash"
    MISSING_BUYING_POWER = "missing_data:buying_power"
    MISSING_POSITIONS = "missing_data:positions"
    MISSING_OPEN_ORDERS = "missing_data:open_orders"
    MISSING_UNKNOWN_BROKER_ORDERS = "missing_data:unknown_broker_orders"
    MISSING_SPENT_24H = "missing_data:spent_24h"
    MISSING_ORDERS_24H = "missing_data:orders_24h"
    MISSING_RECENT_ORDERS = "missing_data:recent_orders"
    MISSING_QUOTE_TIME = "missing_data:quote.as_of"
    MISSING_BID_ASK = "missing_data:quote.bid_ask"
    MISSING_QUOTE_PRICE = "missing_data:quote.price"
    MISSING_PRICE = "missing_data:terms.price"
    MISSING_NOTIONAL = "missing_data:terms.notional"
    MISSING_QUANTITY = "missing_data:terms.quantity"
    MISSING_ADV = "missing_data:average_daily_volume"
    MISSING_COOLDOWN = "missing_data:cooldown"
    MISSING_PAIR_RULES = "missing_data:pair_rules"
    MISSING_PREMIUM = "missing_data:terms.premium"
    MISSING_HOLDINGS = "missing_data:holdings"
    MISSING_PREMIUM_24H = "missing_data:premium_24h"

    @property
    def is_missing_data(self) -> bool:
        """True for the ``missing_data:<field>`` codes (and ``no_quote``)."""
        return self is ReasonCode.NO_QUOTE or self.value.startswith("missing_data:")
