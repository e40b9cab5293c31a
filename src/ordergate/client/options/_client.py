"""The option tools: research (chains, contracts, quotes, bars), positions, orders, exercises.

Every method raises what the ``Caller`` raises (``TransportError``, ``BusinessError`` …) and
``ResponseParseError`` for an answer it cannot read. Business refusals are always raised.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import date, datetime
from decimal import Decimal
from uuid import UUID, uuid4

from ordergate.client._arguments import iso_day, joined, present, text, wire_time
from ordergate.client._caller import Caller
from ordergate.client._fields import NullableList
from ordergate.client._models import WireModel, parse_model
from ordergate.client._orders import (
    PlaceResult,
    check_cancel_accepted,
    parse_place_result,
    single_order,
)
from ordergate.client._pages import MAX_PAGES, walk_pages
from ordergate.client.options._enums import OptionType, PositionType
from ordergate.client.options._models import (
    OptionChain,
    OptionExercise,
    OptionHistoricals,
    OptionInstrument,
    OptionInstrumentsPage,
    OptionOrder,
    OptionOrdersPage,
    OptionPosition,
    OptionPositionsPage,
    OptionQuotes,
)
from ordergate.client.options._requests import OptionOrderRequest
from ordergate.client.options._review import OptionReview
from ordergate.core import OrderState, PlacedAgent, to_wire

__all__ = ["OptionsClient"]

TOOL_CHAINS = "get_option_chains"
TOOL_INSTRUMENTS = "get_option_instruments"
TOOL_QUOTES = "get_option_quotes"
TOOL_POSITIONS = "get_option_positions"
TOOL_ORDERS = "get_option_orders"
TOOL_HISTORICALS = "get_option_historicals"
TOOL_REVIEW_ORDER = "review_option_order"
TOOL_PLACE_ORDER = "place_option_order"
TOOL_CANCEL_ORDER = "cancel_option_order"
TOOL_EXERCISE = "exercise_option"
TOOL_CANCEL_EXERCISE = "cancel_option_exercise"


class _Chains(WireModel):
    chains: NullableList[OptionChain]


class _Exercised(WireModel):
    exercise: OptionExercise


class _Withdrawn(WireModel):
    exercises: NullableList[OptionExercise]


class OptionsClient:
    def __init__(self, caller: Caller) -> None:
        self._caller = caller

    # -- research --------------------------------------------------------------------------

    async def chains(
        self, *, underlying_symbol: str | None = None, ids: Sequence[str] | None = None
    ) -> list[OptionChain]:
        """Option chains of an underlying or by chain id (``get_option_chains``)."""
        data = await self._caller.call(
            TOOL_CHAINS, present(underlying_symbol=underlying_symbol, ids=joined(ids))
        )
        return parse_model(_Chains, data, tool=TOOL_CHAINS).chains

    async def instruments(
        self,
        *,
        chain_symbol: str | None = None,
        chain_id: str | None = None,
        ids: Sequence[str] | None = None,
        expiration_dates: Sequence[date] | None = None,
        strike_price: Decimal | None = None,
        type: OptionType | None = None,
        state: str | None = None,
        tradability: str | None = None,
        cursor: str | None = None,
    ) -> OptionInstrumentsPage:
        """One page of contracts of a chain, or by id (``get_option_instruments``)."""
        arguments = present(
            chain_symbol=chain_symbol,
            chain_id=chain_id,
            ids=joined(ids),
            expiration_dates=None
            if expiration_dates is None
            else ",".join(day.isoformat() for day in expiration_dates),
            strike_price=None if strike_price is None else to_wire(strike_price),
            type=text(type),
            state=state,
            tradability=tradability,
            cursor=cursor,
        )
        data = await self._caller.call(TOOL_INSTRUMENTS, arguments)
        return parse_model(OptionInstrumentsPage, data, tool=TOOL_INSTRUMENTS)

    async def iter_instruments(
        self,
        *,
        chain_symbol: str | None = None,
        chain_id: str | None = None,
        ids: Sequence[str] | None = None,
        expiration_dates: Sequence[date] | None = None,
        strike_price: Decimal | None = None,
        type: OptionType | None = None,
        state: str | None = None,
        tradability: str | None = None,
        max_pages: int = MAX_PAGES,
    ) -> AsyncIterator[OptionInstrument]:
        """Every matching contract across pages (bounded, see ``walk_pages``)."""

        async def fetch(cursor: str | None) -> OptionInstrumentsPage:
            return await self.instruments(
                chain_symbol=chain_symbol,
                chain_id=chain_id,
                ids=ids,
                expiration_dates=expiration_dates,
                strike_price=strike_price,
                type=type,
                state=state,
                tradability=tradability,
                cursor=cursor,
            )

        async for page in walk_pages(fetch, tool=TOOL_INSTRUMENTS, max_pages=max_pages):
            for instrument in page.instruments:
                yield instrument

    async def quotes(self, instrument_ids: Sequence[str]) -> OptionQuotes:
        """Quotes of up to 100 contracts; up to 20 also get closes (``get_option_quotes``)."""
        data = await self._caller.call(TOOL_QUOTES, {"instrument_ids": list(instrument_ids)})
        return parse_model(OptionQuotes, data, tool=TOOL_QUOTES)

    async def historicals(
        self,
        instrument_ids: Sequence[str],
        start_time: datetime,
        *,
        end_time: datetime | None = None,
        interval: str | None = None,
        bounds: str | None = None,
    ) -> OptionHistoricals:
        """Mark bars of up to 10 contracts (``get_option_historicals``); aware datetimes."""
        arguments = present(
            instrument_ids=list(instrument_ids),
            start_time=wire_time("start_time", start_time),
            end_time=wire_time("end_time", end_time),
            interval=interval,
            bounds=bounds,
        )
        data = await self._caller.call(TOOL_HISTORICALS, arguments)
        return parse_model(OptionHistoricals, data, tool=TOOL_HISTORICALS)

    # -- positions and orders --------------------------------------------------------------

    async def positions(
        self,
        account_number: str,
        *,
        nonzero: bool | None = None,
        chain_ids: Sequence[str] | None = None,
        option_ids: Sequence[str] | None = None,
        type: PositionType | None = None,
        option_type: OptionType | None = None,
        expiration_date: date | None = None,
        expiration_date_gte: date | None = None,
        expiration_date_lte: date | None = None,
        cursor: str | None = None,
    ) -> OptionPositionsPage:
        """One page of positions, open ones unless ``nonzero=False`` (``get_option_positions``)."""
        arguments = present(
            account_number=account_number,
            nonzero=nonzero,
            chain_ids=joined(chain_ids),
            option_ids=joined(option_ids),
            type=text(type),
            option_type=text(option_type),
            expiration_date=iso_day(expiration_date),
            expiration_date_gte=iso_day(expiration_date_gte),
            expiration_date_lte=iso_day(expiration_date_lte),
            cursor=cursor,
        )
        data = await self._caller.call(TOOL_POSITIONS, arguments)
        return parse_model(OptionPositionsPage, data, tool=TOOL_POSITIONS)

    async def iter_positions(
        self, account_number: str, *, nonzero: bool | None = None, max_pages: int = MAX_PAGES
    ) -> AsyncIterator[OptionPosition]:
        """Every position across pages (bounded, see ``walk_pages``)."""

        async def fetch(cursor: str | None) -> OptionPositionsPage:
            return await self.positions(account_number, nonzero=nonzero, cursor=cursor)

        async for page in walk_pages(fetch, tool=TOOL_POSITIONS, max_pages=max_pages):
            for position in page.positions:
                yield position

    async def orders(
        self,
        account_number: str,
        *,
        order_id: str | None = None,
        state: OrderState | None = None,
        created_at_gte: datetime | None = None,
        chain_ids: Sequence[str] | None = None,
        underlying_type: str | None = None,
        placed_agent: PlacedAgent | None = None,
        cursor: str | None = None,
    ) -> OptionOrdersPage:
        """One page of orders, newest first, filtered (``get_option_orders``)."""
        arguments = present(
            account_number=account_number,
            order_id=order_id,
            state=text(state),
            created_at_gte=wire_time("created_at_gte", created_at_gte),
            chain_ids=joined(chain_ids),
            underlying_type=underlying_type,
            placed_agent=text(placed_agent),
            cursor=cursor,
        )
        data = await self._caller.call(TOOL_ORDERS, arguments)
        return parse_model(OptionOrdersPage, data, tool=TOOL_ORDERS)

    async def iter_orders(
        self,
        account_number: str,
        *,
        state: OrderState | None = None,
        created_at_gte: datetime | None = None,
        chain_ids: Sequence[str] | None = None,
        placed_agent: PlacedAgent | None = None,
        max_pages: int = MAX_PAGES,
    ) -> AsyncIterator[OptionOrder]:
        """Every matching order, newest first, across pages (bounded)."""

        async def fetch(cursor: str | None) -> OptionOrdersPage:
            return await self.orders(
                account_number,
                state=state,
                created_at_gte=created_at_gte,
                chain_ids=chain_ids,
                placed_agent=placed_agent,
                cursor=cursor,
            )

        async for page in walk_pages(fetch, tool=TOOL_ORDERS, max_pages=max_pages):
            for order in page.orders:
                yield order

    async def order(self, account_number: str, order_id: str) -> OptionOrder:
        """One order by id; ``ResponseParseError`` when the listing does not hold exactly it."""
        page = await self.orders(account_number, order_id=order_id)
        return single_order(page.orders, order_id, tool=TOOL_ORDERS)

    async def review_order(self, request: OptionOrderRequest) -> OptionReview:
        """Checks, quotes, fees and collateral for ``request``; places nothing."""
        data = await self._caller.call(TOOL_REVIEW_ORDER, request.review_arguments())
        return parse_model(OptionReview, data, tool=TOOL_REVIEW_ORDER)

    async def place_order(self, request: OptionOrderRequest) -> PlaceResult[OptionOrder]:
        """Place ``request`` under its ``ref_id``: the order, or an approval to wait for.

        After a ``TransportError``, place the same request again: the same ``ref_id`` gets
        the same order back. Refusals raise ``BusinessError`` (``ORDER_REJECTED`` included).
        """
        data = await self._caller.call(TOOL_PLACE_ORDER, request.arguments())
        return parse_place_result(
            OptionOrder, data, tool=TOOL_PLACE_ORDER, ref_id=str(request.ref_id)
        )

    async def cancel_order(self, account_number: str, order_id: str) -> None:
        """Ask to cancel an open order; ``BusinessError`` when refused."""
        data = await self._caller.call(
            TOOL_CANCEL_ORDER, {"account_number": account_number, "order_id": order_id}
        )
        check_cancel_accepted(data, tool=TOOL_CANCEL_ORDER)

    # -- exercises -------------------------------------------------------------------------

    async def exercise(
        self,
        account_number: str,
        option_id: str,
        quantity: int,
        *,
        ref_id: UUID | None = None,
        reason: str | None = None,
        allow_shorts: bool | None = None,
    ) -> OptionExercise:
        """Exercise ``quantity`` long contracts at the next regular close (``exercise_option``).

        ``ref_id`` defaults to a fresh UUID; to retry after a ``TransportError``, pass the
        one the first attempt used (it is on the returned exercise too). ``ValueError`` for
        a quantity below 1.
        """
        if isinstance(quantity, bool) or quantity < 1:
            raise ValueError("quantity must be a whole number of at least 1")
        arguments = present(
            account_number=account_number,
            option_id=option_id,
            quantity=quantity,
            ref_id=str(ref_id or uuid4()),
            reason=reason,
            allow_shorts=allow_shorts,
        )
        data = await self._caller.call(TOOL_EXERCISE, arguments)
        return parse_model(_Exercised, data, tool=TOOL_EXERCISE).exercise

    async def cancel_exercise(self, account_number: str, option_id: str) -> list[OptionExercise]:
        """Withdraw the pending exercises of ``option_id``; the exercises withdrawn."""
        data = await self._caller.call(
            TOOL_CANCEL_EXERCISE, {"account_number": account_number, "option_id": option_id}
        )
        check_cancel_accepted(data, tool=TOOL_CANCEL_EXERCISE)
        return parse_model(_Withdrawn, data, tool=TOOL_CANCEL_EXERCISE).exercises
