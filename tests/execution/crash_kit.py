"""A guard process killed mid-order, and the process that comes back after it.

- ``site()`` starts the sandbox venue on a free loopback port with a ``SteppedClock`` the
  test holds, and signs an admin client in.
- ``kill_child(point, …)`` runs crash_child.py (beside this file) as its own Python process:
  it files one market buy through a live guard on that venue and SIGKILLs itself at
  ``point``. The wait is bounded (``CHILD_TIMEOUT_S``); the test's clock stands still while
  the child runs, and the child's own stepped clock starts at the instant it shows.
- ``restarted(…)`` is the process that starts afterwards: the same ledger, its own connection
  to the venue (freshly minted tokens), the venue's clock, the same policy and grace.
- ``venue_orders`` reads the venue's orders for a ``ref_id`` through the venue's own
  ``get_equity_orders`` tool, never through ordergate code.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import anyio
from client_testkit import account_number, write_minted
from guard_kit import policy
from venue_testkit import START, VenueClient

from ordergate.client import Config, connect
from ordergate.core import SteppedClock
from ordergate.execution import Guard
from ordergate.ledger import Ledger, open_ledger
from ordergate.sandbox import SandboxConfig, SandboxServer
from ordergate.venues.robinhood import RobinhoodVenue

__all__ = [
    "CHILD_TIMEOUT_S",
    "GRACE",
    "SIGKILLED",
    "Crash",
    "Restart",
    "Site",
    "kill_child",
    "restarted",
    "site",
    "venue_orders",
]

BOUND_S = 30
CHILD_TIMEOUT_S = 120
GRACE = timedelta(minutes=2)
SIGKILLED = -9  # subprocess's returncode for a child ended by signal 9

_HERE = Path(__file__).resolve().parent
_CHILD = _HERE / "crash_child.py"
_SUPPORT = _HERE.parent / "support"


@dataclass(frozen=True)
class Site:
    """The venue, its clock (the test moves it) and the agentic account."""

    venue: VenueClient
    clock: SteppedClock
    account: str


@dataclass(frozen=True)
class Crash:
    """How the child ended: its return code, what it printed, and the ref_id it had in
    flight (``None`` when it printed none)."""

    returncode: int
    stdout: str
    stderr: str
    ref_id: UUID | None

    def __str__(self) -> str:
        return f"rc={self.returncode}\nstdout:\n{self.stdout}\nstderr:\n{self.stderr[-4000:]}"


@dataclass(frozen=True)
class Restart:
    guard: Guard
    ledger: Ledger


@contextmanager
def site() -> Iterator[Site]:
    clock = SteppedClock(start=START)
    with (
        SandboxServer(SandboxConfig(port=0, seed=7), clock=clock) as sandbox,
        VenueClient(sandbox.base_url) as client,
    ):
        client.sign_in()
        yield Site(client, clock, account_number(client))


def kill_child(point: str, where: Site, ledger_url: str, tmp_path: Path) -> Crash:
    """Run the child to its crash ``point``; bounded by ``CHILD_TIMEOUT_S``."""
    token_file = tmp_path / "child-tokens.json"
    write_minted(where.venue, token_file, expires_at=None)
    paths = [str(_SUPPORT), str(_HERE)]
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    done = subprocess.run(
        [
            sys.executable,
            str(_CHILD),
            where.venue.mcp_url,
            str(token_file),
            ledger_url,
            where.account,
            where.clock.now().isoformat(),
            point,
        ],
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT_S,
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
    )
    words = done.stdout.split()
    ref_id = UUID(words[1]) if len(words) == 2 and words[0] == point else None
    return Crash(done.returncode, done.stdout, done.stderr, ref_id)


@asynccontextmanager
async def restarted(where: Site, ledger_url: str, tmp_path: Path) -> AsyncIterator[Restart]:
    """A fresh guard process's view: the same ledger, its own venue connection."""
    token_file = tmp_path / "restart-tokens.json"
    write_minted(where.venue, token_file, expires_at=None)
    async with AsyncExitStack() as stack:
        ledger = stack.enter_context(open_ledger(ledger_url, clock=where.clock))
        with anyio.fail_after(BOUND_S):
            rh = await stack.enter_async_context(
                connect(Config(url=where.venue.mcp_url, token_file=token_file), clock=where.clock)
            )
        guard = Guard(
            policy=policy(),
            ledger=ledger,
            venue=RobinhoodVenue.through(rh, clock=where.clock),
            account=where.account,
            clock=where.clock,
            grace=GRACE,
        )
        yield Restart(guard, ledger)


def venue_orders(where: Site, ref_id: UUID | None = None) -> list[dict[str, Any]]:
    """The venue's equity orders of the account (those under ``ref_id``, when given)."""
    data = where.venue.data("get_equity_orders", {"account_number": where.account})
    orders: list[dict[str, Any]] = data["orders"]
    return [o for o in orders if ref_id is None or o["ref_id"] == str(ref_id)]
