"""Generated news, analyst ratings and congressional trade disclosures.

All drawn from the venue seed and the symbol (and the day, for news), so they are stable
for a given seed and clock. Earnings stories quote the same EPS the earnings tools report.
Politicians are fictional; sources and links are placeholders on ``example.com``.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import TYPE_CHECKING, Any

from ordergate.core import to_wire
from ordergate.sandbox.tools import _market_view as mv
from ordergate.sandbox.tools._company import Company, quarter_index
from ordergate.sandbox.tools._draws import Draws
from ordergate.sandbox.tools._wire_format import iso
from ordergate.sandbox.venue._ids import stable_uuid

if TYPE_CHECKING:
    from ordergate.sandbox.market import Equity
    from ordergate.sandbox.venue import Venue

__all__ = ["NEWS_DAYS", "analyst_ratings", "news", "politician_trades"]

NEWS_DAYS = 60
_SOURCES = ("MarketWire", "The Daily Tape", "Street Brief", "Ledger Report", "Opening Bell")
_HEADLINES = (
    "{name} shares move as investors weigh {sector} outlook",
    "What analysts are watching in {name} ahead of next quarter",
    "{name} announces new product roadmap at investor event",
    "{name} draws options activity as volatility picks up",
    "Fund managers add to {name} positions, filings show",
    "{name} expands partnership to reach new customers",
    "Is {name} still a buy after its recent run?",
    "{name} executive comments on demand trends",
)
_POLITICIANS = (
    ("Jordan Avery", "House", "D", "CA"),
    ("Morgan Ellison", "House", "R", "TX"),
    ("Casey Whitfield", "Senate", "R", "OH"),
    ("Riley Navarro", "House", "D", "NY"),
    ("Taylor Brennan", "Senate", "D", "MI"),
    ("Quinn Hargrove", "House", "R", "FL"),
    ("Avery Lindqvist", "House", "I", "VT"),
    ("Dana Okafor", "Senate", "D", "GA"),
)
_AMOUNT_RANGES = (
    "$1,001 - $15,000",
    "$15,001 - $50,000",
    "$50,001 - $100,000",
    "$100,001 - $250,000",
    "$250,001 - $500,000",
    "$500,001 - $1,000,000",
)
_TRADE_WEEKS = 26


def _url(kind: str, item_id: str) -> str:
    return f"https://news.example.com/{kind}/{item_id}"


def _earnings_story(
    firm: Company, listed: Equity, index: int, now: datetime
) -> dict[str, Any] | None:
    quarter = firm.quarter(index)
    if not quarter.reported_by(now):
        return None
    beat = quarter.eps_diluted >= quarter.eps_estimate
    verb = "beats" if beat else "misses"
    item_id = stable_uuid("news", firm.seed, listed.symbol, "earnings", index)
    return {
        "id": item_id,
        "title": (
            f"{firm.simple_name} {verb} estimates: Q{quarter.fiscal_quarter} {quarter.fiscal_year} "
            f"EPS ${quarter.eps_diluted} vs ${quarter.eps_estimate} expected"
        ),
        "source": "MarketWire",
        "url": _url("earnings", item_id),
        "published_at": iso(quarter.reported_at + timedelta(minutes=7)),
        "summary": (
            f"{firm.simple_name} reported revenue of ${to_wire(quarter.revenue)} and diluted EPS "
            f"of ${quarter.eps_diluted} for the quarter ended {quarter.period_end.isoformat()}."
        ),
        "related_symbols": [listed.symbol],
        "category": "earnings",
    }


def news(venue: Venue, listed: Equity) -> list[dict[str, Any]]:
    """Articles of the last ``NEWS_DAYS`` days up to now, newest first."""
    firm = mv.company_of(venue, listed)
    now = venue.now()
    today = now.date()
    stories: list[dict[str, Any]] = []
    for back in range(NEWS_DAYS):
        day = today - timedelta(days=back)
        draws = Draws(venue.seed, listed.symbol, "news", day.isoformat())
        for k in range(draws.integer(0, 2)):
            at = datetime.combine(
                day, time(draws.integer(11, 23), draws.integer(0, 59)), tzinfo=UTC
            )
            if at > now:
                continue
            item_id = stable_uuid("news", venue.seed, listed.symbol, day.isoformat(), k)
            title = draws.pick(_HEADLINES).format(name=firm.simple_name, sector=firm.sector.lower())
            stories.append(
                {
                    "id": item_id,
                    "title": title,
                    "source": draws.pick(_SOURCES),
                    "url": _url("story", item_id),
                    "published_at": iso(at),
                    "summary": f"{title}. {firm.description}",
                    "related_symbols": [listed.symbol],
                    "category": "general",
                }
            )
    if not firm.is_etf:
        current = quarter_index(today.year, (today.month - 1) // 3 + 1)
        oldest = iso(now - timedelta(days=NEWS_DAYS)) or ""
        for index in range(current - 2, current + 1):
            story = _earnings_story(firm, listed, index, now)
            if story is not None and story["published_at"] >= oldest:
                stories.append(story)
    stories.sort(key=lambda story: (story["published_at"], story["id"]), reverse=True)
    return stories


def _target(base: Decimal, factor: Decimal) -> str:
    return to_wire((base * factor).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN))


def analyst_ratings(venue: Venue, listed: Equity) -> dict[str, Any]:
    """Buy/hold/sell counts, price targets around the listing price, and recent notes."""
    firm = mv.company_of(venue, listed)
    if firm.is_etf or not listed.tradeable:
        return {
            "symbol": listed.symbol,
            "instrument_id": listed.instrument_id,
            "summary": {"num_buy_ratings": 0, "num_hold_ratings": 0, "num_sell_ratings": 0},
            "price_target": None,
            "ratings": [],
        }
    draws = Draws(venue.seed, listed.symbol, "ratings")
    buys, holds, sells = draws.integer(3, 40), draws.integer(2, 20), draws.integer(0, 6)
    low = draws.decimal("0.70", "0.95", 2)
    high = draws.decimal("1.10", "1.60", 2)
    mean = (low + high * 2) / 3
    today = venue.now().date()
    ratings: list[dict[str, Any]] = []
    for k in range(3):
        kind = draws.pick(("buy",) * buys + ("hold",) * holds + ("sell",) * sells)
        published = today - timedelta(days=draws.integer(1, 45))
        rating: dict[str, Any] = {
            "published_at": iso(datetime.combine(published, time(12, 0), tzinfo=UTC)),
            "type": kind,
            "text": (
                f"We rate {firm.simple_name} a {kind}: "
                + {
                    "buy": "execution remains strong and estimates look conservative.",
                    "hold": "the shares already price in most of the good news.",
                    "sell": "margins face pressure that the market underestimates.",
                }[kind]
            ),
            "id": stable_uuid("rating", venue.seed, listed.symbol, k),
        }
        ratings.append(rating)
    ratings.sort(key=lambda r: str(r["published_at"]), reverse=True)
    return {
        "symbol": listed.symbol,
        "instrument_id": listed.instrument_id,
        "summary": {"num_buy_ratings": buys, "num_hold_ratings": holds, "num_sell_ratings": sells},
        "price_target": {
            "low": _target(listed.base_price, low),
            "mean": _target(listed.base_price, mean),
            "high": _target(listed.base_price, high),
            "currency": "USD",
        },
        "ratings": ratings,
    }


def politician_trades(venue: Venue) -> list[dict[str, Any]]:
    """Disclosed trades of the last ``_TRADE_WEEKS`` weeks, newest disclosure first."""
    stocks = [e for e in mv.universe(venue).equities if e.kind == "stock" and e.tradeable]
    today = venue.now().date()
    monday = today - timedelta(days=today.weekday())
    trades: list[dict[str, Any]] = []
    for name, chamber, party, state in _POLITICIANS:
        for week in range(1, _TRADE_WEEKS + 1):
            start = monday - timedelta(weeks=week)
            draws = Draws(venue.seed, "politician", name, start.isoformat())
            if not draws.chance(35):
                continue
            listed = draws.pick(stocks)
            traded: date = start + timedelta(days=draws.integer(0, 4))
            disclosed = traded + timedelta(days=draws.integer(5, 40))
            if disclosed > today:
                continue
            trades.append(
                {
                    "id": stable_uuid("politician_trade", venue.seed, name, start.isoformat()),
                    "politician_name": name,
                    "chamber": chamber,
                    "party": party,
                    "state": state,
                    "symbol": listed.symbol,
                    "instrument_id": listed.instrument_id,
                    "asset_name": listed.name,
                    "transaction_type": draws.pick(
                        ("purchase", "purchase", "sale", "sale_partial")
                    ),
                    "amount_range": draws.pick(_AMOUNT_RANGES),
                    "owner": draws.pick(("self", "spouse", "joint")),
                    "transaction_date": traded.isoformat(),
                    "disclosure_date": disclosed.isoformat(),
                }
            )
    trades.sort(key=lambda t: (t["disclosure_date"], t["id"]), reverse=True)
    return trades
