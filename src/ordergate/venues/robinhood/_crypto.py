"""``McpCrypto``: the ``CryptoLane`` over the MCP's crypto tools (the typed client's
``rh.crypto``), named ``"mcp"``.

A ticket becomes one ``CryptoOrderRequest`` (its proposal's fields under the tool's names:
``quantity`` for ``asset_quantity``, ``dollar_amount`` for ``quote_amount``; ``ref_id`` = the
ticket's id; the account is the ``rhs_account_number``) and nothing else is sent. Answers are
read by ``LiveExecutor``'s rules: a refusal the venue gave (or a request the client refuses
before sending: ``invalid_order`` naming the field) is ``BrokerRefusal``; anything else is
``NoAnswer``. ``review`` is ``preview_crypto_order``: the terms are priced on the preview's own
quote by the policy's one formula (``estimate_crypto_terms``), with the units the venue
computed and its fees. ``read`` reads its parts at once (the brokerage account behind the
``rhs_account_number`` and its portfolio, the crypto holdings, the open crypto orders, the
pair's quote); a part that fails leaves its fields ``None`` with a note.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any, TypeVar

import anyio
from pydantic import ValidationError

from ordergate.client import BusinessError, Robinhood, field_name
from ordergate.client.accounts import Portfolio
from ordergate.client.crypto import CryptoOrder, CryptoOrderRequest, CryptoPosition
from ordergate.client.crypto import CryptoQuote as WireQuote
from ordergate.core import ZERO, CryptoOrderState, OrderState
from ordergate.policy import (
    CryptoPairRules,
    CryptoQuote,
    CryptoTerms,
    Position,
    estimate_crypto_terms,
)
from ordergate.venues._crypto import CryptoReview, CryptoTicket, CryptoView
from ordergate.venues._protocols import (
    BrokerFill,
    BrokerOrder,
    BrokerRefusal,
    NoAnswer,
    Placement,
)
from ordergate.venues.robinhood._mapping import describe, no_answer, parse_ref_id, placement

__all__ = ["McpCrypto", "crypto_broker_order", "crypto_request", "crypto_state"]

T = TypeVar("T")

_LOOKUP_PAGES = 5
_STATES: dict[CryptoOrderState, OrderState] = {
    CryptoOrderState.NEW: OrderState.NEW,
    CryptoOrderState.QUEUED: OrderState.QUEUED,
    CryptoOrderState.CONFIRMED: OrderState.CONFIRMED,
    CryptoOrderState.PARTIALLY_FILLED: OrderState.PARTIALLY_FILLED,
    CryptoOrderState.FILLED: OrderState.FILLED,
    CryptoOrderState.CANCELED: OrderState.CANCELLED,
    CryptoOrderState.REJECTED: OrderState.REJECTED,
    CryptoOrderState.FAILED: OrderState.FAILED,
}


def crypto_state(state: CryptoOrderState | str) -> OrderState | str:
    """A crypto order's state (either lane's) in the port's words: ``canceled`` is
    ``cancelled``; a state the venue has not documented stays its text (counted open)."""
    return _STATES[state] if isinstance(state, CryptoOrderState) else state


def crypto_request(ticket: CryptoTicket) -> CryptoOrderRequest:
    """The one request a ticket may send; ``BrokerRefusal("invalid_order", field)`` when the
    client refuses it locally (nothing is sent)."""
    proposal = ticket.proposal
    try:
        return CryptoOrderRequest(
            rhs_account_number=ticket.account,
            symbol=proposal.pair,
            side=proposal.side,
            type=proposal.order_type,
            quantity=proposal.asset_quantity,
            dollar_amount=proposal.quote_amount,
            limit_price=proposal.limit_price,
            stop_price=proposal.stop_price,
            time_in_force=proposal.time_in_force,
            ref_id=ticket.ref_id,
        )
    except ValidationError as error:
        raise BrokerRefusal("invalid_order", field_name(tuple(error.errors()[0]["loc"]))) from None


def crypto_broker_order(order: CryptoOrder) -> BrokerOrder:
    """The crypto order as the venue reported it, its state read into ``OrderState``."""
    return BrokerOrder(
        order_id=order.id,
        ref_id=parse_ref_id(order.ref_id),
        symbol=order.symbol,
        side=order.side,
        state=crypto_state(order.state),
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


def crypto_quote(quote: WireQuote, pair: str) -> CryptoQuote | None:
    """``quote`` as the policy's ``CryptoQuote``; ``None`` when it is another pair's."""
    if quote.symbol.upper() != pair.upper():
        return None
    return CryptoQuote(
        pair=pair.upper(),
        bid=quote.bid_price if quote.bid_price > 0 else None,
        ask=quote.ask_price if quote.ask_price > 0 else None,
        at=quote.updated_at,
    )


class _Unreadable(Exception):
    pass


async def _part(name: str, read: Callable[[], Awaitable[T]], notes: list[str]) -> T | None:
    try:
        return await read()
    except _Unreadable as error:
        notes.append(f"{name}: {error}")
    except Exception as error:
        notes.append(f"{name}: unavailable ({describe(error)})")
    return None


class McpCrypto:
    """The MCP's crypto tools through ``rh`` (see the module rules)."""

    def __init__(self, rh: Robinhood, *, lookup_pages: int = _LOOKUP_PAGES) -> None:
        if lookup_pages < 1:
            raise ValueError("lookup_pages must be at least 1")
        self._rh = rh
        self._lookup_pages = lookup_pages

    @property
    def name(self) -> str:
        return "mcp"

    async def quote(self, pair: str) -> CryptoQuote | None:
        try:
            answer = await self._rh.crypto.quotes([pair])
        except Exception:
            return None
        for result in answer.results:
            quote = crypto_quote(result, pair)
            if quote is not None:
                return quote
        return None

    async def pairs(self) -> Mapping[str, CryptoPairRules]:
        rules: dict[str, CryptoPairRules] = {}
        try:
            async for pair in self._rh.crypto.iter_pairs():
                rules[pair.symbol.upper()] = CryptoPairRules(
                    pair=pair.symbol.upper(),
                    min_order_size=pair.min_order_size,
                    max_order_size=pair.max_order_size,
                    asset_increment=pair.min_order_quantity_increment
                    or pair.asset_currency.increment,
                    quote_increment=pair.min_order_price_increment or pair.quote_currency.increment,
                    tradable=pair.tradability == "tradable" and pair.display_only is not True,
                )
        except Exception as error:
            raise no_answer("pairs", error) from None
        return rules

    async def review(self, ticket: CryptoTicket) -> CryptoReview:
        """``preview_crypto_order``: the terms priced on its quote; places nothing."""
        request = crypto_request(ticket)
        try:
            answer = await self._rh.crypto.preview_order(request)
        except BusinessError as error:
            raise BrokerRefusal(error.code, str(error)) from None
        except Exception as error:
            raise no_answer("review", error) from None
        proposal = ticket.proposal
        if answer.symbol.upper() != proposal.pair or answer.side is not proposal.side:
            raise NoAnswer("review: the venue answered for another order")
        quote = None if answer.quote is None else crypto_quote(answer.quote, proposal.pair)
        estimate = estimate_crypto_terms(proposal, quote)
        quantity = estimate.quantity
        if proposal.quote_amount is not None and answer.quantity is not None:
            quantity = answer.quantity
        terms = CryptoTerms(
            price=estimate.price,
            quantity=quantity,
            notional=estimate.notional,
            fees=answer.fees if answer.fees is not None else ZERO,
        )
        checks = answer.order_checks
        return CryptoReview(
            terms=terms,
            quote=quote,
            checks_passed=None if checks is None else checks.passed,
            broker_approval_required=answer.customer_approval_required is True,
        )

    async def place(self, ticket: CryptoTicket) -> Placement:
        request = crypto_request(ticket)
        return await placement(
            self._rh.crypto.place_order(request), crypto_broker_order, ticket.ref_id
        )

    async def lookup(self, ticket: CryptoTicket, *, since: datetime) -> BrokerOrder | None:
        """The ticket's order (by ``ref_id``) among the pair's orders created since ``since``;
        ``NoAnswer`` when the listing fails or runs past ``lookup_pages`` pages."""
        cursor: str | None = None
        try:
            for _ in range(self._lookup_pages):
                page = await self._rh.crypto.orders(
                    ticket.account,
                    symbol=ticket.proposal.pair,
                    created_at_gte=since,
                    cursor=cursor,
                )
                for order in page.orders:
                    if parse_ref_id(order.ref_id) == ticket.ref_id:
                        return crypto_broker_order(order)
                if not page.next:
                    return None
                cursor = page.next
        except Exception as error:
            raise no_answer("lookup", error) from None
        raise NoAnswer("lookup: the listing ran past its pages")

    async def poll(self, account: str, order_id: str) -> BrokerOrder:
        try:
            order = await self._rh.crypto.order(account, order_id)
        except Exception as error:
            raise no_answer("poll", error) from None
        return crypto_broker_order(order)

    async def cancel(self, account: str, order_id: str) -> None:
        try:
            await self._rh.crypto.cancel_order(account, order_id)
        except BusinessError as error:
            raise BrokerRefusal(error.code, str(error)) from None
        except Exception as error:
            raise no_answer("cancel", error) from None

    async def read(self, account: str, pair: str | None) -> CryptoView:
        """Every part at once; a failed part is ``None`` with a note (never raises)."""
        notes: list[str] = []
        found: dict[str, Any] = {}

        async def run(name: str, read: Callable[[], Awaitable[Any]]) -> None:
            found[name] = await _part(name, read, notes)

        async with anyio.create_task_group() as group:
            group.start_soon(run, "portfolio", lambda: self._portfolio(account))
            group.start_soon(run, "holdings", lambda: self._holdings(account))
            group.start_soon(run, "open_orders", lambda: self._open_orders(account))
            if pair is not None:
                group.start_soon(run, "quote", lambda: self._quote(pair))
        portfolio: Portfolio | None = found.get("portfolio")
        holdings: dict[str, Position] | None = found.get("holdings")
        power = None if portfolio is None else portfolio.buying_power
        holding = None
        if holdings is not None and pair is not None:
            holding = holdings.get(_asset(pair), Position(quantity=ZERO, market_value=ZERO))
        return CryptoView(
            equity=None if portfolio is None else portfolio.total_value,
            cash=None if portfolio is None else portfolio.cash,
            buying_power=None if power is None else power.buying_power,
            crypto_equity=None
            if holdings is None
            else sum((held.market_value for held in holdings.values()), ZERO),
            holding=holding,
            open_orders=found.get("open_orders"),
            quote=found.get("quote"),
            notes=tuple(sorted(notes)),
        )

    async def _portfolio(self, rhs_account_number: str) -> Portfolio:
        accounts = await self._rh.accounts.accounts()
        matches = [a for a in accounts if a.rhs_account_number == rhs_account_number]
        if len(matches) != 1:
            raise _Unreadable(f"{len(matches)} brokerage accounts carry that rhs_account_number")
        return await self._rh.accounts.portfolio(matches[0].account_number)

    async def _holdings(self, account: str) -> dict[str, Position]:
        held: dict[str, Position] = {}
        async for position in self._rh.crypto.iter_positions(account):
            code = position.currency_code.upper()
            if code in held:
                raise _Unreadable(f"{code} is listed twice")
            held[code] = Position(quantity=position.quantity, market_value=_value(position))
        return held

    async def _open_orders(self, account: str) -> tuple[BrokerOrder, ...]:
        listed = [order async for order in self._rh.crypto.iter_orders(account, state_group="open")]
        return tuple(crypto_broker_order(order) for order in listed if not order.is_terminal)

    async def _quote(self, pair: str) -> CryptoQuote:
        quote = await self.quote(pair)
        if quote is None:
            raise _Unreadable(f"no quote for {pair}")
        return quote


def _asset(pair: str) -> str:
    return pair.upper().rsplit("-", 1)[0]


def _value(position: CryptoPosition) -> Decimal:
    if position.market_value is not None:
        return position.market_value
    if position.mark_price is not None:
        return position.quantity * position.mark_price
    raise _Unreadable(f"no market value or mark for {position.currency_code}")
