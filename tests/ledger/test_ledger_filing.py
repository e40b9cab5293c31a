"""Filing with the reservation in the same transaction; the rolling window; release/correct."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from uuid import UUID, uuid4

import pytest
from sqlalchemy.exc import IntegrityError

from ordergate.core import SteppedClock
from ordergate.ledger import (
    CAP_DAILY_USD,
    CAP_ORDERS_PER_DAY,
    PAUSED,
    Decision,
    Filing,
    FilingStatus,
    Ledger,
    ReservationError,
    RollingCaps,
    Spend,
    UnknownFilingError,
)

CAPS = RollingCaps(max_daily_usd=Decimal("100"), max_orders_per_day=3)
TERMS = {"symbol": "AAPL", "side": "buy", "type": "market", "dollar_amount": Decimal("30.00")}


def filing(account: str = "acct", **changes: object) -> Filing:
    fields: dict[str, object] = {"identity": "agent-1", "terms": TERMS, "account": account}
    fields.update(changes)
    return Filing(**fields)  # type: ignore[arg-type]


pytestmark = pytest.mark.req("ledger.postgres-parity")


@pytest.mark.req("ledger.filing-reservation-atomic")
def test_an_accepted_filing_reserves_its_notional_and_one_order(ledger: Ledger) -> None:
    result = ledger.file_and_reserve(filing(), notional=Decimal("30.00"), caps=CAPS)
    assert result.accepted and result.reason is None
    assert result.record.seq == 1 and result.record.status is FilingStatus.ACCEPTED
    assert ledger.rolling_spend("acct") == Spend(Decimal("30"), 1)
    stored = ledger.filing(result.record.id)
    assert stored == result.record
    assert stored.terms == {
        "symbol": "AAPL", "side": "buy", "type": "market", "dollar_amount": "30.00"
    }  # fmt: skip
    assert stored.accepted


@pytest.mark.req("ledger.filing-reservation-atomic")
def test_a_filing_over_the_daily_notional_cap_is_refused_on_file_and_reserves_nothing(
    ledger: Ledger,
) -> None:
    assert ledger.file_and_reserve(filing(), notional=Decimal("70"), caps=CAPS).accepted
    refused = ledger.file_and_reserve(filing(), notional=Decimal("30.01"), caps=CAPS)
    assert not refused.accepted
    assert refused.reason == CAP_DAILY_USD
    assert ledger.filing(refused.record.id).status is FilingStatus.REFUSED
    assert ledger.rolling_spend("acct") == Spend(Decimal("70"), 1)
    exact = ledger.file_and_reserve(filing(), notional=Decimal("30"), caps=CAPS)
    assert exact.accepted
    assert ledger.rolling_spend("acct") == Spend(Decimal("100"), 2)


@pytest.mark.req("ledger.filing-reservation-atomic")
def test_the_fourth_order_in_a_day_is_refused_with_the_orders_cap(ledger: Ledger) -> None:
    for _ in range(3):
        assert ledger.file_and_reserve(filing(), notional=Decimal(1), caps=CAPS).accepted
    refused = ledger.file_and_reserve(filing(), notional=Decimal(200), caps=CAPS)
    assert refused.reason == CAP_ORDERS_PER_DAY
    assert refused.record.reasons == (CAP_ORDERS_PER_DAY, CAP_DAILY_USD)
    assert ledger.head().seq == 4


def test_caps_are_per_account(ledger: Ledger) -> None:
    assert ledger.file_and_reserve(filing("a"), notional=Decimal(100), caps=CAPS).accepted
    assert ledger.file_and_reserve(filing("b"), notional=Decimal(100), caps=CAPS).accepted
    assert ledger.rolling_spend("a") == ledger.rolling_spend("b") == Spend(Decimal(100), 1)


def test_a_policy_refusal_is_filed_with_its_reasons_and_reserves_nothing(ledger: Ledger) -> None:
    denied = filing(decision=Decision.REFUSE, reasons=("symbol_not_allowed",))
    result = ledger.file_and_reserve(denied, notional=Decimal(5), caps=CAPS)
    assert not result.accepted and result.reason == "symbol_not_allowed"
    assert ledger.rolling_spend("acct") == Spend(Decimal(0), 0)
    bare = ledger.file_and_reserve(filing(decision=Decision.REFUSE), notional=Decimal(1), caps=CAPS)
    assert bare.reason == "refused"
    with pytest.raises(ReservationError):
        ledger.release(result.record.id)


def test_while_paused_every_filing_is_refused_and_resume_lets_them_through(
    ledger: Ledger,
) -> None:
    ledger.controls.pause("market chaos")
    assert ledger.controls.pause_state().reason == "market chaos"
    paused = ledger.file_and_reserve(filing(), notional=Decimal(1), caps=CAPS)
    assert paused.reason == PAUSED
    ledger.controls.resume()
    assert not ledger.controls.pause_state().paused
    assert ledger.file_and_reserve(filing(), notional=Decimal(1), caps=CAPS).accepted
    kinds = [entry.kind for entry in ledger.journal.entries()]
    assert kinds == ["pause", "resume"]


@pytest.mark.req("ledger.filing-reservation-atomic")
def test_group_commit_files_in_order_each_seeing_the_ones_before(ledger: Ledger) -> None:
    results = ledger.file_many(
        [(filing(), Decimal(40)), (filing("other"), Decimal(90)), (filing(), Decimal(40)),
         (filing(), Decimal(40))],
        caps=CAPS,
    )  # fmt: skip
    assert [r.accepted for r in results] == [True, True, True, False]
    assert results[3].reason == CAP_DAILY_USD
    assert [r.record.seq for r in results] == [1, 2, 3, 4]
    assert ledger.file_many([], caps=CAPS) == []
    assert ledger.verify().ok


def test_the_window_rolls_with_the_injected_clock(ledger: Ledger, clock: SteppedClock) -> None:
    assert ledger.file_and_reserve(filing(), notional=Decimal(60), caps=CAPS).accepted
    clock.advance(timedelta(hours=12))
    assert ledger.file_and_reserve(filing(), notional=Decimal(40), caps=CAPS).accepted
    assert not ledger.file_and_reserve(filing(), notional=Decimal(1), caps=CAPS).accepted
    clock.advance(timedelta(hours=12))
    # The first reservation is now exactly 24 hours old: out of the window.
    assert ledger.rolling_spend("acct") == Spend(Decimal(40), 1)
    assert ledger.file_and_reserve(filing(), notional=Decimal(60), caps=CAPS).accepted
    assert ledger.rolling_spend("acct", now=clock.now() + timedelta(days=2)) == Spend(Decimal(0), 0)


def test_a_kinds_rolling_spend_counts_its_own_filings_in_the_window_only(
    ledger: Ledger, clock: SteppedClock
) -> None:
    wide = RollingCaps(max_daily_usd=Decimal(1000), max_orders_per_day=10)
    ledger.file_and_reserve(filing(kind="option_order"), notional=Decimal(7), caps=wide)
    clock.advance(timedelta(hours=12))
    ledger.file_and_reserve(filing(), notional=Decimal(30), caps=wide)
    kept = ledger.file_and_reserve(filing(kind="option_order"), notional=Decimal(11), caps=wide)
    released = ledger.file_and_reserve(filing(kind="option_order"), notional=Decimal(5), caps=wide)
    ledger.file_and_reserve(
        filing(account="other", kind="option_order"), notional=Decimal(3), caps=wide
    )
    ledger.release(released.record.id)
    assert kept.accepted
    assert ledger.rolling_spend("acct", kind="option_order") == Spend(Decimal(18), 2)
    assert ledger.rolling_spend("acct", kind="equity_order") == Spend(Decimal(30), 1)
    clock.advance(timedelta(hours=12))  # the first option order leaves the window
    assert ledger.rolling_spend("acct", kind="option_order") == Spend(Decimal(11), 1)
    assert ledger.rolling_spend("acct", kind="crypto_order") == Spend(Decimal(0), 0)


def test_release_gives_back_the_notional_and_the_order_once(ledger: Ledger) -> None:
    first = ledger.file_and_reserve(filing(), notional=Decimal(80), caps=CAPS)
    event = ledger.release(first.record.id)
    assert event is not None and event.kind == "release"
    assert ledger.release(first.record.id) is None
    assert ledger.rolling_spend("acct") == Spend(Decimal(0), 0)
    assert ledger.file_and_reserve(filing(), notional=Decimal(100), caps=CAPS).accepted


def test_correct_makes_spend_converge_to_what_filled(ledger: Ledger) -> None:
    partial = ledger.file_and_reserve(filing(), notional=Decimal(50), caps=CAPS)
    ledger.file_and_reserve(filing(), notional=Decimal(50), caps=CAPS)
    event = ledger.correct(partial.record.id, Decimal("20.123456789"))
    assert event is not None and event.detail == {"filled_notional": "20.123456789"}
    # Rounded up to 10⁻⁸ USD: a reservation never holds less than what filled.
    assert ledger.rolling_spend("acct") == Spend(Decimal("70.12345679"), 2)
    assert ledger.correct(partial.record.id, Decimal("20.123456789")) is None
    assert ledger.file_and_reserve(filing(), notional=Decimal("29.87"), caps=CAPS).accepted
    with pytest.raises(ValueError, match="filled_notional"):
        ledger.correct(partial.record.id, Decimal(-1))
    with pytest.raises(UnknownFilingError):
        ledger.correct(uuid4(), Decimal(1))
    assert [e.kind for e in ledger.events(partial.record.id)] == ["correct"]


def test_status_events_move_a_filing_without_editing_it(ledger: Ledger) -> None:
    result = ledger.file_and_reserve(filing(), notional=Decimal(10), caps=CAPS)
    other = ledger.file_and_reserve(filing(), notional=Decimal(10), caps=CAPS)
    ledger.file_and_reserve(filing(decision=Decision.REFUSE), notional=Decimal(1), caps=CAPS)
    assert [f.id for f in ledger.open_filings()] == [result.record.id, other.record.id]
    ledger.record_status(result.record.id, FilingStatus.SUBMITTED, detail={"order_id": "o-1"})
    assert ledger.filing(result.record.id).status is FilingStatus.SUBMITTED
    ledger.record_status(result.record.id, FilingStatus.FILLED)
    assert [f.id for f in ledger.open_filings()] == [other.record.id]
    assert ledger.open_filings(account="nobody") == []
    stored = ledger.filing(result.record.id)
    assert stored.outcome is FilingStatus.ACCEPTED and stored.hash == result.record.hash
    events = ledger.events(result.record.id)
    assert [(e.seq, e.status) for e in events] == [(1, "submitted"), (2, "filled")]
    assert events[0].detail == {"order_id": "o-1"}
    assert ledger.event_head().seq == 2 and ledger.event_head().hash == events[1].hash
    with pytest.raises(UnknownFilingError):
        ledger.record_status(uuid4(), FilingStatus.SUBMITTED)


def test_unknown_filings_and_bad_inputs_are_refused(ledger: Ledger) -> None:
    with pytest.raises(UnknownFilingError) as raised:
        ledger.filing(UUID(int=7))
    assert raised.value.code == "unknown_filing"
    assert str(raised.value) == f"no filing {UUID(int=7)}"
    with pytest.raises(ValueError, match="notional"):
        ledger.file_and_reserve(filing(), notional=Decimal(-1), caps=CAPS)
    with pytest.raises(ValueError, match="notional"):
        ledger.file_and_reserve(filing(), notional=Decimal("NaN"), caps=CAPS)
    with pytest.raises(ValueError, match="identity"):
        ledger.file_and_reserve(filing(identity=""), notional=Decimal(1), caps=CAPS)
    with pytest.raises(ValueError, match="account"):
        ledger.file_and_reserve(filing(account="x" * 201), notional=Decimal(1), caps=CAPS)
    with pytest.raises(ValueError, match="control"):
        ledger.file_and_reserve(filing(identity="a\x1fb"), notional=Decimal(1), caps=CAPS)
    with pytest.raises(TypeError, match="float"):
        ledger.file_and_reserve(filing(terms={"qty": 1.5}), notional=Decimal(1), caps=CAPS)
    assert ledger.head().seq == 0


def test_rolling_caps_refuse_negative_limits() -> None:
    with pytest.raises(ValueError):
        RollingCaps(Decimal(-1), 1)
    with pytest.raises(ValueError):
        RollingCaps(Decimal(1), -1)


@pytest.mark.req("ledger.filing-reservation-atomic")
def test_reprice_moves_a_live_reservation_within_the_cap_and_refuses_past_it(
    ledger: Ledger,
) -> None:
    first = ledger.file_and_reserve(filing(), notional=Decimal(30), caps=CAPS).record
    ledger.file_and_reserve(filing(), notional=Decimal(30), caps=CAPS)
    assert ledger.reprice(first.id, Decimal(70), caps=CAPS) is None
    assert ledger.rolling_spend("acct") == Spend(Decimal(100), 2)
    assert ledger.reprice(first.id, Decimal("70.01"), caps=CAPS) == CAP_DAILY_USD
    assert ledger.rolling_spend("acct") == Spend(Decimal(100), 2)
    assert ledger.reprice(first.id, Decimal(70), caps=CAPS) is None  # already so: no event
    assert [(e.kind, e.detail) for e in ledger.events(first.id)] == [
        ("reprice", {"notional": "70"})
    ]
    assert ledger.verify().ok


def test_reprice_refuses_what_holds_nothing_to_reprice(ledger: Ledger) -> None:
    refused = ledger.file_and_reserve(
        filing(decision=Decision.REFUSE), notional=Decimal(1), caps=CAPS
    ).record
    released = ledger.file_and_reserve(filing(), notional=Decimal(1), caps=CAPS).record
    ledger.release(released.id)
    with pytest.raises(ReservationError, match="reserved nothing"):
        ledger.reprice(refused.id, Decimal(2), caps=CAPS)
    with pytest.raises(ReservationError, match="released"):
        ledger.reprice(released.id, Decimal(2), caps=CAPS)
    with pytest.raises(UnknownFilingError):
        ledger.reprice(uuid4(), Decimal(2), caps=CAPS)
    with pytest.raises(ValueError, match="notional"):
        ledger.reprice(released.id, Decimal(-2), caps=CAPS)


def test_a_filing_id_filed_twice_is_an_integrity_error_and_files_nothing(ledger: Ledger) -> None:
    first = ledger.file_and_reserve(filing(), notional=Decimal(1), caps=CAPS).record
    head = ledger.head()
    with pytest.raises(IntegrityError):
        ledger.file_many(
            [(filing("other"), Decimal(1)), (filing(id=first.id), Decimal(1))], caps=CAPS
        )
    assert ledger.head() == head
    assert ledger.rolling_spend("other") == Spend(Decimal(0), 0)
    assert ledger.file_and_reserve(filing("other"), notional=Decimal(1), caps=CAPS).accepted
    assert ledger.verify().ok


@pytest.mark.req("ledger.filing-reservation-atomic")
def test_reprice_keeps_every_window_its_filing_counts_in_under_the_cap(
    ledger: Ledger, clock: SteppedClock
) -> None:
    caps = RollingCaps(max_daily_usd=Decimal(2500), max_orders_per_day=10)
    assert ledger.file_and_reserve(filing(), notional=Decimal(1500), caps=caps).accepted
    clock.advance(timedelta(hours=23, minutes=55))
    later = ledger.file_and_reserve(filing(), notional=Decimal("945.10"), caps=caps).record
    clock.advance(timedelta(minutes=10))  # the first filing has left the window ending now
    # ... but not the one ending at the later filing's time, which would hold 2520.70.
    assert ledger.reprice(later.id, Decimal("1020.70"), caps=caps) == CAP_DAILY_USD
    assert ledger.rolling_spend("acct") == Spend(Decimal("945.10"), 1)
    assert ledger.reprice(later.id, Decimal(1000), caps=caps) is None
    clock.advance(timedelta(days=1))  # that window still holds both, whenever it is asked
    assert ledger.reprice(later.id, Decimal(1001), caps=caps) == CAP_DAILY_USD
    assert ledger.reprice(later.id, Decimal(999), caps=caps) is None


def test_a_reservation_dated_after_now_by_a_clock_running_ahead_still_counts_against_the_cap(
    ledger: Ledger, clock: SteppedClock
) -> None:
    caps = RollingCaps(Decimal(100), 10)
    ahead = clock.now() + timedelta(minutes=5)
    assert ledger.file_and_reserve(
        Filing("replica-ahead", {"n": 1}), notional=Decimal(80), caps=caps, now=ahead
    ).accepted
    late = ledger.file_and_reserve(
        Filing("replica-behind", {"n": 2}), notional=Decimal(30), caps=caps
    )
    assert not late.accepted and late.reason == "max_daily_usd"
    assert ledger.rolling_spend().notional == Decimal(80)
