"""Robinhood as a ``Venue``: the typed client (``ordergate.client``) behind the port.

``RobinhoodVenue.through(rh, clock=…)`` answers every lane call with the broker's own answers:
``LiveExecutor`` reviews, places, looks up, polls and cancels equity orders (one
``EquityOrderRequest`` per ticket, ``ref_id`` = the filing's id); ``ClientAccountReader``
reads the account's side of a decision; ``ClientQuoteSource`` a symbol's quote and
tradability; ``McpCrypto`` the crypto lane over the MCP's crypto tools (``rhs_account_number``,
``ref_id`` = the filing's id); ``RestCrypto`` the crypto lane over the Crypto Trading REST
API (``client_order_id`` = the filing's id); ``RobinhoodOptions`` the option lane
(contracts, quotes, holdings, and orders as one ``OptionOrderRequest`` per ticket);
``MarketVolumes`` a symbol's average daily volume from the day bars.
``held_positions`` and ``open_broker_orders`` read the venue's wire rows as
plain values (a paper account's answers are read with them too).
"""

from ordergate.venues.robinhood._account import (
    BookParts,
    BookReads,
    ClientAccountReader,
    ClientQuoteSource,
    Unreadable,
    held_positions,
    open_broker_orders,
)
from ordergate.venues.robinhood._crypto import McpCrypto, crypto_broker_order
from ordergate.venues.robinhood._crypto_rest import RestCrypto
from ordergate.venues.robinhood._options import RobinhoodOptions
from ordergate.venues.robinhood._orders import LiveExecutor
from ordergate.venues.robinhood._readiness import McpCryptoOffered
from ordergate.venues.robinhood._venue import RobinhoodEquity, RobinhoodVenue
from ordergate.venues.robinhood._volumes import MarketVolumes

__all__ = [
    "BookParts",
    "BookReads",
    "ClientAccountReader",
    "ClientQuoteSource",
    "LiveExecutor",
    "MarketVolumes",
    "McpCrypto",
    "McpCryptoOffered",
    "RestCrypto",
    "RobinhoodEquity",
    "RobinhoodOptions",
    "RobinhoodVenue",
    "Unreadable",
    "crypto_broker_order",
    "held_positions",
    "open_broker_orders",
]
