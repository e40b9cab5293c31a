"""The console's positions and equity: the account as the guard reads it (paper book or
broker), and an equity curve with its drawdown against the high-water mark, drawn on the
server as SVG (no script, no chart library).

The curve is the account's stored equity marks (``ordergate.ledger.EquityMarks``: written
where the guard reads equity for an order and by the gateway's periodic pass, so it outlives
a restart), the last 90 days of them thinned to at most 500, then the equity read for this
page as its newest point (not stored). The marks are stamped in the record's time (wall
time, whatever a sandbox's market clock says) and the newest point is read on the same
clock, so the curve is drawn in one time, inside its axes. The high-water mark is the
breaker's, on the ledger, when it has one, else the highest point. Money stays Decimal; only
the drawing's coordinates are floats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from html import escape
from typing import Any

from ordergate.core import to_wire, usd
from ordergate.ledger import EquityMark
from ordergate.store import iso

__all__ = ["Sample", "account_view", "curve", "drawdown", "equity_svg"]

_W, _H, _PAD = 600, 200, 10
_LABEL = 18  # room above and below the curve for the range's labels


@dataclass(frozen=True, slots=True)
class Sample:
    at: datetime
    equity: Decimal


def curve(
    marks: Sequence[EquityMark], now: Decimal | None, at: datetime
) -> tuple[list[Sample], str]:
    """The points to draw (the stored marks, then the equity ``now`` read at ``at``) and
    what they are, in words (the SVG's description)."""
    series = [Sample(mark.at, mark.equity) for mark in marks]
    said = (
        f"{len(marks)} stored marks from {iso(marks[0].at)} to {iso(marks[-1].at)}"
        if marks
        else "no stored marks"
    )
    if now is not None:
        series.append(Sample(at, now))
        said += ", and the equity now"
    return series, said


def drawdown(series: list[Sample], mark: Decimal | None) -> dict[str, Any]:
    """The high-water mark (the ledger's, else the highest sample), the latest equity, and
    the drawdown from the one to the other in basis points."""
    if not series:
        return {"high_water_mark": to_wire(mark) if mark else None, "drawdown_bps": None}
    high = max([s.equity for s in series] + ([mark] if mark is not None else []))
    latest = series[-1].equity
    bps = ((high - latest) / high * 10_000).quantize(Decimal(1)) if high > 0 else Decimal(0)
    return {"high_water_mark": to_wire(high), "drawdown_bps": int(bps)}


def equity_svg(series: list[Sample], mark: Decimal | None, *, said: str = "") -> str:
    """An SVG of the equity samples over time (x is the time of each sample, so marks an
    irregular interval apart are drawn where they fall), the high-water mark as a dashed line,
    and the range it spans in words: the lowest and highest value at the left, the first and
    last instant below; ``said`` describes the samples (the SVG's ``desc``)."""
    # In time order, so the axis runs from the earliest sample to the latest and every
    # point falls inside it.
    series = sorted(series, key=lambda sample: sample.at)
    values = [s.equity for s in series] + ([mark] if mark is not None else [])
    if not series:
        return (
            f'<svg class="chart" viewBox="0 0 {_W} {_H}" role="img" aria-label="no equity yet">'
            f'<text x="{_PAD}" y="{_H // 2}">No equity read yet.</text></svg>'
        )
    low, high = min(values), max(values)
    span = high - low
    top_y, bottom_y = _PAD + _LABEL, _H - _PAD - _LABEL

    def y(value: Decimal) -> float:
        if not span:  # one value: a level line across the middle
            return (top_y + bottom_y) / 2
        return float(bottom_y - (value - low) / span * (bottom_y - top_y))

    first, last = series[0].at, series[-1].at
    elapsed = (last - first).total_seconds()

    def x(at: datetime, index: int) -> float:
        if elapsed <= 0:  # every sample at one instant: spread them by order
            return _PAD + index * (_W - 2 * _PAD) / max(len(series) - 1, 1)
        return _PAD + (at - first).total_seconds() / elapsed * (_W - 2 * _PAD)

    points = " ".join(f"{x(s.at, i):.1f},{y(s.equity):.1f}" for i, s in enumerate(series))
    top = mark if mark is not None else high
    lines = [
        f'<svg class="chart" viewBox="0 0 {_W} {_H}" role="img" '
        f'aria-label="equity curve, {len(series)} samples">',
        f"<desc>{escape(said)}</desc>" if said else "",
        f'<polyline fill="none" stroke="#1d4ed8" stroke-width="2" points="{points}"/>',
        # The newest sample as a dot: a lone sample draws no line.
        f'<circle cx="{x(last, len(series) - 1):.1f}" cy="{y(series[-1].equity):.1f}" r="3" '
        'fill="#1d4ed8"/>',
        f'<line x1="{_PAD}" x2="{_W - _PAD}" y1="{y(top):.1f}" y2="{y(top):.1f}" '
        'stroke="#b91c1c" stroke-dasharray="6 4"/>',
        f'<text x="{_W - _PAD}" y="{max(y(top) - 4, 12):.1f}" font-size="12" '
        f'text-anchor="end" fill="#b91c1c">high-water {escape(usd(top))}</text>',
        f'<text x="{_PAD}" y="{_PAD + 10}" font-size="11" fill="#555">{escape(usd(high))}</text>',
    ]
    if span:
        lines.append(
            f'<text x="{_PAD}" y="{bottom_y + 13}" font-size="11" fill="#555">'
            f"{escape(usd(low))}</text>"
        )
    lines.append(f'<text x="{_PAD}" y="{_H - 2}" font-size="11" fill="#555">{_when(first)}</text>')
    if last != first:
        lines.append(
            f'<text x="{_W - _PAD}" y="{_H - 2}" font-size="11" fill="#555" '
            f'text-anchor="end">{_when(last)}</text>'
        )
    lines.append("</svg>")
    return "".join(lines)


def account_view(read: dict[str, Any] | None) -> dict[str, Any]:
    """What the positions page shows of an account read (``console._budget.AccountRead``):
    the account (its equity on the wire), the equity curve as SVG and the drawdown."""
    chart, fall = "", {}
    if read is not None:
        series, said = curve(read.pop("curve"), read["equity"], read.pop("at"))
        if read["equity"] is not None:
            read["equity"] = to_wire(read["equity"])
        chart = equity_svg(series, read["high_water_mark"], said=said)
        fall = drawdown(series, read["high_water_mark"])
    return {"account": read, "chart": chart, "drawdown": fall}


def _when(at: datetime) -> str:
    return escape(at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC"))
