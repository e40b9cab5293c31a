"""Open filings kept with their status events: what they hold, what reads them, what each read
costs, and the migration that fills them for ledgers written before.

"Open" is defined by the chains: an accepted filing whose latest status event (if any) is not
terminal. ``open_filings`` keeps that set in the transactions that file and move filings, so
``Ledger.open_filings``, ``open_count`` and ``filings_of`` read only what is open or asked
for, by an index.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any
from uuid import UUID, uuid4

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pg_testkit import database
from plan_testkit import captured, full_scans, plan
from sqlalchemy import text

from ordergate.core import SteppedClock
from ordergate.ledger import (
    GENESIS,
    Decision,
    Filing,
    FilingStatus,
    Ledger,
    ReservationError,
    RollingCaps,
    open_ledger,
)
from ordergate.ledger._canonical import chain_hash, event_body, linked_filing_body
from ordergate.store import engine_for, migrate, normalise_url

pytestmark = pytest.mark.req("ledger.open-filings-derived")

CAPS = RollingCaps(Decimal(10**9), 10**6)
START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def _file(
    ledger: Ledger, account: str = "a", identity: str = "agent", *, accept: bool = True
) -> UUID:
    decision = Decision.ACCEPT if accept else Decision.REFUSE
    filing = Filing(identity, {"n": str(uuid4())}, account=account, decision=decision)
    return ledger.file_and_reserve(filing, notional=Decimal(1), caps=CAPS).record.id


def _open(ledger: Ledger, account: str | None = None) -> list[tuple[UUID, str]]:
    return [(record.id, record.status.value) for record in ledger.open_filings(account)]


def test_an_accepted_filing_is_open_until_a_terminal_status_event_ends_it(ledger: Ledger) -> None:
    first, second = _file(ledger), _file(ledger)
    assert _open(ledger) == [(first, "accepted"), (second, "accepted")]
    ledger.record_status(first, FilingStatus.SUBMITTED)
    ledger.release(second)  # not a status event: the filing stays open as it was
    assert _open(ledger, "a") == [(first, "submitted"), (second, "accepted")]
    ledger.record_status(first, FilingStatus.PARTIALLY_FILLED)
    ledger.record_status(first, FilingStatus.FILLED)
    assert _open(ledger) == [(second, "accepted")]
    assert ledger.filing(first).status is FilingStatus.FILLED
    ledger.record_status(second, FilingStatus.NOT_PLACED)
    assert _open(ledger) == []
    assert ledger.verify().ok


def test_a_refused_filing_is_never_open_whatever_its_events_say(ledger: Ledger) -> None:
    refused = _file(ledger, accept=False)
    assert _open(ledger) == []
    ledger.record_status(refused, FilingStatus.SUBMITTED)
    assert _open(ledger) == []
    assert ledger.open_count("a") == 0


def test_a_filing_moved_on_after_an_ending_is_open_again_as_its_latest_event_says(
    ledger: Ledger,
) -> None:
    filing = _file(ledger, "b", "late")
    ledger.record_status(filing, FilingStatus.NOT_PLACED)
    assert _open(ledger, "b") == []
    ledger.record_status(filing, FilingStatus.SUBMITTED)  # adopted after all
    assert _open(ledger, "b") == [(filing, "submitted")]
    assert ledger.open_count("b", "late") == 1
    assert ledger.verify().ok


def test_open_filings_and_the_open_count_are_per_account_and_identity(ledger: Ledger) -> None:
    mine = [_file(ledger, "a", "me"), _file(ledger, "a", "me")]
    theirs = _file(ledger, "a", "them")
    elsewhere = _file(ledger, "b", "me")
    ledger.record_status(mine[1], FilingStatus.CANCELLED)
    assert [record.id for record in ledger.open_filings("a")] == [mine[0], theirs]
    assert [record.id for record in ledger.open_filings("b")] == [elsewhere]
    assert [record.id for record in ledger.open_filings()] == [mine[0], theirs, elsewhere]
    assert (ledger.open_count("a"), ledger.open_count("a", "me")) == (2, 1)
    assert (ledger.open_count("b", "me"), ledger.open_count("b", "them")) == (1, 0)
    assert ledger.open_count("nobody") == 0


def test_filings_of_an_identity_are_its_latest_newest_first_with_their_status(
    ledger: Ledger,
) -> None:
    ids = [_file(ledger, "a", "me") for _ in range(4)]
    _file(ledger, "a", "someone else")
    refused = _file(ledger, "b", "me", accept=False)
    ledger.record_status(ids[1], FilingStatus.SUBMITTED)
    ledger.record_status(ids[1], FilingStatus.FILLED)
    ledger.correct(ids[1], Decimal(1))  # a later event that is not a status
    shown = ledger.filings_of("me", limit=3)
    assert [record.id for record in shown] == [refused, ids[3], ids[2]]
    assert [record.status for record in shown] == [
        FilingStatus.REFUSED, FilingStatus.ACCEPTED, FilingStatus.ACCEPTED
    ]  # fmt: skip
    everything = ledger.filings_of("me", limit=50)
    assert [record.id for record in everything] == [refused, *reversed(ids)]
    assert everything[-2].status is FilingStatus.FILLED
    assert ledger.filings_of("nobody", limit=5) == []
    with pytest.raises(ValueError, match="positive"):
        ledger.filings_of("me", limit=0)


def test_each_read_of_what_is_open_uses_its_index_and_scans_no_table(ledger: Ledger) -> None:
    for index in range(30):
        filing = _file(ledger, f"acct-{index % 3}", f"agent-{index % 4}")
        ledger.record_status(filing, FilingStatus.SUBMITTED)
        if index % 2:
            ledger.record_status(filing, FilingStatus.FILLED)
        ledger.approvals.create(filing, "0" * 64)
    probe = ledger.open_filings("acct-1")[0]
    reads = {
        "ix_open_filings_account": lambda: ledger.open_filings("acct-1"),
        "ix_open_filings_identity": lambda: ledger.open_count("acct-1", "agent-1"),
        "ix_filings_identity": lambda: ledger.filings_of("agent-2", limit=5),
        "ix_filing_events_filing": lambda: ledger.filing(probe.id),
        "ix_approvals_state": lambda: ledger.approvals.pending(),
    }
    for wanted, read in reads.items():
        with captured(ledger.engine) as statements:
            read()
        assert full_scans(ledger.engine, statements) == [], wanted
        lines = [line for statement in statements for line in plan(ledger.engine, *statement)]
        assert any(wanted in line for line in lines), (wanted, lines)
    with captured(ledger.engine) as statements:
        ledger.approvals.overdue()
        ledger.events(probe.id)
        ledger.rolling_spend("acct-1")
        ledger.event_head()
    assert full_scans(ledger.engine, statements) == []


# -- the open set equals its definition, after any sequence of filings and events --------

_STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("file"), st.integers(0, 1), st.integers(0, 1), st.booleans()),
        st.tuples(st.just("status"), st.integers(0, 3), st.sampled_from(list(FilingStatus))),
        st.tuples(st.just("release"), st.integers(0, 3)),
    ),
    min_size=4,
    max_size=30,
)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def shared(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Ledger]:
    """One ledger for every example (each example uses accounts of its own)."""
    with (
        database(request.param, tmp_path_factory.mktemp("open")) as url,
        open_ledger(url, clock=SteppedClock(start=START)) as ledger,
    ):
        yield ledger


@settings(max_examples=25, deadline=None, database=None)
@given(steps=_STEPS)
def test_the_open_set_is_every_accepted_filing_whose_latest_status_is_not_terminal(
    shared: Ledger, steps: list[tuple[Any, ...]]
) -> None:
    run = uuid4().hex[:8]
    accounts = [f"{run}-a", f"{run}-b"]
    identities = [f"{run}-x", f"{run}-y"]
    filed: list[tuple[UUID, str, str, bool]] = []
    latest: dict[UUID, FilingStatus] = {}
    for step in steps:
        if step[0] == "file":
            _, account, identity, accept = step
            filing = _file(shared, accounts[account], identities[identity], accept=accept)
            filed.append((filing, accounts[account], identities[identity], accept))
            latest[filing] = FilingStatus.ACCEPTED if accept else FilingStatus.REFUSED
        elif filed and step[0] == "status":
            filing = filed[step[1] % len(filed)][0]
            shared.record_status(filing, step[2])
            latest[filing] = step[2]
        elif filed:
            with contextlib.suppress(ReservationError):
                shared.release(filed[step[1] % len(filed)][0])
    for account in accounts:
        expected = [
            (filing, latest[filing].value)
            for filing, on, _, accepted in filed
            if on == account and accepted and not latest[filing].terminal
        ]
        assert _open(shared, account) == expected
        for identity in identities:
            assert shared.open_count(account, identity) == sum(
                1 for filing, on, who, accepted in filed
                if (on, who) == (account, identity) and accepted and not latest[filing].terminal
            )  # fmt: skip
    for filing, *_ in filed:
        assert shared.filing(filing).status is latest[filing]
    assert shared.verify().ok


# -- migration 0006 fills the table for a ledger written before it ------------------------


def _at_0005(url: str) -> dict[str, list[UUID]]:
    """A ledger at revision 0005 (no ``open_filings``), written row by row as that version
    wrote it: filings on two account chains, their events on the events chain."""
    engine = engine_for(normalise_url(url))
    plan_of = [  # (account, outcome, status events in order ("" a release), open after)
        ("a", "accepted", [], True),
        ("a", "accepted", ["submitted"], True),
        ("a", "accepted", ["submitted", "filled"], False),
        ("b", "refused", [], False),
        ("b", "accepted", ["pending_approval", ""], True),
        ("b", "accepted", ["not_placed", "submitted"], True),
        ("a", "accepted", ["unanswered"], True),
    ]
    ids: dict[str, list[UUID]] = {"open": [], "closed": []}
    try:
        migrate(engine, "0005")
        heads: dict[str, tuple[int, int, str]] = {}
        event_seq, event_link = 0, GENESIS
        with engine.begin() as connection:
            for seq, (account, outcome, events, opened) in enumerate(plan_of, start=1):
                filing_id = uuid4()
                place = heads.get(account, (0, 0, GENESIS))[1] + 1
                link = heads.get(account, (0, 0, GENESIS))[2]
                row: dict[str, Any] = {
                    "seq": seq, "account_seq": place, "id": str(filing_id), "identity": "agent",
                    "account": account, "created_at": "2026-11-30T15:00:00.000000Z",
                    "kind": "equity_order", "status": outcome,
                    "decision": "accept" if outcome == "accepted" else "refuse",
                    "reasons": "[]", "terms": f'{{"n":{seq}}}', "notional": "1",
                }  # fmt: skip
                digest = chain_hash(link, linked_filing_body(*row.values()))
                connection.execute(
                    text(
                        "INSERT INTO filings (seq, account_seq, id, identity, account, "
                        "created_at, kind, status, decision, reasons, terms, notional, "
                        "prev_hash, hash) VALUES (:seq, :account_seq, :id, :identity, :account, "
                        ":created_at, :kind, :status, :decision, :reasons, :terms, :notional, "
                        ":prev_hash, :hash)"
                    ),
                    {**row, "prev_hash": link, "hash": digest},
                )
                heads[account] = (seq, place, digest)
                if outcome == "accepted":
                    released = "" in events  # a release event (no status) gave it back
                    connection.execute(
                        text(
                            "INSERT INTO reservations VALUES (:id, :account, :created_us, "
                            ":units, :amount, :ops, :state)"
                        ),
                        {"id": str(filing_id), "account": account,
                         "created_us": 1_796_050_800_000_000, "units": 100_000_000,
                         "amount": 0 if released else 100_000_000, "ops": 0 if released else 1,
                         "state": "released" if released else "reserved"},
                    )  # fmt: skip
                for status in events:
                    event_seq += 1
                    kind = "status" if status else "release"
                    body = event_body(
                        event_seq, str(filing_id), "2026-11-30T15:00:01.000000Z", kind, status,
                        "{}",
                    )  # fmt: skip
                    digest = chain_hash(event_link, body)
                    connection.execute(
                        text(
                            "INSERT INTO filing_events VALUES (:seq, :filing_id, :created_at, "
                            ":kind, :status, '{}', :prev_hash, :hash)"
                        ),
                        {"seq": event_seq, "filing_id": str(filing_id),
                         "created_at": "2026-11-30T15:00:01.000000Z", "kind": kind,
                         "status": status, "prev_hash": event_link, "hash": digest},
                    )  # fmt: skip
                    event_link = digest
                ids["open" if opened else "closed"].append(filing_id)
            for account, (seq, place, digest) in heads.items():
                connection.execute(
                    text("INSERT INTO chain_heads VALUES (:account, :seq, :place, :hash)"),
                    {"account": account, "seq": seq, "place": place, "hash": digest},
                )
    finally:
        engine.dispose()
    return ids


def test_migration_0006_fills_open_filings_from_the_filings_and_events_on_file(
    ledger_url: str, clock: SteppedClock
) -> None:
    ids = _at_0005(ledger_url)
    with open_ledger(ledger_url, clock=clock) as ledger:
        assert [record.id for record in ledger.open_filings()] == ids["open"]
        assert [(record.account, record.status.value) for record in ledger.open_filings()] == [
            ("a", "accepted"), ("a", "submitted"), ("b", "pending_approval"),
            ("b", "submitted"), ("a", "unanswered"),
        ]  # fmt: skip
        assert ledger.open_count("a", "agent") == 3
        assert ledger.verify().ok
        # And from here on it is kept as any other ledger's.
        ledger.record_status(ids["open"][0], FilingStatus.CANCELLED)
        assert ids["open"][0] not in [record.id for record in ledger.open_filings("a")]
        assert ledger.verify().ok
