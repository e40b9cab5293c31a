"""A guard process that dies mid-order: run as a script by the crash-recovery tests.

::

    python crash_child.py MCP_URL TOKEN_FILE LEDGER_URL ACCOUNT START {before_place,after_place}

It builds a ``Guard`` with a ``LiveExecutor`` and a ``ClientAccountReader`` on the venue at
``MCP_URL`` (the tokens in ``TOKEN_FILE``), the ledger at ``LEDGER_URL`` and a stepped clock
standing at ``START`` (ISO 8601, the instant the venue's clock shows), and submits one market
buy of 1 SPY under the open test policy. The executor is wrapped so that at the crash point
the process kills itself with SIGKILL — no ``finally``, no flush, no close:

- ``before_place``: the filing is committed and review and stage B passed; ``place`` is about
  to be called and never is;
- ``after_place``: ``place`` returned the broker's answer; the guard never records it.

Just before dying it prints ``<point> <ref_id>`` on stdout (flushed), so the test can check
that the filing it finds on the ledger is the one that was in flight. Reaching the end alive
is a failure: it prints the outcome and exits 3.

Needs tests/support and tests/execution on the import path (the test sets ``PYTHONPATH``).
"""

from __future__ import annotations

import os
import signal
import sys
from datetime import datetime
from pathlib import Path
from typing import NoReturn

import anyio
from guard_kit import buy, policy

from ordergate.client import Config, connect
from ordergate.core import SteppedClock
from ordergate.execution import Guard
from ordergate.ledger import open_ledger
from ordergate.venues import BrokerOrder, Placement, Review, Ticket
from ordergate.venues.robinhood import (
    ClientAccountReader,
    ClientQuoteSource,
    LiveExecutor,
    RobinhoodEquity,
    RobinhoodVenue,
)

POINTS = ("before_place", "after_place")
SURVIVED = 3
USAGE = 2


def die(point: str, ticket: Ticket) -> NoReturn:
    print(point, ticket.ref_id, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("still alive after SIGKILL")  # pragma: no cover - never reached


class CrashingExecutor:
    """``LiveExecutor`` that kills the process at ``point`` around ``place``."""

    def __init__(self, inner: LiveExecutor, point: str) -> None:
        self._inner = inner
        self._point = point

    @property
    def paper(self) -> bool:
        return self._inner.paper

    async def review(self, ticket: Ticket) -> Review:
        return await self._inner.review(ticket)

    async def place(self, ticket: Ticket) -> Placement:
        if self._point == "before_place":
            die(self._point, ticket)
        placement = await self._inner.place(ticket)
        if self._point == "after_place":
            die(self._point, ticket)
        return placement

    async def lookup(self, ticket: Ticket, *, since: datetime) -> BrokerOrder | None:
        return await self._inner.lookup(ticket, since=since)

    async def poll(self, account: str, order_id: str) -> BrokerOrder:
        return await self._inner.poll(account, order_id)

    async def cancel(self, account: str, order_id: str) -> None:
        await self._inner.cancel(account, order_id)


async def submit_and_die(
    mcp_url: str, token_file: str, ledger_url: str, account: str, start: str, point: str
) -> str:
    clock = SteppedClock(start=datetime.fromisoformat(start))
    with open_ledger(ledger_url, clock=clock) as ledger:
        config = Config(url=mcp_url, token_file=Path(token_file))
        async with connect(config, clock=clock) as rh:
            guard = Guard(
                policy=policy(),
                ledger=ledger,
                venue=RobinhoodVenue(
                    RobinhoodEquity(
                        CrashingExecutor(LiveExecutor(rh), point),
                        ClientAccountReader(rh, clock=clock),
                        ClientQuoteSource(rh),
                    )
                ),
                account=account,
                clock=clock,
            )
            outcome = await guard.submit(buy("SPY"), identity="crash-child")
    return f"survived {point}: {outcome.status} {outcome.reasons}"


def main(argv: list[str]) -> int:
    if len(argv) != 6 or argv[5] not in POINTS:
        print(__doc__, file=sys.stderr)
        return USAGE
    mcp_url, token_file, ledger_url, account, start, point = argv
    survived = anyio.run(submit_and_die, mcp_url, token_file, ledger_url, account, start, point)
    print(survived, flush=True)
    return SURVIVED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
