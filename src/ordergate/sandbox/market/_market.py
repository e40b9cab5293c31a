"""``Market``: the sandbox venue's market, one object over prices, calendar and options.

Every price is a pure function of (seed, instrument, instant, shocks applied): asking twice
gives the same answer, asking in any order gives the same answers, and asking about the
past is as cheap as asking about now. The clock only says what "now" is; the market keeps
no state that advances with it, so stepped, accelerated and real-time clocks all work.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from ordergate.calendar import NyseCalendar, Session, SessionSpan
from ordergate.core import SECOND_US, Clock, from_us, to_us
from ordergate.sandbox.market._bars import (
    Bar,
    Bounds,
    Interval,
    build_bars,
    parse_bounds,
    parse_interval,
)
from ordergate.sandbox.market._errors import UnknownInstrument
from ordergate.sandbox.market._noise import PriceNoise, mix
from ordergate.sandbox.market._options import (
    OptionChain,
    OptionDesk,
    OptionInstrument,
    OptionQuote,
    OptionType,
)
from ordergate.sandbox.market._prices import PriceModel, price_exponent, round_to
from ordergate.sandbox.market._quotes import (
    Book,
    Close,
    CryptoQuote,
    IndexQuote,
    Quote,
    build_book,
    build_crypto_quote,
    build_index_quote,
    build_quote,
)
from ordergate.sandbox.market._universe import CryptoPair, Equity, Index, Universe

__all__ = ["Market"]

_REGULAR_DAY_US = 23_400 * SECOND_US
# Share of a regular second's volume traded in each session, in percent.
_VOLUME_SHARE = {
    Session.REGULAR: 100,
    Session.PRE_MARKET: 6,
    Session.AFTER_HOURS: 5,
    Session.OVERNIGHT: 2,
    Session.CLOSED: 0,
}


class _EquitySource:
    def __init__(self, market: Market, equity: Equity) -> None:
        self._model = market._model
        self._equity = equity
        self._salt = market._noise.salt(equity.symbol)

    def price(self, us: int, span: SessionSpan | None) -> Decimal:
        if span is None:
            span = self._model.calendar.span_at_us(us)
        nanos = self._model.equity_nanos(self._equity, us, span)
        return round_to(nanos, price_exponent(nanos)).decimal()

    def volume(self, start_us: int, end_us: int, session: Session) -> int:
        if not self._equity.tradeable:
            return 0
        jitter = 500 + mix(self._salt ^ start_us) % 1000
        return (
            self._equity.average_volume
            * (end_us - start_us)
            * _VOLUME_SHARE[session]
            * jitter
            // (_REGULAR_DAY_US * 100_000)
        )


class _IndexSource:
    def __init__(self, market: Market, index: Index) -> None:
        self._model = market._model
        self._index = index

    def price(self, us: int, span: SessionSpan | None) -> Decimal:
        if span is None:
            span = self._model.calendar.span_at_us(us)
        return round_to(self._model.index_nanos(self._index, us, span), -2).decimal()

    def volume(self, start_us: int, end_us: int, session: Session) -> int:
        return 0


class _CryptoSource:
    def __init__(self, market: Market, pair: CryptoPair) -> None:
        self._model = market._model
        self._pair = pair
        self._exponent = market._model.crypto_exponent(pair)
        self._salt = market._noise.salt(pair.symbol)

    def price(self, us: int, span: SessionSpan | None) -> Decimal:
        return round_to(self._model.crypto_nanos(self._pair, us), self._exponent).decimal()

    def volume(self, start_us: int, end_us: int, session: Session) -> int:
        # About $1bn a day whatever the pair, in whole units of the asset.
        dollars = (end_us - start_us) * (500 + mix(self._salt ^ start_us) % 1000) // 86_400_000
        price = self._model.crypto_nanos(self._pair, start_us)
        return dollars * 1_000_000_000 // max(1, price)


class _OptionSource:
    def __init__(self, market: Market, contract_id: str) -> None:
        self._desk = market._options
        self._calendar = market.calendar
        self._id = contract_id
        self._salt = mix(int(contract_id.replace("-", ""), 16) & ((1 << 64) - 1))

    def price(self, us: int, span: SessionSpan | None) -> Decimal:
        if span is None:
            span = self._calendar.span_at_us(us)
        return self._desk.mark(self._id, us, span)

    def volume(self, start_us: int, end_us: int, session: Session) -> int:
        return (end_us - start_us) * (mix(self._salt ^ start_us) % 200) // _REGULAR_DAY_US


class Market:
    """The simulated market of the sandbox venue.

    ``seed`` fixes every price path; ``clock`` says what "now" is; ``universe`` defaults to
    the standard listing and ``calendar`` to NYSE 2020–2030. Methods taking ``at`` default
    it to ``clock.now()``. Lookups raise ``UnknownInstrument`` (a ``MarketError``); instants
    outside the calendar raise ``OutOfCalendar`` (an ``ordergate.calendar.CalendarError``).
    """

    def __init__(
        self,
        seed: int,
        clock: Clock,
        universe: Universe | None = None,
        calendar: NyseCalendar | None = None,
    ) -> None:
        self._seed = seed
        self._clock = clock
        self._universe = universe if universe is not None else Universe.default()
        self._calendar = calendar if calendar is not None else NyseCalendar()
        self._noise = PriceNoise(seed)
        self._model = PriceModel(self._noise, self._calendar)
        self._options = OptionDesk(self._universe, self._model)

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def clock(self) -> Clock:
        return self._clock

    @property
    def universe(self) -> Universe:
        return self._universe

    @property
    def calendar(self) -> NyseCalendar:
        return self._calendar

    def now(self) -> datetime:
        return self._clock.now()

    def _us(self, at: datetime | None) -> int:
        return to_us(self._clock.now() if at is None else at)

    def session(self, at: datetime | None = None) -> Session:
        """The equity session at ``at``."""
        return self._calendar.span_at_us(self._us(at)).session

    # -- equities -------------------------------------------------------------------------

    def quote(self, symbol: str, at: datetime | None = None) -> Quote:
        """The equity quote of ``symbol`` at ``at``."""
        return build_quote(self._model, self._universe.equity(symbol), self._us(at))

    def close(self, symbol: str, day: date | None = None) -> Close:
        """The regular-session close of ``symbol`` on ``day``.

        ``day`` defaults to the latest session day whose regular close has passed. Raises
        ``NotASessionDay`` for weekends and holidays.
        """
        equity = self._universe.equity(symbol)
        if day is None:
            now = self._clock.now()
            day = self._calendar.market_date(now)
            if not self._calendar.is_session_day(day) or now < self._calendar.regular_close(day):
                day = self._calendar.previous_session_day(day)
        nanos = self._model.equity_close(equity, self._model.calendar_close_us(day))
        return Close(equity.symbol, day, round_to(nanos, price_exponent(nanos)).decimal())

    def book(self, symbol: str, at: datetime | None = None, depth: int = 5) -> Book:
        """``depth`` price levels a side; the top level is the quote's bid and ask."""
        if depth < 1:
            raise ValueError("a book has at least one level")
        return build_book(self._model, self.quote(symbol, at), depth)

    # -- any instrument by symbol --------------------------------------------------------

    def _resolve(self, symbol: str) -> Equity | Index | CryptoPair:
        for lookup in (self._universe.equity, self._universe.index, self._universe.crypto_pair):
            try:
                return lookup(symbol)
            except UnknownInstrument:
                continue
        raise UnknownInstrument(symbol)

    def price(self, symbol: str, at: datetime | None = None) -> Decimal:
        """The traded price of an equity, an index level or a crypto pair's mark."""
        instrument = self._resolve(symbol)
        if isinstance(instrument, Equity):
            return self.quote(instrument.symbol, at).last_trade_price
        if isinstance(instrument, Index):
            return self.index_quote(instrument.symbol, at).value
        return self.crypto_quote(instrument.symbol, at).mark_price

    def shock(self, symbol: str, pct: Decimal, at: datetime | None = None) -> None:
        """Multiply ``symbol``'s path by ``1 + pct/100`` from ``at`` (default now) onward.

        Works on equities, indexes and crypto pairs; shocks compound. Raises ``ValueError``
        when ``pct <= -100``.
        """
        instrument = self._resolve(symbol)
        if isinstance(instrument, Equity):
            key = "equity:" + instrument.symbol
        elif isinstance(instrument, Index):
            key = "index:" + instrument.symbol
        else:
            key = "crypto:" + instrument.symbol
        self._model.shock(key, Decimal(pct), self._us(at))

    def split(self, symbol: str, ratio: Decimal, at: datetime | None = None) -> None:
        """An equity's ``ratio``-for-1 split from ``at`` (default now) on: its price path is
        divided by ``ratio``, exactly. Raises ``KeyError`` for a symbol that is not an
        equity, ``ValueError`` for a ratio that is not positive or is 1."""
        instrument = self._resolve(symbol)
        if not isinstance(instrument, Equity):
            raise KeyError(f"{symbol} is not an equity: only shares split")
        self._model.split("equity:" + instrument.symbol, Decimal(ratio), self._us(at))

    def bars(
        self,
        symbol: str,
        start: datetime,
        end: datetime | None = None,
        interval: Interval | str = Interval.DAY,
        bounds: Bounds | str = Bounds.REGULAR,
    ) -> list[Bar]:
        """Historical bars of an equity, index or crypto pair from ``start`` to ``end``.

        ``end`` defaults to now and never goes past it; the range is clipped to the
        calendar. Indexes always use regular bounds, crypto pairs run around the clock.
        Raises ``InvalidInterval`` / ``InvalidBounds`` (``ValueError``s) naming the value.
        At most ``MAX_BARS`` bars, the most recent.
        """
        width = parse_interval(interval)
        limits = parse_bounds(bounds)
        instrument = self._resolve(symbol)
        if isinstance(instrument, Equity):
            return self._bars(_EquitySource(self, instrument), start, end, width, limits, True)
        if isinstance(instrument, Index):
            source = _IndexSource(self, instrument)
            return self._bars(source, start, end, width, Bounds.REGULAR, True)
        return self._bars(_CryptoSource(self, instrument), start, end, width, limits, False)

    def _bars(
        self,
        source: _EquitySource | _IndexSource | _CryptoSource | _OptionSource,
        start: datetime,
        end: datetime | None,
        interval: Interval,
        bounds: Bounds,
        sessions: bool,
        samples: int = 3,
    ) -> list[Bar]:
        spans = self._calendar.spans
        now_us = to_us(self._clock.now())
        start_us = max(to_us(start), spans[0].start_us)
        end_us = min(now_us if end is None else to_us(end), now_us, spans[-1].end_us)
        return build_bars(
            source,
            self._calendar if sessions else None,
            start_us=start_us,
            end_us=end_us,
            interval=interval,
            bounds=bounds,
            samples=samples,
        )

    # -- indexes and crypto ----------------------------------------------------------------

    def index_quote(self, symbol: str, at: datetime | None = None) -> IndexQuote:
        """The level of index ``symbol`` (``SPX``, ``NDX``, …) at ``at``."""
        return build_index_quote(self._model, self._universe.index(symbol), self._us(at))

    def crypto_quote(self, pair: str, at: datetime | None = None) -> CryptoQuote:
        """The quote of crypto pair ``pair`` (``BTC-USD``) at ``at``; moves 24/7."""
        return build_crypto_quote(self._model, self._universe.crypto_pair(pair), self._us(at))

    # -- options --------------------------------------------------------------------------

    def option_chain(self, symbol: str) -> OptionChain:
        """The option chain of ``symbol`` as listed now."""
        return self._options.chain(symbol, self._us(None))

    def option_chain_by_id(self, chain_id: str) -> OptionChain:
        return self._options.chain_by_id(chain_id, self._us(None))

    def option_chains(self) -> list[OptionChain]:
        now = self._us(None)
        return [self._options.chain(u.symbol, now) for u in self._universe.option_underlyings]

    def option_instruments(
        self,
        symbol: str,
        *,
        expiration: date | None = None,
        option_type: OptionType | str | None = None,
        strike: Decimal | None = None,
    ) -> list[OptionInstrument]:
        """Open contracts of ``symbol``'s chain, optionally one expiration, type or strike."""
        kind = None if option_type is None else OptionType(option_type)
        return self._options.instruments(
            symbol, self._us(None), expiration=expiration, option_type=kind, strike=strike
        )

    def option_instrument(self, instrument_id: str) -> OptionInstrument:
        """The contract with this id, open or expired; raises ``UnknownInstrument``."""
        return self._options.instrument(instrument_id, self._us(None))

    def option_quote(self, instrument_id: str, at: datetime | None = None) -> OptionQuote:
        return self._options.quote(instrument_id, self._us(at))

    def option_bars(
        self,
        instrument_id: str,
        start: datetime,
        end: datetime | None = None,
        interval: Interval | str = Interval.HOUR,
    ) -> list[Bar]:
        """Bars of an option's mark during regular sessions (options trade no other)."""
        width = parse_interval(interval)
        contract = self._options.instrument(instrument_id, self._us(None))
        source = _OptionSource(self, contract.id)
        return self._bars(source, start, end, width, Bounds.REGULAR, True, samples=1)

    def __repr__(self) -> str:
        return f"Market(seed={self._seed}, now={from_us(self._us(None)).isoformat()})"
