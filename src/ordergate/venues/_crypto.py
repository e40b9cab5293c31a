"""``CryptoLane``: a venue's crypto, as the order path speaks to it (``venue.crypto``).

A venue has at most one crypto lane (``None`` when it trades no crypto). Two implement it:
the MCP's crypto tools (``name`` ``"mcp"``, ``ordergate.venues.robinhood``) and the Crypto
Trading REST API (``"rest"``). They answer the same plain values, so the guard never asks
which it holds; the filing records the lane's ``name`` so the reconciler polls the order on
the lane it was placed on.

- A ``CryptoTicket`` is the filing's own crypto order: its id (the venue's ``ref_id`` on the
  MCP, ``client_order_id`` on REST), the account (``rhs_account_number`` on the MCP; the REST
  API's account number) and the ``CryptoProposal`` exactly as filed. Nothing else is sent.
- ``review`` prices a ticket and places nothing (MCP ``preview_crypto_order``; REST
  ``estimated_price``): a ``CryptoReview`` of ``CryptoTerms`` on the quote it used.
- ``place``, ``lookup``, ``poll`` and ``cancel`` are the equity lane's (``OrderExecutor``),
  with the same meaning of ``NoAnswer`` (the order may be live) and ``BrokerRefusal`` (it is
  not); a crypto order's state is read into ``OrderState`` (``canceled`` is ``cancelled``).
- ``quote``, ``pairs`` and ``read`` are the market and the account's side of a decision:
  ``quote`` and ``read`` never raise for a failed read (the missing part is ``None``, with a
  note); ``pairs`` raises ``NoAnswer`` when the venue cannot list them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Protocol, runtime_checkable
from uuid import UUID

from ordergate.policy import CryptoPairRules, CryptoProposal, CryptoQuote, CryptoTerms, Position
from ordergate.venues._protocols import BrokerOrder, Placement

__all__ = ["CryptoLane", "CryptoReview", "CryptoTicket", "CryptoView"]


@dataclass(frozen=True, slots=True)
class CryptoTicket:
    """The filing's crypto order: ``ref_id`` is the filing's UUID (the venue's ``ref_id`` /
    ``client_order_id``)."""

    ref_id: UUID
    account: str
    proposal: CryptoProposal


@dataclass(frozen=True, slots=True)
class CryptoReview:
    """The venue's priced view of a ticket (stage B runs on ``terms`` and ``quote``).

    ``checks_passed`` is the venue's own verdict (``None`` when it gave none);
    ``broker_approval_required`` says the venue will ask the person to approve it."""

    terms: CryptoTerms
    quote: CryptoQuote | None
    checks_passed: bool | None = None
    broker_approval_required: bool = False


@dataclass(frozen=True, slots=True)
class CryptoView:
    """The account's side of a crypto decision; ``None`` is unknown (fail closed).

    ``equity`` is the whole account's value, crypto included; ``crypto_equity`` the crypto
    holdings' value alone; ``holding`` the pair's asset as held (quantity zero when none);
    ``open_orders`` every open crypto order of the account (``ref_id`` tells ours)."""

    equity: Decimal | None = None
    cash: Decimal | None = None
    buying_power: Decimal | None = None
    crypto_equity: Decimal | None = None
    holding: Position | None = None
    open_orders: tuple[BrokerOrder, ...] | None = None
    quote: CryptoQuote | None = None
    notes: tuple[str, ...] = field(default=())


@runtime_checkable
class CryptoLane(Protocol):
    """A venue's crypto orders, pairs, quotes and account (see the module rules)."""

    @property
    def name(self) -> str:
        """``"mcp"`` or ``"rest"``: what the filing records as the lane it went to."""
        ...

    async def quote(self, pair: str) -> CryptoQuote | None:
        """The pair's best bid and ask now; ``None`` when there is none (never raises)."""
        ...

    async def pairs(self) -> Mapping[str, CryptoPairRules]:
        """What the venue takes for each listed pair, by ``BTC-USD`` name. ``NoAnswer`` when
        it cannot list them."""
        ...

    async def review(self, ticket: CryptoTicket) -> CryptoReview:
        """Price ``ticket``; places nothing. ``NoAnswer`` or ``BrokerRefusal`` on failure."""
        ...

    async def place(self, ticket: CryptoTicket) -> Placement:
        """Send ``ticket`` under its ``ref_id``. ``NoAnswer``: it may be live;
        ``BrokerRefusal``: it is not."""
        ...

    async def lookup(self, ticket: CryptoTicket, *, since: datetime) -> BrokerOrder | None:
        """The venue's order with ``ticket.ref_id`` created at or after ``since``, or ``None``
        when it has none. ``NoAnswer`` when it cannot tell."""
        ...

    async def poll(self, account: str, order_id: str) -> BrokerOrder:
        """The order as the venue reports it now. ``NoAnswer`` when it cannot tell."""
        ...

    async def cancel(self, account: str, order_id: str) -> None:
        """Ask to cancel. ``BrokerRefusal`` when refused, ``NoAnswer`` when unanswered."""
        ...

    async def read(self, account: str, pair: str | None) -> CryptoView:
        """The account's side of a decision on ``pair`` (its holding and quote; both left
        ``None`` without a pair). Never raises for a failed read; ``BrokerRefusal``
        (``crypto_account_mismatch``) when the lane trades another account than ``account``
        (the REST rail's key belongs to one account), so nothing on it can be for this one."""
        ...
