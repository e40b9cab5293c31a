"""Verifying only what follows a checkpoint, and checking the open set against the chains.

A walk ``since`` a filings checkpoint proves each account's last link at it against the
checkpoint, then reads only the later filings; ``events_since`` does the same for the events
chain. The derived ``open_filings`` must agree with the chains whichever way it is walked.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any
from uuid import UUID

import pytest
from plan_testkit import captured, full_scans
from sqlalchemy import text

from ordergate.ledger import (
    GENESIS,
    ChainHead,
    CheckpointError,
    Decision,
    Filing,
    FilingStatus,
    Ledger,
    RollingCaps,
    _verify,
    _walk,
)
from ordergate.ledger._schema import filing_events, filings

CAPS = RollingCaps(max_daily_usd=Decimal(10**6), max_orders_per_day=10**4)

pytestmark = [pytest.mark.req("ledger.verify-since"), pytest.mark.req("ledger.tamper-evident")]


def _file(ledger: Ledger, account: str, n: int, *, accept: bool = True) -> UUID:
    decision = Decision.ACCEPT if accept else Decision.REFUSE
    filing = Filing("agent", {"n": n}, account=account, decision=decision)
    return ledger.file_and_reserve(filing, notional=Decimal(1), caps=CAPS).record.id


def run(ledger: Ledger, *statements: str) -> None:
    with ledger.engine.begin() as connection:
        for statement in statements:
            connection.execute(text(statement))


@pytest.fixture
def before(ledger: Ledger) -> tuple[Ledger, ChainHead, ChainHead]:
    """Six filings on accounts a and b with events, then the two checkpoints, then four more
    filings (one on a new account c) and more events."""
    ids = [_file(ledger, "ab"[index % 2], index) for index in range(6)]
    ledger.record_status(ids[0], FilingStatus.SUBMITTED)
    ledger.record_status(ids[0], FilingStatus.FILLED)
    ledger.record_status(ids[1], FilingStatus.SUBMITTED)
    heads = ledger.head(), ledger.event_head()
    later = [_file(ledger, account, 10 + n) for n, account in enumerate("abca")]
    ledger.record_status(ids[1], FilingStatus.CANCELLED)
    ledger.record_status(later[0], FilingStatus.SUBMITTED)
    return ledger, *heads


def test_a_walk_since_the_checkpoints_reads_only_what_followed_them(
    before: tuple[Ledger, ChainHead, ChainHead],
) -> None:
    ledger, filings_head, events_head = before
    assert (filings_head.seq, events_head.seq) == (6, 3)
    result = ledger.verify(since=filings_head, events_since=events_head)
    assert (result.ok, result.checked) == (True, 4 + 2)
    assert ledger.verify(since=filings_head).checked == 4 + 5
    assert ledger.verify(events_since=events_head).checked == 10 + 2
    assert ledger.verify().checked == 10 + 5
    # The checkpoints of now: nothing follows them.
    now = ledger.verify(since=ledger.head(), events_since=ledger.event_head())
    assert (now.ok, now.checked) == (True, 0)
    # A genesis checkpoint is the whole ledger.
    assert ledger.verify(since=ChainHead(0, GENESIS), events_since=ChainHead(0, GENESIS)).ok


def test_an_edit_after_the_checkpoint_names_the_edited_record(
    before: tuple[Ledger, ChainHead, ChainHead],
) -> None:
    ledger, filings_head, events_head = before
    run(ledger, "UPDATE filings SET terms = '{}' WHERE seq = 9")
    edited = ledger.verify(since=filings_head, events_since=events_head)
    assert (edited.ok, edited.chain, edited.first_bad_seq) == (False, "filings", 9)
    # A later checkpoint's anchors include that filing (c's last): it is checked there too.
    anchor = ledger.verify(since=ledger.head())
    assert (anchor.ok, anchor.first_bad_seq) == (False, 9)
    with ledger.engine.begin() as connection:
        connection.execute(
            text("UPDATE filings SET terms = :terms WHERE seq = 9"), {"terms": '{"n":12}'}
        )
    run(ledger, "UPDATE filing_events SET detail = '[]' WHERE seq = 5")
    event = ledger.verify(since=ledger.head(), events_since=events_head)
    assert (event.ok, event.chain, event.first_bad_seq) == (False, "events", 5)


def test_a_filing_deleted_after_the_checkpoint_is_missing_from_its_accounts_chain(
    before: tuple[Ledger, ChainHead, ChainHead],
) -> None:
    ledger, filings_head, events_head = before
    run(
        ledger,
        "DELETE FROM reservations WHERE filing_id = (SELECT id FROM filings WHERE seq = 7)",
        "DELETE FROM open_filings WHERE seq = 7",
        "DELETE FROM filing_events WHERE filing_id = (SELECT id FROM filings WHERE seq = 7)",
        "DELETE FROM filings WHERE seq = 7",
    )
    result = ledger.verify(since=filings_head, events_since=events_head)
    assert (result.ok, result.first_bad_seq) == (False, 10)
    assert result.reason is not None and "missing" in result.reason


def test_a_checkpoint_the_ledger_does_not_match_is_refused_naming_where(
    before: tuple[Ledger, ChainHead, ChainHead],
) -> None:
    ledger, filings_head, events_head = before
    foreign = ledger.verify(since=ChainHead(filings_head.seq, "c" * 64))
    assert (foreign.ok, foreign.chain, foreign.first_bad_seq) == (False, "filings", 6)
    assert foreign.reason is not None and "differ from the --since checkpoint" in foreign.reason
    past = ledger.verify(since=ChainHead(99, filings_head.hash))
    assert (past.ok, past.first_bad_seq) == (False, 11)
    assert past.reason is not None and "end at 10" in past.reason
    for wrong in (ChainHead(3, "d" * 64), ChainHead(50, events_head.hash)):
        result = ledger.verify(events_since=wrong)
        assert (result.ok, result.chain, result.first_bad_seq) == (False, "events", wrong.seq)


def test_a_chain_cut_or_rewritten_up_to_the_checkpoint_is_caught_by_its_anchors(
    before: tuple[Ledger, ChainHead, ChainHead],
) -> None:
    ledger, filings_head, _ = before
    # b's last filing before the checkpoint (an anchor), edited: it no longer matches its hash.
    run(ledger, "UPDATE filings SET identity = 'mallory' WHERE seq = 6")
    edited = ledger.verify(since=filings_head)
    assert (edited.ok, edited.first_bad_seq) == (False, 6)
    assert edited.reason is not None and "edited" in edited.reason
    run(ledger, "UPDATE filings SET identity = 'agent' WHERE seq = 6")
    assert ledger.verify(since=filings_head).ok
    # b's whole chain, and its head, deleted: the anchors no longer digest to the checkpoint.
    run(
        ledger,
        "DELETE FROM reservations WHERE account = 'b'",
        "DELETE FROM open_filings WHERE account = 'b'",
        "DELETE FROM filing_events WHERE filing_id IN (SELECT id FROM filings WHERE account = 'b')",
        "DELETE FROM filings WHERE account = 'b'",
        "DELETE FROM chain_heads WHERE account = 'b'",
    )
    cut = ledger.verify(since=filings_head)
    assert (cut.ok, cut.first_bad_seq) == (False, 6)
    assert cut.reason is not None and "cut off or rewritten" in cut.reason


def test_an_event_checkpoint_whose_event_was_rewritten_or_deleted_is_caught(
    before: tuple[Ledger, ChainHead, ChainHead],
) -> None:
    ledger, _, events_head = before
    run(ledger, "UPDATE filing_events SET status = 'filled' WHERE seq = 3")
    edited = ledger.verify(events_since=events_head)
    assert (edited.ok, edited.first_bad_seq) == (False, 3)
    assert edited.reason is not None and "edited" in edited.reason
    run(ledger, "DELETE FROM filing_events WHERE seq = 3")
    gone = ledger.verify(events_since=events_head)
    assert gone.reason is not None and "missing" in gone.reason
    assert ledger.verify(events_since=ChainHead(2, events_head.hash)).reason is not None


def test_a_checkpoint_beside_since_must_be_later_and_then_pins_the_tail(
    before: tuple[Ledger, ChainHead, ChainHead],
) -> None:
    ledger, filings_head, events_head = before
    with pytest.raises(CheckpointError, match="older"):
        ledger.verify(since=filings_head, checkpoint=ChainHead(2, "e" * 64))
    with pytest.raises(CheckpointError, match="disagree"):
        ledger.verify(events_since=events_head, event_checkpoint=ChainHead(3, "e" * 64))
    assert ledger.verify(since=filings_head, checkpoint=filings_head).ok
    later, later_events = ledger.head(), ledger.event_head()
    pinned: dict[str, Any] = {"since": filings_head, "checkpoint": later,
                              "events_since": events_head,
                              "event_checkpoint": later_events}  # fmt: skip
    assert ledger.verify(**pinned).ok
    run(
        ledger,
        "DELETE FROM reservations WHERE filing_id = (SELECT id FROM filings WHERE seq = 10)",
        "DELETE FROM open_filings WHERE seq = 10",
        "DELETE FROM filings WHERE seq = 10",
        "UPDATE chain_heads SET seq = 7, account_seq = 4, "
        "hash = (SELECT hash FROM filings WHERE seq = 7) WHERE account = 'a'",
    )
    assert ledger.verify(since=filings_head).ok  # a careful cut, seen by the later pin only
    cut = ledger.verify(**pinned)
    assert (cut.ok, cut.first_bad_seq) == (False, 10)
    assert cut.reason is not None and "truncated" in cut.reason


def test_a_walk_reports_its_progress(
    before: tuple[Ledger, ChainHead, ChainHead], monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger, filings_head, events_head = before
    monkeypatch.setattr(_walk, "PROGRESS_EVERY", 2)
    lines: list[str] = []
    assert ledger.verify(progress=lines.append).ok
    assert lines[:5] == [
        "filings: 2 checked", "filings: 4 checked", "filings: 6 checked",
        "filings: 8 checked", "filings: 10 checked",
    ]  # fmt: skip
    assert lines[5:] == ["events: 2 checked", "events: 4 checked", "open filings: 8 checked"]
    lines.clear()
    assert ledger.verify(since=filings_head, events_since=events_head, progress=lines.append).ok
    assert lines == ["filings: 2 checked", "filings: 4 checked", "events: 2 checked",
                     "open filings: 8 checked"]  # fmt: skip


# -- the open set against the chains ----------------------------------------------------


@pytest.mark.req("ledger.open-filings-derived")
@pytest.mark.parametrize(
    ("statement", "reason"),
    [
        ("DELETE FROM open_filings WHERE seq = 3", "missing from open_filings"),
        ("UPDATE open_filings SET status = 'filled' WHERE seq = 3", "its events say"),
        ("UPDATE open_filings SET status = 'submitted' WHERE seq = 3", "its events say"),
        ("UPDATE open_filings SET account = 'z' WHERE seq = 3", "does not match the filing"),
        (
            "INSERT INTO open_filings VALUES ('00000000-0000-0000-0000-000000000009', 9, 'a', "
            "'agent', 'accepted')",
            "not on file",
        ),
        (
            "INSERT INTO open_filings SELECT id, seq, account, identity, 'accepted' FROM "
            "filings WHERE seq = 2",
            "does not match the filing",
        ),
    ],
)
def test_an_open_set_that_disagrees_with_the_chains_fails_verification(
    ledger: Ledger, statement: str, reason: str
) -> None:
    first = _file(ledger, "a", 1)
    _file(ledger, "a", 2, accept=False)
    _file(ledger, "a", 3)
    ledger.record_status(first, FilingStatus.SUBMITTED)
    assert ledger.verify().ok
    run(ledger, statement)
    result = ledger.verify()
    assert (result.ok, result.chain) == (False, "open_filings")
    assert result.reason is not None and reason in result.reason
    assert result.first_bad_seq in (2, 3, 9)


@pytest.mark.req("ledger.open-filings-derived")
def test_since_a_checkpoint_the_open_set_is_checked_for_what_followed_and_every_open_row(
    before: tuple[Ledger, ChainHead, ChainHead],
) -> None:
    ledger, filings_head, events_head = before
    since: dict[str, Any] = {"since": filings_head, "events_since": events_head}
    run(ledger, "DELETE FROM open_filings WHERE seq = 8")  # filed after the checkpoint
    assert ledger.verify(**since).chain == "open_filings"
    run(ledger, "INSERT INTO open_filings SELECT id, seq, account, identity, 'accepted' "
                "FROM filings WHERE seq = 8")  # fmt: skip
    run(ledger, "UPDATE open_filings SET status = 'unanswered' WHERE seq = 3")  # any open row
    assert ledger.verify(**since).chain == "open_filings"
    run(ledger, "UPDATE open_filings SET status = 'accepted' WHERE seq = 3")
    assert ledger.verify(**since).ok


@pytest.mark.req("ledger.cost-bounded-by-open")
def test_a_walk_since_the_checkpoints_reads_no_table_whole_but_the_heads_and_the_open_set(
    before: tuple[Ledger, ChainHead, ChainHead],
) -> None:
    ledger, filings_head, events_head = before
    with captured(ledger.engine) as statements:
        assert ledger.verify(since=filings_head, events_since=events_head).ok
    # The walks read on the driver's cursor, beside SQLAlchemy: the records after each
    # checkpoint, by their primary keys.
    walks = [
        _verify._after(_verify._FILINGS, filings.c.seq, filings_head.seq),
        _verify._after(_verify._EVENTS, filing_events.c.seq, events_head.seq),
    ]
    dialect = ledger.engine.dialect
    compiled = [str(query.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))
                for query in walks]  # fmt: skip
    scans = full_scans(ledger.engine, [*statements, *((sql, None) for sql in compiled)])
    tables = {match for _, lines in scans for line in lines
              for match in re.findall(r"(?:^SCAN|Seq Scan on) (\w+)", line.strip())}  # fmt: skip
    # and the controls: a handful of rows, each checked against its chain.
    assert tables <= {"chain_heads", "open_filings", "controls"}
