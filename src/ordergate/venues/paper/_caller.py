"""``PaperCaller``: a ``Caller`` whose account and equity-order tools the venue's own engine
answers, on prices read from the upstream; every other tool is the upstream's.

Paper trading is the live lane over this caller (``PaperVenue``), so a paper answer is the
venue's own answer (``ordergate.sandbox.engine.EquityEngine``: its desks, rules, sessions,
lots, P&L, splits and expiry, in the venue's wire format) read by the same client code as a
live one. What the caller does with each tool:

- ``ANSWERED`` (the portfolio, reviews, placing and cancelling equity orders, orders,
  positions, tax lots, realised P&L): run on the engine, in a worker thread, one call at a
  time per caller (the engine is not thread-safe; a second process or replica on the same
  database takes turns on the book's row). An ``{error}`` result raises the ``ToolError`` a
  call over the wire raises (``ordergate.client.result_data``: one reading of a result);
  an engine that cannot answer at all (its database failing) is a ``TransportError``, so an
  order it was placing may be live and is looked up by ``ref_id``.
- ``FORWARDED`` (the account list, the approval setting, the margin upgrade, tradability):
  the upstream's. The engine's book carries the upstream's agentic account numbers, so the
  account the upstream lists is the paper account. A tradability answer lists its symbols
  in the feed as it passes.
- ``get_equity_quotes`` and ``get_crypto_quotes``: the upstream's, observed into the feeds
  as they pass, and answered with the paper market's bid and ask (``slippage_bps`` against
  the trader).
- the crypto order tools (``preview_crypto_order``, ``place_crypto_order``,
  ``cancel_crypto_order``, ``get_crypto_orders``, ``get_crypto_positions``): the engine's
  crypto desk, on the book's crypto holdings and cash; ``get_currency_pairs`` stays the
  upstream's. The paper REST lane's requests reach the same desk without a tool: their work
  runs on the book's venue in the same turn (``on_book``), priced as a crypto tool is.
- exercising options and its withdrawal, advanced orders: refused
  (``BusinessError`` ``NOT_ON_PAPER``), never sent: the engine does not carry them, and
  forwarded they would act on the real account.
- everything else (historicals, instruments, search …): the upstream's, unchanged.

Prices. Before an engine call that can move or price the book (all but realised P&L), the
caller observes fresh upstream quotes into the engine's ``ObservedPrices``: one
``get_equity_quotes`` for every symbol needed (the call's, unless its ``symbol`` only filters
a listing, the book's open orders' and open lots'), except a symbol observed within
``QUOTE_REUSE`` of the clock. A symbol is listed on
first sight from the upstream's tradability (``listing_of``); one the upstream does not list
stays unlisted and the engine refuses it. An upstream that does not answer leaves the feed as
it was: the engine then refuses what needs a price it does not have (fail closed). An
observation is stamped with the upstream's quote time, never later than this clock. The
feed's bid is lowered and its ask raised by ``slippage_bps`` (each rounded to the tick away
from the trader), so the guard's reads and the engine's fills are one paper market.

Crypto prices the same way: before an engine call, one ``get_crypto_quotes`` for every pair
needed (the call's ``symbol`` for a crypto tool, the book's open crypto orders' and
holdings' pairs) except one observed within ``QUOTE_REUSE``, into ``ObservedCryptoPrices``
with the same slippage (rounded to the pair's price increment). A pair is listed on first
sight from the upstream's ``get_currency_pairs`` (its increments and sizes, ``pair_of``);
one the upstream does not list stays unlisted and the engine refuses it.

The account. The book carries the upstream's agentic account numbers and, unless told
otherwise (``account_type``, ``option_level``: the policy's ``[paper]``), its account type
and option level, so the engine refuses on paper the option orders the venue would refuse
the real account (a multi-leg order needs margin at level 3). A type or level the caller
cannot read counts as the least: a cash account, no options.

Splits: the upstream tells of none (its quotes carry split-adjusted closes only), so a split
is handed to the feed by whoever learns of it (``split``): the engine then re-bases every
lot when the clock reaches it.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from functools import partial
from typing import Any, Final, TypeVar
from uuid import NAMESPACE_URL, uuid5

import anyio
from sqlalchemy import Engine

from ordergate.client import BusinessError, ToolError, TransportError, result_data
from ordergate.client.accounts import Account, AccountsClient, Portfolio
from ordergate.client.crypto import CryptoClient, CryptoQuotes, CurrencyPair
from ordergate.client.equity import (
    EquityClient,
    EquityOrder,
    EquityOrdersPage,
    EquityPositionsPage,
    EquityTradability,
    TradabilityResult,
)
from ordergate.client.market import EquityClose, EquityQuotes
from ordergate.client.options import OptionInstrumentsPage, OptionQuotes
from ordergate.core import ZERO, Clock, to_wire
from ordergate.sandbox.engine import (
    ENGINE_TOOLS,
    EquityEngine,
    EquityListing,
    EquityQuote,
    ObservedCryptoPrices,
    ObservedOptionPrices,
    ObservedPrices,
    Wanted,
    observed_option_instrument,
    observed_option_quote,
    observed_quote,
)
from ordergate.sandbox.market import CryptoPair, CryptoQuote, Tradability
from ordergate.sandbox.venue import ACCOUNT_TYPES, OPTION_LEVELS
from ordergate.store import blocking
from ordergate.venues.robinhood import BookParts

__all__ = [
    "ANSWERED",
    "FORWARDED",
    "QUOTED_SIZE",
    "QUOTE_REUSE",
    "PaperCaller",
    "book_name",
    "book_seed",
    "listing_of",
]

logger = logging.getLogger(__name__)
T = TypeVar("T")

QUOTE_REUSE: Final = timedelta(seconds=1)
"""A symbol observed within this much of the clock is not read from the upstream again."""
QUOTED_SIZE: Final = Decimal(1_000_000)
"""The size each side of an observed quote shows (the upstream's quotes carry none): one
look at the market fills any order the paper account can pay for."""
FORWARDED: Final = frozenset(
    {
        "get_accounts",
        "get_trade_approval_setting",
        "get_limited_margin_upgrade_info",
        "get_equity_tradability",
    }
)
"""The engine's tools the upstream answers instead: facts of the real account, not the book."""
ANSWERED: Final = frozenset(ENGINE_TOOLS) - FORWARDED
"""The tools the engine answers from the paper book."""
_NOT_ON_PAPER: Final = frozenset(
    {
        "exercise_option",
        "cancel_option_exercise",
        "review_advanced_order",
        "place_advanced_order",
        "cancel_advanced_order",
    }
)
"""Tools that act on an account and that the engine does not answer: refused on paper,
never forwarded to the upstream (the real account)."""
_PORTFOLIO: Final = "get_portfolio"
_POSITIONS: Final = "get_equity_positions"
_UNPRICED: Final = frozenset({"get_realized_pnl", "get_pnl_trade_history"})
_FILTERED_BY_SYMBOL: Final = frozenset(
    {"get_equity_orders", "get_equity_tax_lots", "get_pnl_trade_history", "get_crypto_orders"}
)
"""Listings whose ``symbol`` only filters what the book holds: it needs no price of its own
(what the book holds is priced as the book's)."""
_QUOTES: Final = "get_equity_quotes"
_CRYPTO_QUOTES: Final = "get_crypto_quotes"
_CRYPTO_TOOLS: Final = frozenset(
    {
        "preview_crypto_order",
        "place_crypto_order",
        "cancel_crypto_order",
        "get_crypto_orders",
        "get_crypto_positions",
    }
)
_CRYPTO_KEY: Final = "crypto:"
_OPTION_TOOLS: Final = frozenset(
    {
        "review_option_order",
        "place_option_order",
        "cancel_option_order",
        "get_option_orders",
        "get_option_positions",
    }
)
_OPTION_KEY: Final = "option:"
_OPTION_INSTRUMENTS: Final = "get_option_instruments"
_OPTION_QUOTES: Final = "get_option_quotes"
_NO_MAX_SIZE: Final = Decimal(10) ** 12
_TRADABILITY: Final = "get_equity_tradability"
_TRADABILITY_BATCH: Final = 10
_BPS: Final = Decimal(10_000)
_CENT: Final = Decimal("0.01")
_SUB_CENT: Final = Decimal("0.0001")
_INSTRUMENTS: Final = uuid5(NAMESPACE_URL, "https://ordergate/paper/instrument")


def _legs_of(arguments: Mapping[str, Any]) -> set[str]:
    """The option ids an option tool's ``legs`` name (what it may need quotes for)."""
    legs = arguments.get("legs")
    if not isinstance(legs, list):
        return set()
    return {
        leg["option_id"].strip().lower()
        for leg in legs
        if isinstance(leg, dict) and isinstance(leg.get("option_id"), str)
    }


def option_level_of(level: str | None) -> int:
    """The upstream's ``option_level_N`` as the engine's level ``N``; 0 (no options) for
    anything else."""
    digits = (level or "").rsplit("_", 1)[-1]
    return int(digits) if digits.isdigit() and int(digits) in OPTION_LEVELS else 0


def book_name(account_number: str) -> str:
    """The paper book of the upstream's agentic account ``account_number``."""
    return f"paper:{account_number}"


def book_seed(book: str) -> int:
    """The engine's seed for ``book``: its ids (orders, executions, lots) are drawn from
    it, so two paper books on one ledger never issue the same order id."""
    return int.from_bytes(hashlib.blake2b(book.encode(), digest_size=8).digest(), "big")


def listing_of(tradability: EquityTradability) -> EquityListing:
    """An upstream tradability entry as the engine's listing; the instrument id is a fixed
    UUID of the symbol (the upstream's tradability names none)."""
    symbol = tradability.symbol.strip().upper()
    name = tradability.name or symbol
    return EquityListing(
        symbol=symbol,
        instrument_id=str(uuid5(_INSTRUMENTS, symbol)),
        name=name,
        simple_name=tradability.simple_name or name,
        tradeable=bool(tradability.tradeable),
        fractional=tradability.fractional_tradability == "tradable",
        all_day=tradability.all_day_tradability == "tradable",
        country=tradability.country or "US",
        state=tradability.state or "active",
    )


def pair_of(pair: CurrencyPair) -> CryptoPair | None:
    """An upstream ``get_currency_pairs`` entry as the engine's pair (its increments and
    sizes); ``None`` when it names no quantity or price increment (nothing is made up)."""
    asset_increment = pair.min_order_quantity_increment or pair.asset_currency.increment
    quote_increment = pair.min_order_price_increment or pair.quote_currency.increment
    if not asset_increment or not quote_increment:
        return None
    tradable = pair.tradability == "tradable" and not pair.display_only
    return CryptoPair(
        symbol=pair.symbol.strip().upper(),
        name=pair.name or pair.symbol,
        asset_code=pair.asset_currency.code,
        base_price=ZERO,
        quote_increment=quote_increment,
        asset_increment=asset_increment,
        min_order_size=pair.min_order_size,
        max_order_size=pair.max_order_size or _NO_MAX_SIZE,
        spread_bp=0,
        volatility=0,
        quote_code=pair.quote_currency.code,
        tradability=Tradability.TRADABLE if tradable else Tradability.UNTRADABLE,
    )


def _tick(price: Decimal) -> Decimal:
    return _CENT if price >= 1 else _SUB_CENT


def slipped_bid(bid: Decimal, slippage_bps: int, tick: Decimal | None = None) -> Decimal:
    """``bid`` lowered by ``slippage_bps``, rounded down to its tick (a seller gets less;
    ``tick``: the instrument's, else a cent at and above a dollar)."""
    if slippage_bps == 0 or bid <= 0:
        return bid
    moved = bid * (1 - slippage_bps / _BPS)
    return moved.quantize(tick or _tick(moved), ROUND_FLOOR)


def slipped_ask(ask: Decimal, slippage_bps: int, tick: Decimal | None = None) -> Decimal:
    """``ask`` raised by ``slippage_bps``, rounded up to its tick (a buyer pays more)."""
    if slippage_bps == 0 or ask <= 0:
        return ask
    moved = ask * (1 + slippage_bps / _BPS)
    return moved.quantize(tick or _tick(moved), ROUND_CEILING)


class PaperCaller:
    """A ``Caller`` answering the engine's tools from a paper book on ``database`` and the
    rest from ``upstream`` (see the module docstring).

    ``database`` must be the ledger's own: the book's turns commit unflushed on SQLite
    (``EquityEngine``'s ``durable``), which is safe only beside the filings they follow.
    ``cash`` is the book's starting cash (used when the book is first created);
    ``account``: the upstream's agentic account number when known (checked against the
    upstream's account list when the engine is first needed). The book is opened on the
    first call that needs it, so nothing is sent upstream before.
    """

    def __init__(
        self,
        upstream: Any,
        database: Engine,
        *,
        clock: Clock,
        cash: Decimal,
        slippage_bps: int = 0,
        account: str | None = None,
        rhs_account: str | None = None,
        account_type: str | None = None,
        option_level: int | None = None,
    ) -> None:
        if slippage_bps < 0:
            raise ValueError("slippage_bps must not be negative")
        self._upstream = upstream
        self._database = database
        self._clock = clock
        self._cash = cash
        self._slippage = slippage_bps
        self._account = account
        self._rhs_account = rhs_account
        self._account_type = account_type
        self._option_level = option_level
        self.prices = ObservedPrices()
        """The engine's feed (what the caller observed, listed and was told of splits)."""
        self.crypto_prices = ObservedCryptoPrices()
        """The engine's crypto feed (the pairs listed and the quotes observed)."""
        self.option_prices = ObservedOptionPrices(self.prices)
        """The engine's option feed (the contracts listed and the quotes observed): the
        options desk prices nothing else (never the sandbox's seeded market)."""
        self._engine: EquityEngine | None = None
        self._opening = anyio.Lock()
        self._turn = threading.Lock()
        self._observed: dict[str, datetime] = {}

    @property
    def upstream(self) -> Any:
        """What answers the tools the engine does not (the real account's connection)."""
        return self._upstream

    @property
    def slippage_bps(self) -> int:
        return self._slippage

    async def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
        if name == _QUOTES:
            data = await self._upstream.call(name, arguments)
            self._observe(data, self._clock.now())
            return self._slipped(data)
        if name == _CRYPTO_QUOTES:
            data = await self._upstream.call(name, arguments)
            self._observe_crypto(data, self._clock.now())
            return self._slipped_crypto(data)
        if name == _TRADABILITY:
            data = await self._upstream.call(name, arguments)
            self._list(data)
            return data
        if name in _NOT_ON_PAPER:
            raise BusinessError(
                f"{name} is not carried on paper: nothing was sent", tool=name, code="NOT_ON_PAPER"
            )
        if name not in ANSWERED:
            return await self._upstream.call(name, arguments)
        engine = await self.engine()
        args = dict(arguments)
        result = await self._priced(
            engine,
            name,
            partial(self._run_if_priced, engine, name, args),
            partial(self._run, engine, name, args),
        )
        return result_data(result, tool=name)

    async def open_orders(self, account: str) -> list[EquityOrder]:
        """``account``'s open orders, newest first, from the engine's memory of what is open
        (priced first, as a listing is): what a decision reads, at the cost of what is open,
        never of the book's history. Another account than the book's is asked of the
        engine's listing, which refuses it as the venue does."""
        engine = await self.engine()
        if account != engine.account.account_number:
            page = await self.call("get_equity_orders", {"account_number": account})
            return EquityOrdersPage.model_validate(page).orders
        listed = await self._priced(
            engine,
            "get_equity_orders",
            partial(self._listed_open_if_priced, engine),
            partial(self._listed_open, engine),
        )
        return [EquityOrder.model_validate(order) for order in listed]

    async def book_parts(self, account: str) -> BookParts:
        """``account``'s portfolio, positions' first page and open orders (newest first, from
        the engine's memory of what is open) in one turn of the worker and one read of the
        book, priced first as a portfolio is: what a decision's sight reads of the book, at
        the cost of one engine call, not three. A part that cannot be read is its error (an
        engine that cannot answer: a ``TransportError`` for each). Another account than
        the book's is asked part by part, and the engine refuses it as the venue does."""
        engine = await self.engine()
        if account != engine.account.account_number:
            return BookParts(
                await _outcome(AccountsClient(self).portfolio(account)),
                await _outcome(EquityClient(self).positions(account)),
                await _outcome(self.open_orders(account)),
            )
        arguments = {"account_number": account}
        calls = ((_PORTFOLIO, arguments), (_POSITIONS, arguments))
        try:
            read = await blocking(self._reads_if_priced, engine, calls)
            if isinstance(read, Wanted):
                await self._price_wanted(engine, read)
                read = await blocking(self._reads, engine, calls)
        except Exception as error:
            failed = TransportError(
                f"the paper book did not answer ({type(error).__name__})", tool=_PORTFOLIO
            )
            return BookParts(failed, failed, failed)
        (portfolio, positions), listed = read
        return BookParts(
            _parsed(lambda: Portfolio.model_validate(result_data(portfolio, tool=_PORTFOLIO))),
            _parsed(
                lambda: EquityPositionsPage.model_validate(result_data(positions, tool=_POSITIONS))
            ),
            _parsed(lambda: [EquityOrder.model_validate(order) for order in listed]),
        )

    async def on_book(
        self, work: Callable[[], T], *, pairs: Iterable[str] | None, moves: bool
    ) -> T:
        """``work`` on the paper book's venue (``engine().venue``) in one turn of the
        worker, as an engine tool runs (``EquityEngine.run``; ``moves``: it may move the
        book): priced first like a crypto tool, the ``pairs`` it names and the book's own
        unless observed within ``QUOTE_REUSE``. ``pairs`` ``None``: it lists every pair, so
        the upstream's ``get_currency_pairs`` lists them all first (none is priced for
        that). What the paper REST lane's in-process venue runs each request's work in."""
        engine = await self.engine()
        named = frozenset(pair.strip().upper() for pair in pairs or ())
        if pairs is None:
            await self._list_crypto()
        ran = await blocking(self._work_if_priced, engine, work, named, moves)
        if isinstance(ran, Wanted):
            await self._price_wanted(engine, ran)
            return await blocking(self._work, engine, work, moves)
        return ran

    async def order_by_ref(self, account: str, ref_id: str) -> EquityOrder | None:
        """``account``'s order placed with ``ref_id``, open or ended, read by that key
        (priced first, as a listing is): what a lookup of an order in doubt reads, at the
        cost of one order, never of the book's history. ``None``: there is none. Another
        account than the book's is asked of the engine's listing, which refuses it as the
        venue does."""
        engine = await self.engine()
        if account != engine.account.account_number:
            page = EquityOrdersPage.model_validate(
                await self.call("get_equity_orders", {"account_number": account})
            )
            return next(
                (o for o in page.orders if (o.ref_id or "").lower() == ref_id.lower()), None
            )
        found = await self._priced(
            engine,
            "get_equity_orders",
            partial(self._by_ref_if_priced, engine, ref_id),
            partial(self._by_ref, engine, ref_id),
        )
        return None if found is None else EquityOrder.model_validate(found)

    async def engine(self) -> EquityEngine:
        """The engine on the paper book of the upstream's agentic account (opened once)."""
        if self._engine is None:
            async with self._opening:
                if self._engine is None:
                    self._engine = await self._open()
        return self._engine

    def split(self, symbol: str, ratio: Decimal, at: datetime) -> None:
        """Hand the feed a ``ratio``-for-1 split of ``symbol`` effective at ``at`` (the
        symbol must be listed: it is, once the paper book has priced it)."""
        self.prices.split(symbol.strip().upper(), ratio, at)

    # -- the book --------------------------------------------------------------------------

    async def _open(self) -> EquityEngine:
        account, rhs, known_type, known_level = (
            self._account,
            self._rhs_account,
            self._account_type,
            self._option_level,
        )
        if account is not None and rhs is not None and known_type and known_level is not None:
            # Everything the book opens on is known unasked (a deferred embedded venue).
            numbers = (account, rhs)
            account_type: str | None = known_type
            level = known_level
        else:
            agentic = await _agentic(self._upstream)
            if self._account is not None and agentic.account_number != self._account:
                raise TransportError(
                    "the upstream's agentic account is not the one the paper book trades",
                    tool="get_accounts",
                )
            rhs = agentic.rhs_account_number or agentic.account_number
            numbers = (agentic.account_number, rhs)
            account_type = self._account_type or agentic.type
            level = (
                option_level_of(agentic.option_level)
                if self._option_level is None
                else self._option_level
            )
        book = book_name(numbers[0])
        return EquityEngine(
            self._database,
            book=book,
            seed=book_seed(book),
            prices=self.prices,
            crypto_prices=self.crypto_prices,
            option_prices=self.option_prices,
            clock=self._clock,
            cash=self._cash,
            agentic_numbers=numbers,
            account_type=account_type if account_type in ACCOUNT_TYPES else "cash",
            option_level=level,
            durable=False,
        )

    async def _priced(
        self,
        engine: EquityEngine,
        tool: str,
        first: Callable[[], T | Wanted],
        again: Callable[[], T],
    ) -> T:
        """An engine read or call in one turn of the worker: ``first`` runs at once when
        every price it may need is fresh, else names what is stale (``Wanted``); that is
        observed and ``again`` runs. A ``ToolError`` is the venue's answer; any other
        failure is a ``TransportError`` for ``tool`` (the book did not answer: an order it
        was placing may be live, and is looked up by ``ref_id``)."""
        try:
            ran = await blocking(first)
            if isinstance(ran, Wanted):
                await self._price_wanted(engine, ran)
                return await blocking(again)
            return ran
        except ToolError:
            raise
        except Exception as error:
            raise TransportError(
                f"the paper book did not answer ({type(error).__name__})", tool=tool
            ) from None

    def _run(self, engine: EquityEngine, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        with self._turn:
            return engine.call(name, arguments)

    def _run_if_priced(
        self, engine: EquityEngine, name: str, arguments: dict[str, Any]
    ) -> dict[str, Any] | Wanted:
        """The engine's answer to ``name`` when no price it may need is stale (a realised
        P&L needs none); else the stale ones (``Wanted``), nothing run."""
        with self._turn:
            if name in _UNPRICED:
                return engine.call(name, arguments)
            return engine.call_if_priced(
                name, arguments, lambda wanted: self._stale(wanted, name, arguments)
            )

    def _reads_if_priced(
        self, engine: EquityEngine, calls: tuple[tuple[str, dict[str, Any]], ...]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | Wanted:
        """The engine's answers to the read tools ``calls`` and its open orders, on one read
        of the book, when no price they may need is stale (as a portfolio's: the book's)."""
        with self._turn:
            return engine.reads_if_priced(calls, lambda wanted: self._stale(wanted, _PORTFOLIO, {}))

    def _reads(
        self, engine: EquityEngine, calls: tuple[tuple[str, dict[str, Any]], ...]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        with self._turn:
            read = engine.reads_if_priced(calls)
        assert not isinstance(read, Wanted)  # nothing is checked: nothing is wanted
        return read

    def _work(self, engine: EquityEngine, work: Callable[[], T], moves: bool) -> T:
        with self._turn:
            return engine.run(work, moves=moves)

    def _work_if_priced(
        self, engine: EquityEngine, work: Callable[[], T], pairs: frozenset[str], moves: bool
    ) -> T | Wanted:
        def stale(wanted: Wanted) -> Wanted | None:
            return self._stale(
                Wanted(wanted.symbols, wanted.pairs | pairs, wanted.option_ids), "", {}
            )

        with self._turn:
            return engine.run_if_priced(work, moves=moves, stale=stale)

    def _by_ref(self, engine: EquityEngine, ref_id: str) -> dict[str, Any] | None:
        with self._turn:
            return engine.order_by_ref(ref_id)

    def _by_ref_if_priced(
        self, engine: EquityEngine, ref_id: str
    ) -> dict[str, Any] | Wanted | None:
        with self._turn:
            return engine.order_by_ref_if_priced(
                ref_id, lambda wanted: self._stale(wanted, "get_equity_orders", {})
            )

    def _listed_open(self, engine: EquityEngine) -> list[dict[str, Any]]:
        with self._turn:
            return engine.open_orders()

    def _listed_open_if_priced(self, engine: EquityEngine) -> list[dict[str, Any]] | Wanted:
        with self._turn:
            return engine.open_orders_if_priced(
                lambda wanted: self._stale(Wanted(wanted.symbols, frozenset(), frozenset()), "", {})
            )

    def _stale(self, wanted: Wanted, name: str, arguments: Mapping[str, Any]) -> Wanted | None:
        """Of what a call ``name`` with ``arguments`` may need a price for (the book's
        ``wanted``, the call's ``symbol`` unless it only filters a listing, and option
        legs), what was not observed within
        ``QUOTE_REUSE`` of the clock; ``None`` when nothing."""
        symbols, pairs, option_ids = set(wanted.symbols), set(wanted.pairs), set(wanted.option_ids)
        symbol = arguments.get("symbol")
        if isinstance(symbol, str) and symbol.strip() and name not in _FILTERED_BY_SYMBOL:
            (pairs if name in _CRYPTO_TOOLS else symbols).add(symbol.strip().upper())
        if name in _OPTION_TOOLS:
            option_ids |= _legs_of(arguments)
        now = self._clock.now()
        stale = Wanted(
            symbols=frozenset(s for s in symbols if not self._fresh(s, now)),
            pairs=frozenset(p for p in pairs if not self._fresh(_CRYPTO_KEY + p, now)),
            option_ids=frozenset(i for i in option_ids if not self._fresh(_OPTION_KEY + i, now)),
        )
        return stale if any(stale) else None

    # -- the feed --------------------------------------------------------------------------

    async def _price_wanted(self, engine: EquityEngine, wanted: Wanted) -> None:
        """Observe fresh upstream quotes of what a call found stale: its symbols, crypto
        pairs and option contracts."""
        await self._price(engine, wanted.symbols)
        await self._price_crypto(wanted.pairs)
        await self._price_options(engine, wanted.option_ids)

    async def _price(self, engine: EquityEngine, symbols: Iterable[str]) -> None:
        """Observe fresh upstream quotes of ``symbols`` (listing them first); a symbol seen
        within ``QUOTE_REUSE`` is not read again. An upstream failure leaves the feed as is."""
        now = self._clock.now()
        stale = sorted(s for s in symbols if not self._fresh(s, now))
        if not stale:
            return
        unlisted = [s for s in stale if self.prices.listing(s) is None]
        account = engine.account.account_number
        try:
            for start in range(0, len(unlisted), _TRADABILITY_BATCH):
                chunk = unlisted[start : start + _TRADABILITY_BATCH]
                arguments = {"account_number": account, "symbols": chunk}
                self._list(await self._upstream.call(_TRADABILITY, arguments))
            listed = [s for s in stale if self.prices.listing(s) is not None]
            if listed:
                self._observe(await self._upstream.call(_QUOTES, {"symbols": listed}), now)
        except ToolError as error:
            logger.info("paper prices not refreshed: %s", error.code)

    async def _price_crypto(self, symbols: Iterable[str]) -> None:
        """Observe fresh upstream quotes of the crypto pairs ``symbols`` in one
        ``get_crypto_quotes``, as ``_price`` does for equities; a pair not listed yet is
        listed first from the upstream's ``get_currency_pairs``."""
        now = self._clock.now()
        stale = sorted(s for s in symbols if not self._fresh(_CRYPTO_KEY + s, now))
        if not stale:
            return
        try:
            if any(self.crypto_prices.pair(s) is None for s in stale):
                await self._list_crypto_pairs()
            listed = sorted({p.symbol for s in stale if (p := self.crypto_prices.pair(s))})
            if listed:
                data = await self._upstream.call(_CRYPTO_QUOTES, {"symbols": listed})
                self._observe_crypto(data, now)
        except ToolError as error:
            logger.info("paper crypto prices not refreshed: %s", error.code)

    async def _list_crypto_pairs(self) -> None:
        """List every pair the upstream's ``get_currency_pairs`` lists (re-listing those
        listed already with what it says now)."""
        async for entry in CryptoClient(self._upstream).iter_pairs():
            pair = pair_of(entry)
            if pair is not None:
                self.crypto_prices.list(pair)

    async def _list_crypto(self) -> None:
        """``_list_crypto_pairs``; an upstream failure leaves the listing as it was."""
        try:
            await self._list_crypto_pairs()
        except ToolError as error:
            logger.info("paper crypto pairs not listed: %s", error.code)

    async def _price_options(self, engine: EquityEngine, option_ids: Iterable[str]) -> None:
        """Observe fresh upstream quotes of the contracts ``option_ids`` (and their
        underlyings') in one ``get_option_quotes``, as ``_price`` does for equities; a
        contract not listed yet is listed first from the upstream's
        ``get_option_instruments``. An upstream failure leaves the feed as is."""
        now = self._clock.now()
        stale = sorted(i for i in option_ids if not self._fresh(_OPTION_KEY + i, now))
        if not stale:
            return
        try:
            unlisted = [i for i in stale if self.option_prices.instrument(i) is None]
            if unlisted:
                data = await self._upstream.call(_OPTION_INSTRUMENTS, {"ids": ",".join(unlisted)})
                for entry in OptionInstrumentsPage.model_validate(data).instruments:
                    contract = observed_option_instrument(entry, calendar=self.prices.calendar)
                    if contract is not None:
                        self.option_prices.list(contract)
            listed = [c for i in stale if (c := self.option_prices.instrument(i)) is not None]
            if not listed:
                return
            await self._price(engine, {c.chain_symbol for c in listed})
            ids = [c.id for c in listed]
            data = await self._upstream.call(_OPTION_QUOTES, {"instrument_ids": ids})
            self._observe_options(OptionQuotes.model_validate(data), now)
        except ToolError as error:
            logger.info("paper option prices not refreshed: %s", error.code)
        except ValueError:
            logger.info("paper option prices not refreshed: an answer could not be read")

    def _observe_options(self, answer: OptionQuotes, now: datetime) -> None:
        for result in answer.results:
            upstream = None if result is None else result.quote
            if upstream is None:
                continue
            contract = self.option_prices.instrument(upstream.instrument_id.strip().lower())
            spot = None if contract is None else self.prices.quote(contract.chain_symbol, now)
            if contract is None or spot is None:
                continue
            quote = observed_option_quote(upstream, underlying_price=spot.last)
            if quote is None:
                continue
            self.option_prices.observe(replace(quote, updated_at=min(quote.updated_at, now)))
            self._observed[_OPTION_KEY + contract.id] = now

    def _observe_crypto(self, data: Any, now: datetime) -> None:
        try:
            answer = CryptoQuotes.model_validate(data)
        except ValueError:
            return
        for quote in answer.results:
            pair = self.crypto_prices.pair(quote.symbol.strip().upper())
            prices = (quote.bid_price, quote.ask_price, quote.mark_price)
            if pair is None or any(price <= 0 for price in prices):
                continue
            at = now if quote.updated_at is None else min(quote.updated_at, now)
            tick = pair.quote_increment
            self.crypto_prices.observe(
                CryptoQuote(
                    symbol=pair.symbol,
                    id=pair.id,
                    bid_price=slipped_bid(quote.bid_price, self._slippage, tick),
                    ask_price=slipped_ask(quote.ask_price, self._slippage, tick),
                    mark_price=quote.mark_price,
                    open_price=quote.open_price or quote.mark_price,
                    high_price=quote.high_price or quote.mark_price,
                    low_price=quote.low_price or quote.mark_price,
                    volume=quote.volume or ZERO,
                    updated_at=at,
                )
            )
            self._observed[_CRYPTO_KEY + pair.symbol] = now

    def _slipped_crypto(self, data: Any) -> Any:
        """The upstream's crypto quotes answer with the paper market's bid and ask."""
        if self._slippage == 0 or not isinstance(data, dict):
            return data
        results = data.get("results")
        if not isinstance(results, list):
            return data
        moved: list[Any] = []
        for quote in results:
            if not isinstance(quote, dict):
                moved.append(quote)
                continue
            symbol = quote.get("symbol")
            pair = self.crypto_prices.pair(str(symbol).strip().upper())
            tick = None if pair is None else pair.quote_increment
            quote = dict(quote)
            for key, slip in (("bid_price", slipped_bid), ("ask_price", slipped_ask)):
                price = _decimal(quote.get(key))
                if price is not None:
                    quote[key] = to_wire(slip(price, self._slippage, tick))
            moved.append(quote)
        return {**data, "results": moved}

    def _fresh(self, symbol: str, now: datetime) -> bool:
        seen = self._observed.get(symbol)
        return seen is not None and seen <= now < seen + QUOTE_REUSE

    def _list(self, data: Any) -> None:
        try:
            answer = TradabilityResult.model_validate(data)
        except ValueError:
            return
        for entry in answer.results:
            self.prices.list(listing_of(entry))

    def _observe(self, data: Any, now: datetime) -> None:
        try:
            answer = EquityQuotes.model_validate(data)
        except ValueError:
            return
        for result in answer.results:
            if result is None or result.quote is None:
                continue
            quote = observed_quote(result.quote, bid_size=QUOTED_SIZE, ask_size=QUOTED_SIZE)
            if quote is None or self.prices.listing(quote.symbol) is None:
                continue
            observed = replace(
                quote,
                bid=slipped_bid(quote.bid, self._slippage),
                ask=slipped_ask(quote.ask, self._slippage),
                at=min(quote.at, now),
            )
            self.prices.observe(observed)
            self._observed[quote.symbol] = now
            self._observe_close(observed, result.close)

    def _observe_close(self, observed: EquityQuote, close: EquityClose | None) -> None:
        """The regular session's close that ``close`` reports, as the last trade at that
        close (bid and ask as ``observed``), once ``observed`` is past it: what settles an
        option expiring then, read however long after the close."""
        if close is None or close.date is None or close.price is None or close.price <= 0:
            return
        if close.interpolated:
            return  # a close made up between prints is not a price
        at = self.prices.calendar.regular_close(close.date)
        if observed.at >= at:
            self.prices.observe(replace(observed, last=close.price, at=at))

    def _slipped(self, data: Any) -> Any:
        """The upstream's quotes answer with the paper market's bid and ask."""
        if self._slippage == 0 or not isinstance(data, dict):
            return data
        results = data.get("results")
        if not isinstance(results, list):
            return data
        moved: list[Any] = []
        for result in results:
            quote = result.get("quote") if isinstance(result, dict) else None
            if not isinstance(quote, dict):
                moved.append(result)
                continue
            quote = dict(quote)
            for key, slip in (("bid_price", slipped_bid), ("ask_price", slipped_ask)):
                price = _decimal(quote.get(key))
                if price is not None:
                    quote[key] = to_wire(slip(price, self._slippage))
            moved.append({**result, "quote": quote})
        return {**data, "results": moved}


def _decimal(value: object) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, (str, int, Decimal)):
        return None
    try:
        number = Decimal(value)
    except ArithmeticError:
        return None
    return number if number.is_finite() else None


async def _outcome(read: Awaitable[T]) -> T | Exception:
    """What ``read`` answers, or the error it raised."""
    try:
        return await read
    except Exception as error:
        return error


def _parsed(parse: Callable[[], T]) -> T | Exception:
    """What ``parse`` makes of an engine's answer, or the error it raised (the tool's
    ``{error}``, or an answer that is not the model's)."""
    try:
        return parse()
    except Exception as error:
        return error


async def _agentic(upstream: Any) -> Account:
    return await AccountsClient(upstream).agentic()
