"""Robinhood's curated watchlists, as the sandbox lists them.

Their ids are the same in every sandbox (UUID5 of a fixed slug); their members are worked
out from the market each time they are read, so the movers list changes with the tape.
They can be followed, not edited.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ordergate.sandbox.tools import _market_view as mv
from ordergate.sandbox.venue._ids import stable_uuid
from ordergate.sandbox.venue._lists import WatchlistItem

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = ["CURATED", "CURATED_BY_ID", "CURATED_SINCE", "Curated"]

CURATED_SINCE = datetime(2020, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Curated:
    slug: str
    display_name: str
    display_description: str
    icon_emoji: str
    members: Callable[[Venue], list[WatchlistItem]]

    @property
    def id(self) -> str:
        return stable_uuid("curated_watchlist", self.slug)


def _equity_item(listed: mv.Equity) -> WatchlistItem:
    return WatchlistItem(
        "instrument", listed.instrument_id, listed.symbol, listed.name, CURATED_SINCE
    )


def _most_popular(venue: Venue) -> list[WatchlistItem]:
    listed = sorted(mv.universe(venue).equities, key=lambda e: (-e.average_volume, e.symbol))
    return [_equity_item(e) for e in listed if e.tradeable][:20]


def _technology(venue: Venue) -> list[WatchlistItem]:
    return [
        _equity_item(e)
        for e in mv.universe(venue).equities
        if e.kind == "stock" and mv.company_of(venue, e).sector == "Technology"
    ]


def _etfs(venue: Venue) -> list[WatchlistItem]:
    return [_equity_item(e) for e in mv.universe(venue).equities if e.kind == "etf"]


def _crypto(venue: Venue) -> list[WatchlistItem]:
    return [
        WatchlistItem("currency_pair", p.id, p.symbol, p.name, CURATED_SINCE)
        for p in mv.universe(venue).crypto_pairs
    ]


def _indexes(venue: Venue) -> list[WatchlistItem]:
    return [
        WatchlistItem("index", i.instrument_id, i.symbol, i.name, CURATED_SINCE)
        for i in mv.universe(venue).indexes
    ]


def _daily_movers(venue: Venue) -> list[WatchlistItem]:
    moves = []
    for listed in mv.universe(venue).equities:
        if listed.tradeable:
            change = mv.equity_price(venue, listed).percent_change
            moves.append((-abs(change), listed.symbol, listed))
    moves.sort(key=lambda move: (move[0], move[1]))
    return [_equity_item(listed) for _, _, listed in moves[:10]]


CURATED: tuple[Curated, ...] = (
    Curated(
        "most-popular", "Most Popular", "The most traded stocks and ETFs.", "🔥", _most_popular
    ),
    Curated(
        "daily-movers", "Daily Movers", "Biggest moves since the last close.", "🚀", _daily_movers
    ),
    Curated("technology", "Technology", "Hardware, software and chips.", "💻", _technology),
    Curated("etfs", "ETFs", "Exchange-traded funds.", "🧺", _etfs),
    Curated("crypto", "Crypto", "Cryptocurrencies you can trade around the clock.", "🪙", _crypto),
    Curated("indexes", "Market Indexes", "Benchmarks of the US market.", "📈", _indexes),
)
CURATED_BY_ID = {curated.id: curated for curated in CURATED}
