"""Paper trading as a ``Venue``: the venue's own engine on a paper book in the ledger's database.

``PaperVenue.on(upstream, database, clock=…, cash=…)`` is the live lane over a ``PaperCaller``,
whose account and order tools (``ANSWERED``: equities, crypto, options, the portfolio and
realised P&L) the venue's engine (``ordergate.sandbox.engine.EquityEngine``) answers from a
paper book in the ledger's database (``book_name``) on the upstream's observed quotes
(``QUOTE_REUSE``, slippage in the feed); every other tool (``FORWARDED``, market data) is the
upstream's. A paper answer is the venue's own answer, read by the live client code. Crypto
orders take either live lane, as the policy routes them: the MCP's crypto tools over the
caller, or the REST lane over the sandbox's REST venue in process (``paper_rest``), both on
the one book and neither reaching the upstream's crypto desk or the Crypto Trading API.
"""

from ordergate.venues.paper._caller import (
    ANSWERED,
    FORWARDED,
    QUOTE_REUSE,
    QUOTED_SIZE,
    PaperCaller,
    book_name,
    listing_of,
)
from ordergate.venues.paper._venue import PaperVenue

__all__ = [
    "ANSWERED",
    "FORWARDED",
    "QUOTED_SIZE",
    "QUOTE_REUSE",
    "PaperCaller",
    "PaperVenue",
    "book_name",
    "listing_of",
]
