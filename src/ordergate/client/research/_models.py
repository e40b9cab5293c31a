"""Response models of the research tools.

These tools were inventoried without an output schema, so the models follow what the sandbox
answers but keep every field optional except identifiers, and keep unknown keys. Amounts,
ratios and share counts follow the Decimal rules.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from pydantic import Field

from ordergate.client._decimals import DecimalText, OptionalMoney
from ordergate.client._errors import ResponseParseError
from ordergate.client._fields import NextCursor, NullableList, WireBool
from ordergate.client._models import WireModel
from ordergate.core import DecimalFieldError, parse_decimal

__all__ = [
    "AnalystRatings",
    "AnalystRatingsResults",
    "BalanceSheet",
    "CashFlow",
    "CatalogEntry",
    "CompanyFinancials",
    "Earnings",
    "EarningsCalendar",
    "EarningsCall",
    "EarningsFigure",
    "EarningsReport",
    "EarningsResults",
    "FactsCatalog",
    "FilingFacts",
    "FilingIndex",
    "FilingSection",
    "FilingSectionText",
    "FinancialStatement",
    "FinancialsResults",
    "Fundamentals",
    "FundamentalsResults",
    "IncomeStatement",
    "IndicatorPoint",
    "NewsArticle",
    "NewsPage",
    "PoliticianTrade",
    "PoliticianTrades",
    "PriceTarget",
    "RatingNote",
    "RatingSummary",
    "SecFiling",
    "SecFilingFacts",
    "SecFilingRecord",
    "TechnicalIndicators",
    "XbrlFact",
]


# -- get_equity_fundamentals -----------------------------------------------------------------


class Fundamentals(WireModel):
    symbol: str
    instrument_id: str | None = None
    open: OptionalMoney = None
    high: OptionalMoney = None
    low: OptionalMoney = None
    volume: OptionalMoney = None
    average_volume: OptionalMoney = None
    average_volume_2_weeks: OptionalMoney = None
    high_52_weeks: OptionalMoney = None
    low_52_weeks: OptionalMoney = None
    market_cap: OptionalMoney = None
    pe_ratio: OptionalMoney = None
    pb_ratio: OptionalMoney = None
    eps_ttm: OptionalMoney = None
    dividend_yield: OptionalMoney = None
    shares_outstanding: OptionalMoney = None
    float_shares: OptionalMoney = Field(None, alias="float")
    sector: str | None = None
    industry: str | None = None
    num_employees: int | None = None
    description: str | None = None
    bounds: str | None = None


class FundamentalsResults(WireModel):
    results: NullableList[Fundamentals] = Field(default_factory=list)
    not_found: NullableList[str] = Field(default_factory=list)


# -- get_financials --------------------------------------------------------------------------


class IncomeStatement(WireModel):
    revenue: OptionalMoney = None
    cost_of_revenue: OptionalMoney = None
    gross_profit: OptionalMoney = None
    operating_expenses: OptionalMoney = None
    operating_income: OptionalMoney = None
    net_income: OptionalMoney = None
    eps_diluted: OptionalMoney = None
    diluted_shares_outstanding: OptionalMoney = None


class BalanceSheet(WireModel):
    total_assets: OptionalMoney = None
    total_liabilities: OptionalMoney = None
    shareholders_equity: OptionalMoney = None
    cash_and_equivalents: OptionalMoney = None


class CashFlow(WireModel):
    operating_cash_flow: OptionalMoney = None
    capital_expenditure: OptionalMoney = None
    free_cash_flow: OptionalMoney = None


class FinancialStatement(WireModel):
    fiscal_year: int | None = None
    fiscal_quarter: int | None = None
    period: str | None = None
    period_start: dt.date | None = None
    period_end: dt.date | None = None
    report_date: dt.date | None = None
    currency: str | None = None
    income_statement: IncomeStatement | None = None
    balance_sheet: BalanceSheet | None = None
    cash_flow: CashFlow | None = None


class CompanyFinancials(WireModel):
    """Statements newest first (none for funds)."""

    symbol: str
    instrument_id: str | None = None
    statements: NullableList[FinancialStatement] = Field(default_factory=list)


class FinancialsResults(WireModel):
    results: NullableList[CompanyFinancials] = Field(default_factory=list)
    not_found: NullableList[str] = Field(default_factory=list)


# -- earnings --------------------------------------------------------------------------------


class EarningsFigure(WireModel):
    """An estimate and, once reported, the actual figure."""

    estimate: OptionalMoney = None
    actual: OptionalMoney = None


class EarningsReport(WireModel):
    date: dt.date | None = None
    timing: str | None = None
    verified: WireBool | None = None


class EarningsCall(WireModel):
    datetime: dt.datetime | None = None
    broadcast_url: str | None = None


class Earnings(WireModel):
    symbol: str
    instrument_id: str | None = None
    year: int | None = None
    quarter: int | None = None
    eps: EarningsFigure | None = None
    revenue: EarningsFigure | None = None
    report: EarningsReport | None = None
    call: EarningsCall | None = None


class EarningsCalendar(WireModel):
    start_date: dt.date | None = None
    end_date: dt.date | None = None
    filter: str | None = None
    earnings: NullableList[Earnings] = Field(default_factory=list)


class EarningsResults(WireModel):
    """Recent quarters newest first, and the next scheduled report."""

    symbol: str
    results: NullableList[Earnings] = Field(default_factory=list)
    next_report: Earnings | None = None


# -- news, ratings, politician trades --------------------------------------------------------


class NewsArticle(WireModel):
    id: str
    title: str | None = None
    source: str | None = None
    url: str | None = None
    published_at: dt.datetime | None = None
    summary: str | None = None
    related_symbols: NullableList[str] = Field(default_factory=list)
    category: str | None = None


class NewsPage(WireModel):
    """One page of news, newest first; ``next_cursor`` fetches the following page."""

    symbol: str | None = None
    results: NullableList[NewsArticle] = Field(default_factory=list)
    next_cursor: NextCursor = None

    @property
    def next(self) -> str | None:
        return self.next_cursor


class RatingSummary(WireModel):
    num_buy_ratings: int | None = None
    num_hold_ratings: int | None = None
    num_sell_ratings: int | None = None


class PriceTarget(WireModel):
    low: OptionalMoney = None
    mean: OptionalMoney = None
    high: OptionalMoney = None
    currency: str | None = None


class RatingNote(WireModel):
    id: str | None = None
    published_at: dt.datetime | None = None
    type: str | None = None
    text: str | None = None


class AnalystRatings(WireModel):
    symbol: str
    instrument_id: str | None = None
    summary: RatingSummary | None = None
    price_target: PriceTarget | None = None
    ratings: NullableList[RatingNote] = Field(default_factory=list)


class AnalystRatingsResults(WireModel):
    results: NullableList[AnalystRatings] = Field(default_factory=list)
    not_found: NullableList[str] = Field(default_factory=list)


class PoliticianTrade(WireModel):
    """A disclosed trade; amounts are disclosed as ranges (text)."""

    id: str
    politician_name: str | None = None
    chamber: str | None = None
    party: str | None = None
    state: str | None = None
    symbol: str | None = None
    instrument_id: str | None = None
    asset_name: str | None = None
    transaction_type: str | None = None
    amount_range: str | None = None
    owner: str | None = None
    transaction_date: dt.date | None = None
    disclosure_date: dt.date | None = None


class PoliticianTrades(WireModel):
    trades: NullableList[PoliticianTrade] = Field(default_factory=list)
    total: int | None = None


# -- get_equity_technical_indicators ---------------------------------------------------------


class IndicatorPoint(WireModel):
    """One bar's indicator values; which columns are set depends on the indicator type
    (``value``; ``macd``/``signal``/``histogram``; ``lower``/``middle``/``upper``). Values are
    ``None`` while the indicator warms up."""

    begins_at: dt.datetime | None = None
    value: OptionalMoney = None
    macd: OptionalMoney = None
    signal: OptionalMoney = None
    histogram: OptionalMoney = None
    lower: OptionalMoney = None
    middle: OptionalMoney = None
    upper: OptionalMoney = None


class TechnicalIndicators(WireModel):
    symbol: str
    instrument_id: str | None = None
    type: str | None = None
    interval: str | None = None
    bounds: str | None = None
    method: str | None = None
    adjustment_type: str | None = None
    parameters: dict[str, Any] = Field(default_factory=dict)
    start_time: dt.datetime | None = None
    end_time: dt.datetime | None = None
    output: str | None = None
    values: NullableList[IndicatorPoint] = Field(default_factory=list)


# -- SEC filings -----------------------------------------------------------------------------


class SecFilingRecord(WireModel):
    """One filing; ``filing_id`` (its accession number) opens it with ``sec_filing``."""

    filing_id: str
    accession_number: str | None = None
    symbol: str | None = None
    cik: str | None = None
    company_name: str | None = None
    form_type: str | None = None
    filed_at: dt.datetime | None = None
    period_of_report: dt.date | None = None
    description: str | None = None
    has_xbrl: WireBool | None = None
    sections: NullableList[str] = Field(default_factory=list)
    url: str | None = None


class FilingIndex(WireModel):
    """One page of a company's filings, newest first."""

    symbol: str | None = None
    filings: NullableList[SecFilingRecord] = Field(default_factory=list)
    next_cursor: NextCursor = None

    @property
    def next(self) -> str | None:
        return self.next_cursor


class FilingSection(WireModel):
    section: str
    title: str | None = None


class FilingSectionText(WireModel):
    section: str
    title: str | None = None
    text: str | None = None


class SecFiling(WireModel):
    filing: SecFilingRecord
    sections: NullableList[FilingSection] = Field(default_factory=list)
    section: FilingSectionText | None = None


class XbrlFact(WireModel):
    """One XBRL fact. ``value`` is text (a name, a form type or a number); facts with a
    ``unit`` are numbers, read with ``amount``."""

    concept: str
    label: str | None = None
    value: DecimalText | None = None
    unit: str | None = None
    period_start: dt.date | None = None
    period_end: dt.date | None = None
    dimensions: dict[str, str] = Field(default_factory=dict)

    @property
    def amount(self) -> Decimal | None:
        """The value as a Decimal for a fact with a unit (``None`` for text facts).

        Raises ``ResponseParseError`` naming ``value`` when a numeric fact is not a number.
        """
        if self.unit is None:
            return None
        try:
            return parse_decimal("value", self.value)
        except DecimalFieldError:
            raise ResponseParseError(
                f"value: {self.concept} is not a number",
                tool="get_sec_filing_facts",
                field="value",
            ) from None


class FilingFacts(WireModel):
    filing_id: str
    symbol: str | None = None
    form_type: str | None = None
    facts: NullableList[XbrlFact] = Field(default_factory=list)
    missing_concepts: NullableList[str] = Field(default_factory=list)


class SecFilingFacts(WireModel):
    results: NullableList[FilingFacts] = Field(default_factory=list)
    not_found: NullableList[str] = Field(default_factory=list)


class CatalogEntry(WireModel):
    concept: str
    label: str | None = None
    unit: str | None = None
    period_type: str | None = None
    axes: NullableList[str] = Field(default_factory=list)
    fact_count: int | None = None


class FactsCatalog(WireModel):
    """One page (from ``offset``) of the concepts a filing reports; ``next_offset`` is the
    offset of the following page, ``None`` on the last."""

    filing_id: str | None = None
    form_type: str | None = None
    concepts: NullableList[CatalogEntry] = Field(default_factory=list)
    total: int | None = None
    next_offset: int | None = None
