"""The research tools: fundamentals, financials, earnings, news, analyst ratings, technical
indicators, politician trades and SEC filings."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import date, datetime
from decimal import Decimal

from ordergate.client._caller import Caller
from ordergate.client._fields import name_list
from ordergate.client._models import parse_model
from ordergate.client._pages import MAX_PAGES, walk_pages
from ordergate.client.market._enums import Bounds, Interval
from ordergate.client.research._models import (
    AnalystRatingsResults,
    EarningsCalendar,
    EarningsResults,
    FactsCatalog,
    FilingIndex,
    FinancialsResults,
    FundamentalsResults,
    NewsArticle,
    NewsPage,
    PoliticianTrades,
    SecFiling,
    SecFilingFacts,
    SecFilingRecord,
    TechnicalIndicators,
)
from ordergate.client.research._requests import (
    EarningsCalendarRequest,
    FactsCatalogRequest,
    FinancialsRequest,
    FundamentalsRequest,
    NewsRequest,
    PoliticianTradesRequest,
    SecFilingIndexRequest,
    SecFilingRequest,
    TechnicalIndicatorsRequest,
)

__all__ = ["ResearchClient"]

TOOL_FUNDAMENTALS = "get_equity_fundamentals"
TOOL_FINANCIALS = "get_financials"
TOOL_NEWS = "get_equity_news"
TOOL_EARNINGS_CALENDAR = "get_earnings_calendar"
TOOL_EARNINGS_RESULTS = "get_earnings_results"
TOOL_ANALYST_RATINGS = "get_equity_analyst_ratings"
TOOL_TECHNICAL_INDICATORS = "get_equity_technical_indicators"
TOOL_POLITICIAN_TRADES = "get_politician_trades"
TOOL_SEC_FILING_INDEX = "get_sec_filing_index"
TOOL_SEC_FILING = "get_sec_filing"
TOOL_SEC_FILING_FACTS = "get_sec_filing_facts"
TOOL_SEC_FILING_FACTS_CATALOG = "get_sec_filing_facts_catalog"


class ResearchClient:
    """Typed research tools. Every method raises a ``ToolError`` subclass on failure
    (``BusinessError`` for a venue refusal such as an unlisted symbol, ``ResponseParseError``
    for an unreadable answer) and ``pydantic.ValidationError`` (a ``ValueError``) naming the
    field for a bad request."""

    def __init__(self, caller: Caller) -> None:
        self._caller = caller

    async def fundamentals(
        self, symbols: Sequence[str], *, bounds: Bounds | str | None = None
    ) -> FundamentalsResults:
        """Price range, market cap, ratios and profile per symbol (``get_equity_fundamentals``)."""
        request = FundamentalsRequest.model_validate({"symbols": symbols, "bounds": bounds})
        data = await self._caller.call(TOOL_FUNDAMENTALS, request.arguments())
        return parse_model(FundamentalsResults, data, tool=TOOL_FUNDAMENTALS)

    async def financials(
        self, symbols: Sequence[str], *, period: str | None = None, limit: int | None = None
    ) -> FinancialsResults:
        """Income statement, balance sheet and cash flow, newest first (``get_financials``)."""
        request = FinancialsRequest.model_validate(
            {"symbols": symbols, "period": period, "limit": limit}
        )
        data = await self._caller.call(TOOL_FINANCIALS, request.arguments())
        return parse_model(FinancialsResults, data, tool=TOOL_FINANCIALS)

    async def news(
        self, symbol: str, *, limit: int | None = None, cursor: str | None = None
    ) -> NewsPage:
        """One page of news about ``symbol``, newest first (``get_equity_news``)."""
        request = NewsRequest.model_validate({"symbol": symbol, "limit": limit, "cursor": cursor})
        data = await self._caller.call(TOOL_NEWS, request.arguments())
        return parse_model(NewsPage, data, tool=TOOL_NEWS)

    async def iter_news(
        self, symbol: str, *, limit: int | None = None, max_pages: int = MAX_PAGES
    ) -> AsyncIterator[NewsArticle]:
        """Every article, page after page (bounded: see ``walk_pages``)."""

        async def fetch(cursor: str | None) -> NewsPage:
            return await self.news(symbol, limit=limit, cursor=cursor)

        async for page in walk_pages(fetch, tool=TOOL_NEWS, max_pages=max_pages):
            for article in page.results:
                yield article

    async def earnings_calendar(
        self, *, start_date: date | None = None, days: int | None = None, filter: str | None = None
    ) -> EarningsCalendar:
        """Earnings reports scheduled in a window of days (``get_earnings_calendar``)."""
        request = EarningsCalendarRequest.model_validate(
            {"start_date": start_date, "days": days, "filter": filter}
        )
        data = await self._caller.call(TOOL_EARNINGS_CALENDAR, request.arguments())
        return parse_model(EarningsCalendar, data, tool=TOOL_EARNINGS_CALENDAR)

    async def earnings_results(self, symbol: str) -> EarningsResults:
        """One company's recent reports and its next one (``get_earnings_results``)."""
        data = await self._caller.call(TOOL_EARNINGS_RESULTS, {"symbol": symbol})
        return parse_model(EarningsResults, data, tool=TOOL_EARNINGS_RESULTS)

    async def analyst_ratings(self, symbols: Sequence[str]) -> AnalystRatingsResults:
        """Rating counts, price targets and notes (``get_equity_analyst_ratings``)."""
        wanted = name_list("symbols", symbols)
        data = await self._caller.call(TOOL_ANALYST_RATINGS, {"symbols": wanted})
        return parse_model(AnalystRatingsResults, data, tool=TOOL_ANALYST_RATINGS)

    async def technical_indicators(
        self,
        symbol: str,
        *,
        type: str,
        interval: Interval | str,
        start_time: datetime,
        end_time: datetime | None = None,
        bounds: Bounds | str | None = None,
        method: str | None = None,
        output: str | None = None,
        adjustment_type: str | None = None,
        period: int | None = None,
        fast_period: int | None = None,
        slow_period: int | None = None,
        signal_period: int | None = None,
        num_std: Decimal | int | None = None,
        multiplier: Decimal | int | None = None,
    ) -> TechnicalIndicators:
        """An indicator series over one symbol's bars (``get_equity_technical_indicators``)."""
        request = TechnicalIndicatorsRequest.model_validate(
            {
                "symbol": symbol,
                "type": type,
                "interval": interval,
                "start_time": start_time,
                "end_time": end_time,
                "bounds": bounds,
                "method": method,
                "output": output,
                "adjustment_type": adjustment_type,
                "period": period,
                "fast_period": fast_period,
                "slow_period": slow_period,
                "signal_period": signal_period,
                "num_std": num_std,
                "multiplier": multiplier,
            }
        )
        data = await self._caller.call(TOOL_TECHNICAL_INDICATORS, request.arguments())
        return parse_model(TechnicalIndicators, data, tool=TOOL_TECHNICAL_INDICATORS)

    async def politician_trades(
        self, *, equity_symbol: str | None = None, politician_name: str | None = None
    ) -> PoliticianTrades:
        """Congressional trade disclosures, newest first (``get_politician_trades``)."""
        request = PoliticianTradesRequest.model_validate(
            {"equity_symbol": equity_symbol, "politician_name": politician_name}
        )
        data = await self._caller.call(TOOL_POLITICIAN_TRADES, request.arguments())
        return parse_model(PoliticianTrades, data, tool=TOOL_POLITICIAN_TRADES)

    async def sec_filing_index(
        self,
        symbol: str,
        *,
        form_type: Sequence[str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        cursor: str | None = None,
    ) -> FilingIndex:
        """One page of a company's SEC filings, newest first (``get_sec_filing_index``)."""
        request = SecFilingIndexRequest.model_validate(
            {
                "symbol": symbol,
                "form_type": form_type,
                "since": since,
                "until": until,
                "cursor": cursor,
            }
        )
        data = await self._caller.call(TOOL_SEC_FILING_INDEX, request.arguments())
        return parse_model(FilingIndex, data, tool=TOOL_SEC_FILING_INDEX)

    async def iter_sec_filings(
        self,
        symbol: str,
        *,
        form_type: Sequence[str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        max_pages: int = MAX_PAGES,
    ) -> AsyncIterator[SecFilingRecord]:
        """Every filing matching the filters, across pages (bounded: see ``walk_pages``)."""

        async def fetch(cursor: str | None) -> FilingIndex:
            return await self.sec_filing_index(
                symbol, form_type=form_type, since=since, until=until, cursor=cursor
            )

        async for page in walk_pages(fetch, tool=TOOL_SEC_FILING_INDEX, max_pages=max_pages):
            for filing in page.filings:
                yield filing

    async def sec_filing(self, filing_id: str, *, section: str | None = None) -> SecFiling:
        """A filing's details and sections, or one section's text (``get_sec_filing``)."""
        request = SecFilingRequest.model_validate({"filing_id": filing_id, "section": section})
        data = await self._caller.call(TOOL_SEC_FILING, request.arguments())
        return parse_model(SecFiling, data, tool=TOOL_SEC_FILING)

    async def sec_filing_facts(
        self, filing_ids: Sequence[str], concepts: Sequence[str]
    ) -> SecFilingFacts:
        """XBRL facts of filings for the given concepts (``get_sec_filing_facts``)."""
        arguments = {
            "filing_ids": name_list("filing_ids", filing_ids),
            "concepts": name_list("concepts", concepts),
        }
        data = await self._caller.call(TOOL_SEC_FILING_FACTS, arguments)
        return parse_model(SecFilingFacts, data, tool=TOOL_SEC_FILING_FACTS)

    async def sec_filing_facts_catalog(
        self,
        filing_id: str,
        *,
        concept_contains: str | None = None,
        axis_name_in: Sequence[str] | None = None,
        offset: int | None = None,
    ) -> FactsCatalog:
        """One page of the XBRL concepts a filing reports (``get_sec_filing_facts_catalog``);
        pass ``next_offset`` back as ``offset`` for the next."""
        request = FactsCatalogRequest.model_validate(
            {
                "filing_id": filing_id,
                "concept_contains": concept_contains,
                "axis_name_in": axis_name_in,
                "offset": offset,
            }
        )
        data = await self._caller.call(TOOL_SEC_FILING_FACTS_CATALOG, request.arguments())
        return parse_model(FactsCatalog, data, tool=TOOL_SEC_FILING_FACTS_CATALOG)
