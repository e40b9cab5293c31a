"""Track records from graded placements: counts, mean, median, hit rate, and a rank that
appears at the thirtieth graded placement and not before."""

from __future__ import annotations

import statistics
from datetime import timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

import pytest
from record_testkit import MONDAY_CLOSE, desk

from ordergate.core import Side, SteppedClock
from ordergate.ledger import open_ledger
from ordergate.record import RANK_AFTER, grades_of, public_id, track_of, track_records

pytestmark = [pytest.mark.anyio, pytest.mark.req("record.rank.after-thirty")]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_the_rank_appears_at_the_thirtieth_graded_placement(tmp_path: Path) -> None:
    assert RANK_AFTER == 30
    async with desk(tmp_path) as d:
        for _ in range(29):
            await d.fill("AAPL", Side.BUY, identity="agent-a")
        await d.fill("MSFT", Side.BUY, identity="agent-b")
        d.step_to(MONDAY_CLOSE - timedelta(hours=5))  # Monday 11:00 in New York
        thirtieth = await d.fill("MSFT", Side.BUY, identity="agent-a")
        d.step_to(MONDAY_CLOSE)
        monday = await d.grader(batch=500).run_once()
        assert (monday.queued, monday.graded) == (31, 30)
        engine = d.ledger.engine
        a = track_of(engine, "agent-a")
        assert (a.graded, a.rank) == (29, None)
        assert track_of(engine, "agent-b").rank is None
        d.step_to(MONDAY_CLOSE + timedelta(days=1))  # Tuesday's close grades the thirtieth
        assert (await d.grader().run_once()).graded == 1
        a = track_of(engine, "agent-a")
        assert (a.graded, a.rank) == (30, 1)
        assert track_of(engine, "agent-b").rank is None
        # The figures, recomputed by hand from agent-a's thirty grades.
        excesses = [Decimal(g["excess_bps"]) for g in grades_of(engine, "agent-a")]
        assert len(excesses) == 30
        cent = Decimal("0.01")
        assert a.mean_bps == (sum(excesses, Decimal(0)) / 30).quantize(
            cent, rounding=ROUND_HALF_EVEN
        )
        median: Decimal = statistics.median(excesses)
        assert a.median_bps == median.quantize(cent)
        hits = sum(1 for e in excesses if e > 0)
        assert a.hit_rate == (Decimal(hits) / 30).quantize(Decimal("0.0001"))
        assert any(g["filing_id"] == thirtieth for g in grades_of(engine, "agent-a"))
        public = a.as_json(public=True)
        assert public["id"] == public_id("agent-a") and "identity" not in public
        assert "agent-a" not in str(public)


def test_an_identity_with_nothing_graded_has_an_empty_record(tmp_path: Path) -> None:
    clock = SteppedClock(start=MONDAY_CLOSE)
    with open_ledger(f"sqlite:///{tmp_path / 'l.db'}", clock=clock) as ledger:
        empty = track_of(ledger.engine, "nobody")
        assert (empty.graded, empty.mean_bps, empty.rank) == (0, None, None)
        assert empty.as_json()["hit_rate"] is None
        assert track_records(ledger.engine) == []
        with pytest.raises(ValueError, match="limit"):
            grades_of(ledger.engine, "nobody", limit=0)


def _graded_rows(identity: str, excesses: list[str]) -> list[dict[str, str]]:
    return [
        {
            "filing_id": f"{identity}-{n:04d}", "identity": identity, "account": "acct",
            "symbol": "AAPL", "side": "buy", "quantity": "1", "fill_price": "100",
            "filled_at": "2026-12-24T15:00:00.000000Z", "grading_day": "2026-12-28",
            "due_at": "2026-12-28T21:00:00.000000Z",
            "next_try_at": "2026-12-28T21:00:00.000000Z", "state": "graded",
            "excess_bps": excess,
        }
        for n, excess in enumerate(excesses)
    ]  # fmt: skip


def test_ranked_identities_are_ordered_by_mean_excess_best_first(tmp_path: Path) -> None:
    from ordergate.record._schema import grades

    clock = SteppedClock(start=MONDAY_CLOSE)
    with open_ledger(f"sqlite:///{tmp_path / 'l.db'}", clock=clock) as ledger:
        rows = (
            _graded_rows("steady", ["1.00"] * 30)
            + _graded_rows("bold", ["-5.00"] * 10 + ["10.00"] * 20)  # mean 5, median 10
            + _graded_rows("new", ["99.00"] * 29)  # the best mean, but not yet ranked
        )
        with ledger.engine.begin() as connection:
            connection.execute(grades.insert(), rows)
        records = track_records(ledger.engine)
        assert [(r.identity, r.rank) for r in records[:2]] == [("bold", 1), ("steady", 2)]
        assert records[2].identity == "new" and records[2].rank is None
        bold = track_of(ledger.engine, "bold")
        assert (bold.mean_bps, bold.median_bps, bold.hit_rate) == (
            Decimal("5.00"),
            Decimal("10.00"),
            Decimal("0.6667"),
        )
        assert track_of(ledger.engine, "new").rank is None
