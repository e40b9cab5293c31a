"""``events_after``: the events filed since a sequence number, in order, a page at a time."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from ordergate.core import SteppedClock
from ordergate.ledger import Filing, FilingStatus, RollingCaps, events_after, open_ledger

pytestmark = pytest.mark.req("ledger.cost-bounded-by-open")


def test_events_after_pages_through_the_events_in_order(
    tmp_path: Path, clock: SteppedClock
) -> None:
    with open_ledger(f"sqlite:///{tmp_path / 'l.db'}", clock=clock) as ledger:
        caps = RollingCaps(Decimal(1000), 10)
        filed = ledger.file_and_reserve(Filing("a", {"symbol": "AAPL"}), notional=Decimal(1),
                                        caps=caps)  # fmt: skip
        for status in (FilingStatus.SUBMITTED, FilingStatus.FILLED):
            ledger.record_status(filed.record.id, status)
        everything = events_after(ledger.engine, 0, limit=100)
        assert [e.status for e in everything if e.kind == "status"] == ["submitted", "filled"]
        seqs = [e.seq for e in everything]
        assert seqs == sorted(seqs)
        first, *rest = everything
        assert events_after(ledger.engine, 0, limit=1) == [first]
        assert events_after(ledger.engine, first.seq, limit=100) == rest
        assert events_after(ledger.engine, seqs[-1], limit=100) == []
        with pytest.raises(ValueError, match="limit"):
            events_after(ledger.engine, 0, limit=0)
