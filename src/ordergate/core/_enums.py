"""Robinhood's wire vocabulary as ``StrEnum``s: each value is exactly the string on the wire."""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "Bounds",
    "CryptoOrderState",
    "CryptoOrderType",
    "CryptoTimeInForce",
    "Interval",
    "MarketHours",
    "OptionDirection",
    "OptionPositionEffect",
    "OptionType",
    "OrderState",
    "OrderType",
    "PlacedAgent",
    "Side",
    "TimeInForce",
]


class Side(StrEnum):
    BUY = "buy"
    SELL = "sell"


class OrderType(StrEnum):
    """Equity order types accepted by ``review_equity_order`` / ``place_equity_order``."""

    MARKET = "market"
    LIMIT = "limit"
    STOP_MARKET = "stop_market"
    STOP_LIMIT = "stop_limit"

    @property
    def needs_limit_price(self) -> bool:
        return self in (OrderType.LIMIT, OrderType.STOP_LIMIT)

    @property
    def needs_stop_price(self) -> bool:
        return self in (OrderType.STOP_MARKET, OrderType.STOP_LIMIT)

    @property
    def base_type(self) -> str:
        """The order resource's ``type``: ``limit`` when it carries a limit price, else
        ``market`` (a ``stop_limit`` reads back as a ``limit`` with a ``stop`` trigger)."""
        return "limit" if self.needs_limit_price else "market"

    @property
    def trigger(self) -> str:
        """The order resource's ``trigger``: ``stop`` when it waits for a stop price, else
        ``immediate``."""
        return "stop" if self.needs_stop_price else "immediate"


class TimeInForce(StrEnum):
    GFD = "gfd"
    GTC = "gtc"


class MarketHours(StrEnum):
    REGULAR_HOURS = "regular_hours"
    EXTENDED_HOURS = "extended_hours"
    ALL_DAY_HOURS = "all_day_hours"


class OrderState(StrEnum):
    """Equity and option order states (crypto spells the cancel state ``canceled``)."""

    NEW = "new"
    QUEUED = "queued"
    CONFIRMED = "confirmed"
    UNCONFIRMED = "unconfirmed"
    PARTIALLY_FILLED = "partially_filled"
    FILLED = "filled"
    CANCELLED = "cancelled"
    REJECTED = "rejected"
    FAILED = "failed"
    VOIDED = "voided"
    PENDING_CANCELLED = "pending_cancelled"
    PARTIALLY_FILLED_REST_CANCELLED = "partially_filled_rest_cancelled"

    @property
    def is_terminal(self) -> bool:
        return self in _TERMINAL


_TERMINAL = frozenset(
    {
        OrderState.FILLED,
        OrderState.CANCELLED,
        OrderState.REJECTED,
        OrderState.FAILED,
        OrderState.VOIDED,
        OrderState.PARTIALLY_FILLED_REST_CANCELLED,
    }
)


class PlacedAgent(StrEnum):
    USER = "user"
    AGENTIC = "agentic"
    RECURRING = "recurring"
    DRIP = "drip"


class OptionPositionEffect(StrEnum):
    OPEN = "open"
    CLOSE = "close"


class OptionDirection(StrEnum):
    DEBIT = "debit"
    CREDIT = "credit"


class OptionType(StrEnum):
    """A contract's kind: the right to buy (call) or to sell (put) the underlying."""

    CALL = "call"
    PUT = "put"


class CryptoOrderType(StrEnum):
    MARKET = "market"
    LIMIT = "limit"
    STOP_LOSS = "stop_loss"
    STOP_LIMIT = "stop_limit"


class CryptoTimeInForce(StrEnum):
    GTC = "gtc"
    GFD = "gfd"
    GFW = "gfw"
    GFM = "gfm"


class CryptoOrderState(StrEnum):
    NEW = "new"
    QUEUED = "queued"
    CONFIRMED = "confirmed"
    PARTIALLY_FILLED = "partially_filled"
    FILLED = "filled"
    CANCELED = "canceled"
    REJECTED = "rejected"
    FAILED = "failed"


class Interval(StrEnum):
    """The width of one historicals bar."""

    SECOND_15 = "15second"
    MINUTE_5 = "5minute"
    MINUTE_10 = "10minute"
    HOUR = "hour"
    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    MONTH_3 = "3month"
    YEAR = "year"
    YEAR_5 = "5year"
    YEAR_10 = "10year"
    YEAR_50 = "50year"


class Bounds(StrEnum):
    """Which sessions' bars a historicals answer holds."""

    REGULAR = "regular"
    EXTENDED = "extended"
    TRADING = "trading"
    H24_5 = "24_5"
    H24_7 = "24_7"
