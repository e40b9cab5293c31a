"""What secures short option contracts: a long contract of a spread, cash, or shares.

One pairing serves the rules (the legs an order opens) and the desk (the positions held):

- a short contract is covered by a long contract of the same type on the same underlying
  that expires no earlier (a spread, option level 3); the cash it then needs is the most the
  pair can lose at expiry, ``max(0, long strike - short strike) x 100`` for calls and
  ``max(0, short strike - long strike) x 100`` for puts. Each short takes the long that
  loses least (for a call the lowest strike, for a put the highest);
- a short put no long put covers needs its strike x 100 in cash (cash secured);
- a short call no long call covers needs 100 shares of the underlying (covered call).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from ordergate.core import ZERO, OptionPositionEffect
from ordergate.sandbox.market import MULTIPLIER, OptionInstrument, OptionType
from ordergate.sandbox.venue._options_model import OptionLeg

__all__ = ["Cover", "Holding", "cover", "opened", "uncovered_by_closing"]


@dataclass(frozen=True, slots=True)
class Holding:
    instrument: OptionInstrument
    contracts: int
    """Signed: long positive, short negative."""


@dataclass(slots=True)
class Cover:
    cash: dict[str, Decimal] = field(default_factory=dict)
    """Per short option id: the cash that secures its contracts."""
    calls: dict[str, int] = field(default_factory=dict)
    """Per underlying symbol: short call contracts that need 100 shares each."""
    alone: dict[str, int] = field(default_factory=dict)
    """Per short option id: its contracts no long contract covers (secured by cash or
    shares alone: what an assignment settles in shares)."""

    @property
    def total_cash(self) -> Decimal:
        return sum(self.cash.values(), ZERO)


def _loss(short: OptionInstrument, long: OptionInstrument) -> Decimal:
    """What one short contract covered by one long contract can lose at expiry."""
    if short.type is OptionType.CALL:
        width = long.strike_price - short.strike_price
    else:
        width = short.strike_price - long.strike_price
    return max(width, ZERO) * MULTIPLIER


@dataclass(slots=True)
class _Long:
    instrument: OptionInstrument
    left: int


def cover(holdings: Iterable[Holding]) -> Cover:
    """Pair the shorts of ``holdings`` with their longs (see the module docstring)."""
    longs: dict[tuple[str, OptionType], list[_Long]] = {}
    shorts: list[Holding] = []
    for holding in holdings:
        instrument = holding.instrument
        if holding.contracts > 0:
            key = (instrument.chain_id, instrument.type)
            longs.setdefault(key, []).append(_Long(instrument, holding.contracts))
        elif holding.contracts < 0:
            shorts.append(holding)
    result = Cover()
    for short in sorted(shorts, key=lambda h: (h.instrument.expires_at, h.instrument.strike_price)):
        instrument = short.instrument
        left = -short.contracts
        cash = ZERO
        candidates = sorted(
            (
                long
                for long in longs.get((instrument.chain_id, instrument.type), [])
                if long.left and long.instrument.expires_at >= instrument.expires_at
            ),
            key=lambda long: _loss(instrument, long.instrument),
        )
        for long in candidates:
            taken = min(left, long.left)
            long.left -= taken
            left -= taken
            cash += _loss(instrument, long.instrument) * taken
        if left:
            result.alone[instrument.id] = result.alone.get(instrument.id, 0) + left
        if left and instrument.type is OptionType.PUT:
            cash += instrument.strike_price * MULTIPLIER * left
        elif left:
            symbol = instrument.chain_symbol
            result.calls[symbol] = result.calls.get(symbol, 0) + left
        result.cash[instrument.id] = result.cash.get(instrument.id, ZERO) + cash
    return result


def opened(legs: Iterable[OptionLeg], quantity: int) -> list[Holding]:
    """The contracts an order's opening legs add (closing legs open nothing)."""
    return [
        Holding(leg.instrument, leg.sign * quantity * leg.ratio_quantity)
        for leg in legs
        if leg.position_effect is OptionPositionEffect.OPEN
    ]


def uncovered_by_closing(
    held: Iterable[Holding], legs: Iterable[OptionLeg], quantity: int
) -> Cover:
    """What an order's closing legs leave to secure anew: the cash and the short calls that
    their long contracts covered (a spread's long leg sold first leaves its short leg naked)."""
    after = {holding.instrument.id: holding for holding in held}
    before = cover(after.values())
    for leg in legs:
        if leg.position_effect is not OptionPositionEffect.CLOSE:
            continue
        contracts = after.get(leg.option_id, Holding(leg.instrument, 0)).contracts
        after[leg.option_id] = Holding(
            leg.instrument, contracts + leg.sign * quantity * leg.ratio_quantity
        )
    now = cover(after.values())
    extra = Cover()
    cash = now.total_cash - before.total_cash
    if cash > 0:
        extra.cash["closing"] = cash
    for symbol, calls in now.calls.items():
        more = calls - before.calls.get(symbol, 0)
        if more > 0:
            extra.calls[symbol] = more
    return extra
