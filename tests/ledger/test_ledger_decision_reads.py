"""``Ledger.decision_reads``: what a decision reads of the record in one statement is what
the separate reads say (the rolling spend, the controls, whether a curve mark is due), on
SQLite and Postgres, through every change a decision's record goes through."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from ordergate.core import SteppedClock
from ordergate.ledger import MARK_EVERY, Decision, Filing, Ledger, RollingCaps, Spend
from ordergate.ledger._controls import BREAKER_TRIP_KEY
from ordergate.ledger._controls import _write as write_control
from ordergate.ledger._equity import marked_near
from ordergate.store import iso, reading, write_transaction

pytestmark = pytest.mark.req("ledger.postgres-parity")

CAPS = RollingCaps(max_daily_usd=Decimal("1000"), max_orders_per_day=50)
TERMS = {"symbol": "AAPL", "side": "buy", "type": "market", "dollar_amount": Decimal("30.00")}


def _separately(ledger: Ledger, account: str, now: datetime) -> tuple[Any, ...]:
    controls = ledger.controls
    mark, start, pause = (
        controls.high_water_mark(account),
        controls.session_start_equity(account),
        controls.pause_state(),
    )
    with reading(ledger.engine) as connection:
        near = marked_near(connection, account, now)
    return ledger.rolling_spend(account, now=now), mark, start, pause, near


def _together(ledger: Ledger, account: str, now: datetime) -> tuple[Any, ...]:
    reads = ledger.decision_reads(account, now=now)
    return (
        reads.spend,
        reads.high_water_mark,
        reads.session_start,
        reads.pause,
        reads.marked_recently,
    )


def test_the_one_statement_reads_what_the_separate_reads_read(
    ledger: Ledger, clock: SteppedClock
) -> None:
    account = "acct-1"
    steps = [
        lambda: None,  # an empty ledger: nothing spent, no controls, no marks
        lambda: ledger.file_and_reserve(
            Filing(identity="a", terms=TERMS, account=account), notional=Decimal("30"), caps=CAPS
        ),
        lambda: ledger.file_and_reserve(
            Filing(identity="a", terms=TERMS, account="other"), notional=Decimal("7"), caps=CAPS
        ),
        lambda: ledger.controls.raise_high_water_mark(
            Decimal("1000.5"), account=account, source="paper", at=clock.now()
        ),
        lambda: ledger.controls.set_session_start_equity(
            "2026-12-01", Decimal("999.25"), account=account
        ),
        lambda: ledger.controls.pause("owner stopped it", by="owner"),
        lambda: clock.advance(MARK_EVERY + timedelta(seconds=1)),  # the mark ages out
        lambda: ledger.controls.resume(by="owner"),
        lambda: clock.advance(timedelta(hours=24)),  # the filing leaves the window
    ]
    seen = []
    for step in steps:
        step()
        together = _together(ledger, account, clock.now())
        assert together == _separately(ledger, account, clock.now())
        seen.append(together)
    assert _together(ledger, "never-seen", clock.now()) == _separately(
        ledger, "never-seen", clock.now()
    )
    # The steps moved every part (so the comparison above compared something).
    assert seen[1][0] == Spend(Decimal("30"), 1) and seen[-1][0] == Spend(Decimal(0), 0)
    assert seen[3][1] == Decimal("1000.5") and seen[3][4] is True and seen[6][4] is False
    assert seen[5][3].paused and not seen[7][3].paused
    assert seen[4][2] is not None and seen[4][2].equity == Decimal("999.25")


@pytest.mark.req("policy.duplicate-order")
@pytest.mark.req("policy.order-rate")
def test_the_recent_filings_count_accepted_filings_by_identity_terms_and_the_minute(
    ledger: Ledger, clock: SteppedClock
) -> None:
    account = "acct-1"
    window = timedelta(seconds=30)

    def file(identity: str, terms: dict[str, Any], *, refused: bool = False) -> None:
        decision = Decision.REFUSE if refused else Decision.ACCEPT
        filing = Filing(identity=identity, terms=terms, account=account, decision=decision)
        ledger.file_and_reserve(filing, notional=Decimal("30"), caps=CAPS)

    def recent(identity: str = "a", terms: dict[str, Any] = TERMS) -> tuple[int, int, int]:
        reads = ledger.decision_reads(
            account, now=clock.now(), identity=identity, terms=terms, duplicate_window=window
        )
        assert reads.recent is not None
        return reads.recent.identity_minute, reads.recent.account_minute, reads.recent.duplicates

    other = {**TERMS, "dollar_amount": Decimal("31.00")}
    file("a", TERMS)
    file("a", other)
    file("b", TERMS)
    file("a", TERMS, refused=True)  # a refusal reserved nothing: never counted
    ledger.file_and_reserve(
        Filing(identity="a", terms=TERMS, account="elsewhere"), notional=Decimal(1), caps=CAPS
    )
    assert recent() == (2, 3, 1)
    assert recent("b") == (1, 3, 1)
    assert recent("c") == (0, 3, 0)
    assert recent(terms={**TERMS, "side": "sell"}) == (2, 3, 0)
    clock.advance(window - timedelta(seconds=1))
    assert recent() == (2, 3, 1)
    clock.advance(timedelta(seconds=1))  # 30 s: the duplicate window has passed
    assert recent() == (2, 3, 0)
    clock.advance(timedelta(seconds=29))
    assert recent() == (2, 3, 0)
    clock.advance(timedelta(seconds=1))  # a minute: the rate's window has passed
    assert recent() == (0, 0, 0)
    assert ledger.decision_reads(account, now=clock.now()).recent is None


def test_the_breaker_trip_a_decision_reads_is_the_latest_one_recorded(
    ledger: Ledger, clock: SteppedClock
) -> None:
    assert ledger.decision_reads("acct-1", now=clock.now()).breaker_tripped_at is None
    first = clock.now()
    ledger.controls.breaker_tripped(first, ["drawdown_halt"], account="acct-1")
    later = first + timedelta(minutes=5)
    ledger.controls.breaker_tripped(later, ["daily_loss_halt", "drawdown_halt"], account="acct-1")
    # An older instant: the later one is kept.
    ledger.controls.breaker_tripped(first, ["drawdown_halt"], account="acct-1")
    assert ledger.controls.breaker_tripped_at("acct-1") == later
    assert ledger.decision_reads("acct-1", now=clock.now()).breaker_tripped_at == later


@pytest.mark.req("wall.cooldown.per-account")
def test_a_breaker_tripped_on_one_account_is_not_read_by_another(
    ledger: Ledger, clock: SteppedClock
) -> None:
    tripped = clock.now()
    ledger.controls.breaker_tripped(tripped, ["drawdown_halt"], account="acct-1")
    assert ledger.decision_reads("acct-1", now=clock.now()).breaker_tripped_at == tripped
    assert ledger.decision_reads("acct-2", now=clock.now()).breaker_tripped_at is None
    assert ledger.controls.breaker_tripped_at("acct-2") is None
    # Each account's trip is a control on the chain: ``verify`` holds it as it holds the rest.
    assert ledger.verify().ok


@pytest.mark.req("wall.cooldown.per-account")
def test_a_ledger_wide_trip_kept_from_before_applies_to_every_account_until_a_later_own(
    ledger: Ledger, clock: SteppedClock
) -> None:
    # Written as the ledger did before trips were kept per account (migration 0030).
    old = clock.now()
    with write_transaction(ledger.engine) as connection:
        write_control(connection, BREAKER_TRIP_KEY, {"at": iso(old), "reasons": []}, old)
    for account in ("acct-1", "acct-2"):
        assert ledger.decision_reads(account, now=clock.now()).breaker_tripped_at == old
        assert ledger.controls.breaker_tripped_at(account) == old
    later = old + timedelta(minutes=1)
    ledger.controls.breaker_tripped(later, ["drawdown_halt"], account="acct-2")
    assert ledger.decision_reads("acct-1", now=clock.now()).breaker_tripped_at == old
    assert ledger.decision_reads("acct-2", now=clock.now()).breaker_tripped_at == later
    assert ledger.verify().ok


def test_a_connections_pause_is_read_by_its_own_and_its_bound_callers_decisions_only(
    ledger: Ledger, clock: SteppedClock
) -> None:
    digest = "d" * 32
    own, bound = f"conn:{digest}", f"caller:nightly/trader#m1@{digest}"
    other, owner = "conn:" + "e" * 32, "cli"
    ledger.controls.pause_connection(digest, "checking", by="operator")
    paused = {
        filer: ledger.decision_reads("acct-1", filer=filer).pause
        for filer in (own, bound, other, owner)
    }
    staged = ledger.decision_reads("acct-1", identity=bound, terms=TERMS).pause
    assert paused[own].paused and paused[own].reason == "checking"
    assert paused[bound].paused and staged.paused
    assert not paused[other].paused and not paused[owner].paused
    ledger.controls.resume_connection(digest, by=own)
    assert not ledger.decision_reads("acct-1", filer=own).pause.paused
    assert not ledger.controls.connection_pause(digest).paused


def test_the_rail_wide_pause_is_read_whether_or_not_a_connection_is_paused(
    ledger: Ledger, clock: SteppedClock
) -> None:
    digest = "d" * 32
    ledger.controls.pause("rail", by="operator")
    assert ledger.decision_reads("acct-1", filer=f"conn:{digest}").pause.reason == "rail"
    ledger.controls.pause_connection(digest, "one", by="operator")
    assert ledger.decision_reads("acct-1", filer=f"conn:{digest}").pause.reason == "rail"
    ledger.controls.resume(by="operator")
    assert ledger.decision_reads("acct-1", filer=f"conn:{digest}").pause.reason == "one"
