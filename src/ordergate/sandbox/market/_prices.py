"""Price paths: the traded price of any instrument at any instant, shocks included.

Each instrument's path is ``base × (1 + noise offset)`` (see ``_noise``) evaluated at an
*effective* instant, times the factors of every shock applied at or before the real
instant:

- equities move through every Robinhood session (regular, extended, overnight with the
  fastest noise halved) and stand still while the market is closed, at the price the last
  session ended on; a non-tradeable (halted) listing stands still at its base price;
- indexes move only during regular sessions;
- crypto pairs move all the time.

Prices are carried as ints in nanodollars (1e-9 USD) until the last moment, then rounded
to the instrument's tick: equities to cents at or above $1 and to 1/100 cent below it,
crypto pairs to their ``quote_increment``, indexes to cents.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from ordergate.calendar import NyseCalendar, Session, SessionSpan
from ordergate.core import to_us
from ordergate.sandbox.market._noise import OFFSET_ONE, PriceNoise
from ordergate.sandbox.market._universe import CryptoPair, Equity, Index

__all__ = [
    "NANOS",
    "PriceModel",
    "PricePoint",
    "Shock",
    "price_exponent",
    "round_to",
    "tick_nanos",
    "to_decimal",
    "units_of",
]

NANOS = 1_000_000_000
_ONE_DOLLAR = NANOS


@dataclass(frozen=True, slots=True)
class Shock:
    """A jump of ``pct`` percent applied to a path from ``at_us`` onward."""

    at_us: int
    pct: Decimal
    numerator: int
    denominator: int


@dataclass(frozen=True, slots=True)
class PricePoint:
    """A price in ticks: ``units × 10**exponent`` dollars."""

    units: int
    exponent: int

    @property
    def tick_nanos(self) -> int:
        return tick_nanos(self.exponent)

    def decimal(self) -> Decimal:
        return to_decimal(self.units, self.exponent)


def to_decimal(units: int, exponent: int) -> Decimal:
    """``units × 10**exponent`` as a Decimal with exactly ``-exponent`` places."""
    return Decimal(units).scaleb(exponent)


def units_of(price: Decimal) -> PricePoint:
    """The inverse of ``to_decimal``: a price as whole ticks of its own last place."""
    sign, digits, exponent = price.as_tuple()
    if not isinstance(exponent, int):
        raise ValueError("only finite prices have ticks")
    units = int("".join(map(str, digits)) or "0")
    return PricePoint(-units if sign else units, exponent)


def price_exponent(nanos: int) -> int:
    """Equity tick rule: cents at or above $1, hundredths of a cent below."""
    return -2 if nanos >= _ONE_DOLLAR else -4


def _exponent_of(increment: Decimal) -> int:
    exponent = increment.normalize().as_tuple().exponent
    if not isinstance(exponent, int) or increment.normalize() != Decimal(1).scaleb(exponent):
        raise ValueError(f"price increment {increment} is not a power of ten")
    return exponent


def tick_nanos(exponent: int) -> int:
    """Nanodollars in one tick of ``10**exponent`` dollars (ticks are at least 1e-9)."""
    if exponent < -9:
        raise ValueError("ticks finer than a nanodollar are not supported")
    return int(10 ** (9 + exponent))


def round_to(nanos: int, exponent: int) -> PricePoint:
    tick = tick_nanos(exponent)
    return PricePoint((nanos + tick // 2) // tick, exponent)


class PriceModel:
    """Evaluates price paths for one seed and calendar; the only mutable state is shocks."""

    def __init__(self, noise: PriceNoise, calendar: NyseCalendar) -> None:
        self._noise = noise
        self._calendar = calendar
        self._shocks: dict[str, tuple[Shock, ...]] = {}
        self._closes: dict[tuple[str, int], int] = {}
        self._bases: dict[str, int] = {}
        self._crypto_exponents: dict[str, int] = {}
        self._close_us: dict[date, int] = {}

    @property
    def calendar(self) -> NyseCalendar:
        return self._calendar

    @property
    def noise(self) -> PriceNoise:
        return self._noise

    # -- shocks -------------------------------------------------------------------------

    def shock(self, key: str, pct: Decimal, at_us: int) -> Shock:
        """Multiply ``key``'s path by ``1 + pct/100`` from ``at_us`` on."""
        if not pct.is_finite() or pct <= -100:
            raise ValueError("a shock must leave the price positive (pct > -100)")
        numerator, denominator = (100 + pct).as_integer_ratio()
        return self._add(key, Shock(at_us, pct, numerator, denominator * 100))

    def split(self, key: str, ratio: Decimal, at_us: int) -> Shock:
        """Divide ``key``'s path by ``ratio`` (a ``ratio``-for-1 split) from ``at_us`` on,
        exactly (a 3-for-1 split is a third of the price, not 66.67 % off)."""
        if not ratio.is_finite() or ratio <= 0 or ratio == 1:
            raise ValueError("a split ratio must be positive and not 1")
        numerator, denominator = ratio.as_integer_ratio()
        pct = Decimal(denominator * 100) / Decimal(numerator) - 100
        return self._add(key, Shock(at_us, pct, denominator, numerator))

    def _add(self, key: str, shock: Shock) -> Shock:
        # Copy-on-write keeps readers on other threads seeing a consistent tuple.
        self._shocks[key] = tuple(
            sorted((*self._shocks.get(key, ()), shock), key=lambda s: s.at_us)
        )
        self._closes.clear()
        return shock

    def shocks(self, key: str) -> tuple[Shock, ...]:
        return self._shocks.get(key, ())

    def _shocked(self, key: str, nanos: int, us: int) -> int:
        for shock in self._shocks.get(key, ()):
            if shock.at_us > us:
                break
            nanos = nanos * shock.numerator // shock.denominator
        return nanos

    # -- raw paths ----------------------------------------------------------------------

    def _base(self, key: str, price: Decimal) -> int:
        found = self._bases.get(key)
        if found is None:
            found = self._bases[key] = int(price * NANOS)
        return found

    def _path(self, key: str, base: int, volatility: int, eff_us: int, damped: bool) -> int:
        offset = self._noise.offset(key, eff_us, volatility, damped=damped)
        return base * (OFFSET_ONE + offset) // OFFSET_ONE

    def equity_nanos(self, equity: Equity, us: int, span: SessionSpan) -> int:
        """The equity's unrounded price at ``us`` (which lies in ``span``)."""
        key = "equity:" + equity.symbol
        base = self._base(key, equity.base_price)
        if not equity.tradeable:
            return self._shocked(key, base, us)
        session = span.session
        if session is Session.CLOSED:
            nanos = self._path(key, base, equity.volatility, span.start_us, False)
        else:
            nanos = self._path(key, base, equity.volatility, us, session is Session.OVERNIGHT)
        return self._shocked(key, nanos, us)

    def equity_nanos_in(self, equity: Equity, us: int, session: Session) -> int:
        """The price at ``us`` as seen from a span of ``session`` (its left limit at an end)."""
        key = "equity:" + equity.symbol
        base = self._base(key, equity.base_price)
        if not equity.tradeable:
            return self._shocked(key, base, us)
        nanos = self._path(key, base, equity.volatility, us, session is Session.OVERNIGHT)
        return self._shocked(key, nanos, us)

    def index_nanos(self, index: Index, us: int, span: SessionSpan) -> int:
        key = "index:" + index.symbol
        base = self._base(key, index.base_level)
        if span.session is Session.REGULAR:
            eff = us
        elif span.last_regular_end_us is not None:
            eff = span.last_regular_end_us
        else:
            eff = span.start_us
        return self._shocked(key, self._path(key, base, index.volatility, eff, False), us)

    def index_nanos_at(self, index: Index, us: int) -> int:
        """The index level at ``us`` taken as an instant inside (or closing) a regular session."""
        key = "index:" + index.symbol
        base = self._base(key, index.base_level)
        return self._shocked(key, self._path(key, base, index.volatility, us, False), us)

    def crypto_nanos(self, pair: CryptoPair, us: int) -> int:
        key = "crypto:" + pair.symbol
        base = self._base(key, pair.base_price)
        return self._shocked(key, self._path(key, base, pair.volatility, us, False), us)

    def crypto_exponent(self, pair: CryptoPair) -> int:
        found = self._crypto_exponents.get(pair.symbol)
        if found is None:
            found = self._crypto_exponents[pair.symbol] = _exponent_of(pair.quote_increment)
        return found

    # -- closes -------------------------------------------------------------------------

    def calendar_close_us(self, day: date) -> int:
        """The regular close of session day ``day`` in epoch microseconds (memoised)."""
        found = self._close_us.get(day)
        if found is None:
            found = self._close_us[day] = to_us(self._calendar.regular_close(day))
        return found

    def equity_close(self, equity: Equity, day_close_us: int) -> int:
        """Unrounded regular-session close at ``day_close_us``; memoised until a shock."""
        cache_key = ("equity:" + equity.symbol, day_close_us)
        found = self._closes.get(cache_key)
        if found is None:
            found = self.equity_nanos_in(equity, day_close_us, Session.REGULAR)
            self._closes[cache_key] = found
        return found

    def index_close(self, index: Index, day_close_us: int) -> int:
        cache_key = ("index:" + index.symbol, day_close_us)
        found = self._closes.get(cache_key)
        if found is None:
            found = self._closes[cache_key] = self.index_nanos_at(index, day_close_us)
        return found
