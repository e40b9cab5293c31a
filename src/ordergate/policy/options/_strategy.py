"""What an option order is, from its legs and the account's holdings — never from the agent's
word — and the most it can lose.

``recognise`` names the shape (``Strategy``). A single short leg is judged against what the
account holds: a call sold to open is ``covered_call`` only when the shares of the underlying
held, less 100 for each short call already held on it, cover ``100 × ratio × quantity``; a
put sold to open is ``cash_secured_put`` only when the cash the caller gives covers
``strike × 100 × ratio × quantity``. Otherwise they are ``naked_call`` / ``naked_put``. An
order whose every leg closes is ``closing`` only when each leg closes a position held (a
sell closes a long of at least its contracts, a buy a short); any other mix is
``unrecognised``. Multi-leg shapes need equal ratios on every leg:

- two legs, one expiry, one kind, bought and sold at two strikes: ``debit_vertical`` when the
  bought leg is the dearer one (the lower call, the higher put), else ``credit_vertical``;
- two legs, one expiry, a call and a put on the same side: ``straddle`` (one strike) or
  ``strangle``;
- two legs, one kind and strike, the later expiry bought and the earlier sold: ``calendar``;
- four legs, one expiry: a put credit vertical below a call credit vertical is an
  ``iron_condor``, or an ``iron_butterfly`` when the short strikes meet.

``max_loss`` is the worst payoff at the earliest expiry over every underlying price from 0
up, net of the premium, for the whole order (``× 100 × quantity``); ``None`` when it is
unbounded (a call sold with nothing over it: a naked call, a short straddle, a ratio leaving
a call uncovered). It is exact: the payoff is piecewise linear with kinks at the strikes,
so its minimum is at 0, at a strike, or — when it falls past the top strike — unbounded.
A leg that outlives the earliest expiry is valued against the order: bought, at its
intrinsic value (an option is worth at least that); sold, at its ceiling (a call at the
underlying's price, a put at its strike). A covered call counts the shares it is covered
by as delivered at its strike: its loss is what those shares lose below the strike, less
the credit — ``(strike − credit) × 100 × quantity``, as for its twin, the cash-secured put.
A ``closing`` order only gives back risk the account holds: its max loss is zero.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from ordergate.core import ZERO, OptionDirection, OptionType, Side
from ordergate.policy._options_config import Strategy
from ordergate.policy.options._proposal import (
    MULTIPLIER,
    OptionContract,
    OptionLeg,
    OptionProposal,
)

__all__ = ["HeldOption", "OptionHoldings", "max_loss", "recognise"]

_CALL = OptionType.CALL
_PUT = OptionType.PUT
_BUY = Side.BUY
_SELL = Side.SELL


@dataclass(frozen=True, slots=True)
class HeldOption:
    """An option position: ``quantity`` contracts, negative when short."""

    contract: OptionContract
    quantity: int


@dataclass(frozen=True, slots=True)
class OptionHoldings:
    """What the account holds of one underlying, as recognition weighs it: ``shares`` of the
    underlying, the option positions by ``option_id``, and the ``cash`` that may secure a put
    (``None``: unknown, so no put is counted as cash-secured)."""

    shares: Decimal = ZERO
    options: Mapping[str, HeldOption] | None = None
    cash: Decimal | None = None


_EMPTY: Mapping[str, HeldOption] = {}


def recognise(proposal: OptionProposal, holdings: OptionHoldings | None) -> Strategy:
    """The order's shape (see the module's docstring). No holdings: nothing is covered,
    secured or held."""
    legs = proposal.legs
    held = holdings if holdings is not None else OptionHoldings()
    opening = [leg.opens for leg in legs]
    if not any(opening):
        return _closing(proposal, held)
    if not all(opening):
        return Strategy.UNRECOGNISED
    if len(legs) == 1:
        return _single(legs[0], proposal.quantity, proposal.underlying, held)
    ratio = legs[0].ratio
    if any(leg.ratio != ratio for leg in legs):
        return Strategy.UNRECOGNISED
    if len(legs) == 2:
        return _pair(legs[0], legs[1])
    if len(legs) == 4:
        return _four(legs)
    return Strategy.UNRECOGNISED


def _closing(proposal: OptionProposal, held: OptionHoldings) -> Strategy:
    options = held.options if held.options is not None else _EMPTY
    for leg in proposal.legs:
        position = options.get(leg.option_id)
        contracts = leg.ratio * proposal.quantity
        if position is None:
            return Strategy.UNRECOGNISED
        if leg.side is _SELL and position.quantity < contracts:
            return Strategy.UNRECOGNISED
        if leg.side is _BUY and -position.quantity < contracts:
            return Strategy.UNRECOGNISED
    return Strategy.CLOSING


def _single(leg: OptionLeg, quantity: int, underlying: str, held: OptionHoldings) -> Strategy:
    contract = leg.contract
    contracts = leg.ratio * quantity
    if leg.side is _BUY:
        return Strategy.LONG_CALL if contract.kind is _CALL else Strategy.LONG_PUT
    if contract.kind is _CALL:
        # Shares already covering the short calls held are not free to cover another.
        committed = 0
        for position in (held.options or _EMPTY).values():
            if (
                position.quantity < 0
                and position.contract.kind is _CALL
                and position.contract.underlying == underlying
            ):
                committed -= position.quantity
        free = held.shares - committed * MULTIPLIER
        covered = free >= contracts * MULTIPLIER
        return Strategy.COVERED_CALL if covered else Strategy.NAKED_CALL
    cash = held.cash
    secured = cash is not None and cash >= contract.strike * MULTIPLIER * contracts
    return Strategy.CASH_SECURED_PUT if secured else Strategy.NAKED_PUT


def _pair(a: OptionLeg, b: OptionLeg) -> Strategy:
    first, second = a.contract, b.contract
    if first.expiry != second.expiry:
        if first.kind is not second.kind or first.strike != second.strike or a.side is b.side:
            return Strategy.UNRECOGNISED
        later = a if first.expiry > second.expiry else b
        return Strategy.CALENDAR if later.side is _BUY else Strategy.UNRECOGNISED
    if first.kind is second.kind:
        if a.side is b.side or first.strike == second.strike:
            return Strategy.UNRECOGNISED
        bought, sold = (a, b) if a.side is _BUY else (b, a)
        lower = bought.contract.strike < sold.contract.strike
        dearer = lower if first.kind is _CALL else not lower
        return Strategy.DEBIT_VERTICAL if dearer else Strategy.CREDIT_VERTICAL
    if a.side is not b.side:
        return Strategy.UNRECOGNISED
    return Strategy.STRADDLE if first.strike == second.strike else Strategy.STRANGLE


def _four(legs: tuple[OptionLeg, ...]) -> Strategy:
    expiry = legs[0].contract.expiry
    if any(leg.contract.expiry != expiry for leg in legs):
        return Strategy.UNRECOGNISED
    calls = [leg for leg in legs if leg.contract.kind is _CALL]
    puts = [leg for leg in legs if leg.contract.kind is _PUT]
    if len(calls) != 2 or len(puts) != 2:
        return Strategy.UNRECOGNISED
    if calls[0].side is calls[1].side or puts[0].side is puts[1].side:
        return Strategy.UNRECOGNISED
    long_call, short_call = (calls[0], calls[1]) if calls[0].side is _BUY else calls[::-1]
    long_put, short_put = (puts[0], puts[1]) if puts[0].side is _BUY else puts[::-1]
    short_call_strike = short_call.contract.strike
    short_put_strike = short_put.contract.strike
    if not (
        long_put.contract.strike < short_put_strike <= short_call_strike
        and short_call_strike < long_call.contract.strike
    ):
        return Strategy.UNRECOGNISED
    if short_put_strike == short_call_strike:
        return Strategy.IRON_BUTTERFLY
    return Strategy.IRON_CONDOR


def max_loss(proposal: OptionProposal, strategy: Strategy, net_price: Decimal) -> Decimal | None:
    """The most the order can lose at expiry in USD (``None``: unbounded), at the net price
    per share ``net_price`` (paid for a debit, received for a credit). See the module's
    docstring for how each kind of leg and a covered call's shares are counted."""
    if strategy is Strategy.CLOSING:
        return ZERO
    legs = proposal.legs
    earliest = legs[0].contract.expiry
    for leg in legs:
        if leg.contract.expiry < earliest:
            earliest = leg.contract.expiry
    # Per unit and per share, the payoff in the underlying's price S is piecewise linear:
    # its value at S = 0, its slope just above 0, and at each strike the slope rises by the
    # leg's weight (a call starts to pay there; a put stops paying there). Weights and slopes
    # are whole numbers (ratios): plain ints keep the hot path off Decimal where it can.
    value = -net_price if proposal.direction is OptionDirection.DEBIT else net_price
    slope = 0
    kinks: dict[Decimal, int] = {}
    for leg in legs:
        contract = leg.contract
        bought = leg.side is _BUY
        weight = leg.ratio if bought else -leg.ratio
        strike = contract.strike
        if bought or contract.expiry == earliest:
            if contract.kind is _PUT:
                value += weight * strike
                slope -= weight
            kinks[strike] = kinks.get(strike, 0) + weight
        elif contract.kind is _CALL:
            slope += weight  # sold, outliving the expiry: at most the underlying's price
        else:
            value += weight * strike  # sold, outliving the expiry: a put is worth its strike
    if strategy is Strategy.COVERED_CALL:
        # The covering shares, counted as delivered at the call's strike.
        shares = legs[0].ratio
        slope += shares
        value -= shares * legs[0].contract.strike
    worst = value
    at = ZERO
    for strike in sorted(kinks):
        value += slope * (strike - at)
        if value < worst:
            worst = value
        slope += kinks[strike]
        at = strike
    if slope < 0:
        return None  # it falls for ever past the top strike
    if worst >= 0:
        return ZERO
    return -worst * MULTIPLIER * proposal.quantity
