"""Core types shared by every ordergate package: wire enums, Decimal rules, the venue's wire
formats, errors, clocks, integer microsecond time, secrets and their redaction from logs, and
the files only their owner can use."""

from ordergate.core._clock import (
    AcceleratedClock,
    Clock,
    ClockMode,
    Clocks,
    MarketClock,
    RealtimeClock,
    SecurityClock,
    SteppedClock,
    make_clock,
    market_speed,
    utc,
)
from ordergate.core._display import usd
from ordergate.core._enums import (
    Bounds,
    CryptoOrderState,
    CryptoOrderType,
    CryptoTimeInForce,
    Interval,
    MarketHours,
    OptionDirection,
    OptionPositionEffect,
    OptionType,
    OrderState,
    OrderType,
    PlacedAgent,
    Side,
    TimeInForce,
)
from ordergate.core._errors import ConfigError, DecimalFieldError, OrdergateError, ToolError
from ordergate.core._inert import inert
from ordergate.core._invocation import command_hint
from ordergate.core._json import compact_json, decode_json, json_text
from ordergate.core._money import ZERO, optional_decimal, parse_decimal, required_decimal, to_wire
from ordergate.core._private import (
    create_private,
    ensure_private_dir,
    private_problem,
    tamper_problem,
    write_private,
)
from ordergate.core._redact import RedactingFilter, install_redaction, redact, register_secret
from ordergate.core._secret import MIN_KEY_SECRET_LENGTH, Secret
from ordergate.core._time import SECOND_US, from_us, to_us
from ordergate.core._wire import (
    wire_amount,
    wire_money,
    wire_or_none,
    wire_quantity,
    wire_time,
)

__all__ = [
    "MIN_KEY_SECRET_LENGTH",
    "SECOND_US",
    "ZERO",
    "AcceleratedClock",
    "Bounds",
    "Clock",
    "ClockMode",
    "Clocks",
    "ConfigError",
    "CryptoOrderState",
    "CryptoOrderType",
    "CryptoTimeInForce",
    "DecimalFieldError",
    "Interval",
    "MarketClock",
    "MarketHours",
    "OptionDirection",
    "OptionPositionEffect",
    "OptionType",
    "OrderState",
    "OrderType",
    "OrdergateError",
    "PlacedAgent",
    "RealtimeClock",
    "RedactingFilter",
    "Secret",
    "SecurityClock",
    "Side",
    "SteppedClock",
    "TimeInForce",
    "ToolError",
    "command_hint",
    "compact_json",
    "create_private",
    "decode_json",
    "ensure_private_dir",
    "from_us",
    "inert",
    "install_redaction",
    "json_text",
    "make_clock",
    "market_speed",
    "optional_decimal",
    "parse_decimal",
    "private_problem",
    "redact",
    "register_secret",
    "required_decimal",
    "tamper_problem",
    "to_us",
    "to_wire",
    "usd",
    "utc",
    "wire_amount",
    "wire_money",
    "wire_or_none",
    "wire_quantity",
    "wire_time",
    "write_private",
]
