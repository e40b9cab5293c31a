"""A paper guard on a real sandbox venue over loopback, with the grader beside it, all on one
stepped clock: the venue's simulated market answers the grader's closes through the typed
client (``MarketCloses``), exactly as the upstream's historicals would.

``desk(tmp_path, start=...)`` starts the venue at ``start``; ``Desk.step_to(instant)`` moves
the one clock (venue, ledger, guard and grader).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
from client_testkit import account_number, write_minted
from venue_testkit import VenueClient

from ordergate.calendar import NyseCalendar
from ordergate.client import Config, Robinhood, connect
from ordergate.core import Side, SteppedClock
from ordergate.execution import Guard
from ordergate.ledger import FilingStatus, Ledger, open_ledger
from ordergate.policy import Proposal, parse_policy
from ordergate.record import Closes, Grader, MarketCloses
from ordergate.sandbox import SandboxConfig, SandboxServer
from ordergate.venues.paper import PaperVenue

BOUND_S = 30
SETTLE = timedelta(seconds=2)
"""How far the clock moves for a placed paper market order to fill: the venue confirms it
after 1 s and looks at the market a second later."""
# Thursday 2026-12-24, 10:00 in New York: an early-close day before Christmas (a Friday).
# Its fills are graded at Monday 2026-12-28's close: over the holiday and the weekend.
CHRISTMAS_EVE = datetime(2026, 12, 24, 15, 0, tzinfo=UTC)
MONDAY_CLOSE = datetime(2026, 12, 28, 21, 0, tzinfo=UTC)

POLICY = parse_policy(
    """
approval = "never"
[limits]
max_order_usd = "5000"
max_daily_usd = "200000"
max_orders_per_day = 100
max_open_orders = 10
max_position_pct = "100"
max_spread_bps = 500
price_collar_bps = 1000
# The record's tests fill the same order many times at one instant: grading is what they
# weigh (duplicates and the order rate are pinned in test_guard_pace).
duplicate_window_s = 0
max_orders_per_minute = 1000
max_account_orders_per_minute = 1000
[symbols]
allow = ["*"]
[paper]
starting_cash_usd = "100000"
"""
)


@dataclass
class Desk:
    guard: Guard
    ledger: Ledger
    clock: SteppedClock
    venue: VenueClient
    rh: Robinhood
    closes: MarketCloses
    calendar: NyseCalendar

    def step_to(self, instant: datetime) -> None:
        self.clock.advance(instant - self.clock.now())

    def grader(self, closes: Closes | None = None, **settings: Any) -> Grader:
        return Grader(
            self.ledger,
            closes or self.closes,
            clock=self.clock,
            calendar=self.calendar,
            **settings,
        )

    async def settle(self) -> None:
        """Run the venue's clock past its confirmation delay (``SETTLE``) and book what
        filled: a paper market order placed before fills at the clock's new instant."""
        self.clock.advance(SETTLE)
        await self.guard.reconcile()

    async def fill(
        self, symbol: str, side: Side, quantity: str = "1", *, identity: str = "agent-a"
    ) -> str:
        """A market order filed, placed (the venue answers ``submitted``) and, once settled
        (``settle``), filled on paper at the clock's instant then; its filing id."""
        proposal = Proposal(symbol=symbol, side=side, quantity=Decimal(quantity))
        outcome = await self.guard.submit(proposal, identity=identity)
        assert outcome.status is FilingStatus.SUBMITTED, outcome
        await self.settle()
        status = self.ledger.filing(outcome.filing_id).status
        assert status is FilingStatus.FILLED, status
        return str(outcome.filing_id)


@asynccontextmanager
async def desk(
    tmp_path: Path, *, start: datetime = CHRISTMAS_EVE, ledger_url: str | None = None
) -> AsyncIterator[Desk]:
    clock = SteppedClock(start=start)
    calendar = NyseCalendar()
    with (
        SandboxServer(SandboxConfig(port=0, seed=7), clock=clock) as sandbox,
        VenueClient(sandbox.base_url) as client,
    ):
        client.sign_in()
        token_file = tmp_path / "record-tokens.json"
        write_minted(client, token_file, expires_at=None)
        async with AsyncExitStack() as stack:
            ledger = stack.enter_context(
                open_ledger(ledger_url or f"sqlite:///{tmp_path / 'record-ledger.db'}", clock=clock)
            )
            with anyio.fail_after(BOUND_S):
                rh = await stack.enter_async_context(
                    connect(Config(url=client.mcp_url, token_file=token_file), clock=clock)
                )
            account = account_number(client)
            venue = PaperVenue.on(
                rh, ledger.engine, clock=clock, cash=POLICY.paper_cash_usd, account=account
            )
            guard = await stack.enter_async_context(
                Guard.open(
                    policy=POLICY,
                    ledger=ledger,
                    venue=venue,
                    account=account,
                    clock=clock,
                )
            )
            closes = MarketCloses(rh.market, calendar=calendar, clock=clock)
            yield Desk(guard, ledger, clock, client, rh, closes, calendar)
