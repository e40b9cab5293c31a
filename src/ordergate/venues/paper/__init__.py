"""Paper trading as a ``Venue``: a simulated account on the ledger's own database.

``PaperVenue(book, quotes, session=…, clock=…)`` answers every lane call without reaching a
market: ``PaperExecutor`` fills at the upstream's quotes and keeps its orders and fills in the
``PaperBook`` (tables ``paper_orders``, ``paper_fills``, ``paper_positions``; their
migrations are ``ordergate/execution/migrations``, the owner that created them);
``PaperAccountReader`` reads the account from the book and the quotes. The gateway's paper
answers (``paper_portfolio``, ``paper_positions``, ``paper_orders_of``, realised P&L from
``closed_trades``) are in the venue's wire shapes (``order_wire`` …); ``PaperAnswerReader``
reads the account back from them as an MCP agent would.

``EnginePaperVenue`` is the paper venue that runs the venue's own engine instead
(``ordergate.sandbox.engine.EquityEngine``): the live lane over a ``PaperCaller``, whose
account and equity-order tools (``ANSWERED``) the engine answers from a paper book in the
ledger's database (``book_name``) on the upstream's observed quotes (``QUOTE_REUSE``,
slippage in the feed), every other tool the upstream. The wiring moves to it next.
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
from ordergate.venues.paper._caller import (
    ANSWERED,
    FORWARDED,
    QUOTE_REUSE,
    QUOTED_SIZE,
    PaperCaller,
    book_name,
    listing_of,
)
from ordergate.venues.paper._engine_venue import EnginePaperVenue
from ordergate.venues.paper._orders import PaperExecutor
from ordergate.venues.paper._pnl import PaperClosedTrade, PaperFill, closed_trades
from ordergate.venues.paper._venue import PaperEquity, PaperVenue
from ordergate.venues.paper._wire import PAPER_AGENT, instrument_id, order_wire

__all__ = [
    "ANSWERED",
    "FORWARDED",
    "ORDER_WINDOW",
    "PAPER_AGENT",
    "QUOTED_SIZE",
    "QUOTE_REUSE",
    "EnginePaperVenue",
    "PaperAccount",
    "PaperAccountReader",
    "PaperAnswerReader",
    "PaperBook",
    "PaperCaller",
    "PaperClosedTrade",
    "PaperEquity",
    "PaperExecutor",
    "PaperFill",
    "PaperOrder",
    "PaperUnanswered",
    "PaperVenue",
    "book_name",
    "closed_trades",
    "instrument_id",
    "listing_of",
    "order_wire",
    "paper_orders_of",
    "paper_portfolio",
    "paper_positions",
]
