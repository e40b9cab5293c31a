"""Technical indicators over a series of closes, in Decimal arithmetic.

Each function returns a list as long as its input, ``None`` where the indicator is not yet
defined (its warm-up), so values line up with the bars they belong to. Conventions follow
the usual charting defaults: EMA seeded with the SMA of its first window, RSI with Wilder's
smoothing, MACD as EMA(fast) − EMA(slow) with an EMA signal line, Bollinger bands as SMA ±
k population standard deviations.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

__all__ = ["bollinger", "ema", "macd", "rsi", "sma"]

Series = list[Decimal | None]
_ZERO = Decimal(0)
_HUNDRED = Decimal(100)


def sma(values: Sequence[Decimal], period: int) -> Series:
    out: Series = [None] * len(values)
    running = _ZERO
    for i, value in enumerate(values):
        running += value
        if i >= period:
            running -= values[i - period]
        if i >= period - 1:
            out[i] = running / period
    return out


def ema(values: Sequence[Decimal], period: int) -> Series:
    out: Series = [None] * len(values)
    if len(values) < period:
        return out
    alpha = Decimal(2) / (period + 1)
    current = sum(values[:period], _ZERO) / period
    out[period - 1] = current
    for i in range(period, len(values)):
        current = alpha * values[i] + (1 - alpha) * current
        out[i] = current
    return out


def _ema_of_defined(values: Series, period: int) -> Series:
    """EMA over the defined tail of a series that starts with ``None`` warm-up values."""
    start = next((i for i, v in enumerate(values) if v is not None), len(values))
    tail = [v for v in values[start:] if v is not None]
    return [None] * start + ema(tail, period)


def rsi(values: Sequence[Decimal], period: int) -> Series:
    out: Series = [None] * len(values)
    if len(values) <= period:
        return out
    gains = _ZERO
    losses = _ZERO
    for i in range(1, period + 1):
        move = values[i] - values[i - 1]
        gains += max(move, _ZERO)
        losses += max(-move, _ZERO)
    average_gain = gains / period
    average_loss = losses / period
    for i in range(period, len(values)):
        if i > period:
            move = values[i] - values[i - 1]
            average_gain = (average_gain * (period - 1) + max(move, _ZERO)) / period
            average_loss = (average_loss * (period - 1) + max(-move, _ZERO)) / period
        if average_loss == 0:
            out[i] = _HUNDRED if average_gain > 0 else Decimal(50)
        else:
            out[i] = _HUNDRED - _HUNDRED / (1 + average_gain / average_loss)
    return out


def macd(
    values: Sequence[Decimal], fast: int, slow: int, signal: int
) -> tuple[Series, Series, Series]:
    """(MACD line, signal line, histogram)."""
    fast_line = ema(values, fast)
    slow_line = ema(values, slow)
    line: Series = [
        None if f is None or s is None else f - s for f, s in zip(fast_line, slow_line, strict=True)
    ]
    signal_line = _ema_of_defined(line, signal)
    histogram: Series = [
        None if m is None or s is None else m - s for m, s in zip(line, signal_line, strict=True)
    ]
    return line, signal_line, histogram


def bollinger(values: Sequence[Decimal], period: int, k: Decimal) -> tuple[Series, Series, Series]:
    """(lower band, middle band, upper band)."""
    middle = sma(values, period)
    lower: Series = [None] * len(values)
    upper: Series = [None] * len(values)
    for i, mean in enumerate(middle):
        if mean is None:
            continue
        window = values[i - period + 1 : i + 1]
        variance = sum(((v - mean) ** 2 for v in window), _ZERO) / period
        spread = k * variance.sqrt()
        lower[i] = mean - spread
        upper[i] = mean + spread
    return lower, middle, upper
