"""What the paper executor and paper account tests share: a market the test moves (quotes,
tradability, the session), ledgers to open (SQLite, and Postgres when
``ORDERGATE_TEST_PG_URL`` names a server) and tickets to place.

The Postgres switch and its skip message are the ledger tests' own (tests/ledger/conftest.py),
loaded from there rather than copied.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from uuid import UUID, uuid4

from pg_testkit import database

from ordergate.core import MarketHours, OrderType, Side, SteppedClock, TimeInForce
from ordergate.policy import MarketSession, Proposal, Quote
from ordergate.venues import Ticket

__all__ = [
    "ACCOUNT",
    "BACKENDS",
    "START",
    "Market",
    "ledger_url_for",
    "ticket",
]

START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
ACCOUNT = "paper-account-1"
BACKENDS = ["sqlite", "postgres"]


def ledger_url_for(backend: str, tmp_path: Path) -> AbstractContextManager[str]:
    """A fresh ledger URL: a SQLite file in ``tmp_path``, or a scratch Postgres database
    (skipped, saying how to enable it, when no server is configured)."""
    return database(backend, tmp_path)


class Market:
    """The market data the test controls: bid/ask per symbol, tradability, the session.

    ``quote`` answers ``None`` for a symbol never set or cleared. ``on_quote`` (when set)
    runs inside ``quote`` before it answers: a test uses it to act "during" a read.
    """

    def __init__(self, clock: SteppedClock) -> None:
        self._clock = clock
        self._prices: dict[str, tuple[Decimal | None, Decimal | None]] = {}
        self.tradables: dict[str, bool] = {}
        self.now_session = MarketSession.REGULAR
        self.asked: list[str] = []
        self.on_quote: Callable[[str], Awaitable[None]] | None = None

    def set(self, symbol: str, bid: str | None, ask: str | None) -> None:
        self._prices[symbol] = (
            None if bid is None else Decimal(bid),
            None if ask is None else Decimal(ask),
        )

    def clear(self, symbol: str) -> None:
        self._prices.pop(symbol, None)

    def session(self, now: datetime) -> MarketSession:
        assert now == self._clock.now()
        return self.now_session

    async def quote(self, symbol: str) -> Quote | None:
        self.asked.append(symbol)
        if self.on_quote is not None:
            await self.on_quote(symbol)
        if symbol not in self._prices:
            return None
        bid, ask = self._prices[symbol]
        return Quote(symbol=symbol, bid=bid, ask=ask, last=None, as_of=self._clock.now())

    async def tradable(self, account: str, symbol: str) -> bool | None:
        return self.tradables.get(symbol)


def ticket(
    symbol: str,
    side: Side,
    *,
    quantity: str | None = None,
    notional: str | None = None,
    order_type: OrderType = OrderType.MARKET,
    limit: str | None = None,
    stop: str | None = None,
    hours: MarketHours = MarketHours.REGULAR_HOURS,
    account: str = ACCOUNT,
    ref_id: UUID | None = None,
) -> Ticket:
    proposal = Proposal(
        symbol=symbol,
        side=side,
        quantity=None if quantity is None else Decimal(quantity),
        notional=None if notional is None else Decimal(notional),
        order_type=order_type,
        limit_price=None if limit is None else Decimal(limit),
        stop_price=None if stop is None else Decimal(stop),
        time_in_force=TimeInForce.GTC,
        market_hours=hours,
        account=account,
    )
    return Ticket(ref_id=ref_id or uuid4(), account=account, proposal=proposal)
