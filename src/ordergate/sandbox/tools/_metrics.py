"""The figures about one listing that several tools quote, computed in one place.

``get_equity_fundamentals``, the scanner and the curated watchlists all read these, so a
market cap or a P/E is the same number whichever tool reports it: market cap is the live
price times the shares outstanding, P/E the live price over the trailing four reported
quarters' diluted EPS, dividend yield the trailing dividends over the live price.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import TYPE_CHECKING

from ordergate.sandbox.tools import _market_view as mv

if TYPE_CHECKING:
    from ordergate.sandbox.market import Equity
    from ordergate.sandbox.venue import Venue

__all__ = ["Metrics", "metrics"]

_HUNDREDTH = Decimal("0.01")


def _two(value: Decimal) -> Decimal:
    return value.quantize(_HUNDREDTH, rounding=ROUND_HALF_EVEN)


@dataclass(frozen=True, slots=True)
class Metrics:
    symbol: str
    instrument_id: str
    name: str
    kind: str
    sector: str
    industry: str
    price: Decimal
    previous_close: Decimal
    change: Decimal
    percent_change: Decimal
    shares_outstanding: int
    market_cap: Decimal
    pe_ratio: Decimal | None
    pb_ratio: Decimal | None
    eps_ttm: Decimal | None
    dividend_yield: Decimal | None
    average_volume: int


def metrics(venue: Venue, listed: Equity) -> Metrics:
    quote = mv.equity_price(venue, listed)
    firm = mv.company_of(venue, listed)
    now = venue.now()
    price = quote.last
    market_cap = _two(price * firm.shares_outstanding)
    pe: Decimal | None = None
    pb: Decimal | None = None
    eps: Decimal | None = None
    dividend_yield: Decimal | None = None
    if not firm.is_etf:
        eps = firm.ttm_eps(now)
        pe = _two(price / eps) if eps > 0 else None
        equity_value = firm.last_reported(now).shareholders_equity
        pb = _two(market_cap / equity_value) if equity_value > 0 else None
        dividend_yield = _two(firm.annual_dividend(now) * 100 / price) if price > 0 else None
    return Metrics(
        symbol=listed.symbol,
        instrument_id=listed.instrument_id,
        name=listed.name,
        kind=str(listed.kind),
        sector=firm.sector,
        industry=firm.industry,
        price=price,
        previous_close=quote.previous_close,
        change=quote.change,
        percent_change=quote.percent_change,
        shares_outstanding=firm.shares_outstanding,
        market_cap=market_cap,
        pe_ratio=pe,
        pb_ratio=pb,
        eps_ttm=eps,
        dividend_yield=dividend_yield,
        average_volume=listed.average_volume,
    )
