"""``OptionLane``: a venue's options, in the shape of its equity lane (``_venue``).

::

    lane.contracts(option_ids)      the contract each option_id names at the venue (underlying,
                                    expiry, strike, call/put); an id the venue's chains do not
                                    hold is absent from the answer
    lane.quotes(option_ids)         each leg's bid and ask (stage A)
    lane.holdings(account, symbol)  the account's option positions on the underlying ``symbol``,
                                    its shares, cash and buying power (``OptionAccount``: what
                                    recognises a covered call or a cash-secured put)
    lane.held(account, symbol)      the option positions alone, for a decision that has the
                                    account's view already (``option_account`` joins them)
    lane.review(ticket)             the venue's priced terms: premium, fees, collateral,
                                    buying-power effect, its alerts (stage B); places nothing
    lane.place / lookup / poll / cancel
                                    as ``OrderExecutor``'s, for an ``OptionTicket``
    lane.exercise / cancel_exercise the owner's acts on held contracts (sent only once the
                                    owner approved the filing: ``execution._exercise``)

An option order reads back as a ``BrokerOrder``: ``symbol`` is the underlying, ``side`` buy for
a debit and sell for a credit, ``quantity`` and ``cumulative_quantity`` in strategy units, and
each fill priced at the net premium of one unit in dollars (per share × 100), so a fill's
notional is the premium it paid or received, the figure the premium caps hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Protocol, runtime_checkable
from uuid import UUID

from ordergate.core import ZERO
from ordergate.policy.options import OptionContract, OptionProposal, OptionQuote, OptionTerms
from ordergate.venues._protocols import AccountView, BrokerOrder, Placement

__all__ = ["OptionAccount", "OptionLane", "OptionReview", "OptionTicket", "option_account"]


@dataclass(frozen=True, slots=True)
class OptionTicket:
    """The filing's option order: ``ref_id`` is the filing's UUID, sent as the venue's
    ``ref_id``; nothing but ``proposal``'s fields is sent."""

    ref_id: UUID
    account: str
    proposal: OptionProposal


@dataclass(frozen=True, slots=True)
class OptionReview:
    """What the venue's review of a ticket priced (stage B runs on ``terms``).

    ``checks_passed``: the venue's own verdict (``None`` when it gave none);
    ``broker_approval_required``: the venue will ask the person to approve it."""

    terms: OptionTerms
    quotes: Mapping[str, OptionQuote]
    checks_passed: bool | None = None
    broker_approval_required: bool = False


@dataclass(frozen=True, slots=True)
class OptionAccount:
    """The account's side of an option decision on one underlying; ``None`` is unknown (fail
    closed).

    ``contracts``: signed contracts held of the underlying's options, by ``option_id`` (short
    below zero); ``shares``: the underlying's shares held."""

    contracts: Mapping[str, Decimal] | None = None
    shares: Decimal | None = None
    cash: Decimal | None = None
    buying_power: Decimal | None = None


def option_account(
    view: AccountView, underlying: str, contracts: Mapping[str, Decimal] | None
) -> OptionAccount:
    """The account's side of an option decision on ``underlying``: its shares, cash and
    buying power as ``view`` (the account read for that symbol) has them, and ``contracts``
    (``OptionLane.held``)."""
    shares = None
    if view.positions is not None:
        held = view.positions.get(underlying)
        shares = ZERO if held is None else held.quantity
    return OptionAccount(
        contracts=contracts, shares=shares, cash=view.cash, buying_power=view.buying_power
    )


@runtime_checkable
class OptionLane(Protocol):
    """A venue's options: contracts, quotes, the account's holdings, and orders."""

    async def contracts(self, option_ids: Sequence[str]) -> Mapping[str, OptionContract]:
        """The contracts of ``option_ids`` the venue lists (an id it does not is absent).
        ``NoAnswer`` when it cannot tell."""
        ...

    async def quotes(self, option_ids: Sequence[str]) -> Mapping[str, OptionQuote]:
        """The quotes of ``option_ids`` it has (never raises: a missing one is absent)."""
        ...

    async def holdings(self, account: str, underlying: str) -> OptionAccount:
        """The account's option positions on ``underlying``, its shares, cash and buying power
        (never raises: what could not be read is ``None``)."""
        ...

    async def held(self, account: str, underlying: str) -> Mapping[str, Decimal] | None:
        """The signed contracts held of ``underlying``'s options, by ``option_id`` (short
        below zero); ``None`` when they could not be read (never raises)."""
        ...

    async def review(self, ticket: OptionTicket) -> OptionReview:
        """Price ``ticket``; places nothing. ``NoAnswer`` or ``BrokerRefusal`` on failure."""
        ...

    async def place(self, ticket: OptionTicket) -> Placement:
        """Send ``ticket`` under its ``ref_id``. ``NoAnswer``: it may be live;
        ``BrokerRefusal``: it is not."""
        ...

    async def lookup(self, ticket: OptionTicket, *, since: datetime) -> BrokerOrder | None:
        """The venue's order with ``ticket.ref_id`` created at or after ``since``, or ``None``
        when it has none. ``NoAnswer`` when it cannot tell."""
        ...

    async def poll(self, account: str, order_id: str) -> BrokerOrder:
        """The order as the venue reports it now. ``NoAnswer`` when it cannot tell."""
        ...

    async def cancel(self, account: str, order_id: str) -> None:
        """Ask to cancel. ``BrokerRefusal`` when refused, ``NoAnswer`` when unanswered."""
        ...

    async def exercise(self, account: str, option_id: str, quantity: int, *, ref_id: UUID) -> str:
        """Ask to exercise ``quantity`` long contracts of ``option_id`` under ``ref_id``; the
        venue's exercise id. ``BrokerRefusal`` when refused, ``NoAnswer`` when unanswered."""
        ...

    async def cancel_exercise(self, account: str, option_id: str) -> tuple[str, ...]:
        """Withdraw the pending exercises of ``option_id``; the ids withdrawn. ``BrokerRefusal``
        when refused, ``NoAnswer`` when unanswered."""
        ...
