"""``ordergate bench owner``: another agent's paper order while the owner's passphrase is
flooded, beside the same order unloaded, measured in one run.

A flood of wrong passphrases on a code route (the consent page, the console, the owner's
routes) once ran scrypt (32 MiB, tens of milliseconds each) on the thread pool every ledger
call shares (``store.blocking``): another agent's paper order went from 12 ms to 2.6 s. Now
scrypt runs on the owner's own small pool (``ScryptPool``: one thread, two checks waiting,
``owner_busy`` past that). Each case places paper orders through the whole guard path on a
SQLite ledger in this process (``bench history``'s desk: file, hold, approve, review, place,
fill, reconcile), while ``FLOOD`` tasks do, or do not, keep scrypt busy:

- ``order`` (baseline): nothing else runs;
- ``order_scrypt_flood``: each flood task derives a wrong passphrase's scrypt on the owner's
  pool (the one ``OwnerAuthority.check`` uses) again and again, waiting 5 ms (a request's
  arrival) whenever the pool answers ``owner_busy``, so a derivation runs at all times;
- ``order_scrypt_on_ledger_pool``: the same flood on the ledger's pool, as before: what the
  owner's pool spares the order path.

The flood runs scrypt directly rather than through ``OwnerAuthority.check``: five wrong codes
lock owner acts, after which a flood costs a read each and runs no scrypt at all; this bench
measures the worst case, scrypt running without pause. Cases alternate round by round, so
machine noise falls on each alike. Goal (issue 23 §8): ``order_scrypt_flood``'s ratio at most
2. Progress goes to stderr.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import anyio
import anyio.lowlevel

from ordergate.bench._history import START, _Desk, one_order, open_desk
from ordergate.bench._stats import Summary, summarise
from ordergate.core import SteppedClock
from ordergate.ledger import open_ledger
from ordergate.owner import BUSY, OwnerRefused, ScryptPool, new_enrolment, passphrase_matches
from ordergate.store import blocking

__all__ = ["run_owner_bench"]

BENCH = "owner"
FLOOD = 8
_ARRIVAL_S = 0.005
_WRONG = "a wrong passphrase, again"
CASES = ("order", "order_scrypt_flood", "order_scrypt_on_ledger_pool")


@dataclass(frozen=True, slots=True)
class Sizes:
    rounds: int
    orders: int  # per case per round
    warmup: int


SIZES = {
    "quick": Sizes(rounds=3, orders=10, warmup=5),
    "full": Sizes(rounds=6, orders=30, warmup=10),
}


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run_owner_bench(*, quick: bool, emit: Callable[[Summary], None]) -> None:
    sizes = SIZES["quick" if quick else "full"]
    with tempfile.TemporaryDirectory() as home:
        samples = asyncio.run(_measure(Path(home), sizes))
    baseline = summarise(BENCH, CASES[0], samples[CASES[0]])
    emit(baseline)
    for case in CASES[1:]:
        emit(summarise(BENCH, case, samples[case]).compared_with(baseline))


async def _measure(root: Path, sizes: Sizes) -> dict[str, list[int]]:
    clock = SteppedClock(start=START)
    stored = new_enrolment(passphrase="the owner's own passphrase", now=START).passphrase
    assert stored is not None
    pool = ScryptPool()

    def derive() -> bool:
        return passphrase_matches(_WRONG, stored)

    async def on_owner_pool() -> None:
        try:
            await pool.run(derive)
        except OwnerRefused as refused:
            if refused.reason != BUSY:
                raise
            await anyio.sleep(_ARRIVAL_S)

    async def on_ledger_pool() -> None:
        await blocking(derive)

    floods: dict[str, Callable[[], Awaitable[None]] | None] = {
        "order": None,
        "order_scrypt_flood": on_owner_pool,
        "order_scrypt_on_ledger_pool": on_ledger_pool,
    }
    samples: dict[str, list[int]] = {case: [] for case in CASES}
    with open_ledger(f"sqlite:///{root / 'owner-bench.db'}", clock=clock) as ledger:
        desk = await open_desk(ledger, clock, 0, progress=_say)
        await _orders(desk, sizes.warmup, None)
        for number in range(sizes.rounds):
            _say(f"bench owner: round {number + 1}/{sizes.rounds}")
            for case in CASES:
                samples[case] += await _orders(desk, sizes.orders, floods[case])
    return samples


async def _orders(
    desk: _Desk, count: int, flood: Callable[[], Awaitable[None]] | None
) -> list[int]:
    """``count`` timed orders, with ``FLOOD`` tasks running ``flood`` over and over."""
    taken: list[int] = []
    async with anyio.create_task_group() as tasks:
        if flood is not None:
            for _ in range(FLOOD):
                tasks.start_soon(_forever, flood)
            await anyio.sleep(_ARRIVAL_S * 4)  # the flood under way before the first order
        for _ in range(count):
            started = time.perf_counter_ns()
            await one_order(desk)
            taken.append(time.perf_counter_ns() - started)
            desk.clock.advance(timedelta(seconds=1))
        tasks.cancel_scope.cancel()
    return taken


async def _forever(call: Callable[[], Awaitable[None]]) -> None:
    while True:
        await call()
        # Both pools' calls wait shielded (a derivation runs to its end): the cancellation
        # that ends the flood is seen here.
        await anyio.lowlevel.checkpoint()
