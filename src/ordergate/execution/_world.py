"""The world one decision sees: the venue's account view merged with the ledger's record.

``World`` assembles the policy engine's ``AccountState`` for one proposal: the venue's side
read before a stage's worker thread (``seen``) and completed inside it, beside the record's
(``with_record``):

- from the venue (its ``EquityLane``: ``sight``, then ``view``): equity, cash, buying power,
  positions, the quote and tradability of the symbol, and every open order at the venue;
- from the ledger: the rolling 24 h spend and order count, at stage A the filer's recent
  accepted orders (the rolling minute's, the identity's and the account's, and those of the
  same terms inside the duplicate window), the pause flag, when a breaker last refused, the equity
  high-water mark (raised to today's equity, and the account's equity curve marked in the
  same transaction, at most once a minute) and the session-start equity (set at the first
  decision of each New York trading date);
- from the calendar: the market session now.

Open orders are ordergate's own: every filing that is not finished (pending approval,
accepted, submitted, unanswered …). An open order at the broker whose ``ref_id`` is not one of
our filings is an *unknown broker order*, which halts opening orders until reconciled. At
stage B the filing under review is left out of its own open orders and its own reservation is
taken off the spend, so the order is never counted twice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any
from uuid import UUID

from ordergate.core import Clock, OptionDirection, Side
from ordergate.execution._breakers import session_day
from ordergate.execution._budgets import SHARED, Budget, spent_of
from ordergate.execution._crypto_terms import CRYPTO_KIND, crypto_proposal_of
from ordergate.execution._exercise import EXERCISE_KIND
from ordergate.execution._losses import LOSS_FILINGS, LossRead, losing_closes
from ordergate.execution._option_terms import OPTION_KIND, proposal_of_option
from ordergate.execution._terms import proposal_of
from ordergate.ledger import FilingRecord, Ledger, UnknownFilingError
from ordergate.policy import (
    AccountState,
    Cooldown,
    MarketSession,
    OpenOrder,
    Proposal,
    ProposalError,
    Quote,
    RecentOrders,
    TradingState,
)
from ordergate.venues import AccountView, EquityLane, QuotesNeeded, Sighting

__all__ = ["Filer", "Seen", "SessionSource", "World", "WorldView"]

Seen = Sighting
"""What a decision read of the venue before its worker thread (``World.seen``)."""

SessionSource = Callable[[datetime], MarketSession | None]
"""The market session at an instant, or ``None`` when it cannot be told."""


@dataclass(frozen=True, slots=True)
class Filer:
    """Who files what, for the recent orders stage A counts: the filer's identity, the
    order's terms as they would be filed, and the policy's duplicate window."""

    identity: str
    terms: Mapping[str, Any]
    duplicate_window: timedelta


@dataclass(frozen=True, slots=True)
class WorldView:
    """The engine's state and the broker view it was built from."""

    state: AccountState
    view: AccountView


class World:
    def __init__(
        self,
        ledger: Ledger,
        lane: EquityLane,
        *,
        account: str,
        clock: Clock,
        session: SessionSource,
        source: str = "broker",
    ) -> None:
        """``lane`` is the venue's equity lane the account is read from; ``source`` names
        where (``paper`` or ``broker``), as the equity curve's marks record it."""
        self._ledger = ledger
        self._lane = lane
        self._account = account
        self._source = source
        self._clock = clock
        self._session = session

    async def seen(
        self,
        proposal: Proposal,
        *,
        quote: Quote | None = None,
        quote_from: Awaitable[Quote | None] | None = None,
    ) -> Seen:
        """What a decision reads of the venue before its worker thread (``EquityLane.sight``:
        the whole view, or the market's half that ``with_record`` completes). A fresher
        quote given (the review's, or the review under way's ``quote_from``) is the
        decision's quote: not read again."""
        return await self._lane.sight(
            self._account, proposal.symbol, quote=quote, quote_from=quote_from
        )

    async def more_quotes(self, seen: Seen, needed: QuotesNeeded) -> Seen:
        """``seen`` with the quotes the view asked for (``QuotesNeeded``) read too."""
        return await self._lane.more_quotes(seen, needed.symbols)

    def with_record(
        self,
        proposal: Proposal,
        seen: Seen,
        *,
        own: FilingRecord | None = None,
        quote: Quote | None = None,
        final: bool = True,
        filer: Filer | None = None,
        volume: Decimal | None = None,
        losses_of: LossRead | None = None,
        budget: Budget = SHARED,
    ) -> WorldView:
        """Blocking: the venue's view merged with the ledger's
        record read now, so a caller can read it and write its decision in one worker
        thread. The lane completes ``seen`` here (``EquityLane.view``), in the record's read
        transaction (a venue on the ledger's database reads its book there):
        ``QuotesNeeded`` when it holds symbols ``seen`` has no quote for, unless ``final``
        (then those are unpriced, and what needs them unknown).
        With ``filer`` (stage A) the filer's recent orders are read in the same statement.
        ``volume``: the symbol's average daily volume, when the guard read it. ``losses_of``:
        whose losing closed trades the cooldown counts, and over what window (read only
        when given: the window's filings, however many, and ``LOSS_FILINGS`` before it)."""
        now = self._clock.now()
        # The decision's reads on one connection and read transaction, not one each.
        with self._ledger.reading():
            view = self._lane.view(seen, final=final)
            record = self._read_record(view, now, own, filer, budget)
            losses = () if losses_of is None else self._losses(losses_of)
        chosen = quote if quote is not None else view.quote
        return WorldView(
            AccountState(
                now=now,
                equity=view.equity,
                high_water_mark=record.high_water_mark,
                session_start_equity=record.session_start_equity,
                cash=view.cash,
                buying_power=view.buying_power,
                positions=view.positions,
                open_orders=_open_orders(record.open_filings, proposal.symbol, chosen),
                unknown_broker_orders=record.unknown_broker_orders,
                spent_24h=record.spent,
                orders_24h=record.orders,
                trading_state=TradingState.ACTIVE,
                paused=record.paused,
                session=self._session(now),
                quote=chosen,
                tradable=view.tradable,
                recent=record.recent,
                average_daily_volume=volume,
                cooldown=Cooldown(record.breaker_tripped_at, losses),
            ),
            view,
        )

    def with_account(
        self,
        symbol: str,
        view: AccountView,
        *,
        own: FilingRecord | None = None,
        filer: Filer | None = None,
        losses_of: LossRead | None = None,
        budget: Budget = SHARED,
    ) -> AccountState:
        """Blocking: a view another lane read whole (a crypto lane's, ``symbol`` its pair)
        merged with the ledger's record, as ``with_record`` merges the equity lane's: the
        same spend, pace, pause, marks (the high-water mark and the session-start equity on
        the view's equity, the one formula the breakers read) and open orders. No session
        (crypto trades 24/7) and no average daily volume."""
        now = self._clock.now()
        with self._ledger.reading():
            record = self._read_record(view, now, own, filer, budget)
            losses = () if losses_of is None else self._losses(losses_of)
        return AccountState(
            now=now,
            equity=view.equity,
            high_water_mark=record.high_water_mark,
            session_start_equity=record.session_start_equity,
            cash=view.cash,
            buying_power=view.buying_power,
            positions=view.positions,
            open_orders=_open_orders(record.open_filings, symbol, view.quote),
            unknown_broker_orders=record.unknown_broker_orders,
            spent_24h=record.spent,
            orders_24h=record.orders,
            trading_state=TradingState.ACTIVE,
            paused=record.paused,
            quote=view.quote,
            tradable=view.tradable,
            recent=record.recent,
            cooldown=Cooldown(record.breaker_tripped_at, losses),
        )

    def _losses(self, read: LossRead) -> tuple[datetime, ...]:
        # The window in the record's time, as the filings are stamped.
        since = self._ledger.now() - read.window
        fills = self._ledger.orders.fills_of(read.identity, limit=LOSS_FILINGS, since=since)
        return losing_closes(fills)

    def _read_record(
        self,
        view: AccountView,
        now: datetime,
        own: FilingRecord | None,
        filer: Filer | None,
        budget: Budget,
    ) -> _Record:
        ledger = self._ledger
        # The record's windows and marks count the record's time (wall time in a run); the
        # market's ``now`` names the session day only.
        recorded = ledger.now()
        if filer is None:
            # A review after approval reads the pause of the connection that filed the order.
            reads = ledger.decision_reads(
                self._account, now=recorded, filer=own.identity if own is not None else None
            )
        else:
            reads = ledger.decision_reads(
                self._account,
                now=recorded,
                identity=filer.identity,
                terms=filer.terms,
                duplicate_window=filer.duplicate_window,
            )
        counted = reads.recent
        orders = reads.spend.orders
        spent = spent_of(
            ledger,
            self._account,
            reads.spend.notional,
            kind=budget.kind,
            split=budget.split,
            now=recorded,
        )
        if own is not None:
            # A live filing holds its filed notional and one order until it is repriced
            # (after stage B), released or corrected.
            spent, orders = spent - own.notional, orders - 1
        equity = view.equity
        mark, start = reads.high_water_mark, reads.session_start
        if equity is not None:
            if mark is None or equity > mark or not reads.marked_recently:
                # Raises the mark when equity passed it, and marks the equity curve when a
                # mark is due (at most one a minute), in one write transaction; otherwise
                # the read above is all (no write, no lock).
                mark = ledger.controls.raise_high_water_mark(
                    equity, account=self._account, source=self._source, at=recorded
                )
            day = session_day(now)
            if start is None or start.session != day:
                ledger.controls.set_session_start_equity(day, equity, account=self._account)
                session_start: Decimal | None = equity
            else:
                session_start = start.equity
        else:
            session_start = None if start is None else start.equity
        filings = [f for f in ledger.open_filings(self._account) if own is None or f.id != own.id]
        return _Record(
            spent=spent,
            orders=orders,
            paused=reads.pause.paused,
            high_water_mark=mark,
            session_start_equity=session_start,
            open_filings=tuple(filings),
            unknown_broker_orders=_unknown(ledger, view),
            breaker_tripped_at=reads.breaker_tripped_at,
            recent=None
            if counted is None
            else RecentOrders(counted.identity_minute, counted.account_minute, counted.duplicates),
        )


@dataclass(frozen=True, slots=True)
class _Record:
    spent: Decimal
    orders: int
    paused: bool
    high_water_mark: Decimal | None
    session_start_equity: Decimal | None
    open_filings: tuple[FilingRecord, ...]
    unknown_broker_orders: int | None
    breaker_tripped_at: datetime | None
    recent: RecentOrders | None


def _unknown(ledger: Ledger, view: AccountView) -> int | None:
    """Open broker orders the record does not account for: not ours, or under a filing the
    record says is finished (e.g. declared not placed); ``None`` when the broker's list is
    unknown."""
    if view.open_orders is None:
        return None
    unknown = 0
    for order in view.open_orders:
        if order.ref_id is None or not _is_live_filing(ledger, order.ref_id):
            unknown += 1
    return unknown


def _is_live_filing(ledger: Ledger, ref_id: UUID) -> bool:
    try:
        return not ledger.filing(ref_id).status.terminal
    except UnknownFilingError:
        return False


def _open_orders(
    filings: tuple[FilingRecord, ...], symbol: str, quote: Quote | None
) -> tuple[OpenOrder, ...] | None:
    """Our unfinished filings (equity, crypto and option) as open orders. A dollar-amount order's
    quantity is estimated at the quote; the engine only weighs same-symbol orders'
    quantities (to tell whether an order reduces a position), so an unpriceable one of that
    symbol makes the list unknown."""
    orders: list[OpenOrder] = []
    for filing in filings:
        if filing.kind == EXERCISE_KIND:
            continue  # an exercise held or sent is an act on a contract, not an order
        try:
            filed = _filed(filing)
        except ProposalError:
            return None
        held, side, quantity, notional = filed
        if quantity is None:
            price = _price(quote, side) if held == symbol else None
            if price is None and held == symbol:
                return None
            assert notional is not None
            quantity = notional / price if price is not None else Decimal(0)
        orders.append(OpenOrder(symbol=held, side=side, quantity=quantity))
    return tuple(orders)


def _filed(filing: FilingRecord) -> tuple[str, Side, Decimal | None, Decimal | None]:
    """A filing's instrument, side, quantity and dollar amount, whichever kind it is (an
    option order's: its underlying, with no shares of its own)."""
    if filing.kind == OPTION_KIND:
        option = proposal_of_option(filing.terms)
        side = Side.BUY if option.direction is OptionDirection.DEBIT else Side.SELL
        return option.underlying, side, Decimal(0), None
    if filing.kind == CRYPTO_KIND:
        crypto = crypto_proposal_of(filing.terms)
        return crypto.pair, crypto.side, crypto.asset_quantity, crypto.quote_amount
    equity = proposal_of(filing.terms)
    return equity.symbol, equity.side, equity.quantity, equity.notional


def _price(quote: Quote | None, side: Side) -> Decimal | None:
    if quote is None:
        return None
    price = quote.ask if side is Side.BUY else quote.bid
    return price if price is not None and price > 0 else None
