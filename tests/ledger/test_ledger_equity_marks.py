"""The equity curve's marks on the ledger: kept exactly, at most one a minute from the order
path (in the transaction that raises the high-water mark), read back as a bounded window."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from decimal import Decimal

import pytest
from sqlalchemy import insert, inspect

from ordergate.core import SteppedClock
from ordergate.ledger import MARK_EVERY, EquityMark, Ledger
from ordergate.ledger._schema import equity_marks
from ordergate.store import iso

pytestmark = pytest.mark.req("console.equity-history")


def test_a_mark_is_kept_exactly_and_at_most_one_a_minute(
    ledger: Ledger, clock: SteppedClock
) -> None:
    start = clock.now()
    assert ledger.equity.window("acct-1") == []
    assert ledger.equity.record("acct-1", Decimal("100000.12345678"), source="paper")
    clock.advance(timedelta(seconds=59))
    assert not ledger.equity.record("acct-1", Decimal("1"), source="paper")  # too soon
    assert ledger.equity.record("acct-2", Decimal("7"), source="broker")  # another account
    clock.advance(timedelta(seconds=2))
    assert ledger.equity.record("acct-1", Decimal("99999.5"), source="paper")
    assert ledger.equity.window("acct-1") == [
        EquityMark(start, Decimal("100000.12345678"), "paper"),
        EquityMark(start + timedelta(seconds=61), Decimal("99999.5"), "paper"),
    ]
    # A longer interval (the periodic pass's) spaces marks further apart.
    clock.advance(timedelta(minutes=2))
    assert not ledger.equity.record(
        "acct-1", Decimal("5"), source="paper", every=timedelta(minutes=5)
    )
    assert len(ledger.equity.window("acct-1")) == 2


def test_raising_the_high_water_mark_for_an_account_marks_its_curve_once_a_minute(
    ledger: Ledger, clock: SteppedClock
) -> None:
    at = clock.now()
    assert ledger.controls.raise_high_water_mark(
        Decimal("500"), account="acct", source="broker", at=at
    ) == Decimal("500")
    assert ledger.controls.raise_high_water_mark(
        Decimal("400"), account="acct", source="broker", at=at + MARK_EVERY / 4
    ) == Decimal("500")
    later = at + MARK_EVERY / 2
    assert ledger.controls.raise_high_water_mark(
        Decimal("600"), account="acct", source="broker", at=later
    ) == Decimal("600")  # the mark still rises; the curve waits a minute
    assert ledger.equity.window("acct") == [EquityMark(at, Decimal("500"), "broker")]
    assert ledger.controls.high_water_mark("acct") == Decimal("600")


def test_a_bad_mark_is_refused_naming_the_field(ledger: Ledger) -> None:
    with pytest.raises(ValueError, match="source"):
        ledger.equity.record("acct", Decimal(1), source="guess")
    with pytest.raises(ValueError, match="account"):
        ledger.equity.record("", Decimal(1), source="paper")
    with pytest.raises(ValueError, match="equity"):
        ledger.equity.record("acct", Decimal("NaN"), source="paper")
    with pytest.raises(ValueError, match="points"):
        ledger.equity.window("acct", points=1)
    assert ledger.equity.window("acct") == []


def test_the_window_is_the_last_90_days_thinned_to_at_most_500_marks_by_an_index(
    ledger: Ledger, clock: SteppedClock
) -> None:
    start = clock.now()
    every = timedelta(minutes=30)  # 5,000 marks: about 104 days
    rows = [
        {"account": "acct", "at": iso(start + i * every), "equity": str(10_000 + i),
         "source": "paper"}
        for i in range(5_000)
    ] + [{"account": "other", "at": iso(start), "equity": "1", "source": "broker"}]  # fmt: skip
    with ledger.engine.begin() as connection:
        connection.execute(insert(equity_marks), rows)
    newest = start + 4_999 * every
    marks = ledger.equity.window("acct")
    assert 400 < len(marks) <= 500  # 4,321 in the window, thinned evenly
    assert marks[-1] == EquityMark(newest, Decimal(14_999), "paper")  # the newest is kept
    assert marks[0].at >= newest - timedelta(days=90)
    assert marks[0].at < newest - timedelta(days=89)  # the window's start, thinned evenly
    assert [m.at for m in marks] == sorted({m.at for m in marks})
    assert {m.equity for m in marks} <= {Decimal(10_000 + i) for i in range(5_000)}
    few = ledger.equity.window("acct", days=1)
    assert len(few) == 49 and few[-1].at == newest  # under the bound: every mark
    assert len(ledger.equity.window("acct", points=10)) <= 10
    assert ledger.equity.window("other") == [EquityMark(start, Decimal(1), "broker")]
    indexes = {ix["name"]: ix["column_names"] for ix in inspect(ledger.engine).get_indexes(
        "equity_marks")}  # fmt: skip
    assert indexes["ix_equity_marks_account"] == ["account", "at"]


def test_first_high_water_marks_raised_at_once_keep_the_highest_and_never_collide(
    ledger: Ledger,
) -> None:
    # No mark on file yet: each writer would insert the row; the controls' lock serialises
    # them, so none fails and none lowers another's mark.
    equities = [Decimal(100 + index) for index in range(8)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(
            pool.map(
                lambda equity: ledger.controls.raise_high_water_mark(equity, account="acct"),
                equities,
            )
        )
    assert ledger.controls.high_water_mark("acct") == Decimal(107)
    assert ledger.verify().ok
