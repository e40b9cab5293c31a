"""``ordergate bench history``: what an order costs as the ledger's history grows.

One ledger per history, each a SQLite file in a scratch directory: empty (the baseline),
then seeded with that many *ended* filings on the bench's own account and identity plus as
many on ten other accounts (``_history_seed``: filled, denied and not-placed orders with their
events, approvals, broker orders, executions and the paper book's ended orders and closed
trades), and, beside them, ledgers
holding that many of the account's *own* orders alone (``History.own``: every one filled, with
every row the bench's own order path writes, its journal entries included; the bench's test
proves the seeded rows equal those of orders placed through the guard). Each seeded ledger is
verified before anything is measured. Sizes: 0, 10,000 and 100,000 of each (``--quick``: 0,
20,000 ended filings and 5,000 own orders). With ``--pg URL`` (or ``ORDERGATE_TEST_PG_URL``)
the same ledgers are measured again on Postgres, each in a scratch database of its own, after
the SQLite ones; their cases are named ``pg_…`` and compared with ``pg_…_h0``.

Every ledger gets the same guard, in paper: the venue's own engine on a paper book in the
ledger's database (``PaperVenue``), over a fixed in-process upstream (``FixedUpstream``:
SPY 99.99 × 100.01, tradable, stamped with the clock's instant), a stepped
clock at Tuesday 2026-12-01 10:00 New York (the regular session), a policy that holds every
order for approval with limits far out of the way, and three resting limit buys at $95 that
stay open, so every reconciler pass has orders to poll.

Cases, one JSON line each; each ``_hN`` beside its ``_h0`` (``baseline``, ``ratio``):

- ``order_hN``: the whole guard path for one share of SPY, buys and sells in turn: file,
  stage A, hold for approval (``Guard.submit``); approve, review, stage B, reprice, place
  (``Guard.approve``); then the clock moves two seconds (the engine confirms a market order
  a second after it is placed and fills it a second later) and one reconciler pass books
  the fill;
- ``reconcile_hN``: one reconciler pass alone (overdue approvals, the account's open
  filings, each resting order polled);
- ``record_hN``: ``gate_record``'s answer for the bench identity (its latest 50 filings with
  their statuses), whose own history is the seeded one;
- ``order_own_hN``, ``reconcile_own_hN``, ``record_own_hN``: the same on the ledger of the
  account's own N orders, beside the same ``_h0``.

The ledgers take turns call by call (an order on each, then the next order on each …), in
rounds, so machine noise falls on each alike. Goals: every ``order_hN`` ratio ≤ 1.2 (issue
14), and every ``order_own_hN`` ratio ≤ 1.2, on SQLite and on Postgres (issue 31). Progress
goes to stderr.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

from ordergate.bench._fixed_upstream import FixedUpstream
from ordergate.bench._history_seed import History, seed_history
from ordergate.bench._ledger import scratch_postgres
from ordergate.bench._stats import Summary, summarise
from ordergate.core import MarketHours, OrderType, Side, SteppedClock
from ordergate.execution import Guard, Outcome
from ordergate.gateway.mcp import RECORD_LIMIT, record
from ordergate.ledger import FilingStatus, Ledger, open_ledger
from ordergate.policy import Proposal, parse_policy
from ordergate.venues.paper import PaperVenue

__all__ = [
    "ACCOUNT",
    "IDENTITY",
    "SIZES",
    "START",
    "Sizes",
    "one_order",
    "one_pass",
    "one_record",
    "open_desk",
    "run_history_bench",
]

BENCH = "history"
ACCOUNT = "bench-account"
IDENTITY = "bench-agent"
START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)  # Tuesday 10:00 New York
_RESTING = 3
_FILL_STEP = timedelta(seconds=2)  # the engine confirms a market order 1 s on, fills 1 s later
_POLICY = parse_policy(
    """
mode = "paper"
approval = "always"
[limits]
max_order_usd = "100000"
max_daily_usd = "100000000"
max_orders_per_day = 1000000
max_open_orders = 1000
max_position_pct = "100"
max_positions = 1000
daily_loss_halt_usd = "100000000"
max_spread_bps = 1000
price_collar_bps = 1000
# The bench files the same orders seconds apart (stepped): it measures the order path, not
# an agent's pace, so the rate is opened up and duplicates are let through; the statement
# that counts both still runs on every order.
duplicate_window_s = 0
max_orders_per_minute = 1000
max_account_orders_per_minute = 1000
[symbols]
allow = ["*"]
[paper]
starting_cash_usd = "1000000"
"""
)


@dataclass(frozen=True, slots=True)
class Sizes:
    histories: tuple[int, ...]  # ended filings on the bench account (and as many elsewhere)
    own: tuple[int, ...]  # the account's own ended orders alone (beside ``histories``'s 0)
    rounds: int  # alternating rounds over the ledgers
    orders: int  # orders per ledger per round
    passes: int  # reconciler passes per ledger per round
    records: int  # gate_record answers per ledger per round
    warmup: int  # unmeasured calls of each case per ledger first
    # Filings of the bench identity on every ledger before anything is measured (at least
    # this many orders are placed to warm up): a full page, so that every gate_record answer
    # shows as many filings, whatever the history.
    page: int = RECORD_LIMIT


SIZES = {
    "quick": Sizes(
        histories=(0, 20_000), own=(5_000,), rounds=3, orders=8, passes=20, records=20, warmup=3
    ),
    "full": Sizes(
        histories=(0, 10_000, 100_000),
        own=(10_000, 100_000),
        rounds=5,
        orders=20,
        passes=40,
        records=40,
        warmup=5,
    ),
}


def _expect(holds: bool, failure: str) -> None:
    """Every measured call checks what it did: a bench that measured the wrong thing fails."""
    if not holds:
        raise RuntimeError(f"bench history: {failure}")


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@dataclass
class _Desk:
    label: str  # ``hN`` or ``own_hN``
    ledger: Ledger
    guard: Guard
    clock: SteppedClock
    sides: Iterator[Side] = field(default_factory=lambda: itertools.cycle((Side.BUY, Side.SELL)))
    samples: dict[str, list[int]] = field(default_factory=dict)


def run_history_bench(
    *, quick: bool, emit: Callable[[Summary], None], pg_url: str | None = None
) -> None:
    sizes = SIZES["quick" if quick else "full"]
    with tempfile.TemporaryDirectory() as home:
        root = Path(home)

        def sqlite(name: str, stack: ExitStack) -> str:
            return f"sqlite:///{root / f'{name}.db'}"

        _emit(asyncio.run(_measure(sqlite, sizes)), "", emit)
    url = pg_url or os.environ.get("ORDERGATE_TEST_PG_URL")
    if url:
        _say("bench history: the same on Postgres")

        def postgres(name: str, stack: ExitStack) -> str:
            return stack.enter_context(scratch_postgres(url))

        _emit(asyncio.run(_measure(postgres, sizes)), "pg_", emit)


def _emit(desks: list[_Desk], prefix: str, emit: Callable[[Summary], None]) -> None:
    for case in ("order", "reconcile", "record"):
        baseline: Summary | None = None
        for desk in desks:
            summary = summarise(BENCH, f"{prefix}{case}_{desk.label}", desk.samples[case])
            if baseline is None:
                baseline = summary
                emit(summary)
            else:
                emit(summary.compared_with(baseline))


async def _measure(database: Callable[[str, ExitStack], str], sizes: Sizes) -> list[_Desk]:
    plan = [(history, False) for history in sizes.histories]
    plan += [(history, True) for history in sizes.own]
    with ExitStack() as stack:
        desks = []
        for history, own in plan:
            clock = SteppedClock(start=START)
            name = f"own_h{history}" if own else f"h{history}"
            ledger = stack.enter_context(open_ledger(database(name, stack), clock=clock))
            desks.append(await open_desk(ledger, clock, history, own=own))
        warm_orders = max(sizes.warmup, sizes.page - _RESTING)
        for case, count in _cases(warm_orders, sizes.warmup, sizes.warmup):
            await _run(desks, case, count, keep=False)
        for number in range(sizes.rounds):
            _say(f"bench history: round {number + 1}/{sizes.rounds}")
            for case, count in _cases(sizes.orders, sizes.passes, sizes.records):
                await _run(desks, case, count, keep=True)
        return desks


def _cases(orders: int, passes: int, records: int) -> list[tuple[str, int]]:
    return [("order", orders), ("reconcile", passes), ("record", records)]


async def open_desk(
    ledger: Ledger,
    clock: SteppedClock,
    history: int,
    *,
    own: bool = False,
    progress: Callable[[str], None] = _say,
) -> _Desk:
    """The bench's paper guard on ``ledger`` (clock at ``START``), after seeding ``history``
    ended filings (``own``: the account's own orders alone) and checking that the seeded
    ledger verifies, with its resting orders."""
    venue = paper_venue(ledger, clock)
    await open_book(venue)
    if history:
        if own:
            progress(f"bench history: seeding {history} of the account's own ended orders")
        else:
            progress(
                f"bench history: seeding {history} ended filings (and as many on other accounts)"
            )
        shape = History(ACCOUNT, IDENTITY, history, own=own)
        seed_history(ledger, shape, before=START, progress=progress)
        started = time.perf_counter()
        verified = ledger.verify()
        _expect(verified.ok, f"the seeded ledger does not verify: {verified.reason}")
        progress(
            f"bench history: verified {verified.checked} records in "
            f"{time.perf_counter() - started:.1f} s"
        )
    guard = Guard(policy=_POLICY, ledger=ledger, venue=venue, account=ACCOUNT, clock=clock)
    desk = _Desk(f"own_h{history}" if own else f"h{history}", ledger, guard, clock)
    for _ in range(_RESTING):
        resting = await _through(desk, _resting_buy())
        _expect(resting.status is FilingStatus.SUBMITTED, f"a resting order ended {resting.status}")
    return desk


def paper_venue(ledger: Ledger, clock: SteppedClock) -> PaperVenue:
    """Paper on the venue's own engine, its book in ``ledger``'s database, over the bench's
    fixed market (``FixedUpstream``)."""
    return PaperVenue.on(
        FixedUpstream(ACCOUNT, clock=clock),
        ledger.engine,
        clock=clock,
        cash=_POLICY.paper_cash_usd,
        slippage_bps=_POLICY.paper_slippage_bps,
        account=ACCOUNT,
    )


async def open_book(venue: PaperVenue) -> None:
    """Open the account's paper book (the engine creates it on its first call), so that a
    seed can carry it past what it writes."""
    portfolio = await venue.caller.call("get_portfolio", {"account_number": ACCOUNT})
    _expect(Decimal(portfolio["cash"]) > 0, f"the paper book opened with {portfolio}")


def _order(side: Side) -> Proposal:
    return Proposal(symbol="SPY", side=side, quantity=Decimal(1))


def _resting_buy() -> Proposal:
    return Proposal(
        symbol="SPY",
        side=Side.BUY,
        quantity=Decimal(1),
        order_type=OrderType.LIMIT,
        limit_price=Decimal(95),
        market_hours=MarketHours.REGULAR_HOURS,
    )


async def _through(desk: _Desk, proposal: Proposal) -> Outcome:
    """File and hold ``proposal``, then approve it (review, stage B, place)."""
    held = await desk.guard.submit(proposal, identity=IDENTITY)
    _expect(
        held.status is FilingStatus.PENDING_APPROVAL and held.approval_id is not None,
        f"the bench order was not held for approval: {held.reasons}",
    )
    assert held.approval_id is not None
    return await desk.guard.approve(held.approval_id, by="owner")


async def one_order(desk: _Desk) -> None:
    """One measured order: the whole guard path, then (the engine fills a market order when
    its clock moves) a step of the clock and the reconciler pass that books the fill."""
    placed = await _through(desk, _order(next(desk.sides)))
    _expect(placed.status is FilingStatus.SUBMITTED, f"the bench order ended {placed.status}")
    desk.clock.advance(_FILL_STEP)
    report = await desk.guard.reconcile()
    status = desk.ledger.filing(placed.filing_id).status
    _expect(
        status is FilingStatus.FILLED and not report.errors,
        f"the bench order ended {status}, not filled ({report.as_json()})",
    )


async def one_pass(desk: _Desk) -> None:
    """One reconciler pass (it sees the resting orders, and nothing else open)."""
    report = await desk.guard.reconcile()
    _expect(
        report.checked == _RESTING and not report.errors,
        f"the reconciler pass saw {report.as_json()}",
    )


async def one_record(desk: _Desk) -> None:
    """``gate_record``'s answer for the bench identity (a full page)."""
    answer = record(desk.ledger, IDENTITY, paper=True)
    _expect(bool(answer["filings"]), "gate_record showed no filing")


_CALLS: dict[str, Callable[[_Desk], Awaitable[None]]] = {
    "order": one_order,
    "reconcile": one_pass,
    "record": one_record,
}


async def _run(desks: list[_Desk], case: str, count: int, *, keep: bool) -> None:
    """``count`` calls of ``case`` on each desk, the desks taking turns call by call."""
    call = _CALLS[case]
    clock = time.perf_counter_ns
    for _ in range(count):
        for desk in desks:
            started = clock()
            await call(desk)
            elapsed = clock() - started
            if keep:
                desk.samples.setdefault(case, []).append(elapsed)
            desk.clock.advance(timedelta(seconds=1))
