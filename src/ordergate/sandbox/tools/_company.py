"""A listed company's generated books: profile, share count and quarterly results.

Every figure is drawn from the venue seed and the symbol, so two venues with the same seed
tell the same story, and every tool that mentions a number (fundamentals, financials,
earnings, filings, news) reads it from here, so they agree. The size of the business is
anchored to the listing's fixed ``base_price`` (never the moving quote), so history does not
shift with the tape; ratios that use the price (market cap, P/E, yield) use the live quote.

Quarters are calendar quarters; a quarter is *reported* once its earnings release time has
passed on the venue clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from functools import lru_cache

from ordergate.sandbox.tools._draws import Draws

__all__ = ["Company", "Quarter", "company", "quarter_index", "quarter_of"]

_CENT = Decimal("0.01")
_ETF = ("Exchange Traded Fund", "Exchange Traded Fund")
_SECTORS: dict[str, tuple[str, str]] = {
    "AAPL": ("Technology", "Consumer Electronics"),
    "MSFT": ("Technology", "Software - Infrastructure"),
    "NVDA": ("Technology", "Semiconductors"),
    "AMD": ("Technology", "Semiconductors"),
    "INTC": ("Technology", "Semiconductors"),
    "AVGO": ("Technology", "Semiconductors"),
    "ORCL": ("Technology", "Software - Infrastructure"),
    "PLTR": ("Technology", "Software - Infrastructure"),
    "CRM": ("Technology", "Software - Application"),
    "ADBE": ("Technology", "Software - Application"),
    "UBER": ("Technology", "Software - Application"),
    "CSCO": ("Technology", "Communication Equipment"),
    "AMZN": ("Consumer Cyclical", "Internet Retail"),
    "TSLA": ("Consumer Cyclical", "Auto Manufacturers"),
    "F": ("Consumer Cyclical", "Auto Manufacturers"),
    "HD": ("Consumer Cyclical", "Home Improvement Retail"),
    "NKE": ("Consumer Cyclical", "Footwear & Accessories"),
    "GOOGL": ("Communication Services", "Internet Content & Information"),
    "GOOG": ("Communication Services", "Internet Content & Information"),
    "META": ("Communication Services", "Internet Content & Information"),
    "SNAP": ("Communication Services", "Internet Content & Information"),
    "NFLX": ("Communication Services", "Entertainment"),
    "DIS": ("Communication Services", "Entertainment"),
    "T": ("Communication Services", "Telecom Services"),
    "BRK.A": ("Financial Services", "Insurance - Diversified"),
    "BRK.B": ("Financial Services", "Insurance - Diversified"),
    "JPM": ("Financial Services", "Banks - Diversified"),
    "BAC": ("Financial Services", "Banks - Diversified"),
    "SIVBQ": ("Financial Services", "Banks - Regional"),
    "V": ("Financial Services", "Credit Services"),
    "MA": ("Financial Services", "Credit Services"),
    "SOFI": ("Financial Services", "Credit Services"),
    "COIN": ("Financial Services", "Capital Markets"),
    "HOOD": ("Financial Services", "Capital Markets"),
    "UNH": ("Healthcare", "Healthcare Plans"),
    "JNJ": ("Healthcare", "Drug Manufacturers - General"),
    "PFE": ("Healthcare", "Drug Manufacturers - General"),
    "TLRY": ("Healthcare", "Drug Manufacturers - Specialty & Generic"),
    "XOM": ("Energy", "Oil & Gas Integrated"),
    "WMT": ("Consumer Defensive", "Discount Stores"),
    "COST": ("Consumer Defensive", "Discount Stores"),
    "PG": ("Consumer Defensive", "Household & Personal Products"),
    "KO": ("Consumer Defensive", "Beverages - Non-Alcoholic"),
    "PEP": ("Consumer Defensive", "Beverages - Non-Alcoholic"),
    "BA": ("Industrials", "Aerospace & Defense"),
}
_FALLBACK_SECTORS = (
    ("Technology", "Software - Application"),
    ("Industrials", "Specialty Industrial Machinery"),
    ("Consumer Cyclical", "Specialty Retail"),
    ("Healthcare", "Biotechnology"),
)
# The quarter the size of the business is anchored to (2026 Q2, as 4 * year + quarter - 1).
_ANCHOR_QUARTER = 4 * 2026 + 1


def quarter_index(year: int, quarter: int) -> int:
    return 4 * year + quarter - 1


def quarter_of(index: int) -> tuple[int, int]:
    """(year, quarter) of a quarter index."""
    return index // 4, index % 4 + 1


def _whole(value: Decimal) -> Decimal:
    return value.quantize(Decimal(1), rounding=ROUND_HALF_EVEN)


def _cents(value: Decimal) -> Decimal:
    return value.quantize(_CENT, rounding=ROUND_HALF_EVEN)


def _weekday_on_or_after(day: date) -> date:
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day


@dataclass(frozen=True, slots=True)
class Quarter:
    """One fiscal quarter's results and the release that announced them (amounts in USD)."""

    fiscal_year: int
    fiscal_quarter: int
    period_start: date
    period_end: date
    report_date: date
    report_timing: str
    revenue: Decimal
    cost_of_revenue: Decimal
    operating_expenses: Decimal
    net_income: Decimal
    diluted_shares: int
    total_assets: Decimal
    total_liabilities: Decimal
    cash_and_equivalents: Decimal
    operating_cash_flow: Decimal
    capital_expenditure: Decimal
    eps_estimate: Decimal
    revenue_estimate: Decimal

    @property
    def index(self) -> int:
        return quarter_index(self.fiscal_year, self.fiscal_quarter)

    @property
    def gross_profit(self) -> Decimal:
        return self.revenue - self.cost_of_revenue

    @property
    def operating_income(self) -> Decimal:
        return self.gross_profit - self.operating_expenses

    @property
    def shareholders_equity(self) -> Decimal:
        return self.total_assets - self.total_liabilities

    @property
    def free_cash_flow(self) -> Decimal:
        return self.operating_cash_flow - self.capital_expenditure

    @property
    def eps_diluted(self) -> Decimal:
        return _cents(self.net_income / self.diluted_shares)

    @property
    def reported_at(self) -> datetime:
        # Before the open is 07:00 ET, after the close 16:05 ET; both fixed in UTC (EDT).
        at = time(11, 0) if self.report_timing == "am" else time(20, 5)
        return datetime.combine(self.report_date, at, tzinfo=UTC)

    def reported_by(self, now: datetime) -> bool:
        return self.reported_at <= now


@dataclass(frozen=True, slots=True)
class Company:
    """A listed company's (or fund's) fixed traits, drawn once per seed and symbol."""

    seed: int
    symbol: str
    name: str
    simple_name: str
    is_etf: bool
    sector: str
    industry: str
    shares_outstanding: int
    float_shares: int
    num_employees: int
    cik: int
    report_lag_days: int
    report_timing: str
    price_to_sales: Decimal
    net_margin: Decimal
    gross_margin: Decimal
    growth_per_quarter: Decimal
    payout_ratio: Decimal
    base_price: Decimal

    @property
    def description(self) -> str:
        if self.is_etf:
            return f"{self.name} is an exchange-traded fund listed in the United States."
        return (
            f"{self.simple_name} is a {self.industry.lower()} company in the "
            f"{self.sector.lower()} sector, listed in the United States."
        )

    def quarter(self, index: int) -> Quarter:
        """The results of quarter ``index`` (whether or not reported yet)."""
        year, number = quarter_of(index)
        draws = Draws(self.seed, self.symbol, "quarter", index)
        annual_revenue = self.base_price * self.shares_outstanding / self.price_to_sales
        growth = (1 + self.growth_per_quarter) ** (index - _ANCHOR_QUARTER)
        revenue = _whole(annual_revenue / 4 * growth * draws.decimal("0.96", "1.04", 3))
        gross_margin = self.gross_margin + draws.decimal("-0.02", "0.02", 3)
        net_margin = self.net_margin + draws.decimal("-0.03", "0.03", 3)
        cost = _whole(revenue * (1 - gross_margin))
        net_income = _whole(revenue * net_margin)
        operating_income = _whole(net_income * draws.decimal("1.10", "1.30", 2))
        diluted = self.shares_outstanding + self.shares_outstanding // 100
        assets = _whole(revenue * 4 * draws.decimal("1.20", "1.40", 2))
        liabilities = _whole(assets * draws.decimal("0.40", "0.60", 2))
        cash = _whole(assets * draws.decimal("0.06", "0.20", 2))
        operating_cash = _whole(net_income * draws.decimal("1.05", "1.35", 2) + revenue / 20)
        capex = _whole(revenue * draws.decimal("0.03", "0.09", 2))
        start = date(year, 3 * number - 2, 1)
        following = date(year + 1, 1, 1) if number == 4 else date(year, 3 * number + 1, 1)
        end = following - timedelta(days=1)
        # Annual reports take longer to close than the quarterly ones.
        lag = self.report_lag_days + (14 if number == 4 else 0)
        estimate_miss = draws.decimal("-0.08", "0.06", 3)
        eps = _cents(net_income / diluted)
        return Quarter(
            fiscal_year=year,
            fiscal_quarter=number,
            period_start=start,
            period_end=end,
            report_date=_weekday_on_or_after(end + timedelta(days=lag)),
            report_timing=self.report_timing,
            revenue=revenue,
            cost_of_revenue=cost,
            operating_expenses=revenue - cost - operating_income,
            net_income=net_income,
            diluted_shares=diluted,
            total_assets=assets,
            total_liabilities=liabilities,
            cash_and_equivalents=cash,
            operating_cash_flow=operating_cash,
            capital_expenditure=capex,
            eps_estimate=_cents(eps * (1 - estimate_miss)),
            revenue_estimate=_whole(revenue * (1 - estimate_miss / 3)),
        )

    def last_reported(self, now: datetime) -> Quarter:
        """The most recent quarter whose results were out by ``now``."""
        index = quarter_index(now.year, (now.month - 1) // 3 + 1)
        while not self.quarter(index).reported_by(now):
            index -= 1
        return self.quarter(index)

    def reported(self, now: datetime, count: int) -> list[Quarter]:
        """The ``count`` latest reported quarters, newest first."""
        last = self.last_reported(now).index
        return [self.quarter(last - back) for back in range(count)]

    def next_report(self, now: datetime) -> Quarter:
        """The first quarter not yet reported by ``now``."""
        return self.quarter(self.last_reported(now).index + 1)

    def ttm_eps(self, now: datetime) -> Decimal:
        return sum((q.eps_diluted for q in self.reported(now, 4)), Decimal(0))

    def annual_dividend(self, now: datetime) -> Decimal:
        """Dividends per share over the last year (zero for non-payers and loss makers)."""
        eps = self.ttm_eps(now)
        return _cents(eps * self.payout_ratio) if eps > 0 else Decimal("0.00")


@lru_cache(maxsize=512)
def company(
    seed: int,
    symbol: str,
    name: str,
    simple_name: str,
    is_etf: bool,
    base_price: Decimal,
    average_volume: int,
) -> Company:
    """The generated company behind a listing (cached: it is a pure function of its inputs)."""
    draws = Draws(seed, symbol, "company")
    sector, industry = _ETF if is_etf else _SECTORS.get(symbol) or draws.pick(_FALLBACK_SECTORS)
    # Shares outstanding track how much trades: large US companies turn over roughly a
    # 60th to a 300th of their shares a day (funds far more), which keeps market caps in
    # proportion to the listing whatever its share price.
    turnover = draws.integer(8, 40) if is_etf else draws.integer(60, 300)
    shares = max(average_volume, 100_000) * turnover // 1000 * 1000
    pays = draws.chance(55)
    return Company(
        seed=seed,
        symbol=symbol,
        name=name,
        simple_name=simple_name,
        is_etf=is_etf,
        sector=sector,
        industry=industry,
        shares_outstanding=shares,
        float_shares=shares * draws.integer(80, 99) // 100,
        num_employees=draws.integer(2, 400) * 1_000,
        cik=1_000_000 + Draws(symbol, "cik").integer(0, 899_999),
        report_lag_days=draws.integer(21, 35),
        report_timing=draws.pick(("am", "pm")),
        price_to_sales=draws.decimal("1.5", "12", 1),
        net_margin=draws.decimal("-0.04", "0.30", 3),
        gross_margin=draws.decimal("0.30", "0.75", 2),
        growth_per_quarter=draws.decimal("-0.01", "0.05", 3),
        payout_ratio=draws.decimal("0.15", "0.55", 2) if pays else Decimal(0),
        base_price=base_price,
    )
