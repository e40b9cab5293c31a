"""Paper trading as a ``Venue``: a simulated account on the ledger's own database.

``PaperVenue(book, quotes, session=…, clock=…)`` answers every lane call without reaching a
market: ``PaperExecutor`` fills at the upstream's quotes and keeps its orders and fills in the
``PaperBook`` (tables ``paper_orders``, ``paper_fills``, ``paper_positions``; their
migrations are ``ordergate/execution/migrations``, the owner that created them);
``PaperAccountReader`` reads the account from the book and the quotes. The gateway's paper
answers (``paper_portfolio``, ``paper_positions``, ``paper_orders_of``, realised P&L from
``closed_trades``) are in the venue's wire shapes (``order_wire`` …); ``PaperAnswerReader``
reads the account back from them as an MCP agent would.
"""

from ordergate.venues.paper._account import PaperAccountReader
from ordergate.venues.paper._answers import (
    ORDER_WINDOW,
    PaperAnswerReader,
    PaperUnanswered,
    paper_orders_of,
    paper_portfolio,
    paper_positions,
)
from ordergate.venues.paper._book import PaperAccount, PaperBook, PaperOrder
from ordergate.venues.paper._orders import PaperExecutor
from ordergate.venues.paper._pnl import PaperClosedTrade, PaperFill, closed_trades
from ordergate.venues.paper._venue import PaperEquity, PaperVenue
from ordergate.venues.paper._wire import PAPER_AGENT, instrument_id, order_wire

__all__ = [
    "ORDER_WINDOW",
    "PAPER_AGENT",
    "PaperAccount",
    "PaperAccountReader",
    "PaperAnswerReader",
    "PaperBook",
    "PaperClosedTrade",
    "PaperEquity",
    "PaperExecutor",
    "PaperFill",
    "PaperOrder",
    "PaperUnanswered",
    "PaperVenue",
    "closed_trades",
    "instrument_id",
    "order_wire",
    "paper_orders_of",
    "paper_portfolio",
    "paper_positions",
]
