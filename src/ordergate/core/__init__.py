"""Core types shared by every ordergate package: wire enums, Decimal rules, errors, clocks,
secrets and their redaction from logs."""

from ordergate.core._clock import (
    AcceleratedClock,
    Clock,
    ClockMode,
    RealtimeClock,
    SteppedClock,
    make_clock,
    utc,
)
from ordergate.core._enums import (
    Bounds,
    CryptoOrderState,
    CryptoOrderType,
    CryptoTimeInForce,
    Interval,
    MarketHours,
    OptionDirection,
    OptionPositionEffect,
    OrderState,
    OrderType,
    PlacedAgent,
    Side,
    TimeInForce,
)
from ordergate.core._errors import ConfigError, DecimalFieldError, OrdergateError, ToolError
from ordergate.core._money import ZERO, optional_decimal, parse_decimal, required_decimal, to_wire
from ordergate.core._redact import RedactingFilter, install_redaction, redact, register_secret
from ordergate.core._secret import MIN_KEY_SECRET_LENGTH, Secret

__all__ = [
    "MIN_KEY_SECRET_LENGTH",
    "ZERO",
    "AcceleratedClock",
    "Bounds",
    "Clock",
    "ClockMode",
    "ConfigError",
    "CryptoOrderState",
    "CryptoOrderType",
    "CryptoTimeInForce",
    "DecimalFieldError",
    "Interval",
    "MarketHours",
    "OptionDirection",
    "OptionPositionEffect",
    "OrderState",
    "OrderType",
    "OrdergateError",
    "PlacedAgent",
    "RealtimeClock",
    "RedactingFilter",
    "Secret",
    "Side",
    "SteppedClock",
    "TimeInForce",
    "ToolError",
    "install_redaction",
    "make_clock",
    "optional_decimal",
    "parse_decimal",
    "redact",
    "register_secret",
    "required_decimal",
    "to_wire",
    "utc",
]
