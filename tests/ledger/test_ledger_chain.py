"""The hash chains: every edit, deletion, reorder or truncation is found, naming the first bad
record; on SQLite and on Postgres."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import Engine, text

from ordergate.ledger import (
    GENESIS,
    ChainHead,
    Decision,
    Filing,
    FilingStatus,
    Ledger,
    RollingCaps,
    verify,
)
from ordergate.ledger._canonical import chain_hash, filing_body

CAPS = RollingCaps(max_daily_usd=Decimal(1000), max_orders_per_day=100)

pytestmark = [pytest.mark.req("ledger.tamper-evident"), pytest.mark.req("ledger.postgres-parity")]


@pytest.fixture
def filed(ledger: Ledger) -> Ledger:
    """Five filings (the second refused by the policy) and three events."""
    ids = []
    for index in range(5):
        decision = Decision.REFUSE if index == 1 else Decision.ACCEPT
        result = ledger.file_and_reserve(
            Filing("agent", {"symbol": "AAPL", "n": index}, account="a", decision=decision),
            notional=Decimal(10),
            caps=CAPS,
        )
        ids.append(result.record.id)
    ledger.record_status(ids[0], FilingStatus.SUBMITTED)
    ledger.record_status(ids[0], FilingStatus.FILLED)
    ledger.release(ids[2])
    return ledger


def run(engine: Engine, *statements: str) -> None:
    with engine.begin() as connection:
        for statement in statements:
            connection.execute(text(statement))


def test_an_untouched_ledger_verifies(filed: Ledger) -> None:
    result = verify(filed, checkpoint=filed.head(), event_checkpoint=filed.event_head())
    assert result.ok and result.checked == 8
    assert result.first_bad_seq is None


def test_an_empty_ledger_verifies_and_its_head_is_genesis(ledger: Ledger) -> None:
    assert ledger.head() == ChainHead(0, GENESIS)
    assert ledger.verify(checkpoint=ChainHead(0, GENESIS)).ok


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("id", "00000000-0000-0000-0000-000000000002"),
        ("identity", "someone-else"),
        ("account", "b"),
        ("created_at", "2026-12-01T14:00:00.000000Z"),
        ("kind", "crypto_order"),
        ("status", "accepted"),
        ("decision", "accept"),
        ("reasons", '["max_daily_usd"]'),
        ("terms", '{"n":1,"symbol":"TSLA"}'),
        ("notional", "1"),
        ("hash", "a" * 64),
    ],
)
def test_an_edit_of_any_field_names_the_edited_filing(
    filed: Ledger, column: str, value: str
) -> None:
    second_id = str(_id_at(filed, 2))
    with filed.engine.begin() as connection:
        connection.execute(
            text(f"UPDATE filings SET {column} = :value WHERE seq = 2"), {"value": value}
        )
    result = filed.verify()
    assert not result.ok
    assert result.chain == "filings" and result.first_bad_seq == 2
    assert result.filing_id in (second_id, "00000000-0000-0000-0000-000000000002")
    assert result.reason is not None and "edited" in result.reason


def test_an_edited_link_is_caught_where_it_breaks(filed: Ledger) -> None:
    run(filed.engine, "UPDATE filings SET prev_hash = '" + "b" * 64 + "' WHERE seq = 3")
    result = filed.verify()
    assert (result.ok, result.first_bad_seq) == (False, 3)
    assert result.reason is not None and "link" in result.reason


def test_a_deleted_filing_is_named_as_missing(filed: Ledger) -> None:
    victim = str(_id_at(filed, 3))
    run(
        filed.engine,
        f"DELETE FROM filing_events WHERE filing_id = '{victim}'",
        f"DELETE FROM reservations WHERE filing_id = '{victim}'",
        "DELETE FROM filings WHERE seq = 3",
    )
    result = filed.verify()
    assert (result.ok, result.chain, result.first_bad_seq) == (False, "filings", 3)
    assert result.reason is not None and "missing" in result.reason


def test_two_filings_swapped_in_order_are_caught_at_the_first_swapped_seq(filed: Ledger) -> None:
    run(
        filed.engine,
        "UPDATE filings SET seq = -1 WHERE seq = 2",
        "UPDATE filings SET seq = 2 WHERE seq = 4",
        "UPDATE filings SET seq = 4 WHERE seq = -1",
    )
    result = filed.verify()
    assert (result.ok, result.first_bad_seq) == (False, 2)


def test_a_truncated_tail_is_caught_against_the_checkpoint(filed: Ledger) -> None:
    checkpoint = filed.head()
    last = str(_id_at(filed, 5))
    run(
        filed.engine,
        f"DELETE FROM reservations WHERE filing_id = '{last}'",
        "DELETE FROM filings WHERE seq = 5",
    )
    assert filed.verify().ok  # without the checkpoint a cut tail looks like a shorter chain
    result = filed.verify(checkpoint=checkpoint)
    assert (result.ok, result.first_bad_seq) == (False, 5)
    assert result.reason is not None and "truncated" in result.reason


def test_a_rewritten_and_rehashed_suffix_is_caught_against_the_checkpoint(filed: Ledger) -> None:
    checkpoint = filed.head()
    run(filed.engine, "UPDATE filings SET identity = 'mallory' WHERE seq = 4")
    _rehash_from(filed.engine, 4)
    assert filed.verify().ok  # a consistent forgery: only an exported checkpoint shows it
    result = filed.verify(checkpoint=checkpoint)
    assert (result.ok, result.first_bad_seq) == (False, 5)
    assert result.reason is not None and "rewritten" in result.reason


def test_a_field_holding_the_separator_is_caught_even_when_rehashed(filed: Ledger) -> None:
    # Moving a field boundary (identity "agent\x1fa", account "") would keep the joined bytes
    # of a forged row; the separator count gives it away.
    run(
        filed.engine,
        "UPDATE filings SET identity = 'agent' || CHR(31) || 'a', account = '' WHERE seq = 3",
    ) if filed.dialect == "postgresql" else run(
        filed.engine,
        "UPDATE filings SET identity = 'agent' || CHAR(31) || 'a', account = '' WHERE seq = 3",
    )
    _rehash_from(filed.engine, 3)
    result = filed.verify()
    assert (result.ok, result.first_bad_seq) == (False, 3)


def test_an_edited_or_deleted_event_is_caught_in_the_events_chain(filed: Ledger) -> None:
    run(filed.engine, "UPDATE filing_events SET status = 'cancelled' WHERE seq = 2")
    result = filed.verify()
    assert (result.ok, result.chain, result.first_bad_seq) == (False, "events", 2)


def test_a_deleted_last_event_is_caught_against_the_events_checkpoint(filed: Ledger) -> None:
    pin = filed.event_head()
    run(filed.engine, "DELETE FROM filing_events WHERE seq = 3")
    result = filed.verify(event_checkpoint=pin)
    assert (result.ok, result.chain, result.first_bad_seq) == (False, "events", 3)


def test_a_checkpoint_is_read_back_from_its_printed_form() -> None:
    head = ChainHead(12, "AB" * 32)
    assert ChainHead.parse(f" {head} ") == ChainHead(12, "ab" * 32)
    for bad in ("12", "x:" + "a" * 64, "3:abc", "3:" + "z" * 64):
        with pytest.raises(ValueError):
            ChainHead.parse(bad)


def _id_at(ledger: Ledger, seq: int) -> str:
    with ledger.engine.connect() as connection:
        value = connection.execute(
            text("SELECT id FROM filings WHERE seq = :seq"), {"seq": seq}
        ).scalar()
    assert isinstance(value, str)
    return value


def _rehash_from(engine: Engine, start: int) -> None:
    """What a careful forger does: recompute every hash from ``start`` on."""
    with engine.begin() as connection:
        rows = connection.execute(
            text(
                "SELECT seq, id, identity, account, created_at, kind, status, decision, "
                "reasons, terms, notional, prev_hash FROM filings WHERE seq >= :start "
                "ORDER BY seq"
            ),
            {"start": start},
        ).all()
        prev = rows[0].prev_hash
        for row in rows:
            digest = chain_hash(prev, filing_body(*row[:11]))
            connection.execute(
                text("UPDATE filings SET prev_hash = :prev, hash = :hash WHERE seq = :seq"),
                {"prev": prev, "hash": digest, "seq": row.seq},
            )
            prev = digest
