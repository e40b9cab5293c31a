"""``RobinhoodOptions``: the ``OptionLane`` over the typed client's option tools.

A ticket becomes one ``OptionOrderRequest`` (its legs, quantity, type, net price, direction,
time in force, ``ref_id`` = the ticket's id) and nothing else is sent. Failures read as the
equity executor's (``_orders``): the venue's refusal is ``BrokerRefusal``, a request the
client refuses before sending ``BrokerRefusal("invalid_order", field)``, anything else
``NoAnswer``.

An order reads back as a ``BrokerOrder`` of strategy units: one fill per execution of its
first leg (the venue fills every leg together), priced at the net premium of one unit in
dollars — the legs' executions at that index, each ``sign × ratio × price``, × 100.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any
from uuid import UUID

from pydantic import ValidationError

from ordergate.client import BusinessError, Robinhood, field_name
from ordergate.client.options import OptionLegRequest, OptionOrderRequest
from ordergate.client.options import OptionOrder as WireOptionOrder
from ordergate.client.options import OptionQuote as WireOptionQuote
from ordergate.core import ZERO, OptionDirection, OptionType, Side
from ordergate.policy import ProposalError
from ordergate.policy.options import (
    MULTIPLIER,
    OptionContract,
    OptionQuote,
    OptionTerms,
)
from ordergate.venues._options import (
    OptionAccount,
    OptionReview,
    OptionTicket,
    option_account,
)
from ordergate.venues._protocols import (
    AccountReader,
    BrokerFill,
    BrokerOrder,
    BrokerRefusal,
    NoAnswer,
    Placement,
)
from ordergate.venues.robinhood._mapping import no_answer, parse_ref_id, placement

__all__ = ["RobinhoodOptions", "option_request"]

_LOOKUP_PAGES = 5


def option_request(ticket: OptionTicket) -> OptionOrderRequest:
    """The one request a ticket may send; ``BrokerRefusal("invalid_order", field)`` when the
    client refuses it locally (nothing is sent)."""
    proposal = ticket.proposal
    try:
        return OptionOrderRequest(
            account_number=ticket.account,
            legs=tuple(
                OptionLegRequest(
                    option_id=leg.option_id,
                    side=leg.side,
                    position_effect=leg.position_effect,
                    ratio_quantity=leg.ratio,
                )
                for leg in proposal.legs
            ),
            quantity=proposal.quantity,
            direction=proposal.direction,
            type=proposal.order_type,
            price=proposal.limit_price,
            time_in_force=proposal.time_in_force,
            ref_id=ticket.ref_id,
        )
    except ValidationError as error:
        raise BrokerRefusal("invalid_order", field_name(tuple(error.errors()[0]["loc"]))) from None


def _quote(quote: WireOptionQuote) -> OptionQuote:
    return OptionQuote(
        option_id=quote.instrument_id,
        bid=quote.bid_price if quote.bid_price > 0 else None,
        ask=quote.ask_price if quote.ask_price > 0 else None,
        at=quote.updated_at,
    )


def _money(details: Mapping[str, Any], *names: str) -> Decimal | None:
    for name in names:
        value = details.get(name)
        if isinstance(value, str):
            try:
                return Decimal(value)
            except InvalidOperation:
                return None
    return None


def option_order(order: WireOptionOrder) -> BrokerOrder:
    """The venue's option order in strategy units (see the module docstring)."""
    legs = order.legs
    fills: list[BrokerFill] = []
    if legs:
        first = legs[0]
        for index, execution in enumerate(first.executions):
            net = ZERO
            for leg in legs:
                if index >= len(leg.executions):
                    break
                sign = 1 if leg.side is Side.BUY else -1
                net += sign * leg.ratio_quantity * leg.executions[index].price
            else:
                paid = net if order.direction is OptionDirection.DEBIT else -net
                fills.append(
                    BrokerFill(
                        id=execution.id,
                        quantity=execution.quantity / first.ratio_quantity,
                        price=paid * MULTIPLIER,
                        executed_at=execution.timestamp,
                    )
                )
    processed = order.processed_quantity
    average = None
    if processed > 0:
        average = order.processed_premium / processed
    return BrokerOrder(
        order_id=order.id,
        ref_id=parse_ref_id(order.ref_id),
        symbol=order.chain_symbol,
        side=Side.BUY if order.direction is OptionDirection.DEBIT else Side.SELL,
        state=order.state,
        quantity=order.quantity,
        cumulative_quantity=processed,
        average_price=average,
        fills=tuple(fills),
        reject_reason=order.reject_reason,
    )


def _same_terms(order: WireOptionOrder, ticket: OptionTicket) -> bool:
    """Whether the venue's ``order`` is of exactly ``ticket``'s terms."""
    proposal = ticket.proposal
    legs = {
        (leg.option_id, leg.side, leg.position_effect, leg.ratio_quantity) for leg in order.legs
    }
    wanted = {(leg.option_id, leg.side, leg.position_effect, leg.ratio) for leg in proposal.legs}
    price = proposal.limit_price
    return (
        legs == wanted
        and order.quantity == proposal.quantity
        and order.direction is proposal.direction
        and (price is None or order.price == price)
    )


class RobinhoodOptions:
    """Robinhood's options through the typed client ``rh``; the account's cash, buying
    power and shares from the equity lane's ``account`` reader."""

    def __init__(
        self, rh: Robinhood, account: AccountReader, *, lookup_pages: int = _LOOKUP_PAGES
    ) -> None:
        self._rh = rh
        self._account = account
        self._lookup_pages = lookup_pages

    async def contracts(self, option_ids: Sequence[str]) -> Mapping[str, OptionContract]:
        found: dict[str, OptionContract] = {}
        try:
            async for instrument in self._rh.options.iter_instruments(ids=list(option_ids)):
                try:
                    found[instrument.id] = OptionContract(
                        underlying=instrument.chain_symbol,
                        expiry=instrument.expiration_date,
                        strike=instrument.strike_price,
                        kind=OptionType(instrument.type),
                    )
                except (ProposalError, ValueError):
                    continue  # a contract the order path cannot name is not in the chain
        except BusinessError:
            return found  # the venue knows none of them
        except Exception as error:
            raise no_answer("contracts", error) from None
        return found

    async def quotes(self, option_ids: Sequence[str]) -> Mapping[str, OptionQuote]:
        try:
            answer = await self._rh.options.quotes(list(option_ids))
        except Exception:  # a leg without a quote is priced as unknown (fail closed)
            return {}
        return {
            result.quote.instrument_id: _quote(result.quote)
            for result in answer.results
            if result.quote is not None
        }

    async def holdings(self, account: str, underlying: str) -> OptionAccount:
        view = await self._account.read(account, underlying)
        return option_account(view, underlying, await self.held(account, underlying))

    async def held(self, account: str, underlying: str) -> Mapping[str, Decimal] | None:
        contracts: dict[str, Decimal] = {}
        try:
            async for position in self._rh.options.iter_positions(account):
                if position.chain_symbol.upper() != underlying.upper():
                    continue
                sign = -1 if position.type == "short" else 1
                contracts[position.option_id] = sign * position.quantity
        except Exception:
            return None  # unknown, not none held
        return contracts

    async def review(self, ticket: OptionTicket) -> OptionReview:
        request = option_request(ticket)
        try:
            answer = await self._rh.options.review_order(request)
        except BusinessError as error:
            raise BrokerRefusal(error.code, str(error)) from None
        except Exception as error:
            raise no_answer("review", error) from None
        if answer.direction is not ticket.proposal.direction:
            raise NoAnswer("review: the venue answered for another order")
        checks = answer.order_checks
        details = checks.details or {}
        alert = checks.alert_type or "none"
        premium = _money(details, "estimated_price")
        if premium is None:
            premium = answer.price
        cash = answer.collateral.cash if answer.collateral is not None else None
        collateral = cash.amount if cash is not None and cash.amount is not None else ZERO
        passed = details.get("passed")
        buying = details.get("buying_power")
        required = _money(buying, "required") if isinstance(buying, Mapping) else None
        return OptionReview(
            terms=OptionTerms(
                premium=None if premium is None else abs(premium),
                fees=answer.fees.total_fee if answer.fees is not None else ZERO,
                collateral=collateral,
                buying_power_effect=required,
                alerts=() if alert == "none" else (alert,),
            ),
            quotes={quote.instrument_id: _quote(quote) for quote in answer.option_quotes},
            checks_passed=passed if isinstance(passed, bool) else alert == "none",
            broker_approval_required=answer.customer_approval_required is True,
        )

    async def place(self, ticket: OptionTicket) -> Placement:
        request = option_request(ticket)
        return await placement(self._rh.options.place_order(request), option_order, ticket.ref_id)

    async def lookup(self, ticket: OptionTicket, *, since: datetime) -> BrokerOrder | None:
        """The ticket's order among the account's option orders created since ``since``: the
        one under its ``ref_id``, or — the captured option order carries no ``ref_id`` — the
        one of exactly its terms (legs, quantity, direction, net price) when no order
        carries one. ``None`` only when the walk saw every order since and none was it.
        Two orders of exactly its terms are no answer (``NoAnswer``): which one is the
        ticket's cannot be told, so neither is taken for it and its hold stays."""
        matched = []
        try:
            async for order in self._rh.options.iter_orders(
                ticket.account, created_at_gte=since, max_pages=self._lookup_pages
            ):
                if order.ref_id is not None:
                    if parse_ref_id(order.ref_id) == ticket.ref_id:
                        return option_order(order)
                elif _same_terms(order, ticket):
                    matched.append(order)
        except Exception as error:
            raise no_answer("lookup", error) from None
        if len(matched) > 1:
            raise NoAnswer(
                f"lookup: {len(matched)} option orders of exactly the ticket's terms and no "
                "ref_id: which one is the ticket's cannot be told"
            )
        return option_order(matched[0]) if matched else None

    async def poll(self, account: str, order_id: str) -> BrokerOrder:
        try:
            order = await self._rh.options.order(account, order_id)
        except Exception as error:
            raise no_answer("poll", error) from None
        return option_order(order)

    async def cancel(self, account: str, order_id: str) -> None:
        try:
            await self._rh.options.cancel_order(account, order_id)
        except BusinessError as error:
            raise BrokerRefusal(error.code, str(error)) from None
        except Exception as error:
            raise no_answer("cancel", error) from None

    async def exercise(self, account: str, option_id: str, quantity: int, *, ref_id: UUID) -> str:
        try:
            done = await self._rh.options.exercise(account, option_id, quantity, ref_id=ref_id)
        except BusinessError as error:
            raise BrokerRefusal(error.code, str(error)) from None
        except Exception as error:
            raise no_answer("exercise", error) from None
        return done.id

    async def cancel_exercise(self, account: str, option_id: str) -> tuple[str, ...]:
        try:
            withdrawn = await self._rh.options.cancel_exercise(account, option_id)
        except BusinessError as error:
            raise BrokerRefusal(error.code, str(error)) from None
        except Exception as error:
            raise no_answer("cancel_exercise", error) from None
        return tuple(item.id for item in withdrawn or ())
