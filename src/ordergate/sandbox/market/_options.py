"""Listed options: chains, contracts and their quotes, priced with Black–Scholes.

A chain lists, relative to the market date: the next six weekly expirations (Fridays) and
the third-Friday monthlies of the next six months, each moved to the session day before
when its Friday is a holiday. Strikes form a fixed grid around the underlying's base price
wide enough for everywhere its path can wander, so a contract's id (UUID5 of underlying,
expiration, type and strike) never changes while its price moves.

A premium is the Black–Scholes value at the underlying's current price (as the equity
quote sees it) with a smile on the implied volatility, never below intrinsic value, rounded
to the contract's tick (cents for penny-program underlyings; else cents below $3 and
nickels above). The contract multiplier is 100. Expired contracts stay resolvable by id,
``expired`` and ``untradable``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal
from enum import StrEnum

from ordergate.calendar import NEW_YORK, NyseCalendar, OutOfCalendar, Session, SessionSpan
from ordergate.core import SECOND_US, from_us, to_us
from ordergate.sandbox.market._blackscholes import Valuation, black_scholes, probability_above
from ordergate.sandbox.market._errors import UnknownInstrument
from ordergate.sandbox.market._noise import mix
from ordergate.sandbox.market._prices import NANOS, PriceModel
from ordergate.sandbox.market._universe import (
    NAMESPACE,
    Equity,
    EquityKind,
    OptionUnderlying,
    Tradability,
    Universe,
    instrument_uuid,
)

__all__ = [
    "MULTIPLIER",
    "MinTicks",
    "OptionChain",
    "OptionDesk",
    "OptionInstrument",
    "OptionQuote",
    "OptionType",
    "occ_symbol",
]

MULTIPLIER = Decimal(100)
RATE = Decimal("0.04")
_WEEKLIES = 6
_MONTHLIES = 6
_LOOKBACK = timedelta(days=42)
_SELLOUT = timedelta(minutes=15)
_YEAR_US = Decimal(365 * 86_400 * SECOND_US)
_CENT = Decimal("0.01")
_NICKEL = Decimal("0.05")
_CUTOFF = Decimal("3.00")
_STRIKE_PLACES = Decimal("0.0001")
_GREEK_PLACES = Decimal("0.000001")
_MIN_SIGMA = Decimal("0.05")


class OptionType(StrEnum):
    CALL = "call"
    PUT = "put"


@dataclass(frozen=True, slots=True)
class MinTicks:
    """Premium ticks: ``below_tick`` under ``cutoff_price``, ``above_tick`` at or above."""

    above_tick: Decimal
    below_tick: Decimal
    cutoff_price: Decimal

    def tick(self, price: Decimal) -> Decimal:
        return self.below_tick if price < self.cutoff_price else self.above_tick


_PENNY = MinTicks(_CENT, _CENT, _CUTOFF)
_NICKELS = MinTicks(_NICKEL, _CENT, _CUTOFF)


@dataclass(frozen=True, slots=True)
class OptionChain:
    """One underlying's option chain (``get_option_chains``)."""

    id: str
    symbol: str
    underlying_instrument_id: str
    expiration_dates: tuple[date, ...]
    strikes: tuple[Decimal, ...]
    min_ticks: MinTicks
    trade_value_multiplier: Decimal = MULTIPLIER
    can_open_position: bool = True
    cash_component: Decimal | None = None
    late_close_state: str = "disabled"
    extended_hours_state: str = "disabled"
    settle_on_open: bool = False
    sellout_time_to_expiration: int = int(_SELLOUT.total_seconds())


@dataclass(frozen=True, slots=True)
class OptionInstrument:
    """One option contract (``get_option_instruments``)."""

    id: str
    chain_id: str
    chain_symbol: str
    type: OptionType
    strike_price: Decimal
    expiration_date: date
    expires_at: datetime
    sellout_datetime: datetime
    state: str
    tradability: Tradability
    min_ticks: MinTicks
    occ_symbol: str
    trade_value_multiplier: Decimal = MULTIPLIER
    underlying_type: str = "equity"


@dataclass(frozen=True, slots=True)
class OptionQuote:
    """An option quote with every field ``get_option_quotes`` returns (wire names).

    Greeks, ``implied_volatility`` and the chances of profit are ``None`` once the contract
    has expired (its mark is then the intrinsic value at expiration).
    """

    instrument_id: str
    bid_price: Decimal
    bid_size: int
    ask_price: Decimal
    ask_size: int
    mark_price: Decimal
    adjusted_mark_price: Decimal
    break_even_price: Decimal
    high_fill_rate_buy_price: Decimal
    low_fill_rate_buy_price: Decimal
    high_fill_rate_sell_price: Decimal
    low_fill_rate_sell_price: Decimal
    previous_close_price: Decimal
    previous_close_date: date
    implied_volatility: Decimal | None
    delta: Decimal | None
    gamma: Decimal | None
    theta: Decimal | None
    vega: Decimal | None
    rho: Decimal | None
    open_interest: int
    volume: int
    chance_of_profit_long: Decimal | None
    chance_of_profit_short: Decimal | None
    underlying_price: Decimal
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class _Contract:
    underlying: OptionUnderlying
    equity: Equity
    type: OptionType
    strike: Decimal
    expiration: date

    @property
    def is_call(self) -> bool:
        return self.type is OptionType.CALL


def strike_step(equity: Equity) -> Decimal:
    """Strike spacing: finer for cheap stocks and for ETFs."""
    price = equity.base_price
    if price < 25:
        return Decimal("0.5")
    if price < 100 or (equity.kind is EquityKind.ETF and price < 1000):
        return Decimal(1)
    if price < 200:
        return Decimal("2.5")
    if price < 1000:
        return Decimal(5)
    return Decimal(10)


def strike_grid(equity: Equity) -> tuple[Decimal, ...]:
    """Every listed strike: the base price ± a band that grows with volatility."""
    step = strike_step(equity)
    band = min(Decimal("0.5"), max(Decimal("0.12"), Decimal(equity.volatility) / 400))
    low = (equity.base_price * (1 - band) / step).to_integral_value(ROUND_FLOOR)
    high = (equity.base_price * (1 + band) / step).to_integral_value(ROUND_CEILING)
    return tuple(
        (step * n).quantize(_STRIKE_PLACES) for n in range(max(1, int(low)), int(high) + 1)
    )


def _third_friday(year: int, month: int) -> date:
    first = date(year, month, 1)
    return first + timedelta(days=(4 - first.weekday()) % 7 + 14)


def _session_on_or_before(calendar: NyseCalendar, day: date) -> date:
    return day if calendar.is_session_day(day) else calendar.previous_session_day(day)


def expirations(calendar: NyseCalendar, today: date) -> list[date]:
    """Expirations listed on ``today``: six weeklies and six monthlies, on or after it."""
    fridays: set[date] = set()
    friday = today + timedelta(days=(4 - today.weekday()) % 7)
    for week in range(_WEEKLIES):
        fridays.add(friday + timedelta(weeks=week))
    year, month = today.year, today.month
    for _ in range(_MONTHLIES + 1):
        fridays.add(_third_friday(year, month))
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    listed = set()
    for day in fridays:
        if day > calendar.end:
            continue
        expiry = _session_on_or_before(calendar, day)
        if expiry >= today:
            listed.add(expiry)
    return sorted(listed)


def occ_symbol(symbol: str, expiration: date, kind: OptionType, strike: Decimal) -> str:
    """The contract's OCC symbol (root padded to six, ``YYMMDD``, ``C``/``P``, strike x 1000)."""
    root = symbol.replace(".", "")
    letter = "C" if kind is OptionType.CALL else "P"
    return f"{root:<6}{expiration:%y%m%d}{letter}{int(strike * 1000):08d}"


def _round(value: Decimal, tick: Decimal, rounding: str) -> Decimal:
    return ((value / tick).to_integral_value(rounding) * tick).quantize(tick)


class OptionDesk:
    """Chains, contracts and quotes for one market; remembers every contract it has listed."""

    def __init__(self, universe: Universe, model: PriceModel) -> None:
        self._universe = universe
        self._model = model
        self._contracts: dict[str, _Contract] = {}
        self._listed_on: set[date] = set()
        self._grids: dict[str, tuple[Decimal, ...]] = {}

    @property
    def _calendar(self) -> NyseCalendar:
        return self._model.calendar

    def _today(self, us: int) -> date:
        return from_us(us).astimezone(NEW_YORK).date()

    def _listed(self, symbol: str, us: int) -> list[date]:
        """Expirations still open at ``us`` (an expiring contract lists until its close)."""
        today = self._today(us)
        dates = expirations(self._calendar, today)
        if dates and dates[0] == today and us >= to_us(self._calendar.regular_close(today)):
            dates = dates[1:]
        return dates

    def chain_id(self, symbol: str) -> str:
        return instrument_uuid("option_chain", symbol)

    def chain(self, symbol: str, us: int) -> OptionChain:
        """The chain of ``symbol``; raises ``UnknownInstrument`` when it has no options."""
        underlying = self._universe.option_underlying(symbol)
        equity = self._universe.equity(underlying.symbol)
        return OptionChain(
            id=self.chain_id(equity.symbol),
            symbol=equity.symbol,
            underlying_instrument_id=equity.instrument_id,
            expiration_dates=tuple(self._listed(equity.symbol, us)),
            strikes=self._grid(equity),
            min_ticks=_PENNY if underlying.penny_program else _NICKELS,
        )

    def chain_by_id(self, chain_id: str, us: int) -> OptionChain:
        for underlying in self._universe.option_underlyings:
            if self.chain_id(underlying.symbol) == chain_id.lower():
                return self.chain(underlying.symbol, us)
        raise UnknownInstrument(chain_id)

    def _grid(self, equity: Equity) -> tuple[Decimal, ...]:
        found = self._grids.get(equity.symbol)
        if found is None:
            found = self._grids[equity.symbol] = strike_grid(equity)
        return found

    def _register(self, underlying: OptionUnderlying, expiration: date) -> list[str]:
        equity = self._universe.equity(underlying.symbol)
        ids = []
        for strike in self._grid(equity):
            for kind in (OptionType.CALL, OptionType.PUT):
                key = f"option:{equity.symbol}|{expiration.isoformat()}|{kind}|{strike}"
                contract_id = str(uuid.uuid5(NAMESPACE, key))
                if contract_id not in self._contracts:
                    self._contracts[contract_id] = _Contract(
                        underlying, equity, kind, strike, expiration
                    )
                ids.append(contract_id)
        return ids

    def instruments(
        self,
        symbol: str,
        us: int,
        *,
        expiration: date | None = None,
        option_type: OptionType | None = None,
        strike: Decimal | None = None,
    ) -> list[OptionInstrument]:
        """The open contracts of ``symbol``'s chain, filtered; by expiration, strike, type."""
        chain = self.chain(symbol, us)
        underlying = self._universe.option_underlying(symbol)
        found = []
        for day in chain.expiration_dates:
            if expiration is not None and day != expiration:
                continue
            for contract_id in self._register(underlying, day):
                contract = self._contracts[contract_id]
                if option_type is not None and contract.type is not option_type:
                    continue
                if strike is not None and contract.strike != strike:
                    continue
                found.append(self._instrument(contract_id, contract, us))
        return found

    def _contract(self, contract_id: str, us: int) -> _Contract:
        key = contract_id.lower()
        found = self._contracts.get(key)
        if found is None:
            self._list_recent(us)
            found = self._contracts.get(key)
        if found is None:
            raise UnknownInstrument(contract_id)
        return found

    def _list_recent(self, us: int) -> None:
        """Register every contract listed today or in the last six weeks."""
        today = self._today(us)
        if today in self._listed_on:
            return
        days: set[date] = set()
        for back in range(0, _LOOKBACK.days + 1, 7):
            anchor = today - timedelta(days=back)
            if anchor >= self._calendar.start:
                days.update(expirations(self._calendar, anchor))
        for underlying in self._universe.option_underlyings:
            for day in sorted(days):
                self._register(underlying, day)
        self._listed_on.add(today)

    def instrument(self, contract_id: str, us: int) -> OptionInstrument:
        """The contract with this id; raises ``UnknownInstrument``."""
        return self._instrument(contract_id.lower(), self._contract(contract_id, us), us)

    def _expires_at(self, contract: _Contract) -> datetime:
        return self._calendar.regular_close(contract.expiration)

    def _instrument(self, contract_id: str, contract: _Contract, us: int) -> OptionInstrument:
        expires_at = self._expires_at(contract)
        open_ = us < to_us(expires_at)
        return OptionInstrument(
            id=contract_id,
            chain_id=self.chain_id(contract.equity.symbol),
            chain_symbol=contract.equity.symbol,
            type=contract.type,
            strike_price=contract.strike,
            expiration_date=contract.expiration,
            expires_at=expires_at,
            sellout_datetime=expires_at - _SELLOUT,
            state="active" if open_ else "expired",
            tradability=Tradability.TRADABLE if open_ else Tradability.UNTRADABLE,
            min_ticks=_PENNY if contract.underlying.penny_program else _NICKELS,
            occ_symbol=occ_symbol(
                contract.equity.symbol, contract.expiration, contract.type, contract.strike
            ),
        )

    # -- pricing ------------------------------------------------------------------------

    def _spot(self, equity: Equity, us: int, span: SessionSpan) -> Decimal:
        return Decimal(self._model.equity_nanos(equity, us, span)) / NANOS

    def _sigma(self, contract: _Contract, spot: Decimal) -> Decimal:
        moneyness = (contract.strike / spot).ln()
        smile = 1 + Decimal("0.8") * moneyness * moneyness - Decimal("0.25") * moneyness
        return max(_MIN_SIGMA, contract.underlying.implied_volatility * smile)

    def _value(
        self, contract: _Contract, us: int, span: SessionSpan
    ) -> tuple[Decimal, Decimal, Valuation | None, Decimal, Decimal]:
        """(mark, spot, valuation, sigma, years) at ``us``; no valuation once expired."""
        expiry_us = to_us(self._expires_at(contract))
        if us >= expiry_us:
            us = expiry_us
            span = self._calendar.span_at_us(expiry_us - 1)
        spot = self._spot(contract.equity, us, span)
        strike = contract.strike
        intrinsic = max(Decimal(0), spot - strike if contract.is_call else strike - spot)
        years = Decimal(expiry_us - us) / _YEAR_US
        if years <= 0:
            return intrinsic, spot, None, Decimal(0), years
        sigma = self._sigma(contract, spot)
        valuation = black_scholes(contract.is_call, spot, strike, years, sigma, RATE)
        return max(intrinsic, valuation.price), spot, valuation, sigma, years

    def mark(self, contract_id: str, us: int, span: SessionSpan) -> Decimal:
        """The contract's mark at ``us`` rounded to its tick (used for bars too)."""
        contract = self._contract(contract_id, us)
        mark = self._value(contract, us, span)[0]
        ticks = _PENNY if contract.underlying.penny_program else _NICKELS
        return max(_CENT, _round(mark, ticks.tick(mark), ROUND_HALF_UP))

    def quote(self, contract_id: str, us: int) -> OptionQuote:
        contract = self._contract(contract_id, us)
        calendar = self._calendar
        span = calendar.span_at_us(us)
        raw, spot, valuation, sigma, years = self._value(contract, us, span)
        ticks = _PENNY if contract.underlying.penny_program else _NICKELS
        tick = ticks.tick(raw)
        mark = max(_CENT, _round(raw, tick, ROUND_HALF_UP))
        half = max(tick, _round(mark * Decimal("0.03"), tick, ROUND_CEILING))
        bid = max(Decimal(0), mark - half).quantize(_CENT)
        ask = (mark + half).quantize(_CENT)
        third = _round(half / 3, _CENT, ROUND_FLOOR)
        strike = contract.strike
        break_even = strike + mark if contract.is_call else strike - mark
        if span.previous_day is None:
            raise OutOfCalendar(from_us(us).isoformat())
        previous_day = span.previous_day
        close_us = self._model.calendar_close_us(previous_day)
        previous = self.mark(contract_id, close_us, calendar.span_at_us(close_us - 1))
        salt = mix(int(contract_id.replace("-", ""), 16) & ((1 << 64) - 1))
        distance = abs(strike - contract.equity.base_price) / contract.equity.base_price
        interest = (1 + salt % 4000) * max(1, 12 - int(distance * 60))
        traded = self._session_fraction(us, span)
        greeks = _greeks(contract, valuation, break_even, spot, years, sigma)
        sizes = mix(salt ^ (us // SECOND_US))
        return OptionQuote(
            instrument_id=contract_id.lower(),
            bid_price=bid,
            bid_size=1 + sizes % 150,
            ask_price=ask,
            ask_size=1 + (sizes >> 16) % 150,
            mark_price=mark,
            adjusted_mark_price=mark,
            break_even_price=break_even,
            high_fill_rate_buy_price=ask - third,
            low_fill_rate_buy_price=mark + third,
            high_fill_rate_sell_price=bid + third if bid > 0 else bid,
            low_fill_rate_sell_price=mark - third,
            previous_close_price=previous,
            previous_close_date=previous_day,
            implied_volatility=greeks[0],
            delta=greeks[1],
            gamma=greeks[2],
            theta=greeks[3],
            vega=greeks[4],
            rho=greeks[5],
            open_interest=interest,
            volume=interest * traded // 400,
            chance_of_profit_long=greeks[6],
            chance_of_profit_short=None if greeks[6] is None else 1 - greeks[6],
            underlying_price=spot.quantize(_STRIKE_PLACES),
            updated_at=from_us(us),
        )

    def _session_fraction(self, us: int, span: SessionSpan) -> int:
        """How far through today's regular session ``us`` is, in percent."""
        day = span.trading_day
        if day is None:
            return 0
        info = self._calendar.trading_day(day)
        opened, closed = to_us(info.regular_open), to_us(info.regular_close)
        if us <= opened or span.session in (Session.OVERNIGHT, Session.PRE_MARKET):
            return 0
        return min(100, (us - opened) * 100 // (closed - opened))


def _greeks(
    contract: _Contract,
    valuation: Valuation | None,
    break_even: Decimal,
    spot: Decimal,
    years: Decimal,
    sigma: Decimal,
) -> tuple[Decimal | None, ...]:
    """(iv, delta, gamma, theta, vega, rho, chance of profit long), rounded; ``None`` expired."""
    if valuation is None:
        return (None,) * 7
    above = probability_above(break_even, spot, years, sigma, RATE)
    chance = above if contract.is_call else 1 - above
    return tuple(
        value.quantize(_GREEK_PLACES)
        for value in (
            sigma,
            valuation.delta,
            valuation.gamma,
            valuation.theta,
            valuation.vega,
            valuation.rho,
            chance,
        )
    )
