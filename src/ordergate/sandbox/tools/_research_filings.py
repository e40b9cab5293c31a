"""Generated SEC filings: the index, the documents' sections, and their XBRL facts.

A filing's id is its accession number, ``CCCCCCCCCC-YY-NNNNNN``: the filer's CIK, the year
filed and a sequence that encodes the form, the fiscal quarter and an ordinal. So an id can
be resolved without any stored state, by regenerating the filings of that company and
quarter; an id that decodes but was never filed (or is not filed yet) is not found.

Each reported quarter brings an 8-K (results, Item 2.02) on the earnings date and a 10-Q
(10-K for the fourth quarter) a few days later; insiders file Forms 4; a proxy (DEF 14A)
comes each spring. Financial facts are the same figures ``get_financials`` reports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ordergate.core import to_wire
from ordergate.sandbox.tools import _market_view as mv
from ordergate.sandbox.tools._company import Company, Quarter, quarter_index, quarter_of
from ordergate.sandbox.tools._draws import Draws

if TYPE_CHECKING:
    from ordergate.sandbox.market import Equity
    from ordergate.sandbox.venue import Venue

__all__ = [
    "FORM_TYPES",
    "Filing",
    "catalog",
    "facts",
    "filings",
    "resolve",
    "section_text",
    "sections_of",
]

FORM_TYPES = ("10-K", "10-Q", "8-K", "4", "DEF 14A")
_FORM_CODES = {"10-K": 1, "10-Q": 2, "8-K": 3, "4": 4, "DEF 14A": 5}
_ACCESSION = re.compile(r"^(\d{10})-(\d{2})-(\d{6})$")
_HISTORY_QUARTERS = 12
_SECTIONS: dict[str, dict[str, str]] = {
    "10-K": {
        "business": "Item 1. Business",
        "risk_factors": "Item 1A. Risk Factors",
        "mdna": "Item 7. Management's Discussion and Analysis",
        "financial_statements": "Item 8. Financial Statements and Supplementary Data",
        "controls": "Item 9A. Controls and Procedures",
    },
    "10-Q": {
        "financial_statements": "Part I, Item 1. Financial Statements",
        "mdna": "Part I, Item 2. Management's Discussion and Analysis",
        "risk_factors": "Part II, Item 1A. Risk Factors",
        "controls": "Part I, Item 4. Controls and Procedures",
    },
    "8-K": {
        "item_2_02": "Item 2.02. Results of Operations and Financial Condition",
        "item_9_01": "Item 9.01. Financial Statements and Exhibits",
    },
    "4": {"transactions": "Table I. Non-Derivative Securities Acquired, Disposed of"},
    "DEF 14A": {
        "proposals": "Proposals to Be Voted On",
        "executive_compensation": "Executive Compensation",
    },
}
_SEGMENTS = {
    "Technology": ("Products", "Services", "Cloud"),
    "Communication Services": ("Advertising", "Subscriptions", "Other"),
    "Consumer Cyclical": ("Merchandise", "Services"),
    "Consumer Defensive": ("Grocery and Household", "Beverages and Snacks"),
    "Financial Services": ("Consumer", "Commercial", "Markets"),
    "Healthcare": ("Pharmaceutical", "Medical Devices"),
    "Energy": ("Upstream", "Downstream", "Chemicals"),
    "Industrials": ("Commercial", "Defense"),
}
_SEGMENT_AXIS = "us-gaap:StatementBusinessSegmentsAxis"
_GEOGRAPHY_AXIS = "srt:StatementGeographicalAxis"


@dataclass(frozen=True, slots=True)
class Filing:
    accession_number: str
    symbol: str
    company: Company
    form_type: str
    filed_at: datetime
    period_of_report: date
    quarter_index: int
    ordinal: int

    @property
    def has_xbrl(self) -> bool:
        return self.form_type in ("10-K", "10-Q", "8-K")

    def row(self) -> dict[str, Any]:
        folder = self.accession_number.replace("-", "")
        return {
            "filing_id": self.accession_number,
            "accession_number": self.accession_number,
            "symbol": self.symbol,
            "cik": f"{self.company.cik:010d}",
            "company_name": self.company.name,
            "form_type": self.form_type,
            "filed_at": self.filed_at.isoformat().replace("+00:00", "Z"),
            "period_of_report": self.period_of_report.isoformat(),
            "description": _describe(self),
            "has_xbrl": self.has_xbrl,
            "sections": list(_SECTIONS[self.form_type]),
            "url": (
                f"https://www.sec.gov/Archives/edgar/data/{self.company.cik}/{folder}/"
                f"{self.accession_number}-index.htm"
            ),
        }


def _describe(filing: Filing) -> str:
    year, quarter = quarter_of(filing.quarter_index)
    return {
        "10-K": f"Annual report for fiscal year {year}",
        "10-Q": f"Quarterly report for Q{quarter} {year}",
        "8-K": f"Current report: results for Q{quarter} {year}",
        "4": "Statement of changes in beneficial ownership",
        "DEF 14A": f"Definitive proxy statement for the {year} annual meeting",
    }[filing.form_type]


def _accession(firm: Company, form: str, filed: date, index: int, ordinal: int) -> str:
    sequence = _FORM_CODES[form] * 100_000 + (index - quarter_index(2000, 1)) * 10 + ordinal
    return f"{firm.cik:010d}-{filed.year % 100:02d}-{sequence:06d}"


def _filed(day: date, hour: int) -> datetime:
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return datetime.combine(day, time(hour, 0), tzinfo=UTC)


def _quarter_filings(symbol: str, firm: Company, index: int) -> list[Filing]:
    """Every filing that belongs to quarter ``index`` (filed or not yet)."""
    quarter = firm.quarter(index)
    draws = Draws(firm.seed, symbol, "filings", index)
    made: list[Filing] = []

    def add(form: str, at: datetime, period: date, ordinal: int = 0) -> None:
        number = _accession(firm, form, at.date(), index, ordinal)
        made.append(Filing(number, symbol, firm, form, at, period, index, ordinal))

    add("8-K", quarter.reported_at + timedelta(minutes=10), quarter.report_date)
    periodic = "10-K" if quarter.fiscal_quarter == 4 else "10-Q"
    add(
        periodic,
        _filed(quarter.report_date + timedelta(days=draws.integer(1, 7)), 21),
        quarter.period_end,
    )
    for ordinal in range(draws.integer(0, 3)):
        day = quarter.period_start + timedelta(days=draws.integer(0, 88))
        add("4", _filed(day, 22), day, ordinal)
    if quarter.fiscal_quarter == 1:
        day = date(quarter.fiscal_year, 3, 10) + timedelta(days=draws.integer(0, 30))
        add("DEF 14A", _filed(day, 20), day)
    return made


def filings(venue: Venue, listed: Equity) -> list[Filing]:
    """Filings of the last ``_HISTORY_QUARTERS`` quarters filed by now, newest first."""
    firm = mv.company_of(venue, listed)
    if firm.is_etf:
        return []
    now = venue.now()
    current = quarter_index(now.year, (now.month - 1) // 3 + 1)
    made = [
        filing
        for index in range(current - _HISTORY_QUARTERS, current + 1)
        for filing in _quarter_filings(listed.symbol, firm, index)
        if filing.filed_at <= now
    ]
    made.sort(key=lambda f: (f.filed_at, f.accession_number), reverse=True)
    return made


def resolve(venue: Venue, filing_id: str) -> Filing | None:
    """The filing with this accession number, if it was filed by now; ``None`` otherwise."""
    match = _ACCESSION.match(filing_id.strip())
    if match is None:
        return None
    cik, sequence = int(match.group(1)), int(match.group(3))
    index = (sequence % 100_000) // 10 + quarter_index(2000, 1)
    for listed in mv.universe(venue).equities:
        firm = mv.company_of(venue, listed)
        if firm.cik != cik or firm.is_etf:
            continue
        for filing in _quarter_filings(listed.symbol, firm, index):
            if filing.accession_number == filing_id.strip() and filing.filed_at <= venue.now():
                return filing
    return None


def sections_of(form_type: str) -> dict[str, str]:
    return dict(_SECTIONS[form_type])


def _money(value: Decimal) -> str:
    return f"${value / 1_000_000:,.1f} million"


def section_text(filing: Filing, section: str) -> str:
    firm = filing.company
    quarter = firm.quarter(filing.quarter_index)
    period = f"the quarter ended {quarter.period_end.isoformat()}"
    if filing.form_type == "10-K":
        annual = _annual(firm, quarter.fiscal_year)
        period = f"fiscal year {quarter.fiscal_year}"
        revenue, net_income = annual["Revenues"], annual["NetIncomeLoss"]
    else:
        revenue, net_income = quarter.revenue, quarter.net_income
    texts = {
        "business": (
            f"{firm.simple_name} operates in the {firm.industry.lower()} industry and employs "
            f"about {firm.num_employees:,} people. {firm.description}"
        ),
        "risk_factors": (
            "Our results depend on demand for our products, competition, the supply chain, "
            "interest rates and regulation. Any of these could harm our business."
        ),
        "mdna": (
            f"Revenue for {period} was {_money(revenue)} and net income was "
            f"{_money(net_income)}. Gross margin was {_margin(quarter)}%."
        ),
        "financial_statements": (
            f"Condensed statements for {period}: revenue {_money(revenue)}; net income "
            f"{_money(net_income)}; total assets {_money(quarter.total_assets)}; total "
            f"liabilities {_money(quarter.total_liabilities)}."
        ),
        "controls": (
            "Management concluded that disclosure controls and procedures were effective as "
            f"of {quarter.period_end.isoformat()}."
        ),
        "item_2_02": (
            f"On {quarter.report_date.isoformat()}, {firm.name} announced results for {period}: "
            f"revenue of {_money(revenue)} and diluted earnings per share of "
            f"${quarter.eps_diluted}."
        ),
        "item_9_01": "Exhibit 99.1: Press release announcing quarterly results.",
        "transactions": (
            f"An officer of {firm.simple_name} reported a transaction in common stock on "
            f"{filing.period_of_report.isoformat()}."
        ),
        "proposals": (
            "Election of directors; ratification of the independent auditor; advisory vote "
            "on executive compensation."
        ),
        "executive_compensation": (
            "Compensation of named executive officers consists of salary, an annual cash "
            "incentive and long-term equity awards."
        ),
    }
    return texts[section]


def _margin(quarter: Quarter) -> str:
    return to_wire((quarter.gross_profit * 100 / quarter.revenue).quantize(Decimal("0.1")))


# ------------------------------------------------------------------------------- XBRL facts

_CONCEPTS: tuple[tuple[str, str, str, str], ...] = (
    # concept, label, unit, period type
    ("us-gaap:Revenues", "Revenues", "USD", "duration"),
    ("us-gaap:CostOfRevenue", "Cost of revenue", "USD", "duration"),
    ("us-gaap:GrossProfit", "Gross profit", "USD", "duration"),
    ("us-gaap:OperatingIncomeLoss", "Operating income (loss)", "USD", "duration"),
    ("us-gaap:NetIncomeLoss", "Net income (loss)", "USD", "duration"),
    ("us-gaap:EarningsPerShareDiluted", "Diluted earnings per share", "USD/shares", "duration"),
    (
        "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding",
        "Weighted average diluted shares outstanding",
        "shares",
        "duration",
    ),
    ("us-gaap:Assets", "Total assets", "USD", "instant"),
    ("us-gaap:Liabilities", "Total liabilities", "USD", "instant"),
    ("us-gaap:StockholdersEquity", "Stockholders' equity", "USD", "instant"),
    (
        "us-gaap:CashAndCashEquivalentsAtCarryingValue",
        "Cash and cash equivalents",
        "USD",
        "instant",
    ),
    (
        "us-gaap:NetCashProvidedByUsedInOperatingActivities",
        "Net cash from operating activities",
        "USD",
        "duration",
    ),
    (
        "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment",
        "Capital expenditure",
        "USD",
        "duration",
    ),
    ("dei:EntityCommonStockSharesOutstanding", "Shares outstanding", "shares", "instant"),
)
_DEI_TEXT = ("dei:DocumentType", "dei:EntityRegistrantName", "dei:TradingSymbol")


def _annual(firm: Company, year: int) -> dict[str, Decimal]:
    quarters = [firm.quarter(quarter_index(year, q)) for q in range(1, 5)]
    last = quarters[-1]
    return {
        "Revenues": sum((q.revenue for q in quarters), Decimal(0)),
        "CostOfRevenue": sum((q.cost_of_revenue for q in quarters), Decimal(0)),
        "GrossProfit": sum((q.gross_profit for q in quarters), Decimal(0)),
        "OperatingIncomeLoss": sum((q.operating_income for q in quarters), Decimal(0)),
        "NetIncomeLoss": sum((q.net_income for q in quarters), Decimal(0)),
        "EarningsPerShareDiluted": sum((q.eps_diluted for q in quarters), Decimal(0)),
        "WeightedAverageNumberOfDilutedSharesOutstanding": Decimal(last.diluted_shares),
        "NetCashProvidedByUsedInOperatingActivities": sum(
            (q.operating_cash_flow for q in quarters), Decimal(0)
        ),
        "PaymentsToAcquirePropertyPlantAndEquipment": sum(
            (q.capital_expenditure for q in quarters), Decimal(0)
        ),
    }


def _values(filing: Filing) -> dict[str, Decimal]:
    firm = filing.company
    quarter = firm.quarter(filing.quarter_index)
    values = {
        "Revenues": quarter.revenue,
        "CostOfRevenue": quarter.cost_of_revenue,
        "GrossProfit": quarter.gross_profit,
        "OperatingIncomeLoss": quarter.operating_income,
        "NetIncomeLoss": quarter.net_income,
        "EarningsPerShareDiluted": quarter.eps_diluted,
        "WeightedAverageNumberOfDilutedSharesOutstanding": Decimal(quarter.diluted_shares),
        "NetCashProvidedByUsedInOperatingActivities": quarter.operating_cash_flow,
        "PaymentsToAcquirePropertyPlantAndEquipment": quarter.capital_expenditure,
    }
    if filing.form_type == "10-K":
        values.update(_annual(firm, quarter.fiscal_year))
    values.update(
        {
            "Assets": quarter.total_assets,
            "Liabilities": quarter.total_liabilities,
            "StockholdersEquity": quarter.shareholders_equity,
            "CashAndCashEquivalentsAtCarryingValue": quarter.cash_and_equivalents,
            "EntityCommonStockSharesOutstanding": Decimal(firm.shares_outstanding),
        }
    )
    return values


def _split(total: Decimal, names: tuple[str, ...], draws: Draws) -> list[tuple[str, Decimal]]:
    """``total`` shared among ``names``; the parts add up to it exactly."""
    parts: list[tuple[str, Decimal]] = []
    left = total
    for name in names[:-1]:
        share = (total * draws.decimal("0.15", "0.55", 2)).quantize(Decimal(1))
        parts.append((name, share))
        left -= share
    parts.append((names[-1], left))
    return parts


def _dimensions(filing: Filing) -> dict[str, list[tuple[str, str]]]:
    """Axis → members, for the revenue breakdowns this filing reports."""
    segments = _SEGMENTS.get(filing.company.sector, ("Products", "Services"))
    return {
        _SEGMENT_AXIS: [(f"{name} [Member]", name) for name in segments],
        _GEOGRAPHY_AXIS: [("US [Member]", "US"), ("Non-US [Member]", "Non-US")],
    }


def _periodic_facts(filing: Filing) -> list[dict[str, Any]]:
    firm = filing.company
    quarter = firm.quarter(filing.quarter_index)
    start = date(quarter.fiscal_year, 1, 1) if filing.form_type == "10-K" else quarter.period_start
    values = _values(filing)
    out: list[dict[str, Any]] = []
    for concept, label, unit, period_type in _CONCEPTS:
        value = values[concept.split(":", 1)[1]]
        fact: dict[str, Any] = {
            "concept": concept,
            "label": label,
            "value": to_wire(value),
            "unit": unit,
            "period_start": start.isoformat() if period_type == "duration" else None,
            "period_end": quarter.period_end.isoformat(),
            "dimensions": {},
        }
        out.append(fact)
        if concept == "us-gaap:Revenues":
            for axis, members in _dimensions(filing).items():
                draws = Draws(firm.seed, filing.symbol, "segments", axis)
                shares = _split(value, tuple(m for m, _ in members), draws)
                out.extend(
                    {**fact, "value": to_wire(part), "dimensions": {axis: member}}
                    for member, part in shares
                )
    return out


def _dei_facts(filing: Filing) -> list[dict[str, Any]]:
    texts = {
        "dei:DocumentType": filing.form_type,
        "dei:EntityRegistrantName": filing.company.name,
        "dei:TradingSymbol": filing.symbol,
    }
    return [
        {
            "concept": concept,
            "label": concept.split(":", 1)[1],
            "value": texts[concept],
            "unit": None,
            "period_start": None,
            "period_end": filing.period_of_report.isoformat(),
            "dimensions": {},
        }
        for concept in _DEI_TEXT
    ]


def all_facts(filing: Filing) -> list[dict[str, Any]]:
    if not filing.has_xbrl:
        return []
    if filing.form_type == "8-K":
        return _dei_facts(filing)
    return _dei_facts(filing) + _periodic_facts(filing)


def _matches(concept: str, wanted: str) -> bool:
    wanted = wanted.strip().lower()
    return concept.lower() == wanted or concept.split(":", 1)[1].lower() == wanted


def facts(filing: Filing, concepts: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """(facts of the requested concepts, requested concepts the filing does not report)."""
    every = all_facts(filing)
    found = [fact for fact in every if any(_matches(fact["concept"], c) for c in concepts)]
    missing = [c for c in concepts if not any(_matches(fact["concept"], c) for fact in every)]
    return found, missing


def catalog(filing: Filing) -> list[dict[str, Any]]:
    """One entry per concept: label, unit, period type, the axes it is broken down by."""
    entries: dict[str, dict[str, Any]] = {}
    for fact in all_facts(filing):
        entry = entries.setdefault(
            fact["concept"],
            {
                "concept": fact["concept"],
                "label": fact["label"],
                "unit": fact["unit"],
                "period_type": "duration" if fact["period_start"] else "instant",
                "axes": [],
                "fact_count": 0,
            },
        )
        entry["fact_count"] += 1
        for axis in fact["dimensions"]:
            if axis not in entry["axes"]:
                entry["axes"].append(axis)
    return list(entries.values())
