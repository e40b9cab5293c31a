"""Venues: the one port (``Venue``) the order path speaks to every venue through.

A ``Venue`` has a lane per asset class (``venue.equity``; ``venue.options``, an
``OptionLane`` or ``None``; ``venue.crypto``, its
``CryptoLanes`` — an MCP and/or a REST ``CryptoLane`` and the choice of one per filing by
the policy's ``crypto.route`` — or ``None``); each lane answers orders
(review, place, lookup by ``ref_id``, poll by id, cancel), the account's side of a decision
(equity, cash, buying power, positions, open orders, a symbol's quote and tradability) and
quotes, in plain values; a ``VolumeSource`` answers a symbol's average daily volume. The
implementations live in their own packages, which nothing on the order path imports:
``ordergate.venues.robinhood`` (the typed client) and ``ordergate.venues.paper`` (a
simulated account on the ledger's database). ``canonical_order_id`` spells a venue's order
id one way (a UUID, or a paper book's ``paper-`` id), so an id an agent gives can be
compared with the record.
"""

from ordergate.venues._crypto import CryptoLane, CryptoReview, CryptoTicket, CryptoView
from ordergate.venues._crypto_lanes import LANE_UNAVAILABLE, CryptoLanes
from ordergate.venues._options import (
    OptionAccount,
    OptionLane,
    OptionReview,
    OptionTicket,
    option_account,
)
from ordergate.venues._order_ids import canonical_order_id
from ordergate.venues._protocols import (
    AccountReader,
    AccountView,
    BrokerFill,
    BrokerOrder,
    BrokerRefusal,
    NoAnswer,
    OrderExecutor,
    Placement,
    QuoteSource,
    Review,
    Ticket,
)
from ordergate.venues._venue import EquityLane, QuotesNeeded, Sighting, Venue
from ordergate.venues._volumes import ADV_LOOKBACK, ADV_SESSIONS, VolumeSource

__all__ = [
    "ADV_LOOKBACK",
    "ADV_SESSIONS",
    "LANE_UNAVAILABLE",
    "AccountReader",
    "AccountView",
    "BrokerFill",
    "BrokerOrder",
    "BrokerRefusal",
    "CryptoLane",
    "CryptoLanes",
    "CryptoReview",
    "CryptoTicket",
    "CryptoView",
    "EquityLane",
    "NoAnswer",
    "OptionAccount",
    "OptionLane",
    "OptionReview",
    "OptionTicket",
    "OrderExecutor",
    "Placement",
    "QuoteSource",
    "QuotesNeeded",
    "Review",
    "Sighting",
    "Ticket",
    "Venue",
    "VolumeSource",
    "canonical_order_id",
    "option_account",
]
