"""The console's positions and equity: the account as the guard reads it (paper book or
broker), and an equity curve with its drawdown against the high-water mark, drawn on the
server as SVG (no script, no chart library).

The curve is the account's stored equity marks (``ordergate.ledger.EquityMarks``: written
where the guard reads equity for an order and by the gateway's periodic pass, so it outlives
a restart), the last 90 days of them thinned to at most 500, then the equity read for this
page as its newest point (not stored). The high-water mark is the breaker's, on the ledger,
when it has one, else the highest point. Money stays Decimal; only the drawing's coordinates
are floats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from html import escape
from typing import Any

from ordergate.core import to_wire
from ordergate.ledger import EquityMark
from ordergate.store import iso

__all__ = ["Sample", "curve", "drawdown", "equity_svg"]

_W, _H, _PAD = 600, 200, 10


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
    """An SVG of the equity samples, and the high-water mark as a dashed line; ``said``
    describes the samples (the SVG's ``desc``)."""
    values = [s.equity for s in series] + ([mark] if mark is not None else [])
    if not series:
        return (
            f'<svg class="chart" viewBox="0 0 {_W} {_H}" role="img" aria-label="no equity yet">'
            f'<text x="{_PAD}" y="{_H // 2}">No equity read yet.</text></svg>'
        )
    low, high = min(values), max(values)
    span = high - low or Decimal(1)

    def y(value: Decimal) -> float:
        return float(_H - _PAD - (value - low) / span * (_H - 2 * _PAD))

    step = (_W - 2 * _PAD) / max(len(series) - 1, 1)
    points = " ".join(f"{_PAD + i * step:.1f},{y(s.equity):.1f}" for i, s in enumerate(series))
    lines = [
        f'<svg class="chart" viewBox="0 0 {_W} {_H}" role="img" '
        f'aria-label="equity curve, {len(series)} samples">',
        f"<desc>{escape(said)}</desc>" if said else "",
        f'<polyline fill="none" stroke="#1d4ed8" stroke-width="2" points="{points}"/>',
    ]
    top = mark if mark is not None else high
    lines.append(
        f'<line x1="{_PAD}" x2="{_W - _PAD}" y1="{y(top):.1f}" y2="{y(top):.1f}" '
        'stroke="#b91c1c" stroke-dasharray="6 4"/>'
    )
    lines.append(
        f'<text x="{_PAD}" y="{max(y(top) - 4, 12):.1f}" font-size="12">high-water '
        f"${to_wire(top)}</text>"
    )
    lines.append("</svg>")
    return "".join(lines)
