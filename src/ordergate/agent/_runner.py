"""``Agent``: one identity's tick loop over the guard.

Each tick, on the market clock:

1. the session signal (``session_signal``) says whether this agent may trade now;
2. a ``Snapshot`` of the account and the strategy's symbols is taken as an MCP agent reads
   it (``snapshot_reader``: the paper answers in paper mode), and the breakers
   (``breaker_state``) set the agent's state;
3. the strategy plans (sells only when reducing; nothing when halted or outside the allowed
   session) and the decision — a hold included — is journalled with its rationale and the
   snapshot's digest;
4. every intent becomes a ``Proposal`` submitted through ``Guard.submit`` under the agent's
   identity (there is no other path to an order), sells before buys, and each outcome is
   journalled against its filing;
5. the guard's reconciler follows what is open.

``run`` ticks at most ``max_ticks`` times, waiting ``tick`` between ticks with the injected
``wait`` (a stepped clock's ``advance`` in tests, a sleep on the wall clock in a real run).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, Protocol
from uuid import UUID

from ordergate.agent._book import Book
from ordergate.agent._digest import (
    DigestSink,
    day_end,
    day_entries,
    digest_of,
    latest_day,
    market_day,
)
from ordergate.agent._intent import Intent, Plan
from ordergate.agent._kinds import DECISION, DIGEST, DROPPED, ORDER, RECONCILE
from ordergate.agent._session import SessionSignal, allowed_hours, session_signal
from ordergate.agent._snapshot import Snapshot, snapshot_reader, take_snapshot
from ordergate.agent._state import AgentState, breaker_state
from ordergate.core import Clock, Side
from ordergate.execution import Guard, Outcome
from ordergate.ledger import AccountBusyError
from ordergate.policy import ProposalError

__all__ = ["Agent", "Strategy", "Tick"]


class Strategy(Protocol):
    """Plans a tick from a snapshot; ``symbols`` are the ones it wants quoted."""

    name: str

    @property
    def symbols(self) -> tuple[str, ...]: ...

    async def decide(self, snapshot: Snapshot, *, sells_only: bool = False) -> Plan: ...


@dataclass(frozen=True, slots=True)
class Tick:
    """What one tick saw, decided and sent."""

    signal: SessionSignal
    state: AgentState
    snapshot: Snapshot
    plan: Plan
    orders: tuple[tuple[Intent, Outcome], ...] = field(default=())

    def as_json(self) -> dict[str, Any]:
        return {
            "at": self.signal.at.isoformat(),
            "session": self.signal.session.value,
            "state": self.state.value,
            "decision": self.plan.rationale,
            "snapshot_digest": self.snapshot.digest,
            "orders": [
                {
                    "side": intent.side.value,
                    "symbol": intent.symbol,
                    "filing_id": str(outcome.filing_id),
                    "status": outcome.status.value,
                    "reasons": list(outcome.reasons),
                }
                for intent, outcome in self.orders
            ],
            "dropped": list(self.plan.dropped),
        }


class Agent:
    def __init__(
        self,
        guard: Guard,
        strategy: Strategy,
        *,
        identity: str,
        sessions: Collection[str],
        clock: Clock,
        digest: DigestSink | None = None,
    ) -> None:
        self._guard = guard
        self._strategy = strategy
        self._identity = identity
        self._sessions = frozenset(sessions)
        self._clock = clock
        self._reader = snapshot_reader(guard, identity)
        self.book = Book()
        self._following: dict[UUID, tuple[str, Side]] = {}
        self._digest = digest

    @property
    def identity(self) -> str:
        return self._identity

    async def tick(self) -> Tick:
        guard = self._guard
        signal = session_signal(self._clock.now())
        await self._send_previous_day(signal)
        if self._following:
            # Orders still open since a tick before: the fills the broker reports since are
            # in the ledger (and the book) before the snapshot shows them.
            await guard.reconciler.run_once()
        self._book_fills()
        snapshot = await take_snapshot(
            self._reader, account=guard.account, symbols=self._strategy.symbols, signal=signal
        )
        breakers = breaker_state(
            snapshot.equity,
            ledger=guard.ledger,
            policy=guard.policy,
            now=signal.at,
            account=guard.account,
        )
        check = self.book.reconcile(snapshot)
        if check.halt_buying or check.splits:
            self._journal(RECONCILE, "; ".join(check.notes), snapshot, breakers.state)
        hours = allowed_hours(signal, wanted=self._sessions, policy=guard.policy)
        if breakers.state is AgentState.HALTED:
            plan = Plan(f"hold: halted ({'; '.join(breakers.reasons)})")
        elif hours is None:
            plan = Plan(_outside(signal))
        else:
            plan = await self._strategy.decide(
                snapshot,
                sells_only=breakers.state is AgentState.REDUCING or check.halt_buying,
            )
        self._journal(
            DECISION,
            plan.rationale,
            snapshot,
            breakers.state,
            breakers.reasons,
            hold=plan.hold,
            intents=[f"{intent.side.value} {intent.symbol}" for intent in plan.intents],
            dropped=len(plan.dropped),
        )
        for reason in plan.dropped:
            self._journal(DROPPED, reason, snapshot, breakers.state)
        orders: list[tuple[Intent, Outcome]] = []
        if hours is not None:
            for intent in plan.intents:
                outcome = await self._submit(intent, hours, snapshot, breakers.state)
                if outcome is not None:
                    orders.append((intent, outcome))
        if orders:
            await guard.reconciler.run_once()
            for intent, outcome in orders:
                self._following[outcome.filing_id] = (intent.symbol, intent.side)
            self._book_fills()
        return Tick(signal, breakers.state, snapshot, plan, tuple(orders))

    async def _send_previous_day(self, signal: SessionSignal) -> None:
        """Before the first tick of a later market day: the agent's last day's digest."""
        if self._digest is None:
            return
        last = latest_day(self._guard.ledger.journal, self._identity)
        if last is not None and last < market_day(signal.at):
            await self._send_day(last, signal)

    async def _send_day(self, day: date, signal: SessionSignal) -> None:
        """Send ``day``'s digest when entries of it were journalled since it was last sent."""
        assert self._digest is not None
        journal = self._guard.ledger.journal
        found = day_entries(journal, self._identity, day)
        if not found.fresh:
            return
        digest = digest_of(self._identity, found, journal)
        await self._digest(digest)
        journal.append(
            identity=self._identity,
            kind=DIGEST,
            why=f"the digest of {day.isoformat()} sent",
            detail={
                "day": day.isoformat(),
                "at": signal.at.isoformat(),
                "decisions": digest["decisions"],
                "orders": digest["orders"],
            },
        )

    def _book_fills(self) -> None:
        """Book every new fill of the agent's own filings; stop following finished ones."""
        ledger = self._guard.ledger
        for filing_id, (symbol, side) in list(self._following.items()):
            self.book.book(symbol, side, ledger.orders.executions(filing_id))
            if ledger.filing(filing_id).status.terminal:
                del self._following[filing_id]

    async def run(
        self,
        *,
        max_ticks: int,
        tick: timedelta,
        wait: Callable[[timedelta], Awaitable[object]],
        on_tick: Callable[[Tick], None] | None = None,
    ) -> list[Tick]:
        """Tick ``max_ticks`` times (never more), waiting ``tick`` between ticks. A run whose
        last tick falls at or after the day's end sends that day's digest."""
        if max_ticks <= 0:
            raise ValueError("max_ticks must be positive")
        ticks: list[Tick] = []
        for index in range(max_ticks):
            if index:
                await wait(tick)
            done = await self.tick()
            ticks.append(done)
            if on_tick is not None:
                on_tick(done)
        await self._send_ended_day(ticks[-1].signal)
        return ticks

    async def _send_ended_day(self, signal: SessionSignal) -> None:
        if self._digest is None:
            return
        day = market_day(signal.at)
        ends = day_end(day, self._sessions)
        if ends is not None and signal.at >= ends:
            await self._send_day(day, signal)

    async def _submit(
        self, intent: Intent, hours: Any, snapshot: Snapshot, state: AgentState
    ) -> Outcome | None:
        try:
            proposal = intent.proposal(hours)
        except ProposalError as error:
            self._journal(DROPPED, f"{intent.rationale}: {error}", snapshot, state)
            return None
        try:
            outcome = await self._guard.submit(proposal, identity=self._identity)
        except AccountBusyError as busy:  # nothing filed: said, and tried on a later tick
            self._journal(DROPPED, f"{intent.rationale}: {busy.code}: {busy}", snapshot, state)
            return None
        self._journal(
            ORDER,
            intent.rationale,
            snapshot,
            state,
            filing_id=outcome.filing_id,
            side=intent.side.value,
            symbol=intent.symbol,
            refused=outcome.refused,
            outcome={"status": outcome.status.value, "reasons": list(outcome.reasons)},
        )
        return outcome

    def _journal(
        self,
        kind: str,
        why: str,
        snapshot: Snapshot,
        state: AgentState,
        breakers: tuple[str, ...] = (),
        *,
        filing_id: UUID | None = None,
        **extra: Any,
    ) -> None:
        detail: dict[str, Any] = {
            "at": snapshot.signal.at.isoformat(),
            "strategy": self._strategy.name,
            "state": state.value,
            "session": snapshot.signal.session.value,
            "snapshot_digest": snapshot.digest,
        }
        if breakers:
            detail["breakers"] = list(breakers)
        detail.update(extra)
        self._guard.ledger.journal.append(
            identity=self._identity,
            kind=kind,
            why=why,
            filing_id=filing_id,
            detail=detail,
            snapshot=snapshot.as_json(),
        )


def _outside(signal: SessionSignal) -> str:
    after = "" if signal.next_open is None else f"; next regular open {signal.next_open}"
    return f"hold: the {signal.session.value} session is not one this agent trades in{after}"
