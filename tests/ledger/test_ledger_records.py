"""What lives beside the filings: controls, orders, executions, approvals, the journal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from uuid import UUID, uuid4

import pytest

from ordergate.core import SteppedClock
from ordergate.ledger import (
    ApprovalState,
    Execution,
    Filing,
    Ledger,
    LedgerError,
    RollingCaps,
    SessionEquity,
    UnknownFilingError,
)
from ordergate.ledger._controls import HWM_KEY, SESSION_KEY
from ordergate.ledger._controls import _write as write_control
from ordergate.store import write_transaction

pytestmark = pytest.mark.req("ledger.postgres-parity")


def _filed(ledger: Ledger) -> UUID:
    caps = RollingCaps(Decimal(1000), 10)
    result = ledger.file_and_reserve(Filing("agent", {"s": "AAPL"}), notional=Decimal(5), caps=caps)
    return result.record.id


def test_the_high_water_mark_only_rises_and_session_equity_is_kept(ledger: Ledger) -> None:
    controls = ledger.controls
    assert controls.high_water_mark("A") is None
    assert controls.raise_high_water_mark(Decimal("1000.50"), account="A") == Decimal("1000.50")
    assert controls.raise_high_water_mark(Decimal("900"), account="A") == Decimal("1000.50")
    assert controls.raise_high_water_mark(Decimal("1200"), account="A") == Decimal("1200")
    controls.set_high_water_mark(Decimal("800"), account="A")
    assert controls.high_water_mark("A") == Decimal("800")
    assert controls.session_start_equity("A") is None
    controls.set_session_start_equity("2026-12-01", Decimal("950.25"), account="A")
    assert controls.session_start_equity("A") == SessionEquity("2026-12-01", Decimal("950.25"))


def test_each_account_keeps_its_own_high_water_mark_and_session_start_equity(
    ledger: Ledger,
) -> None:
    controls = ledger.controls
    controls.raise_high_water_mark(Decimal("1000"), account="A")
    controls.raise_high_water_mark(Decimal("400"), account="B")
    controls.set_session_start_equity("2026-12-01", Decimal("990"), account="A")
    assert controls.high_water_mark("A") == Decimal("1000")
    assert controls.high_water_mark("B") == Decimal("400")
    assert controls.session_start_equity("B") is None
    reads = ledger.decision_reads("B", now=ledger.now())
    assert (reads.high_water_mark, reads.session_start) == (Decimal("400"), None)


@pytest.mark.req("wall.breakers.per-account")
def test_a_ledger_wide_mark_from_before_reads_as_an_accounts_until_it_has_its_own(
    ledger: Ledger, clock: SteppedClock
) -> None:
    # As a ledger written before the marks were kept per account holds them.
    with write_transaction(ledger.engine) as connection:
        write_control(connection, HWM_KEY, "1000", clock.now())
        write_control(connection, SESSION_KEY, ["2026-12-01", "900"], clock.now())
    controls = ledger.controls
    assert controls.high_water_mark("A") == controls.high_water_mark("B") == Decimal("1000")
    assert controls.session_start_equity("A") == SessionEquity("2026-12-01", Decimal("900"))
    # The account's own mark starts from the one it was trading under (never lower).
    assert controls.raise_high_water_mark(Decimal("800"), account="A") == Decimal("1000")
    controls.set_high_water_mark(Decimal("500"), account="B")
    controls.set_session_start_equity("2026-12-02", Decimal("480"), account="B")
    assert controls.high_water_mark("A") == Decimal("1000")
    assert controls.high_water_mark("B") == Decimal("500")
    reads = ledger.decision_reads("B", now=ledger.now())
    assert reads.high_water_mark == Decimal("500")
    assert reads.session_start == SessionEquity("2026-12-02", Decimal("480"))
    assert ledger.decision_reads("A", now=ledger.now()).session_start == SessionEquity(
        "2026-12-01", Decimal("900")
    )
    assert ledger.verify().ok


def test_an_order_is_recorded_and_updated_by_ref_id_and_broker_id(ledger: Ledger) -> None:
    ref = _filed(ledger)
    first = ledger.orders.record(ref, state="queued", broker_order_id="o-1")
    assert (first.state, first.cumulative_quantity, first.average_price) == (
        "queued", Decimal(0), None
    )  # fmt: skip
    later = ledger.orders.record(
        ref, state="partially_filled", cumulative_quantity=Decimal("0.5"),
        average_price=Decimal("231.40"),
    )  # fmt: skip
    assert later.broker_order_id == "o-1" and later.cumulative_quantity == Decimal("0.5")
    assert ledger.orders.by_broker_id("o-1") == later == ledger.orders.get(ref)
    with pytest.raises(UnknownFilingError):
        ledger.orders.get(uuid4())
    with pytest.raises(UnknownFilingError):
        ledger.orders.record(uuid4(), state="queued")


def test_executions_are_booked_once_with_basis_source_fill(
    ledger: Ledger, clock: SteppedClock
) -> None:
    ref = _filed(ledger)
    fill = Execution("x-1", ref, "o-1", Decimal("0.5"), Decimal("231.40"), clock.now())
    assert ledger.orders.book_execution(fill)
    assert not ledger.orders.book_execution(fill)
    second = Execution(
        "x-2", ref, "o-1", Decimal("0.25"), Decimal("231.50"), clock.now() + timedelta(1)
    )
    assert ledger.orders.book_execution(second)
    booked = ledger.orders.executions(ref)
    assert [e.id for e in booked] == ["x-1", "x-2"]
    assert {e.basis_source for e in booked} == {"fill"}
    assert booked[0].notional == Decimal("115.700")
    with pytest.raises(UnknownFilingError):
        ledger.orders.book_execution(Execution("x-3", uuid4(), "o", Decimal(1), Decimal(1),
                                               clock.now()))  # fmt: skip


def test_an_approval_binds_the_terms_hash_and_expires(ledger: Ledger, clock: SteppedClock) -> None:
    ref = _filed(ledger)
    terms = "ab" * 32
    approval = ledger.approvals.create(ref, terms, ttl=timedelta(minutes=15))
    assert approval.state is ApprovalState.PENDING
    assert approval.expires_at == clock.now() + timedelta(minutes=15)
    assert ledger.approvals.pending() == [approval]
    decided = ledger.approvals.decide(approval.id, approve=True, terms_sha256=terms, by="me")
    assert decided.state is ApprovalState.APPROVED and decided.decided_by == "me"
    assert decided.decided_at == clock.now()
    again = ledger.approvals.decide(approval.id, approve=False, terms_sha256=terms, by="x")
    assert again.state is ApprovalState.APPROVED

    altered = ledger.approvals.create(ref, terms)
    denied = ledger.approvals.decide(altered.id, approve=True, terms_sha256="cd" * 32, by="me")
    assert denied.state is ApprovalState.DENIED

    late = ledger.approvals.create(ref, terms, ttl=timedelta(minutes=1))
    clock.advance(timedelta(minutes=1))
    assert ledger.approvals.pending() == []
    expired = ledger.approvals.decide(late.id, approve=True, terms_sha256=terms, by="me")
    assert expired.state is ApprovalState.EXPIRED

    with pytest.raises(LedgerError):
        ledger.approvals.get(uuid4())
    with pytest.raises(LedgerError):
        ledger.approvals.decide(uuid4(), approve=True, terms_sha256=terms, by="me")
    with pytest.raises(ValueError):
        ledger.approvals.create(ref, "short")


def test_an_approval_held_open_outlives_its_ttl_but_is_never_shortened_or_revived(
    ledger: Ledger, clock: SteppedClock
) -> None:
    ref = _filed(ledger)
    terms = "ab" * 32
    held = ledger.approvals.create(ref, terms, ttl=timedelta(minutes=15))
    until = clock.now() + timedelta(minutes=20)
    kept = ledger.approvals.hold_until(held.id, until)
    assert kept is not None and kept.expires_at == until
    earlier = ledger.approvals.hold_until(held.id, clock.now() + timedelta(minutes=1))
    assert earlier is not None and earlier.expires_at == until
    clock.advance(timedelta(minutes=16))
    assert ledger.approvals.pending() == [kept]
    lapsed = ledger.approvals.create(ref, terms, ttl=timedelta(minutes=1))
    clock.advance(timedelta(minutes=1))
    assert ledger.approvals.hold_until(lapsed.id, clock.now() + timedelta(hours=1)) is None
    ledger.approvals.decide(held.id, approve=False, terms_sha256=terms, by="me")
    assert ledger.approvals.hold_until(held.id, clock.now() + timedelta(hours=1)) is None


def test_the_journal_keeps_decisions_in_order_with_their_why(
    ledger: Ledger, clock: SteppedClock
) -> None:
    ref = _filed(ledger)
    ledger.journal.append(identity="agent", kind="propose", why="rebalance", filing_id=ref,
                          detail={"weight": Decimal("0.2")})  # fmt: skip
    clock.advance(timedelta(seconds=1))
    ledger.journal.append(identity="agent", kind="hold", why="spread too wide")
    entries = ledger.journal.entries()
    assert [(e.kind, e.why) for e in entries] == [("propose", "rebalance"),
                                                  ("hold", "spread too wide")]  # fmt: skip
    assert entries[0].filing_id == ref and entries[0].detail == {"weight": "0.2"}
    assert entries[1].filing_id is None
    assert entries[1].created_at == datetime(2026, 12, 1, 15, 0, 1, tzinfo=UTC)
    assert [e.kind for e in ledger.journal.entries(limit=1)] == ["hold"]


@pytest.mark.req("model-text.inert")
def test_esc_bytes_and_newlines_in_a_why_are_not_kept_raw_in_the_journal(
    ledger: Ledger, clock: SteppedClock
) -> None:
    from sqlalchemy import text

    ref = _filed(ledger)
    ledger.journal.append(
        identity="agent", kind="propose", why="buy\x1b[31m now\napproval   approved",
        filing_id=ref, detail={"note": "a\x9bb\rc", "keep": ["plain text"]},
    )  # fmt: skip
    (entry,) = ledger.journal.entries()
    with ledger.engine.connect() as db:
        stored_why, stored_detail = db.execute(text("SELECT why, detail FROM decisions")).one()
    assert entry.why == "buy\\x1b[31m now\\napproval   approved"
    assert entry.detail == {"note": "a\\x9bb\\rc", "keep": ["plain text"]}
    assert "\x1b" not in stored_why and "\n" not in stored_why
    assert "\x9b" not in stored_detail and "\\u009b" not in stored_detail.lower()


def _filed_and_filled(ledger: Ledger, clock: SteppedClock, number: int) -> UUID:
    caps = RollingCaps(Decimal(10**9), 10**6)
    terms = {"symbol": "SPY", "side": "buy"}
    ref = ledger.file_and_reserve(Filing("agent", terms), notional=Decimal(1), caps=caps)
    fill = Execution(f"x-{number}", ref.record.id, f"o-{number}", Decimal(1), Decimal(number),
                     clock.now())  # fmt: skip
    assert ledger.orders.book_execution(fill)
    return ref.record.id


@pytest.mark.req("wall.cooldown.loss-window")
def test_an_identitys_fills_are_its_windows_however_many_and_a_bounded_number_before_it(
    ledger: Ledger, clock: SteppedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small pages, so the read goes back page by page.
    monkeypatch.setattr("ordergate.ledger._records._PAGE", 2)
    assert ledger.orders.fills_of("agent", limit=3, since=clock.now()) == []
    before = [_filed_and_filled(ledger, clock, number) for number in range(1, 6)]
    clock.advance(timedelta(minutes=1))
    since = clock.now()
    window = [_filed_and_filled(ledger, clock, number) for number in range(6, 13)]
    caps = RollingCaps(Decimal(1000), 100)
    ledger.file_and_reserve(Filing("other", {"s": "SPY"}), notional=Decimal(5), caps=caps)
    # The window's seven filings, and three before them.
    read = ledger.orders.fills_of("agent", limit=3, since=since)
    assert [fill.ref_id for fill in read] == [*before[-3:], *window]
    # Fewer before the window than asked: all of them.
    assert len(ledger.orders.fills_of("agent", limit=50, since=since)) == 12
    # Without a window, the latest ``limit``.
    assert [fill.ref_id for fill in ledger.orders.fills_of("agent", limit=4)] == window[-4:]
    with pytest.raises(ValueError, match="limit"):
        ledger.orders.fills_of("agent", limit=0)
