"""``get_equity_technical_indicators``: which parameters each indicator takes, and the series.

Types and their parameters (defaults in brackets); a parameter the type does not use is
refused rather than ignored:

- ``sma``, ``ema``: ``period`` [20]
- ``rsi``: ``period`` [14]
- ``macd``: ``fast_period`` [12], ``slow_period`` [26], ``signal_period`` [9]
- ``bbands``: ``period`` [20], ``num_std`` [2]
- ``atr``: ``period`` [14]
- ``keltner``: ``period`` [20], ``multiplier`` [2]

``method`` is the price each bar contributes (``close`` [default], ``open``, ``high``, ``low``,
``hl2``, ``hlc3``, ``ohlc4``); ``output`` is ``series`` [default] or ``latest``. The series is
computed with enough bars before ``start_time`` for the indicator to settle, then cut to
``[start_time, end_time]``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import TYPE_CHECKING, Any

from ordergate.core import DecimalFieldError, parse_decimal, to_wire
from ordergate.sandbox.market import Bar
from ordergate.sandbox.tools import _market_view as mv
from ordergate.sandbox.tools._indicators import Series, bollinger, ema, macd, rsi, sma
from ordergate.sandbox.tools._prose_rules import choice, invalid, iso_instant
from ordergate.sandbox.tools._wire_format import iso

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = ["TYPES", "technical_indicators"]

_INTEGERS = ("period", "fast_period", "slow_period", "signal_period")
_NUMBERS = ("num_std", "multiplier")
TYPES: dict[str, dict[str, int | str]] = {
    "sma": {"period": 20},
    "ema": {"period": 20},
    "rsi": {"period": 14},
    "macd": {"fast_period": 12, "slow_period": 26, "signal_period": 9},
    "bbands": {"period": 20, "num_std": "2"},
    "atr": {"period": 14},
    "keltner": {"period": 20, "multiplier": "2"},
}
_METHODS: dict[str, Callable[[Bar], Decimal]] = {
    "close": lambda b: b.close_price,
    "open": lambda b: b.open_price,
    "high": lambda b: b.high_price,
    "low": lambda b: b.low_price,
    "hl2": lambda b: (b.high_price + b.low_price) / 2,
    "hlc3": lambda b: (b.high_price + b.low_price + b.close_price) / 3,
    "ohlc4": lambda b: (b.open_price + b.high_price + b.low_price + b.close_price) / 4,
}
_OUTPUTS = ("series", "latest")
_ADJUSTMENTS = ("split", "dividend", "none")
_BOUNDS = ("regular", "extended", "trading", "24_5", "24_7")
# Calendar time that surely holds one bar of each interval, for the warm-up fetch (regular
# hours hold only 6.5 of every 24 hours, five days in seven).
_SPAN = {
    "15second": timedelta(seconds=15 * 6),
    "5minute": timedelta(minutes=5 * 6),
    "10minute": timedelta(minutes=10 * 6),
    "hour": timedelta(hours=6),
    "day": timedelta(days=2),
    "week": timedelta(weeks=1),
    "month": timedelta(days=31),
    "3month": timedelta(days=92),
    "year": timedelta(days=366),
}
_MAX_POINTS = 2000
_PLACES = Decimal("0.0001")


def _parameters(indicator: str, args: dict[str, Any]) -> dict[str, int | Decimal]:
    defaults = TYPES[indicator]
    chosen: dict[str, int | Decimal] = {}
    for name in (*_INTEGERS, *_NUMBERS):
        given = args.get(name)
        if given is not None and name not in defaults:
            raise invalid(name, f"{indicator} does not take {name}")
        if name not in defaults:
            continue
        if name in _INTEGERS:
            value = int(defaults[name] if given is None else given)
            if not 2 <= value <= 500:
                raise invalid(name, f"{name} must be between 2 and 500")
            chosen[name] = value
        else:
            try:
                number = parse_decimal(name, defaults[name] if given is None else given)
            except DecimalFieldError:
                number = None
            if number is None or not Decimal("0.1") <= number <= Decimal(10):
                raise invalid(name, f"{name} must be between 0.1 and 10")
            chosen[name] = number
    if indicator == "macd" and chosen["fast_period"] >= chosen["slow_period"]:
        raise invalid("fast_period", "fast_period must be less than slow_period")
    return chosen


def _true_ranges(bars: list[Bar]) -> list[Decimal]:
    ranges: list[Decimal] = []
    for i, bar in enumerate(bars):
        spread = bar.high_price - bar.low_price
        if i:
            previous = bars[i - 1].close_price
            spread = max(spread, abs(bar.high_price - previous), abs(bar.low_price - previous))
        ranges.append(spread)
    return ranges


def _wilder(values: list[Decimal], period: int) -> Series:
    out: Series = [None] * len(values)
    if len(values) < period:
        return out
    current = sum(values[:period], Decimal(0)) / period
    out[period - 1] = current
    for i in range(period, len(values)):
        current = (current * (period - 1) + values[i]) / period
        out[i] = current
    return out


def _round(value: Decimal | None) -> str | None:
    return None if value is None else to_wire(value.quantize(_PLACES, rounding=ROUND_HALF_EVEN))


def _columns(
    indicator: str, bars: list[Bar], prices: list[Decimal], p: dict[str, Any]
) -> dict[str, Series]:
    if indicator == "sma":
        return {"value": sma(prices, p["period"])}
    if indicator == "ema":
        return {"value": ema(prices, p["period"])}
    if indicator == "rsi":
        return {"value": rsi(prices, p["period"])}
    if indicator == "macd":
        line, signal, histogram = macd(
            prices, p["fast_period"], p["slow_period"], p["signal_period"]
        )
        return {"macd": line, "signal": signal, "histogram": histogram}
    if indicator == "bbands":
        low_band, mid_band, high_band = bollinger(prices, p["period"], p["num_std"])
        return {"lower": low_band, "middle": mid_band, "upper": high_band}
    atr = _wilder(_true_ranges(bars), p["period"])
    if indicator == "atr":
        return {"value": atr}
    middle = ema(prices, p["period"])
    lower: Series = []
    upper: Series = []
    for centre, width in zip(middle, atr, strict=True):
        if centre is None or width is None:
            lower.append(None)
            upper.append(None)
        else:
            lower.append(centre - p["multiplier"] * width)
            upper.append(centre + p["multiplier"] * width)
    return {"lower": lower, "middle": middle, "upper": upper}


def _warm_up(indicator: str, p: dict[str, int | Decimal]) -> int:
    longest = max(int(v) for k, v in p.items() if k in _INTEGERS)
    if indicator == "macd":
        longest = int(p["slow_period"]) + int(p["signal_period"])
    # Exponential and Wilder smoothing need several periods to forget their seed.
    return longest * (4 if indicator in ("ema", "rsi", "macd", "atr", "keltner") else 1)


def technical_indicators(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    listed = mv.require_equity(venue, args["symbol"])
    indicator = choice(args, "type", TYPES)
    if indicator is None:
        raise invalid("type", f"type must be one of: {', '.join(TYPES)}")
    interval = str(args["interval"]).strip().lower()
    if interval not in _SPAN:
        raise invalid("interval", f"interval must be one of: {', '.join(_SPAN)}")
    bounds = choice(args, "bounds", _BOUNDS, default="regular") or "regular"
    method = choice(args, "method", _METHODS, default="close") or "close"
    output = choice(args, "output", _OUTPUTS, default="series") or "series"
    adjustment = choice(args, "adjustment_type", _ADJUSTMENTS, default="split") or "split"
    start = iso_instant(args, "start_time")
    if start is None:
        raise invalid("start_time", "start_time is required")
    end = iso_instant(args, "end_time")
    now = venue.now()
    if start >= (end or now):
        raise invalid("start_time", "start_time must be before end_time and before now")
    parameters = _parameters(indicator, args)
    lead = _SPAN[interval] * _warm_up(indicator, parameters)
    bars = mv.bars(venue, listed.symbol, start - lead, end, interval, bounds)
    prices = [_METHODS[method](bar) for bar in bars]
    columns = _columns(indicator, bars, prices, parameters)
    points: list[dict[str, Any]] = []
    for i, bar in enumerate(bars):
        if bar.begins_at < start:
            continue
        point: dict[str, Any] = {"begins_at": iso(bar.begins_at)}
        point.update({name: _round(series[i]) for name, series in columns.items()})
        points.append(point)
    points = points[-_MAX_POINTS:]
    if output == "latest":
        points = points[-1:]
    return {
        "symbol": listed.symbol,
        "instrument_id": listed.instrument_id,
        "type": indicator,
        "interval": interval,
        "bounds": bounds,
        "method": method,
        "adjustment_type": adjustment,
        "parameters": {
            name: value if isinstance(value, int) else to_wire(value)
            for name, value in parameters.items()
        },
        "start_time": iso(start),
        "end_time": iso(end or now),
        "output": output,
        "values": points,
    }
