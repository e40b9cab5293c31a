"""A day's digest from the journal alone: entries of the day read back across pages, other
days left out, refusals named, and when a day ends for the sessions an agent trades."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from ordergate.agent import DECISION, DIGEST, ORDER
from ordergate.agent._digest import day_end, day_entries, digest_of, latest_day
from ordergate.core import SteppedClock
from ordergate.ledger import open_ledger

TUESDAY = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def test_a_days_entries_are_read_back_across_pages_and_other_days_left_out(
    tmp_path: Path,
) -> None:
    with open_ledger(f"sqlite:///{tmp_path / 'l.db'}", clock=SteppedClock(start=TUESDAY)) as ledger:
        journal = ledger.journal
        monday = (TUESDAY - timedelta(days=1)).isoformat()
        journal.append(identity="a", kind=DECISION, why="hold", detail={"at": monday})
        for minute in range(620):
            at = (TUESDAY + timedelta(seconds=minute)).isoformat()
            journal.append(identity="a", kind=DECISION, why="hold", detail={"at": at, "hold": True})
            journal.append(identity="b", kind=DECISION, why="hold", detail={"at": at})
        journal.append(
            identity="a",
            kind=ORDER,
            why="buy",
            detail={"at": TUESDAY.isoformat(), "side": "buy", "symbol": "SPY", "refused": True,
                    "outcome": {"status": "refused", "reasons": ["max_order_usd"]}},
        )  # fmt: skip
        assert latest_day(journal, "a") == date(2026, 12, 1)
        assert latest_day(journal, "nobody") is None
        found = day_entries(journal, "a", date(2026, 12, 1))
        assert found.fresh and found.complete and len(found.entries) == 621
        digest = digest_of("a", found, journal)
        assert (digest["decisions"], digest["holds"], digest["orders"]) == (620, 620, 1)
        assert digest["refusals"] == ["buy SPY: max_order_usd"]
        assert digest["equity"] is None and digest["pnl"] is None
        journal.append(identity="a", kind=DIGEST, why="sent", detail={"day": "2026-12-01"})
        assert not day_entries(journal, "a", date(2026, 12, 1)).fresh
        assert len(day_entries(journal, "a", date(2026, 11, 30)).entries) == 1


def test_a_day_ends_at_the_close_of_the_last_session_the_agent_trades() -> None:
    tuesday = date(2026, 12, 1)
    assert day_end(tuesday, ["regular"]) == datetime(2026, 12, 1, 21, 0, tzinfo=UTC)
    assert day_end(tuesday, ["regular", "extended"]) == datetime(2026, 12, 2, 1, 0, tzinfo=UTC)
    assert day_end(date(2026, 12, 5), ["regular"]) is None  # a Saturday
    assert day_end(date(1999, 12, 1), ["regular"]) is None  # outside the calendar
