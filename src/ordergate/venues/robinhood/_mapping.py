"""The typed client's answers as the execution protocols' plain values, one function each.

Shared by the live executor and the client-backed account reader, so a quote, an order or
a failure reads the same wherever it was fetched:

- ``venue_quote``: a venue quote (a review's ``quote_data`` or a ``get_equity_quotes`` entry)
  as a policy ``Quote``. A non-positive price is absent (``None``), as the policy treats it;
  ``as_of`` is the later of the venue's bid and ask times; a quote for another symbol is no
  quote at all (``None``), never a price borrowed from the wrong instrument.
- ``broker_order``: an ``EquityOrder`` as a ``BrokerOrder``: the ``OrderState`` when known
  and the broker's text otherwise, every execution as a ``BrokerFill``, and the ``ref_id``
  as a ``UUID`` only when it is one.
- ``placement``: the answer to placing an order, of any asset class, as a ``Placement``
  (``no_answer``: a failure to read one as ``NoAnswer``).
- ``describe``: an error as a short label for a note or a message: the tool and the error's
  code (and HTTP status), never its text, so no token or answer body can ride along.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from decimal import Decimal
from typing import Any, Protocol
from uuid import UUID

from ordergate.client import BusinessError, HTTPStatusError
from ordergate.client.equity import EquityOrder
from ordergate.core import ToolError
from ordergate.policy import Quote
from ordergate.venues._protocols import BrokerFill, BrokerOrder, BrokerRefusal, NoAnswer, Placement

__all__ = [
    "VenueQuote",
    "broker_order",
    "describe",
    "no_answer",
    "parse_ref_id",
    "placement",
    "venue_quote",
]


class VenueQuote(Protocol):
    """What a review's ``quote_data`` and a ``get_equity_quotes`` quote both carry."""

    @property
    def symbol(self) -> str: ...

    @property
    def bid_price(self) -> Decimal: ...

    @property
    def ask_price(self) -> Decimal: ...

    @property
    def last_trade_price(self) -> Decimal: ...

    @property
    def venue_bid_time(self) -> datetime | None: ...

    @property
    def venue_ask_time(self) -> datetime | None: ...


def venue_quote(quote: VenueQuote, symbol: str) -> Quote | None:
    """``quote`` as a policy ``Quote`` for ``symbol``; ``None`` when it is for another one."""
    if quote.symbol.upper() != symbol.upper():
        return None
    times = [t for t in (quote.venue_bid_time, quote.venue_ask_time) if t is not None]
    return Quote(
        symbol=quote.symbol,
        bid=_price(quote.bid_price),
        ask=_price(quote.ask_price),
        last=_price(quote.last_trade_price),
        as_of=max(times) if times else None,
    )


def _price(value: Decimal) -> Decimal | None:
    return value if value > 0 else None


def parse_ref_id(text: str | None) -> UUID | None:
    """The broker's ``ref_id`` as a ``UUID``; ``None`` when absent or not a UUID."""
    if text is None:
        return None
    try:
        return UUID(text)
    except ValueError:
        return None


def broker_order(order: EquityOrder) -> BrokerOrder:
    """The order as the broker reported it, fills and all; nothing is inferred."""
    return BrokerOrder(
        order_id=order.id,
        ref_id=parse_ref_id(order.ref_id),
        symbol=order.symbol,
        side=order.side,
        state=order.state,
        quantity=order.quantity,
        cumulative_quantity=order.cumulative_quantity,
        average_price=order.average_price,
        fills=tuple(
            BrokerFill(
                id=execution.id,
                quantity=execution.quantity,
                price=execution.price,
                executed_at=execution.timestamp,
            )
            for execution in order.executions
        ),
        reject_reason=order.reject_reason,
    )


def describe(error: Exception) -> str:
    """``get_portfolio: http_status 503``; a non-client error by its type name only."""
    if not isinstance(error, ToolError):
        return type(error).__name__
    label = f"{error.tool}: {error.code}" if error.tool else error.code
    if isinstance(error, HTTPStatusError):
        label += f" {error.status}"
    return label


def no_answer(action: str, error: Exception) -> NoAnswer:
    """``action`` got no answer that can be read (``describe`` labels ``error``): the order
    may be live."""
    return NoAnswer(f"{action}: no usable answer from the venue ({describe(error)})")


async def placement(
    sending: Awaitable[Any], read: Callable[[Any], BrokerOrder], ref_id: UUID
) -> Placement:
    """What placing an order under ``ref_id`` came to, ``sending`` being the client's call
    (its answer's ``order`` is ``read`` into a ``BrokerOrder``): a refusal the venue gave is
    ``BrokerRefusal`` with its code; anything else that fails is ``NoAnswer``; an answer
    without an order awaits the broker's approval; an order under another ``ref_id`` is
    ``NoAnswer``, never taken for this one."""
    try:
        result = await sending
    except BusinessError as error:
        raise BrokerRefusal(error.code, str(error)) from None
    except Exception as error:
        raise no_answer("place", error) from None
    if result.order is None:
        return Placement(order=None, awaiting_broker_approval=True)
    order = read(result.order)
    if result.order.ref_id is not None and order.ref_id != ref_id:
        raise NoAnswer("place: the venue answered with an order under another ref_id")
    return Placement(order=order)
