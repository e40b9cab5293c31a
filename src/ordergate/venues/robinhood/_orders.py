"""``LiveExecutor``: the ``OrderExecutor`` that sends tickets to Robinhood through the client.

A ticket becomes one ``EquityOrderRequest`` (its proposal's fields, ``ref_id`` = the ticket's
id) and nothing else is ever sent. What comes back is read by these rules:

- A refusal the broker gave (``BusinessError``, including ``ORDER_REJECTED`` for an order
  that came back already rejected) is ``BrokerRefusal(code, message)``: nothing is live. A
  request the client refuses before sending (a ``ValidationError``) is
  ``BrokerRefusal("invalid_order", <field>)``: nothing was sent.
- Every other failure is ``NoAnswer``: a timeout, a reset, an HTTP or JSON-RPC error, an
  unreadable answer, anything unexpected. After ``place`` that means the order may be live;
  the reconciler looks it up by ``ref_id`` (``lookup``) and nothing is ever re-sent here. A
  place answered with an order under another ``ref_id`` is no answer about ours either.
- ``lookup`` answers ``None`` only when it walked every listed order since ``since`` and
  none carried the ticket's ``ref_id``; a failed or incomplete walk is ``NoAnswer``.
- ``review`` prices the ticket from the broker's own quote (``estimate_terms``: a market
  buy at the ask, a sell at the bid, a limit at its limit) and places nothing.

Messages name the action, the tool and the error's code, never a token or an answer's body.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from pydantic import ValidationError

from ordergate.client import BusinessError, Robinhood, field_name
from ordergate.client.equity import EquityOrder, EquityOrderRequest
from ordergate.policy import estimate_terms
from ordergate.venues._protocols import (
    BrokerOrder,
    BrokerRefusal,
    NoAnswer,
    Placement,
    Review,
    Ticket,
)
from ordergate.venues.robinhood._mapping import (
    broker_order,
    no_answer,
    parse_ref_id,
    placement,
    venue_quote,
)

__all__ = ["DEFAULT_LOOKUP_PAGES", "LiveExecutor", "OrderByRef", "order_request"]

OrderByRef = Callable[[str, str], Awaitable[EquityOrder | None]]
"""An account's order placed with a ``ref_id``, open or ended, read by the venue directly by
that key (``None``: there is none)."""

DEFAULT_LOOKUP_PAGES = 5
"""Pages of ``get_equity_orders`` a ``lookup`` may walk before it cannot tell (NoAnswer)."""


def order_request(ticket: Ticket) -> EquityOrderRequest:
    """The one request a ticket may send; ``BrokerRefusal("invalid_order", field)`` when the
    client refuses it locally (nothing is sent)."""
    proposal = ticket.proposal
    try:
        return EquityOrderRequest(
            account_number=ticket.account,
            symbol=proposal.symbol,
            side=proposal.side,
            type=proposal.order_type,
            quantity=proposal.quantity,
            dollar_amount=proposal.notional,
            limit_price=proposal.limit_price,
            stop_price=proposal.stop_price,
            time_in_force=proposal.time_in_force,
            market_hours=proposal.market_hours,
            ref_id=ticket.ref_id,
        )
    except ValidationError as error:
        raise BrokerRefusal("invalid_order", field_name(tuple(error.errors()[0]["loc"]))) from None


def _refusal(error: BusinessError) -> BrokerRefusal:
    return BrokerRefusal(error.code, str(error))


class LiveExecutor:
    """Reviews, places, looks up, polls and cancels equity orders at Robinhood (``rh``)."""

    def __init__(
        self,
        rh: Robinhood,
        *,
        lookup_pages: int = DEFAULT_LOOKUP_PAGES,
        paper: bool = False,
        by_ref: OrderByRef | None = None,
    ) -> None:
        if lookup_pages < 1:
            raise ValueError("lookup_pages must be at least 1")
        self._rh = rh
        self._lookup_pages = lookup_pages
        self._paper = paper
        self._by_ref = by_ref

    @property
    def paper(self) -> bool:
        """True over a paper caller (``ordergate.venues.paper``): nothing reaches a market."""
        return self._paper

    async def review(self, ticket: Ticket) -> Review:
        """The broker's checks and quote for the ticket, and the terms priced from that quote."""
        request = order_request(ticket)
        try:
            answer = await self._rh.equity.review_order(request)
        except BusinessError as error:
            raise _refusal(error) from None
        except Exception as error:
            raise no_answer("review", error) from None
        proposal = ticket.proposal
        if answer.symbol.upper() != proposal.symbol.upper() or answer.side is not proposal.side:
            raise NoAnswer("review: the broker answered for another order")
        data = answer.quote_data
        quote = None if data is None else venue_quote(data, proposal.symbol)
        return Review(
            terms=estimate_terms(proposal, quote),
            quote=quote,
            checks_passed=answer.order_checks.passed,
            broker_approval_required=answer.customer_approval_required is True,
        )

    async def place(self, ticket: Ticket) -> Placement:
        """Send the ticket under its ``ref_id``; what the broker answered, never a fill."""
        request = order_request(ticket)
        return await placement(self._rh.equity.place_order(request), broker_order, ticket.ref_id)

    async def lookup(self, ticket: Ticket, *, since: datetime) -> BrokerOrder | None:
        """The ticket's order (by ``ref_id``) among the symbol's orders created since ``since``:
        read by its key when the venue offers that (``by_ref``), else found in the listing."""
        if self._by_ref is not None:
            return await self._lookup_by_ref(self._by_ref, ticket, since)
        try:
            async for order in self._rh.equity.iter_orders(
                ticket.account,
                symbol=ticket.proposal.symbol,
                created_at_gte=since,
                max_pages=self._lookup_pages,
            ):
                if parse_ref_id(order.ref_id) == ticket.ref_id:
                    return broker_order(order)
        except Exception as error:
            raise no_answer("lookup", error) from None
        return None

    async def _lookup_by_ref(
        self, by_ref: OrderByRef, ticket: Ticket, since: datetime
    ) -> BrokerOrder | None:
        try:
            order = await by_ref(ticket.account, str(ticket.ref_id))
        except Exception as error:
            raise no_answer("lookup", error) from None
        if order is None or parse_ref_id(order.ref_id) != ticket.ref_id:
            return None
        if order.symbol.strip().upper() != ticket.proposal.symbol.strip().upper():
            return None  # not among the symbol's orders, as the listing asks for them
        return broker_order(order) if order.created_at >= since else None

    async def poll(self, account: str, order_id: str) -> BrokerOrder:
        """The order as the broker reports it now."""
        try:
            order = await self._rh.equity.order(account, order_id)
        except Exception as error:
            raise no_answer("poll", error) from None
        return broker_order(order)

    async def cancel(self, account: str, order_id: str) -> None:
        """Ask the broker to cancel; read the order back (``poll``) for its final state."""
        try:
            await self._rh.equity.cancel_order(account, order_id)
        except BusinessError as error:
            raise _refusal(error) from None
        except Exception as error:
            raise no_answer("cancel", error) from None
