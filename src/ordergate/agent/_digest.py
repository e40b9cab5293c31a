"""The daily digest: one agent's market day — positions, P&L, decisions, orders, refusals —
read from the decisions journal, so every decision and order of the day counts, whichever
process journalled it (one long run, or a ``--once`` run each tick).

A day's entries are the identity's journal entries whose tick fell on that New York date
(``detail.at``, the market clock's instant), read newest first back to the day before
(``Journal.latest_of``: the cost is the day's entries, at most ``DAY_BOUND``). The digest is
sent, and a ``DIGEST`` entry records the sending:

- by a tick on a later market day, for the agent's last day before it;
- by the last tick of a run (``--once``) at or after the day's end — the close of the last
  session the agent trades that day — for that day.

A day already sent is sent again only when entries of it were journalled after its last
sending; the new digest counts the whole day. ``WebhookDigest`` POSTs the digest as JSON to
the approval webhook (``ORDERGATE_APPROVAL_WEBHOOK``). The body names the identity, never a
token or an account number. A webhook that fails or is slow is logged and skipped: the
journal holds every decision either way.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import httpx2

from ordergate.agent._kinds import DECISION, DIGEST, DROPPED, ORDER
from ordergate.calendar import NEW_YORK, CalendarError, NyseCalendar
from ordergate.core import optional_decimal, to_wire
from ordergate.ledger import DecisionEntry, Journal

__all__ = [
    "DAY_BOUND",
    "DayEntries",
    "DigestSink",
    "WebhookDigest",
    "day_end",
    "day_entries",
    "digest_of",
    "entry_day",
    "latest_day",
    "market_day",
]

logger = logging.getLogger(__name__)
TIMEOUT_S = 5.0
DAY_BOUND = 20_000
"""The most journal entries one digest reads (a day at one tick a minute is under 1,500)."""
_PAGE = 500

DigestSink = Callable[[dict[str, Any]], Awaitable[None]]


def market_day(instant: datetime) -> date:
    """The New York date of ``instant`` (an aware datetime)."""
    return instant.astimezone(NEW_YORK).date()


def entry_day(entry: DecisionEntry) -> date:
    """The market day of ``entry``: its tick's instant (``detail.at``), else when it was
    journalled."""
    at = entry.detail.get("at")
    return market_day(datetime.fromisoformat(at) if isinstance(at, str) else entry.created_at)


def day_end(day: date, sessions: Collection[str]) -> datetime | None:
    """When ``day`` ends for an agent trading ``sessions``: the regular close, or the end of
    after-hours when it trades beyond the regular session; ``None`` on a day with no session
    (its digest goes with the next day's first tick)."""
    calendar = NyseCalendar()
    try:
        if not calendar.is_session_day(day):
            return None
        hours = calendar.trading_day(day)
    except CalendarError:
        return None
    return hours.regular_close if set(sessions) <= {"regular"} else hours.after_hours_end


@dataclass
class DayEntries:
    """One identity's journal entries of one market day, oldest first; ``fresh`` when any
    was journalled after the day's last digest (or none was sent); ``complete`` unless the
    read stopped at ``DAY_BOUND``."""

    day: date
    entries: list[DecisionEntry] = field(default_factory=list)
    fresh: bool = False
    complete: bool = True


def day_entries(journal: Journal, identity: str, day: date) -> DayEntries:
    """``identity``'s entries of ``day``, read newest first until the day before."""
    found = DayEntries(day)
    sent = False
    before: int | None = None
    read = 0
    while True:
        page = journal.latest_of(identity, before=before, limit=_PAGE)
        for entry in page:
            read += 1
            if entry.kind == DIGEST:
                sent = sent or entry.detail.get("day") == day.isoformat()
                continue
            on = entry_day(entry)
            if on < day:
                found.entries.reverse()
                return found
            if on == day:
                found.entries.append(entry)
                found.fresh = found.fresh or not sent
        if len(page) < _PAGE:
            break
        if read >= DAY_BOUND:
            found.complete = False
            break
        before = page[-1].seq
    found.entries.reverse()
    return found


def latest_day(journal: Journal, identity: str) -> date | None:
    """The market day of ``identity``'s latest entry other than a digest, or ``None``."""
    before: int | None = None
    for _ in range(DAY_BOUND // _PAGE):
        page = journal.latest_of(identity, before=before, limit=_PAGE)
        for entry in page:
            if entry.kind != DIGEST:
                return entry_day(entry)
        if len(page) < _PAGE:
            return None
        before = page[-1].seq
    return None


def digest_of(identity: str, found: DayEntries, journal: Journal) -> dict[str, Any]:
    """The digest of one day's entries: equity and positions from the day's last decision's
    snapshot, P&L from its first, and every decision, hold, order, refusal and drop."""
    decisions = [e for e in found.entries if e.kind == DECISION]
    orders = [e for e in found.entries if e.kind == ORDER]
    first = _snapshot(journal, decisions[0]) if decisions else {}
    last = _snapshot(journal, decisions[-1]) if decisions else {}
    start = optional_decimal("equity", first.get("equity"))
    end = optional_decimal("equity", last.get("equity"))
    positions = last.get("positions") or {}
    return {
        "event": "agent_daily_digest",
        "identity": identity,
        "day": found.day.isoformat(),
        "equity": None if end is None else to_wire(end),
        "pnl": None if start is None or end is None else to_wire(end - start),
        "positions": {
            symbol: str(held.get("quantity")) for symbol, held in sorted(positions.items())
        },
        "decisions": len(decisions),
        "holds": sum(1 for e in decisions if e.detail.get("hold") is True),
        "orders": len(orders),
        "refusals": [_refusal(e) for e in orders if e.detail.get("refused") is True],
        "dropped": sum(1 for e in found.entries if e.kind == DROPPED),
        "complete": found.complete,
    }


def _snapshot(journal: Journal, entry: DecisionEntry) -> dict[str, Any]:
    digest = entry.detail.get("snapshot_digest")
    return (journal.snapshot(digest) if isinstance(digest, str) else None) or {}


def _refusal(entry: DecisionEntry) -> str:
    outcome = entry.detail.get("outcome") or {}
    reasons = ", ".join(str(reason) for reason in outcome.get("reasons", []))
    return f"{entry.detail.get('side')} {entry.detail.get('symbol')}: {reasons}"


class WebhookDigest:
    def __init__(self, url: str, *, timeout_s: float = TIMEOUT_S) -> None:
        self._url = url
        self._timeout_s = timeout_s

    def __repr__(self) -> str:
        return "WebhookDigest(url=<configured>)"

    async def __call__(self, digest: dict[str, Any]) -> None:
        try:
            async with httpx2.AsyncClient(timeout=self._timeout_s) as http:
                response = await http.post(self._url, json=digest)
            if response.status_code >= 300:
                logger.warning("digest webhook answered HTTP %s", response.status_code)
        except httpx2.HTTPError as error:
            logger.warning("digest webhook failed: %s", type(error).__name__)
