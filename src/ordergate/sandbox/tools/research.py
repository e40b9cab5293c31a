"""Research tools: search, fundamentals, financials, earnings, news, ratings, filings, technicals.

Everything here is generated, deterministically from the venue seed and the symbol (see
``_company``), and priced from the live market where a price is involved, so two venues
with the same seed and clock answer alike and every tool quotes the same figures: the EPS
in ``get_financials`` is the one in ``get_earnings_results``, in the earnings news story
and in the filing's XBRL facts; ``market_cap`` is the live price times the shares
outstanding. Tools that take a list of symbols report unlisted ones in ``not_found``; tools
that take one symbol refuse an unlisted one with ``NOT_FOUND``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from ordergate.sandbox.tools import _market_view as mv
from ordergate.sandbox.tools import _research_filings as sec
from ordergate.sandbox.tools import _research_news as stories
from ordergate.sandbox.tools._company import quarter_index
from ordergate.sandbox.tools._metrics import metrics
from ordergate.sandbox.tools._paging import page
from ordergate.sandbox.tools._prose_rules import (
    choice,
    invalid,
    iso_date,
    iso_instant,
    page_size,
    present,
    symbol_list,
)
from ordergate.sandbox.tools._registry import VenueError, tool
from ordergate.sandbox.tools._research_statements import (
    earnings_row,
    session_figures,
    statements,
)
from ordergate.sandbox.tools._research_technicals import TYPES, technical_indicators
from ordergate.sandbox.tools._wire_format import iso, money, number
from ordergate.sandbox.venue._lists import Lists

if TYPE_CHECKING:
    from ordergate.sandbox.market import Equity
    from ordergate.sandbox.venue import Venue

__all__ = [
    "get_earnings_calendar",
    "get_earnings_results",
    "get_equity_analyst_ratings",
    "get_equity_fundamentals",
    "get_equity_news",
    "get_equity_technical_indicators",
    "get_financials",
    "get_politician_trades",
    "get_sec_filing",
    "get_sec_filing_facts",
    "get_sec_filing_facts_catalog",
    "get_sec_filing_index",
    "search",
]

_ASSET_TYPES = ("equity", "crypto", "index")
_FUNDAMENTAL_BOUNDS = ("regular", "extended", "trading")
_PERIODS = ("quarterly", "annual")
_CALENDAR_FILTERS = ("all", "watchlist")
_SEC_PAGE = 25
_CATALOG_PAGE = 50


def _listed_and_missing(venue: Venue, symbols: list[str]) -> tuple[list[Equity], list[str]]:
    found: list[Equity] = []
    missing: list[str] = []
    for symbol in symbols:
        listed = mv.equity(venue, symbol)
        if listed is None:
            missing.append(symbol)
        else:
            found.append(listed)
    return found, missing


# ------------------------------------------------------------------------------------ search


@tool(
    "search",
    description=(
        "Search equities, crypto pairs and market indexes by symbol or name. asset_type "
        "(equity, crypto or index) narrows the search; limit is 1-50 per kind (default 10)."
    ),
    guide="Use an equity's symbol with the quote and order tools; crypto pairs by symbol.",
)
def search(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    query = str(args["query"]).strip()
    if not query:
        raise invalid("query", "query must not be empty")
    if len(query) > 100:
        raise invalid("query", "query must be at most 100 characters")
    asset_type = choice(args, "asset_type", _ASSET_TYPES)
    limit = page_size(args, "limit", default=10, maximum=50)
    found = mv.universe(venue).search(query, limit)
    wants = {asset_type} if asset_type else set(_ASSET_TYPES)
    return {
        "results": [
            {
                "instrument_id": e.instrument_id,
                "symbol": e.symbol,
                "name": e.name,
                "simple_name": e.simple_name,
            }
            for e in found.equities
        ]
        if "equity" in wants
        else None,
        "currency_pairs": [
            {"id": p.id, "symbol": p.symbol, "name": p.name} for p in found.crypto_pairs
        ]
        if "crypto" in wants
        else None,
        "market_indexes": [
            {"id": i.instrument_id, "symbol": i.symbol, "name": i.name} for i in found.indexes
        ]
        if "index" in wants
        else None,
    }


# ------------------------------------------------------------------------------ fundamentals


@tool(
    "get_equity_fundamentals",
    description=(
        "Fundamentals for up to 20 symbols: today's open/high/low/volume (bounds: regular, "
        "extended or trading), 52-week range, market cap, P/E, P/B, dividend yield, shares "
        "outstanding, sector and industry."
    ),
    guide="Unlisted symbols are returned in not_found.",
)
def get_equity_fundamentals(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    symbols = symbol_list(args, "symbols", maximum=20)
    bounds = choice(args, "bounds", _FUNDAMENTAL_BOUNDS, default="regular") or "regular"
    found, missing = _listed_and_missing(venue, symbols)
    results = []
    for listed in found:
        m = metrics(venue, listed)
        firm = mv.company_of(venue, listed)
        results.append(
            {
                "symbol": listed.symbol,
                "instrument_id": listed.instrument_id,
                **session_figures(venue, listed, bounds),
                "average_volume": str(listed.average_volume),
                "market_cap": money(m.market_cap),
                "pe_ratio": number(m.pe_ratio),
                "pb_ratio": number(m.pb_ratio),
                "eps_ttm": money(m.eps_ttm),
                "dividend_yield": number(m.dividend_yield),
                "shares_outstanding": str(firm.shares_outstanding),
                "float": str(firm.float_shares),
                "sector": firm.sector,
                "industry": firm.industry,
                "num_employees": None if firm.is_etf else firm.num_employees,
                "description": firm.description,
                "bounds": bounds,
            }
        )
    return {"results": results, "not_found": missing}


# -------------------------------------------------------------------------------- financials


@tool(
    "get_financials",
    description=(
        "Income statement, balance sheet and cash flow for up to 10 symbols, newest first: "
        "period quarterly (default) or annual, limit 1-12 periods (default 4). Funds have none."
    ),
    guide="Unlisted symbols are returned in not_found.",
)
def get_financials(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    symbols = symbol_list(args, "symbols", maximum=10)
    period = choice(args, "period", _PERIODS, default="quarterly") or "quarterly"
    limit = page_size(args, "limit", default=4, maximum=12)
    found, missing = _listed_and_missing(venue, symbols)
    return {
        "results": [
            {
                "symbol": listed.symbol,
                "instrument_id": listed.instrument_id,
                "statements": statements(venue, mv.company_of(venue, listed), period, limit),
            }
            for listed in found
        ],
        "not_found": missing,
    }


# ---------------------------------------------------------------------------------- earnings


@tool(
    "get_earnings_calendar",
    description=(
        "Upcoming and recent earnings reports: from start_date (YYYY-MM-DD, default today) for "
        "days 1-31 (default 7); filter all (default) or watchlist (symbols on the user's lists)."
    ),
    guide="See one company's history with get_earnings_results.",
)
def get_earnings_calendar(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    days = page_size(args, "days", default=7, maximum=31)
    which = choice(args, "filter", _CALENDAR_FILTERS, default="all") or "all"
    start = iso_date(args, "start_date") or venue.now().date()
    end = start + timedelta(days=days - 1)
    equities = [e for e in mv.universe(venue).equities if e.kind == "stock" and e.tradeable]
    if which == "watchlist":
        watched = {
            item.object_id
            for watchlist in Lists.of(venue).watchlists.values()
            for item in watchlist.items
        }
        equities = [e for e in equities if e.instrument_id in watched]
    events = []
    first = quarter_index(start.year, (start.month - 1) // 3 + 1) - 2
    last = quarter_index(end.year, (end.month - 1) // 3 + 1)
    for listed in equities:
        firm = mv.company_of(venue, listed)
        for index in range(first, last + 1):
            quarter = firm.quarter(index)
            if start <= quarter.report_date <= end:
                events.append(earnings_row(venue, listed, quarter))
    events.sort(key=lambda e: (e["report"]["date"], e["report"]["timing"], e["symbol"]))
    return {
        "start_date": start.isoformat(),
        "end_date": end.isoformat(),
        "filter": which,
        "earnings": events,
    }


@tool(
    "get_earnings_results",
    description=(
        "One company's last eight quarterly reports (EPS and revenue, estimate and actual) and "
        "its next scheduled report."
    ),
    guide="EPS actuals match get_financials' diluted EPS for the same quarter.",
)
def get_earnings_results(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    listed = mv.require_equity(venue, args["symbol"])
    firm = mv.company_of(venue, listed)
    if firm.is_etf:
        return {"symbol": listed.symbol, "results": [], "next_report": None}
    now = venue.now()
    return {
        "symbol": listed.symbol,
        "results": [earnings_row(venue, listed, q) for q in firm.reported(now, 8)],
        "next_report": earnings_row(venue, listed, firm.next_report(now)),
    }


# ------------------------------------------------------------------- news, ratings, politics


@tool(
    "get_equity_news",
    description=(
        "Recent news about one symbol, newest first; limit 1-50 (default 10) per page, pass "
        "next_cursor back as cursor."
    ),
    guide="Articles cover the last 60 days.",
)
def get_equity_news(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    listed = mv.require_equity(venue, args["symbol"])
    size = page_size(args, "limit", default=10, maximum=50)
    articles = stories.news(venue, listed)
    rows, following = page(
        articles, scope=f"news:{listed.symbol}:{size}", cursor=args.get("cursor"), size=size
    )
    return {"symbol": listed.symbol, "results": rows, "next_cursor": following}


@tool(
    "get_equity_analyst_ratings",
    description=(
        "Analyst buy/hold/sell counts, price targets and recent rating notes for up to 20 symbols."
    ),
    guide="Unlisted symbols are returned in not_found.",
)
def get_equity_analyst_ratings(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    symbols = symbol_list(args, "symbols", maximum=20)
    found, missing = _listed_and_missing(venue, symbols)
    return {
        "results": [stories.analyst_ratings(venue, listed) for listed in found],
        "not_found": missing,
    }


@tool(
    "get_politician_trades",
    description=(
        "Stock trades disclosed by members of Congress over the last six months, newest "
        "disclosure first; optionally one equity_symbol or politician_name (part of the name)."
    ),
    guide="Disclosures arrive weeks after the trade; amounts are reported as ranges.",
)
def get_politician_trades(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    symbol: str | None = None
    if present(args, "equity_symbol"):
        symbol = mv.require_equity(venue, args["equity_symbol"], "equity_symbol").symbol
    name = str(args.get("politician_name") or "").strip().lower()
    trades = [
        trade
        for trade in stories.politician_trades(venue)
        if (symbol is None or trade["symbol"] == symbol)
        and (not name or name in trade["politician_name"].lower())
    ]
    return {"trades": trades[:100], "total": len(trades)}


# -------------------------------------------------------------------------------- technicals


@tool(
    "get_equity_technical_indicators",
    description=(
        "A technical indicator over one symbol's bars: type "
        + ", ".join(TYPES)
        + "; interval as for historicals; start_time (and end_time) ISO 8601; bounds regular, "
        "extended, trading, 24_5 or 24_7; method the bar price (close, open, high, low, hl2, "
        "hlc3, ohlc4); output series or latest."
    ),
    guide="Parameters a type does not use are refused; values are null during warm-up.",
)
def get_equity_technical_indicators(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    return technical_indicators(venue, args)


# ------------------------------------------------------------------------------ SEC filings


def _filing(venue: Venue, filing_id: str, field: str = "filing_id") -> sec.Filing:
    found = sec.resolve(venue, filing_id)
    if found is None:
        raise VenueError("NOT_FOUND", f"No filing with id {filing_id}.", field=field)
    return found


def _form_types(args: dict[str, Any]) -> set[str] | None:
    raw = args.get("form_type")
    if not raw:
        return None
    chosen: set[str] = set()
    for value in raw:
        form = str(value).strip().upper()
        if form not in sec.FORM_TYPES:
            raise invalid("form_type", f"form_type must be among: {', '.join(sec.FORM_TYPES)}")
        chosen.add(form)
    return chosen


@tool(
    "get_sec_filing_index",
    description=(
        "A company's SEC filings, newest first, 25 per page: optionally form_type (10-K, 10-Q, "
        "8-K, 4, DEF 14A) and a since/until window (ISO 8601)."
    ),
    guide="Open a filing with get_sec_filing; read its numbers with get_sec_filing_facts.",
)
def get_sec_filing_index(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    listed = mv.require_equity(venue, args["symbol"])
    forms = _form_types(args)
    since = iso_instant(args, "since")
    until = iso_instant(args, "until")
    if since and until and since > until:
        raise invalid("since", "since must not be after until")
    chosen = [
        f
        for f in sec.filings(venue, listed)
        if (forms is None or f.form_type in forms)
        and (since is None or f.filed_at >= since)
        and (until is None or f.filed_at <= until)
    ]
    scope = f"sec:{listed.symbol}:{sorted(forms or [])}:{iso(since)}:{iso(until)}"
    rows, following = page(chosen, scope=scope, cursor=args.get("cursor"), size=_SEC_PAGE)
    return {
        "symbol": listed.symbol,
        "filings": [f.row() for f in rows],
        "next_cursor": following,
    }


@tool(
    "get_sec_filing",
    description=(
        "One SEC filing by filing_id (its accession number): its details and section list, or "
        "the text of one section."
    ),
    guide="Section names are listed in the filing's sections.",
)
def get_sec_filing(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    filing = _filing(venue, args["filing_id"])
    sections = sec.sections_of(filing.form_type)
    result: dict[str, Any] = {
        "filing": filing.row(),
        "sections": [{"section": key, "title": title} for key, title in sections.items()],
    }
    if present(args, "section"):
        section = str(args["section"]).strip().lower()
        if section not in sections:
            raise invalid("section", f"section must be one of: {', '.join(sections)}")
        result["section"] = {
            "section": section,
            "title": sections[section],
            "text": sec.section_text(filing, section),
        }
    return result


@tool(
    "get_sec_filing_facts",
    description=(
        "XBRL facts (value, unit, period, dimensions) of up to 10 filings for up to 25 concepts "
        "(with or without the us-gaap:/dei: prefix)."
    ),
    guide="List a filing's concepts with get_sec_filing_facts_catalog.",
)
def get_sec_filing_facts(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    ids = [str(v).strip() for v in args.get("filing_ids") or [] if str(v).strip()]
    concepts = [str(c).strip() for c in args.get("concepts") or [] if str(c).strip()]
    if not ids:
        raise invalid("filing_ids", "filing_ids must name at least one filing")
    if len(ids) > 10:
        raise invalid("filing_ids", "filing_ids takes at most 10 filings")
    if not concepts:
        raise invalid("concepts", "concepts must name at least one concept")
    if len(concepts) > 25:
        raise invalid("concepts", "concepts takes at most 25 concepts")
    results = []
    missing_filings = []
    for filing_id in dict.fromkeys(ids):
        filing = sec.resolve(venue, filing_id)
        if filing is None:
            missing_filings.append(filing_id)
            continue
        found, missing = sec.facts(filing, concepts)
        results.append(
            {
                "filing_id": filing.accession_number,
                "symbol": filing.symbol,
                "form_type": filing.form_type,
                "facts": found,
                "missing_concepts": missing,
            }
        )
    return {"results": results, "not_found": missing_filings}


@tool(
    "get_sec_filing_facts_catalog",
    description=(
        "The XBRL concepts one filing reports, 50 per page from offset: optionally those whose "
        "name contains concept_contains, or that are broken down by an axis in axis_name_in."
    ),
    guide="Read values with get_sec_filing_facts.",
)
def get_sec_filing_facts_catalog(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    filing = _filing(venue, args["filing_id"])
    offset = int(args.get("offset") or 0)
    if offset < 0:
        raise invalid("offset", "offset must not be negative")
    needle = str(args.get("concept_contains") or "").strip().lower()
    axes = {str(a).strip().lower() for a in args.get("axis_name_in") or [] if str(a).strip()}
    entries = [
        entry
        for entry in sec.catalog(filing)
        if needle in entry["concept"].lower()
        and (
            not axes
            or any(a.lower() in axes or a.split(":")[-1].lower() in axes for a in entry["axes"])
        )
    ]
    chunk = entries[offset : offset + _CATALOG_PAGE]
    following = offset + _CATALOG_PAGE
    return {
        "filing_id": filing.accession_number,
        "form_type": filing.form_type,
        "concepts": chunk,
        "total": len(entries),
        "next_offset": following if following < len(entries) else None,
    }
