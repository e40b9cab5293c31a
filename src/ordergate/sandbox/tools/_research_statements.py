"""Shaping the generated books into the financial statements and earnings rows tools return.

``get_financials``, ``get_earnings_results`` and ``get_earnings_calendar`` all build their
rows here from the same quarters (see ``_company``), so their figures agree.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ordergate.core import to_wire
from ordergate.sandbox.tools import _market_view as mv
from ordergate.sandbox.tools._company import Company, Quarter, quarter_index
from ordergate.sandbox.tools._wire_format import iso, money

if TYPE_CHECKING:
    from ordergate.sandbox.market import Equity
    from ordergate.sandbox.venue import Venue

__all__ = ["earnings_row", "session_figures", "statement", "statements"]


def session_figures(venue: Venue, listed: Equity, bounds: str) -> dict[str, Any]:
    """Today's open/high/low/volume and the 52-week and average-volume figures from bars."""
    year = mv.bars(venue, listed.symbol, venue.now() - timedelta(days=366), None, "day", bounds)
    if not year:
        return dict.fromkeys(("open", "high", "low", "volume", "high_52_weeks", "low_52_weeks"))
    today = year[-1]
    fortnight = year[-10:]
    return {
        "open": to_wire(today.open_price),
        "high": to_wire(today.high_price),
        "low": to_wire(today.low_price),
        "volume": str(today.volume),
        "average_volume_2_weeks": str(sum(b.volume for b in fortnight) // len(fortnight)),
        "high_52_weeks": to_wire(max(b.high_price for b in year)),
        "low_52_weeks": to_wire(min(b.low_price for b in year)),
    }


def statement(quarters: list[Quarter], period: str) -> dict[str, Any]:
    def total(attribute: str) -> Decimal:
        return sum((getattr(q, attribute) for q in quarters), Decimal(0))

    last = quarters[-1]
    first = quarters[0]
    return {
        "fiscal_year": last.fiscal_year,
        "fiscal_quarter": last.fiscal_quarter if period == "quarterly" else None,
        "period": period,
        "period_start": first.period_start.isoformat(),
        "period_end": last.period_end.isoformat(),
        "report_date": last.report_date.isoformat(),
        "currency": "USD",
        "income_statement": {
            "revenue": money(total("revenue")),
            "cost_of_revenue": money(total("cost_of_revenue")),
            "gross_profit": money(total("gross_profit")),
            "operating_expenses": money(total("operating_expenses")),
            "operating_income": money(total("operating_income")),
            "net_income": money(total("net_income")),
            "eps_diluted": money(total("eps_diluted")),
            "diluted_shares_outstanding": str(last.diluted_shares),
        },
        "balance_sheet": {
            "total_assets": money(last.total_assets),
            "total_liabilities": money(last.total_liabilities),
            "shareholders_equity": money(last.shareholders_equity),
            "cash_and_equivalents": money(last.cash_and_equivalents),
        },
        "cash_flow": {
            "operating_cash_flow": money(total("operating_cash_flow")),
            "capital_expenditure": money(total("capital_expenditure")),
            "free_cash_flow": money(total("free_cash_flow")),
        },
    }


def statements(venue: Venue, firm: Company, period: str, limit: int) -> list[dict[str, Any]]:
    if firm.is_etf:
        return []
    now = venue.now()
    if period == "quarterly":
        return [statement([q], period) for q in firm.reported(now, limit)]
    last = firm.last_reported(now)
    # Only whole fiscal years: the latest is the last one whose fourth quarter is out.
    year = last.fiscal_year if last.fiscal_quarter == 4 else last.fiscal_year - 1
    return [
        statement([firm.quarter(quarter_index(y, q)) for q in range(1, 5)], period)
        for y in range(year, year - limit, -1)
    ]


def earnings_row(venue: Venue, listed: Equity, quarter: Quarter) -> dict[str, Any]:
    out = quarter.reported_by(venue.now())
    return {
        "symbol": listed.symbol,
        "instrument_id": listed.instrument_id,
        "year": quarter.fiscal_year,
        "quarter": quarter.fiscal_quarter,
        "eps": {
            "estimate": to_wire(quarter.eps_estimate),
            "actual": to_wire(quarter.eps_diluted) if out else None,
        },
        "revenue": {
            "estimate": money(quarter.revenue_estimate),
            "actual": money(quarter.revenue) if out else None,
        },
        "report": {
            "date": quarter.report_date.isoformat(),
            "timing": quarter.report_timing,
            "verified": out,
        },
        "call": {
            "datetime": iso(quarter.reported_at + timedelta(minutes=50)),
            "broadcast_url": f"https://investors.example.com/{listed.symbol.lower()}/earnings-call",
        },
    }
