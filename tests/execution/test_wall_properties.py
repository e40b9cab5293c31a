"""The wall's caps hold under any interleaving of orders, broker events and clock moves.

Hypothesis drives the real ``Guard`` over a real ledger (SQLite in ``tmp_path``) and a
``ScriptedBroker`` (``broker_script``): it submits orders, fills them in part or in full at
the worst price the broker may give, cancels them (through the guard, or the broker on its
own), rejects them before or after a partial fill, loses the answer to a review or a place
(with the order live or not), keeps the broker quiet, moves quotes, approves and denies, runs
the reconciler and moves the clock by seconds to more than a day — in any order. The machine
runs under two policies: no approvals, and approval above a threshold.

Definitions (per filing ``f``; ``now`` is the stepped clock):

- ``hold(f)``: what the ledger's chained record says ``f``'s reservation holds now — its
  notional as filed (0 when the filing was refused), then each ``reprice``, ``correct`` and
  ``release`` event in turn (a release holds nothing and no order);
- ``spent(f)``: the notional of the buy fills the *broker* reports for ``f``'s ``ref_id`` (a
  sell spends nothing);
- ``exposure(f) = max(spent(f), hold(f))``: an order still working may spend up to its hold
  (the broker never fills a buy past the price its hold was computed from) and has spent
  ``spent(f)``; once it ended and was reconciled its hold is what filled. Taking the larger
  means a fill the ledger does not cover always counts;
- ``op(f)``: 1 when ``f``'s reservation was not released, or anything of it filled;
- a window ``(T − 24 h, T]`` holds the filings filed in it (spend is counted at filing time,
  as the ledger counts it), by the filing time this test read from the clock itself.

Checked after every step:

1. for ``T = now`` and ``T`` = every accepted filing's time: Σ exposure ≤ ``max_daily_usd``
   and Σ op ≤ ``max_orders_per_day``;
2. nothing is ever placed twice for one ``ref_id`` (the broker counts every place call,
   answered or not);
3. a filing the ledger has ended has no working order at the broker, and holds exactly what
   the broker filled of it;
4. the chained record and the reservations agree: Σ hold and Σ op over ``(now − 24 h, now]``
   are ``ledger.rolling_spend`` now; and ``ledger.verify()`` is ok.

And after a reconcile that leaves every filing and every broker order ended, the rolling
spend is exactly the broker's filled buy notional of the window's orders (spend converges to
the fills).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import ClassVar, TypeVar
from uuid import UUID, uuid4

import anyio
import pytest
from broker_script import Fault, ScriptedBroker, scripted_venue
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from ordergate.core import MarketHours, OrderState, OrderType, Side, SteppedClock
from ordergate.execution import Guard
from ordergate.ledger import ApprovalState, FilingRecord, FilingStatus, Ledger, open_ledger
from ordergate.policy import MarketSession, PolicyConfig, Proposal, parse_policy
from ordergate.venues import BrokerRefusal, NoAnswer

T = TypeVar("T")

ACCOUNT = "5QR00001"
START = datetime.fromisoformat("2026-12-01T15:00:00+00:00")
DAY = timedelta(hours=24)
MINUTE = timedelta(minutes=1)
PRICES = {"SPY": Decimal("100.00"), "AAPL": Decimal("40.00"), "MSFT": Decimal("250.00")}

POLICY = """
approval = "{approval}"
approval_ttl_s = 900
# The machine weighs the caps: an approval stays good through its moves (at most +8 % each;
# a move past the approved estimate holding the order again is pinned in test_guard_approvals).
approval_slippage_pct = "100"
[limits]
max_order_usd = "1500"
max_daily_usd = "2500"
max_orders_per_day = 5
max_open_orders = 8
max_position_pct = "100"
max_spread_bps = 100
price_collar_bps = 1000
[symbols]
allow = ["*"]
[orders]
types = ["market", "limit"]
"""

SYMBOLS = st.sampled_from(sorted(PRICES))
SHARES = st.decimals(Decimal("0.5"), Decimal(6), places=1)
PICK = st.integers(min_value=0, max_value=1 << 16)
# From seconds to more than a day, with the instants around the window's edge and an
# approval's time to live (900 s) drawn on purpose.
DELAYS = st.one_of(
    st.integers(1, 300),
    st.integers(300, 6 * 3600),
    st.sampled_from([899, 901, 86_100, 86_399, 86_400, 86_401]),
    st.integers(20 * 3600, 30 * 3600),
)


def _regular(_now: datetime) -> MarketSession:
    # The market is always open here: sessions are not what this property is about.
    return MarketSession.REGULAR


@dataclass(frozen=True, slots=True)
class Filed:
    """A filing as this test saw it go in: when (read from the clock) and what."""

    id: UUID
    at: datetime
    proposal: Proposal


class WallMachine(RuleBasedStateMachine):
    """One account, one guard, one ledger file, one scripted broker, one stepped clock.
    A subclass names the policy and the directory the ledger files go in."""

    config: ClassVar[PolicyConfig]
    base: ClassVar[Path]

    def __init__(self) -> None:
        super().__init__()
        self.clock = SteppedClock(start=START)
        self.broker = ScriptedBroker(self.clock, PRICES)
        url = f"sqlite:///{self.base / f'ledger-{uuid4().hex}.db'}"
        self.ledger: Ledger = open_ledger(url, clock=self.clock)
        self.guard = Guard(
            policy=self.config,
            ledger=self.ledger,
            venue=scripted_venue(self.broker),
            account=ACCOUNT,
            clock=self.clock,
            session=_regular,
        )
        self.filed: dict[UUID, Filed] = {}
        self.approvals: list[UUID] = []

    def teardown(self) -> None:
        self.ledger.close()

    # -- the agent and the person ----------------------------------------------------------

    @rule(symbol=SYMBOLS, shares=SHARES)
    def submit_a_market_buy(self, symbol: str, shares: Decimal) -> None:
        self._submit(Proposal(symbol=symbol, side=Side.BUY, quantity=shares))

    @rule(symbol=SYMBOLS, shares=SHARES, percent=st.integers(-3, 12))
    def submit_a_limit_buy(self, symbol: str, shares: Decimal, percent: int) -> None:
        quote = self.broker.quote(symbol)
        assert quote is not None and quote.last is not None
        limit = (quote.last * (100 + percent) / 100).quantize(Decimal("0.01"))
        self._submit(
            Proposal(
                symbol=symbol,
                side=Side.BUY,
                quantity=shares,
                order_type=OrderType.LIMIT,
                limit_price=limit,
                market_hours=MarketHours.REGULAR_HOURS,
            )
        )

    @precondition(lambda self: bool(self.filed))
    @rule(pick=PICK)
    def submit_an_order_again(self, pick: int) -> None:
        """The same order sent again (a looping agent): a duplicate inside the window."""
        filings = list(self.filed.values())
        self._submit(filings[pick % len(filings)].proposal)

    @rule(symbol=SYMBOLS, amount=st.decimals(Decimal(20), Decimal(900), places=2))
    def submit_a_dollar_buy(self, symbol: str, amount: Decimal) -> None:
        self._submit(Proposal(symbol=symbol, side=Side.BUY, notional=amount))

    @rule(
        symbol=SYMBOLS,
        kind=st.sampled_from([OrderType.MARKET, OrderType.LIMIT, None]),
        percent=st.integers(80, 110),
    )
    def submit_a_buy_sized_to_the_cap(
        self, symbol: str, kind: OrderType | None, percent: int
    ) -> None:
        """A buy of about what the daily cap has left (``percent`` of it, at most the per-order
        cap; ``kind`` ``None``: in dollars)."""
        left = self.config.max_daily_usd - self.ledger.rolling_spend(ACCOUNT).notional
        target = min(left, self.config.max_order_usd) * percent / 100
        quote = self.broker.quote(symbol)
        assert quote is not None and quote.ask is not None
        if kind is None:
            if target >= 1:
                self._submit(Proposal(symbol, Side.BUY, notional=target.quantize(Decimal("0.01"))))
            return
        # A market buy holds 5 % over the ask; a limit buy its limit (here the ask).
        price = quote.ask * Decimal("1.05") if kind is OrderType.MARKET else quote.ask
        shares = (target / price).quantize(Decimal("0.1"))
        if shares <= 0:
            return
        limit = quote.ask if kind is OrderType.LIMIT else None
        self._submit(Proposal(symbol, Side.BUY, shares, order_type=kind, limit_price=limit))

    @precondition(lambda self: bool(self.broker.positions()))
    @rule(pick=PICK, shares=SHARES)
    def submit_a_sell(self, pick: int, shares: Decimal) -> None:
        """A sell of at most what is held (it reduces a position, unless pending sells
        already cover it: then the policy refuses it as a short)."""
        held = sorted(self.broker.positions().items())
        symbol, position = held[pick % len(held)]
        quantity = min(shares, position.quantity)
        self._submit(Proposal(symbol=symbol, side=Side.SELL, quantity=quantity))

    @precondition(lambda self: bool(self._pending()))
    @rule(pick=PICK)
    def approve(self, pick: int) -> None:
        pending = self._pending()
        approval = pending[pick % len(pending)]
        self._run(lambda: self.guard.approve(approval, by="person"))

    @precondition(lambda self: bool(self._pending()))
    @rule(pick=PICK)
    def deny(self, pick: int) -> None:
        pending = self._pending()
        approval = pending[pick % len(pending)]
        self._run(lambda: self.guard.deny(approval, by="person"))

    @precondition(lambda self: bool(self._unfinished()))
    @rule(pick=PICK, answer=st.sampled_from([OrderState.CANCELLED, OrderState.PENDING_CANCELLED]))
    def cancel_through_the_guard(self, pick: int, answer: OrderState) -> None:
        unfinished = self._unfinished()
        filing = unfinished[pick % len(unfinished)]
        self.broker.cancel_answer = answer
        # Refused (it already ended at the broker) or unanswered (the broker is quiet): real.
        with contextlib.suppress(BrokerRefusal, NoAnswer):
            self._run(lambda: self.guard.cancel(filing, identity="agent"))

    # -- the broker ------------------------------------------------------------------------

    @precondition(lambda self: bool(self.broker.working()))
    @rule(
        pick=PICK,
        percent=st.one_of(st.none(), st.integers(1, 99)),
        at_ceiling=st.booleans(),
    )
    def broker_fills(self, pick: int, percent: int | None, at_ceiling: bool) -> None:
        working = self.broker.working()
        order = working[pick % len(working)]
        fraction = None if percent is None else Decimal(percent) / 100
        self.broker.fill(order.order_id, fraction=fraction, at_ceiling=at_ceiling)

    @precondition(lambda self: bool(self.broker.working()))
    @rule(
        pick=PICK,
        state=st.sampled_from(
            [
                OrderState.CANCELLED,
                OrderState.PARTIALLY_FILLED_REST_CANCELLED,
                OrderState.REJECTED,
                OrderState.FAILED,
            ]
        ),
    )
    def broker_ends_an_order(self, pick: int, state: OrderState) -> None:
        working = self.broker.working()
        order = working[pick % len(working)]
        if state is OrderState.PARTIALLY_FILLED_REST_CANCELLED and not order.fills:
            state = OrderState.CANCELLED
        reason = "scripted" if state in (OrderState.REJECTED, OrderState.FAILED) else None
        self.broker.end(order.order_id, state, reason)

    @rule(fault=st.sampled_from(Fault))
    def broker_fails_the_next_order(self, fault: Fault) -> None:
        self.broker.fault_next(fault)

    @rule(calls=st.integers(1, 3))
    def broker_goes_quiet(self, calls: int) -> None:
        self.broker.go_quiet(calls)

    @rule(symbol=SYMBOLS, percent=st.integers(-8, 8))
    def quote_moves(self, symbol: str, percent: int) -> None:
        quote = self.broker.quote(symbol)
        assert quote is not None and quote.last is not None
        self.broker.move(symbol, quote.last * (100 + percent) / 100)

    # -- time and the reconciler -----------------------------------------------------------

    @rule(seconds=DELAYS)
    def clock_moves(self, seconds: int) -> None:
        self.clock.advance(timedelta(seconds=seconds))

    @precondition(lambda self: bool(self.filed))
    @rule(pick=PICK, before=st.integers(0, 900))
    def clock_moves_to_a_window_edge(self, pick: int, before: int) -> None:
        """To ``before`` seconds short of the day after a filing (when that is still ahead)."""
        filings = list(self.filed.values())
        edge = filings[pick % len(filings)].at + DAY - timedelta(seconds=before)
        if edge > self.clock.now():
            self.clock.set(edge)

    @rule()
    def reconcile(self) -> None:
        self._run(self.guard.reconcile)
        if self.ledger.open_filings(ACCOUNT) or self.broker.working():
            return
        now = self.clock.now()
        in_window = self._window(now)
        spent = sum((self._spent(filed.id) for filed in in_window), Decimal(0))
        assert self.ledger.rolling_spend(ACCOUNT, now=now).notional == spent

    # -- the invariants --------------------------------------------------------------------

    @invariant()
    def the_caps_hold_in_every_window(self) -> None:
        records = {key: self.ledger.filing(key) for key in self.filed}
        holds = {key: self._hold(record) for key, record in records.items()}
        exposure = {key: max(self._spent(key), holds[key][0]) for key in self.filed}
        op = {key: int(holds[key][1] == 1 or self._spent(key) > 0) for key in self.filed}
        ends = [self.clock.now()] + [
            self.filed[key].at for key, record in records.items() if record.accepted
        ]
        for end in ends:
            keys = [filed.id for filed in self._window(end)]
            total = sum((exposure[key] for key in keys), Decimal(0))
            assert total <= self.config.max_daily_usd, self._explain(end, total, keys, exposure)
            ops = sum(op[key] for key in keys)
            assert ops <= self.config.max_orders_per_day, f"{ops} orders in the window to {end}"

    @invariant()
    def the_pace_holds(self) -> None:
        """No two accepted filings of the same terms inside the duplicate window, and no
        more accepted in any rolling minute than the rate allows (one identity here)."""
        accepted = [
            (self.filed[key].at, record.terms)
            for key in self.filed
            if (record := self.ledger.filing(key)).accepted
        ]
        window = timedelta(seconds=self.config.duplicate_window_s)
        rate = min(self.config.max_orders_per_minute, self.config.max_account_orders_per_minute)
        for index, (at, terms) in enumerate(accepted):
            earlier = accepted[:index]
            same = [other for other, filed in earlier if filed == terms]
            assert all(abs(other - at) >= window for other in same), (at, terms)
            in_minute = [other for other, _ in accepted if at - MINUTE < other <= at]
            assert len(in_minute) <= rate, f"{len(in_minute)} accepted in the minute to {at}"

    @invariant()
    def nothing_is_placed_twice(self) -> None:
        assert all(calls <= 1 for calls in self.broker.place_calls.values())
        assert set(self.broker.place_calls) <= set(self.filed)

    @invariant()
    def an_ended_filing_holds_what_the_broker_filled(self) -> None:
        for key in self.filed:
            record = self.ledger.filing(key)
            assert record.created_at == self.filed[key].at
            if not record.status.terminal:
                continue
            order = self.broker.by_ref(key)
            assert order is None or order.terminal, (key, record.status, order)
            assert self._hold(record)[0] == self._spent(key), (key, record.status)

    @invariant()
    def the_record_and_the_reservations_agree(self) -> None:
        now = self.clock.now()
        window = [self._hold(self.ledger.filing(filed.id)) for filed in self._window(now)]
        spend = self.ledger.rolling_spend(ACCOUNT, now=now)
        assert spend.notional == sum((held for held, _ops in window), Decimal(0))
        assert spend.orders == sum(ops for _held, ops in window)
        assert self.ledger.verify().ok

    def check(self) -> None:
        """Every invariant, as hypothesis checks them after each step."""
        self.the_caps_hold_in_every_window()
        self.the_pace_holds()
        self.nothing_is_placed_twice()
        self.an_ended_filing_holds_what_the_broker_filled()
        self.the_record_and_the_reservations_agree()

    # -- helpers ---------------------------------------------------------------------------

    def _run(self, call: Callable[[], Awaitable[T]]) -> T:
        return anyio.run(call)

    def _submit(self, proposal: Proposal) -> None:
        at = self.clock.now()
        outcome = self._run(lambda: self.guard.submit(proposal, identity="agent"))
        assert outcome.filing_id not in self.filed
        self.filed[outcome.filing_id] = Filed(outcome.filing_id, at, proposal)
        if outcome.status is FilingStatus.PENDING_APPROVAL:
            assert outcome.approval_id is not None
            self.approvals.append(outcome.approval_id)

    def _pending(self) -> list[UUID]:
        return [
            approval
            for approval in self.approvals
            if self.ledger.approvals.get(approval).state is ApprovalState.PENDING
        ]

    def _unfinished(self) -> list[UUID]:
        return [key for key in self.filed if not self.ledger.filing(key).status.terminal]

    def _window(self, end: datetime) -> list[Filed]:
        return [filed for filed in self.filed.values() if end - DAY < filed.at <= end]

    def _spent(self, key: UUID) -> Decimal:
        order = self.broker.by_ref(key)
        return order.filled_notional if order is not None and order.buy else Decimal(0)

    def _hold(self, record: FilingRecord) -> tuple[Decimal, int]:
        """What the chained record says the filing's reservation holds: (notional, ops)."""
        if not record.accepted:
            return Decimal(0), 0
        held, ops = record.notional, 1
        for event in self.ledger.events(record.id):
            if event.kind == "reprice":
                held = Decimal(event.detail["notional"])
            elif event.kind == "correct":
                held, ops = Decimal(event.detail["filled_notional"]), 1
            elif event.kind == "release":
                held, ops = Decimal(0), 0
        return held, ops

    def _explain(
        self, end: datetime, total: Decimal, keys: Iterable[UUID], exposure: dict[UUID, Decimal]
    ) -> str:
        lines = [f"the window ending {end:%Y-%m-%dT%H:%M:%S} holds {total}:"]
        for key in keys:
            record = self.ledger.filing(key)
            events = [f"{e.kind} {e.status or e.detail}" for e in self.ledger.events(key)]
            lines.append(
                f"  filed {self.filed[key].at:%Y-%m-%dT%H:%M:%S} {record.status} "
                f"filed at {record.notional}, spent {self._spent(key)}, "
                f"exposure {exposure[key]}: {events}"
            )
        return "\n".join(lines)


def under_policy(directory: Path, approval: str) -> type[WallMachine]:
    """The machine under the test policy with ``approval``, its ledgers in ``directory``."""
    policy = parse_policy(POLICY.format(approval=approval))

    class UnderThisPolicy(WallMachine):
        config = policy
        base = directory

    return UnderThisPolicy


@pytest.mark.req("wall.property.caps-hold")
@pytest.mark.parametrize("approval", ["never", "above:400"])
def test_no_interleaving_of_orders_fills_cancels_rejections_and_clock_moves_breaks_the_caps(
    tmp_path: Path, approval: str
) -> None:
    run_state_machine_as_test(
        under_policy(tmp_path, approval),
        settings=settings(
            max_examples=40,
            stateful_step_count=30,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )


@pytest.mark.req("wall.property.caps-hold")
def test_a_hold_raised_at_approval_keeps_every_window_it_was_filed_in_under_the_cap(
    tmp_path: Path,
) -> None:
    """An interleaving the machine can draw (but rarely does), replayed step by step with
    the invariants checked after each, as hypothesis would.

    A 1500 limit buy is filed and placed; 23 h 55 min later a 945.10 market buy (9 SPY at
    the 100.01 ask, +5 %) is filed under approval: the window ending then holds 2445.10 of
    2500. The person approves 899 s later, after SPY rose 8 %: review reprices the hold to
    1020.70, and the ledger checks that against the window ending *now* — which the first
    order has just left. Both orders would then be working: at the broker's ceilings the
    two, filed 23 h 55 min apart, fill for 2520.69. The raise must fit every window that
    holds the order (the one ending at its filing too), so the review refuses it.
    """
    machine = under_policy(tmp_path, "above:400")()
    steps: list[Callable[[], None]] = [
        lambda: machine.submit_a_limit_buy("MSFT", Decimal(6), 0),
        lambda: machine.approve(0),
        lambda: machine.clock_moves(86_100),
        lambda: machine.submit_a_market_buy("SPY", Decimal(9)),
        lambda: machine.clock_moves(899),
        lambda: machine.quote_moves("SPY", 8),
        lambda: machine.approve(0),
        machine.reconcile,
    ]
    try:
        machine.check()
        for step in steps:
            step()
            machine.check()
        spy = next(filed.id for filed in machine.filed.values() if filed.proposal.symbol == "SPY")
        assert machine.ledger.filing(spy).status is FilingStatus.REFUSED
        ended = [e.detail for e in machine.ledger.events(spy) if e.status == "refused"]
        assert ended == [{"reasons": ["max_daily_usd"], "stage": "review"}]
        assert machine.broker.place_calls[spy] == 0
    finally:
        machine.teardown()
