"""``PaperExecutor``: the order path's executor in paper mode. Nothing reaches a market.

It fills at the live quote from a ``QuoteSource`` and keeps its orders and fills in the
``PaperBook`` (the ledger's database), so paper state is shared and survives restarts.

Rules:

- Prices lean against the trader: a buy fills at the ask × (1 + slippage), a sell at the
  bid × (1 − slippage), rounded to the cent up for buys and down for sells. A dollar-amount
  order fills ``notional / price`` shares rounded down to 6 decimals.
- No usable price (absent, zero or negative) is never replaced by an invented one: a market
  order placed without one is refused (``no_price``); a resting order waits for one.
- Sessions: an order fills only while ``session(now)`` is one its ``market_hours`` covers
  (``SESSION_COVERAGE``); otherwise it is accepted and rests ``queued`` until a later
  ``poll`` finds the session open and a price.
- Limit orders fill only when marketable (buy: ask ≤ limit; sell: bid ≥ limit), at the
  slipped quote but never beyond the limit. Stop orders trigger when the quote crosses the
  stop (buy: ask ≥ stop; sell: bid ≤ stop), are remembered as ``triggered``, and then act
  as a market (``stop_market``) or limit (``stop_limit``) order.
- Every fill is whole: a paper order fills all at once or not at all (no partial fills).
- ``place`` refuses (``BrokerRefusal``) a buy whose estimated cost exceeds the cash not held
  by open buys (``insufficient_buying_power``) and a sell of more shares than are held and
  not already offered by open sells (``insufficient_shares``: no shorting on paper). The
  check and the order's record are one transaction. A ``ref_id`` already placed is not an
  error: the existing order is the answer, as at the broker.
- A database failure answers ``NoAnswer`` (the order may have been recorded: look it up).
- Good-for-day orders are not expired at the close: a resting paper order rests until it
  fills or is cancelled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_FLOOR, Decimal
from typing import TypeVar

import anyio
from sqlalchemy.exc import SQLAlchemyError

from ordergate.core import ZERO, Clock, OrderState, OrderType, Side
from ordergate.policy import (
    SESSION_COVERAGE,
    MarketSession,
    Proposal,
    Quote,
    Terms,
    estimate_terms,
)
from ordergate.store import blocking
from ordergate.venues import (
    BrokerOrder,
    BrokerRefusal,
    NoAnswer,
    Placement,
    QuoteSource,
    Review,
    Ticket,
)
from ordergate.venues._order_ids import new_paper_order_id
from ordergate.venues.paper._book import PaperAccount, PaperBook, PaperOrder
from ordergate.venues.paper._together import both

__all__ = [
    "Looked",
    "PaperExecutor",
    "buy_hold",
    "fetch_quotes",
    "fill_price",
    "sell_hold",
    "slipped",
    "usable",
]

T = TypeVar("T")

Looked = tuple[PaperOrder | None, tuple[PaperOrder, ...]]
"""What placing an order looks at in the book first: an order under its ``ref_id``, and the
account's open orders."""

CENT = Decimal("0.01")
SHARE_STEP = Decimal("0.000001")
_BPS = Decimal(10_000)


def usable(price: Decimal | None) -> Decimal | None:
    """A quote price, or ``None`` when it is absent or not positive."""
    return price if price is not None and price > 0 else None


def slipped(side: Side, price: Decimal, slippage_bps: int) -> Decimal:
    """``price`` moved against the trader by the slippage and rounded to the cent against
    them: a buy up, a sell down."""
    if side is Side.BUY:
        return (price * (1 + slippage_bps / _BPS)).quantize(CENT, ROUND_CEILING)
    return (price * (1 - slippage_bps / _BPS)).quantize(CENT, ROUND_FLOOR)


def fill_price(side: Side, quote: Quote | None, slippage_bps: int) -> Decimal | None:
    """What ``side`` fills at on ``quote``: the slipped ask (buy) or bid (sell); ``None`` when
    that side has no usable price or the slipped price rounds to nothing."""
    if quote is None:
        return None
    reference = usable(quote.ask if side is Side.BUY else quote.bid)
    if reference is None:
        return None
    price = slipped(side, reference, slippage_bps)
    return price if price > 0 else None


def buy_hold(proposal: Proposal, quote: Quote | None, slippage_bps: int) -> Decimal | None:
    """The cash an open buy holds: its dollar amount, its quantity at its limit, or at the
    slipped ask (a stop buy at no less than its stop). ``None`` when it cannot be priced."""
    if proposal.notional is not None:
        return proposal.notional
    assert proposal.quantity is not None
    if proposal.limit_price is not None:
        return proposal.quantity * proposal.limit_price
    price = fill_price(Side.BUY, quote, slippage_bps)
    if proposal.stop_price is not None:
        stop = slipped(Side.BUY, proposal.stop_price, slippage_bps)
        price = stop if price is None else max(price, stop)
    return None if price is None else proposal.quantity * price


def sell_hold(proposal: Proposal, quote: Quote | None, slippage_bps: int) -> Decimal | None:
    """The shares an open sell holds: its quantity, or a dollar amount's shares at its limit
    or the slipped bid (rounded up). ``None`` when it cannot be priced."""
    if proposal.quantity is not None:
        return proposal.quantity
    assert proposal.notional is not None
    price = proposal.limit_price
    if price is None:
        price = fill_price(Side.SELL, quote, slippage_bps)
        if price is not None and proposal.stop_price is not None:
            price = min(price, proposal.stop_price)
    if price is None:
        return None
    return (proposal.notional / price).quantize(SHARE_STEP, ROUND_CEILING)


async def fetch_quotes(quotes: QuoteSource, symbols: Iterable[str]) -> dict[str, Quote | None]:
    """Every symbol's quote, read concurrently; a failed read is ``None`` (fail closed)."""
    found: dict[str, Quote | None] = {}

    async def one(symbol: str) -> None:
        try:
            found[symbol] = await quotes.quote(symbol)
        except Exception:  # a quote source that breaks its promise still fails closed
            found[symbol] = None

    wanted = sorted(set(symbols))
    if not wanted:
        return found
    if len(wanted) == 1:  # the common case: no task group to run one read
        await one(wanted[0])
        return found
    async with anyio.create_task_group() as group:
        for symbol in wanted:
            group.start_soon(one, symbol)
    return found


class PaperExecutor:
    """An ``OrderExecutor`` that fills at the live quote and sends nothing to a market."""

    def __init__(
        self,
        book: PaperBook,
        quotes: QuoteSource,
        *,
        session: Callable[[datetime], MarketSession],
        clock: Clock,
        slippage_bps: int = 0,
    ) -> None:
        if isinstance(slippage_bps, bool) or not isinstance(slippage_bps, int):
            raise ValueError("slippage_bps must be an int")
        if not 0 <= slippage_bps < 10_000:
            raise ValueError("slippage_bps must be in [0, 10000)")
        self._book = book
        self._quotes = quotes
        self._session = session
        self._clock = clock
        self._slippage_bps = slippage_bps

    @property
    def paper(self) -> bool:
        return True

    async def review(self, ticket: Ticket) -> Review:
        """Terms from the quote with the slippage on market prices; unknown without a quote."""
        proposal = ticket.proposal
        quote = (await fetch_quotes(self._quotes, [proposal.symbol]))[proposal.symbol]
        if quote is None:
            return Review(terms=Terms(price=None, notional=None, quantity=None), quote=None)
        terms = estimate_terms(proposal, self._slipped_quote(quote))
        return Review(terms=terms, quote=quote, checks_passed=terms.price is not None)

    async def place(self, ticket: Ticket) -> Placement:
        """Record the order (after the buying-power or shares check) and fill it now when the
        session and the quote allow. A known ``ref_id`` answers its existing order."""
        placement, _ = await self.place_and_record(ticket, None)
        return placement

    def look(self, ticket: Ticket) -> Looked:
        """What the book holds that placing ``ticket`` looks at first (blocking): an order
        already placed under its ``ref_id``, and the account's open orders (to price what
        they hold). Inside a caller's transaction it reads there."""
        return self._book.placed(ticket.ref_id, ticket.account)

    async def place_and_record(
        self,
        ticket: Ticket,
        record: Callable[[BrokerOrder], T] | None,
        *,
        looked: Looked | None = None,
        reviewed: Quote | None = None,
    ) -> tuple[Placement, T | None]:
        """``place``, and ``record(order)`` (blocking: what the caller writes of the
        placement to the same database) inside the book's write transaction, so the paper
        venue's order and fill and the caller's record of them commit together or not at
        all; ``None`` when ``record`` was not called (an order this ``ref_id`` placed before:
        nothing new to record here). A database failure, the caller's included, answers
        ``NoAnswer`` (nothing was committed: the order is not at the paper venue). With
        ``looked`` (``look``'s answer, read just before) the book is not read again first.

        ``reviewed``: the symbol's quote the order was reviewed on just before (``review``'s,
        on which stage B passed it): a paper order placed right after its review fills at
        it, so the fill is what the policy approved, without a read of its own. A resting
        order fills later at the quote of the poll that finds it marketable."""
        try:
            return await self._place(ticket, record, looked, reviewed)
        except SQLAlchemyError as error:
            raise NoAnswer(f"the paper book did not answer: {type(error).__name__}") from None

    async def lookup(self, ticket: Ticket, *, since: datetime) -> BrokerOrder | None:
        try:
            order = await blocking(self._book.order_by_ref, ticket.ref_id)
        except SQLAlchemyError as error:
            raise NoAnswer(f"the paper book did not answer: {type(error).__name__}") from None
        if order is None or order.account != ticket.account or order.created_at < since:
            return None
        return order.broker_order()

    async def poll(self, account: str, order_id: str) -> BrokerOrder:
        """The order now, after trying to trigger or fill it at the current quote."""
        try:
            order = await blocking(self._book.order, order_id)
            if order is None or order.account != account:
                raise BrokerRefusal("order_not_found", order_id)
            if order.open and self._in_session(order):
                quote = (await fetch_quotes(self._quotes, [order.symbol]))[order.symbol]
                order = await blocking(self._advance, order, quote)
        except SQLAlchemyError as error:
            raise NoAnswer(f"the paper book did not answer: {type(error).__name__}") from None
        return order.broker_order()

    async def cancel(self, account: str, order_id: str) -> None:
        try:
            order = await blocking(self._book.order, order_id)
            if order is None or order.account != account:
                raise BrokerRefusal("order_not_found", order_id)
            await blocking(self._book.set_state, order_id, OrderState.CANCELLED)
        except BrokerRefusal as refusal:
            if refusal.code == "order_not_open":
                raise BrokerRefusal("order_not_cancellable", order_id) from None
            raise
        except SQLAlchemyError as error:
            raise NoAnswer(f"the paper book did not answer: {type(error).__name__}") from None

    # Internals ---------------------------------------------------------------------------

    async def _place(
        self,
        ticket: Ticket,
        then: Callable[[BrokerOrder], T] | None,
        looked: Looked | None,
        reviewed: Quote | None = None,
    ) -> tuple[Placement, T | None]:
        # The book's reads and writes run in a worker thread, never on the event loop (a
        # commit there would stall every other request the loop serves). What the book holds
        # (an order under this ref_id, the account's open orders) and the symbol's quote are
        # independent reads: made at once.
        proposal = ticket.proposal
        quotes: dict[str, Quote | None]
        if looked is None:
            (existing, open_orders), quotes = await both(
                blocking(self.look, ticket), fetch_quotes(self._quotes, [proposal.symbol])
            )
        else:
            existing, open_orders = looked
            given: dict[str, Quote | None] = {}
            if reviewed is not None:
                given[proposal.symbol] = reviewed
            wanted = {proposal.symbol} | {order.symbol for order in open_orders}
            quotes = given | await fetch_quotes(self._quotes, wanted - set(given))
        if existing is not None:
            return Placement(order=existing.broker_order()), None
        others = {order.symbol for order in open_orders} - set(quotes)
        if others:
            quotes.update(await fetch_quotes(self._quotes, others))
        quote = quotes[proposal.symbol]
        price = fill_price(proposal.side, quote, self._slippage_bps)
        if proposal.order_type is OrderType.MARKET and price is None:
            raise BrokerRefusal("no_price", f"no usable quote for {proposal.symbol}")

        def admit(account: PaperAccount) -> None:
            self._admit(proposal, account, quotes)

        def record() -> tuple[BrokerOrder, T | None]:
            # The order and, when it fills now, its fill, and the caller's record of them: one
            # transaction, one commit, not flushed: the venue's answer to a filing already
            # flushed (see write_transaction).
            with self._book.writing(durable=False):
                order, created = self._book.add_order(ticket, new_paper_order_id(), admit=admit)
                if created and self._in_session(order):
                    order = self._advance(order, quote)
                placed = order.broker_order()
                recorded = then(placed) if then is not None and created else None
            return placed, recorded

        placed, recorded = await blocking(record)
        return Placement(order=placed), recorded

    def _admit(
        self, proposal: Proposal, account: PaperAccount, quotes: Mapping[str, Quote | None]
    ) -> None:
        bps = self._slippage_bps
        if proposal.side is Side.BUY:
            held = [
                buy_hold(order.proposal, quotes.get(order.symbol), bps)
                for order in account.open_orders
                if order.side is Side.BUY
            ]
            need = buy_hold(proposal, quotes.get(proposal.symbol), bps)
            if need is None or None in held:
                raise BrokerRefusal("insufficient_buying_power", "an open buy cannot be priced")
            free = account.cash - sum((amount for amount in held if amount is not None), ZERO)
            if need > free:
                raise BrokerRefusal("insufficient_buying_power", f"needs {need}, has {free}")
            return
        offered = [
            sell_hold(order.proposal, quotes.get(order.symbol), bps)
            for order in account.open_orders
            if order.side is Side.SELL and order.symbol == proposal.symbol
        ]
        shares = sell_hold(proposal, quotes.get(proposal.symbol), bps)
        if shares is None or None in offered:
            raise BrokerRefusal("insufficient_shares", "a sell cannot be priced")
        free = account.positions.get(proposal.symbol, ZERO) - sum(
            (amount for amount in offered if amount is not None), ZERO
        )
        if shares > free:
            raise BrokerRefusal("insufficient_shares", f"sells {shares}, has {free}")

    def _in_session(self, order: PaperOrder) -> bool:
        return self._session(self._clock.now()) in SESSION_COVERAGE[order.proposal.market_hours]

    def _advance(self, order: PaperOrder, quote: Quote | None) -> PaperOrder:
        """Trigger and fill ``order`` at ``quote`` when it may; the order as it stands."""
        proposal = order.proposal
        buy = proposal.side is Side.BUY
        price = fill_price(proposal.side, quote, self._slippage_bps)
        if quote is None or price is None:
            return order
        reference = quote.ask if buy else quote.bid
        assert reference is not None
        triggered = order.triggered
        if proposal.stop_price is not None and not triggered:
            if reference < proposal.stop_price if buy else reference > proposal.stop_price:
                return order
            triggered = True
        limit = proposal.limit_price
        if limit is not None:
            if reference > limit if buy else reference < limit:
                if triggered and not order.triggered:
                    return self._book.mark_triggered(order.order_id)
                return order
            price = min(price, limit) if buy else max(price, limit)
        quantity = proposal.quantity
        if quantity is None:
            assert proposal.notional is not None
            quantity = (proposal.notional / price).quantize(SHARE_STEP, ROUND_DOWN)
        try:
            return self._book.add_fill(
                order.order_id, quantity=quantity, price=price, triggered=triggered
            )
        except BrokerRefusal:
            # Another process filled or cancelled it first: report it as it now stands.
            current = self._book.order(order.order_id)
            assert current is not None
            return current

    def _slipped_quote(self, quote: Quote) -> Quote:
        bid, ask = usable(quote.bid), usable(quote.ask)
        return Quote(
            symbol=quote.symbol,
            bid=None if bid is None else slipped(Side.SELL, bid, self._slippage_bps),
            ask=None if ask is None else slipped(Side.BUY, ask, self._slippage_bps),
            last=quote.last,
            as_of=quote.as_of,
        )
