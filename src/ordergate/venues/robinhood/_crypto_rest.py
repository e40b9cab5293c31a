"""``RestCrypto``: the ``CryptoLane`` over Robinhood's Crypto Trading REST API (the REST rail,
``ordergate.client.crypto_rest``), named ``"rest"``.

A ticket becomes one ``RestOrderRequest`` (the proposal's own field names; ``client_order_id``
= the ticket's id; no time in force on a market order, as the API takes it) and nothing else
is sent. Answers are read by ``LiveExecutor``'s rules: a refusal the venue gave (400/404/422),
or a request the client refuses before sending (``invalid_order`` naming the field), is
``BrokerRefusal``; anything else (no answer, a 5xx, a 401 on the key or the signature, an
unreadable answer, the client's rate limit) is ``NoAnswer``: after ``place`` the order may be
live, and ``lookup`` finds it by ``client_order_id``. Never re-sent here.

- ``quote``: the pair's best bid and ask as the API quotes them to this account (a sell
  fetches ``bid_inclusive_of_sell_spread``, a buy pays ``ask_inclusive_of_buy_spread``).
- ``review``: ``estimated_price`` for the order's units on its side (a buy on the ask, a
  sell on the bid), priced by the policy's one formula (``estimate_crypto_terms``) on the
  quote the estimate gives. An order in dollars is sized at the best bid/ask's far side
  first, since the API estimates units only. Nothing is placed; the spread is in the price,
  so no fee is added.
- The API trades the account its key belongs to (``account_number`` of its accounts
  answer, read once): both lanes must place into one account, so the order's account (the
  ``rhs_account_number`` the MCP trades) must be that number. A read, review or ticket naming
  another account is refused (``crypto_account_mismatch``) before anything is sent.
- An order's state is the API's: ``open`` (accepted, nothing filled) reads as
  ``confirmed``; the rest by their names (``canceled`` is ``cancelled``).
- ``read``: the key's account (``buying_power`` is its cash), its holdings valued at each
  pair's mark (``price``), its ``open`` and ``partially_filled`` orders and the pair's
  quote; ``equity`` is the crypto account's own (buying power plus holdings). A part that
  fails leaves its fields ``None`` with a note, so the policy refuses on what it needs
  (never a zero read for an unknown).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from decimal import ROUND_DOWN, Decimal
from typing import Any, Literal

import anyio
from pydantic import ValidationError

from ordergate.client import BusinessError, HTTPStatusError, field_name
from ordergate.client.crypto_rest import (
    CryptoRest,
    RateLimitWait,
    RestBestBidAsk,
    RestHolding,
    RestOrder,
    RestOrderRequest,
)
from ordergate.core import ZERO, CryptoOrderType, OrderState, Side, wire_time
from ordergate.policy import (
    CryptoPairRules,
    CryptoQuote,
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
from ordergate.venues.robinhood._crypto import crypto_state
from ordergate.venues.robinhood._mapping import describe, parse_ref_id

__all__ = ["RestCrypto", "rest_broker_order", "rest_request"]

ACCOUNT_MISMATCH = "crypto_account_mismatch"
_MISMATCH = "the Crypto Trading API key trades another account than the order's"

_ESTIMATE_STEP = Decimal("0.00000001")
_OPEN = "open"  # the API's one state for an order accepted and not yet filled
_OPEN_STATES = (_OPEN, "partially_filled")
_CONFIGS = (
    "market_order_config",
    "limit_order_config",
    "stop_loss_order_config",
    "stop_limit_order_config",
)


def rest_request(ticket: CryptoTicket) -> RestOrderRequest:
    """The one request a ticket may send; ``BrokerRefusal("invalid_order", field)`` when the
    client refuses it locally (nothing is sent)."""
    proposal = ticket.proposal
    market = proposal.order_type is CryptoOrderType.MARKET
    try:
        return RestOrderRequest(
            client_order_id=ticket.ref_id,
            symbol=proposal.pair,
            side=proposal.side,
            type=proposal.order_type,
            asset_quantity=proposal.asset_quantity,
            quote_amount=proposal.quote_amount,
            limit_price=proposal.limit_price,
            stop_price=proposal.stop_price,
            time_in_force=None if market else proposal.time_in_force,
        )
    except ValidationError as error:
        raise BrokerRefusal("invalid_order", field_name(tuple(error.errors()[0]["loc"]))) from None


def rest_broker_order(order: RestOrder) -> BrokerOrder:
    """The REST order as the venue reported it: its state read into ``OrderState``, the units
    it asked for (``None`` for an order in dollars), every execution a fill (the API names
    executions by their place in the order: ``<order id>:<n>``)."""
    config: dict[str, Any] = {}
    for name in _CONFIGS:
        config = getattr(order, name) or config
    asked = config.get("asset_quantity")
    return BrokerOrder(
        order_id=order.id,
        ref_id=parse_ref_id(order.client_order_id),
        symbol=order.symbol,
        side=order.side,
        state=OrderState.CONFIRMED if order.state == _OPEN else crypto_state(order.state),
        quantity=Decimal(asked) if isinstance(asked, str) else None,
        cumulative_quantity=order.filled_asset_quantity,
        average_price=order.average_price,
        fills=tuple(
            BrokerFill(
                id=f"{order.id}:{index}",
                quantity=execution.quantity,
                price=execution.effective_price,
                executed_at=execution.timestamp,
            )
            for index, execution in enumerate(order.executions)
        ),
    )


def rest_quote(row: RestBestBidAsk, pair: str) -> CryptoQuote | None:
    """A best bid/ask row as the policy's ``CryptoQuote``; ``None`` when it is another
    pair's. A non-positive price is absent."""
    if row.symbol.upper() != pair.upper():
        return None
    bid, ask = row.bid_inclusive_of_sell_spread, row.ask_inclusive_of_buy_spread
    return CryptoQuote(
        pair=pair.upper(),
        bid=bid if bid > 0 else None,
        ask=ask if ask > 0 else None,
        at=row.timestamp,
    )


def _failure(action: str, error: Exception) -> BrokerRefusal | NoAnswer:
    """A refusal when the venue (or the client, before sending) said no, else no answer."""
    if isinstance(error, BusinessError):
        return BrokerRefusal(error.code, str(error))
    if isinstance(error, HTTPStatusError) and error.status < 500:
        # Refused before it was acted on: the key, the signature, the time or the rate.
        return BrokerRefusal(f"http_{error.status}", f"{action}: {error}")
    if isinstance(error, RateLimitWait):
        return BrokerRefusal(error.code, f"{action}: {error}")
    return _unanswered(action, error)


def _unanswered(action: str, error: Exception) -> NoAnswer:
    return NoAnswer(f"{action}: no usable answer from the REST venue ({describe(error)})")


class _Unreadable(Exception):
    pass


def _asset(pair: str) -> str:
    return pair.upper().rsplit("-", 1)[0]


class RestCrypto:
    """The Crypto Trading REST API through ``rest`` (see the module rules). ``account``: the
    key's account number when it is known; else it is read once, on the first order."""

    def __init__(self, rest: CryptoRest, *, account: str | None = None) -> None:
        self._rest = rest
        self._account = account

    @property
    def name(self) -> str:
        return "rest"

    async def quote(self, pair: str) -> CryptoQuote | None:
        try:
            rows = await self._rest.best_bid_ask(pair)
        except Exception:
            return None
        for row in rows:
            quote = rest_quote(row, pair)
            if quote is not None:
                return quote
        return None

    async def pairs(self) -> Mapping[str, CryptoPairRules]:
        try:
            listed = await self._rest.trading_pairs()
        except Exception as error:
            raise _unanswered("pairs", error) from None
        return {
            pair.symbol.upper(): CryptoPairRules(
                pair=pair.symbol.upper(),
                min_order_size=pair.min_order_size,
                max_order_size=pair.max_order_size,
                asset_increment=pair.asset_increment,
                quote_increment=pair.quote_increment,
                tradable=pair.status == "tradable",
            )
            for pair in listed
        }

    async def review(self, ticket: CryptoTicket) -> CryptoReview:
        """``estimated_price`` for the ticket's units on its side; places nothing."""
        rest_request(ticket)
        await self._same_account(ticket, "review")
        proposal = ticket.proposal
        side: Literal["bid", "ask"] = "ask" if proposal.side is Side.BUY else "bid"
        try:
            units = proposal.asset_quantity
            if units is None:
                units = await self._units_of(proposal.pair, proposal.side, proposal.quote_amount)
            rows = await self._rest.estimated_price(proposal.pair, side, [units])
        except NoAnswer:
            raise
        except Exception as error:
            raise _failure("review", error) from None
        row = next((row for row in rows if row.side == side), None)
        quote = None if row is None else rest_quote(row, proposal.pair)
        if quote is None:
            raise NoAnswer("review: the venue estimated another order")
        estimate = estimate_crypto_terms(proposal, quote)
        return CryptoReview(terms=estimate, quote=quote)

    async def _units_of(self, pair: str, side: Side, dollars: Decimal | None) -> Decimal:
        """The units ``dollars`` buy or fetch at the best bid/ask's far side now."""
        quote = await self.quote(pair)
        far = None if quote is None else (quote.ask if side is Side.BUY else quote.bid)
        if far is None or dollars is None:
            raise NoAnswer("review: no best bid/ask to size the order in units")
        # An estimate's size: a unit of the finest step any pair trades in is exact enough.
        units = (dollars / far).quantize(_ESTIMATE_STEP, rounding=ROUND_DOWN)
        return max(units, _ESTIMATE_STEP)

    async def place(self, ticket: CryptoTicket) -> Placement:
        request = rest_request(ticket)
        await self._same_account(ticket, "place")
        try:
            placed = await self._rest.place_order(request)
        except Exception as error:
            raise _failure("place", error) from None
        order = rest_broker_order(placed)
        if order.ref_id != ticket.ref_id:
            raise NoAnswer("place: the venue answered with an order under another client_order_id")
        return Placement(order=order)

    async def lookup(self, ticket: CryptoTicket, *, since: datetime) -> BrokerOrder | None:
        """The ticket's order (by ``client_order_id``) among the pair's orders created since
        ``since``; ``NoAnswer`` when the listing fails or runs past the client's pages."""
        try:
            listed = await self._rest.orders(
                symbol=ticket.proposal.pair, created_at_start=wire_time(since)
            )
        except Exception as error:
            raise _unanswered("lookup", error) from None
        for order in listed:
            if parse_ref_id(order.client_order_id) == ticket.ref_id:
                return rest_broker_order(order)
        return None

    async def poll(self, account: str, order_id: str) -> BrokerOrder:
        try:
            order = await self._rest.order(order_id)
        except Exception as error:
            raise _unanswered("poll", error) from None
        return rest_broker_order(order)

    async def cancel(self, account: str, order_id: str) -> None:
        try:
            await self._rest.cancel_order(order_id)
        except Exception as error:
            raise _failure("cancel", error) from None

    async def read(self, account: str, pair: str | None) -> CryptoView:
        """Every part at once; a failed part is ``None`` with a note. ``BrokerRefusal``
        (``crypto_account_mismatch``) when the key's account is known and is not
        ``account``."""
        if self._account is not None and self._account != account:
            raise BrokerRefusal(ACCOUNT_MISMATCH, f"read: {_MISMATCH}")
        notes: list[str] = []
        found: dict[str, Any] = {}

        async def run(name: str, read: Callable[[], Awaitable[Any]]) -> None:
            try:
                found[name] = await read()
            except BrokerRefusal as refusal:
                found["refused"] = refusal
            except _Unreadable as error:
                notes.append(f"{name}: {error}")
            except Exception as error:
                notes.append(f"{name}: unavailable ({describe(error)})")

        async with anyio.create_task_group() as group:
            group.start_soon(run, "account", lambda: self._power(account))
            group.start_soon(run, "holdings", lambda: self._holdings(pair))
            group.start_soon(run, "open_orders", self._open_orders)
        refused: BrokerRefusal | None = found.get("refused")
        if refused is not None:
            raise refused
        power: Decimal | None = found.get("account")
        valued: tuple[dict[str, Position], CryptoQuote | None] | None = found.get("holdings")
        holdings, quote = (None, None) if valued is None else valued
        crypto_equity = (
            None
            if holdings is None
            else sum((held.market_value for held in holdings.values()), ZERO)
        )
        holding = None
        if holdings is not None and pair is not None:
            holding = holdings.get(_asset(pair), Position(quantity=ZERO, market_value=ZERO))
        return CryptoView(
            equity=None if power is None or crypto_equity is None else power + crypto_equity,
            cash=power,
            buying_power=power,
            crypto_equity=crypto_equity,
            holding=holding,
            open_orders=found.get("open_orders"),
            quote=quote,
            notes=tuple(sorted(notes)),
        )

    async def _account_number(self) -> str:
        if self._account is None:
            self._account = (await self._rest.account()).account_number
        return self._account

    async def _same_account(self, ticket: CryptoTicket, action: str) -> None:
        try:
            number = await self._account_number()
        except Exception as error:
            raise BrokerRefusal(
                "account_unreadable",
                f"{action}: the key's account cannot be read ({describe(error)})",
            ) from None
        if number != ticket.account:
            raise BrokerRefusal(ACCOUNT_MISMATCH, f"{action}: {_MISMATCH}")

    async def _power(self, account: str) -> Decimal:
        answer = await self._rest.account()
        self._account = answer.account_number
        if answer.account_number != account:
            raise BrokerRefusal(ACCOUNT_MISMATCH, f"read: {_MISMATCH}")
        return answer.buying_power

    async def _holdings(self, pair: str | None) -> tuple[dict[str, Position], CryptoQuote | None]:
        """Each holding valued at its pair's mark, and ``pair``'s quote, in one quote read."""
        listed: list[RestHolding] = await self._rest.holdings()
        codes = [held.asset_code.upper() for held in listed]
        if len(set(codes)) != len(codes):
            raise _Unreadable("an asset is listed twice")
        symbols = {f"{code}-USD" for code in codes if code != "USD"}
        if pair is not None:
            symbols.add(pair.upper())
        rows = await self._rest.best_bid_ask(*sorted(symbols)) if symbols else []
        marks = {row.symbol.upper(): row for row in rows}
        held: dict[str, Position] = {}
        for holding in listed:
            code = holding.asset_code.upper()
            row = marks.get(f"{code}-USD")
            if row is None or row.price <= 0:
                raise _Unreadable(f"no mark for {code}")
            held[code] = Position(
                quantity=holding.total_quantity, market_value=holding.total_quantity * row.price
            )
        quote = None
        if pair is not None and pair.upper() in marks:
            quote = rest_quote(marks[pair.upper()], pair)
        return held, quote

    async def _open_orders(self) -> tuple[BrokerOrder, ...]:
        """The API's open and partially filled orders: two listings bounded by what is open,
        not by the account's history."""
        listed = [order for state in _OPEN_STATES for order in await self._rest.orders(state=state)]
        return tuple(rest_broker_order(order) for order in listed if not order.ended)
