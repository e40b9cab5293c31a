"""The hash chains: every edit, deletion, reorder or truncation is found, naming the first bad
record; on SQLite and on Postgres. Each account's filings form their own chain; the checkpoint
(``Ledger.head``) covers every account's chain at once."""

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
from ordergate.ledger._canonical import chain_hash, event_body, heads_digest, linked_filing_body

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


def test_a_deleted_filing_is_named_as_missing_at_the_next_filing_of_its_account(
    filed: Ledger,
) -> None:
    victim, successor = str(_id_at(filed, 3)), str(_id_at(filed, 4))
    run(
        filed.engine,
        f"DELETE FROM filing_events WHERE filing_id = '{victim}'",
        f"DELETE FROM reservations WHERE filing_id = '{victim}'",
        f"DELETE FROM open_filings WHERE filing_id = '{victim}'",
        "DELETE FROM filings WHERE seq = 3",
    )
    result = filed.verify()
    assert (result.ok, result.chain, result.first_bad_seq) == (False, "filings", 4)
    assert result.filing_id == successor
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


def test_a_cut_tail_is_caught_by_the_heads_table_and_a_careful_cut_by_the_checkpoint(
    filed: Ledger,
) -> None:
    checkpoint = filed.head()
    last = str(_id_at(filed, 5))
    run(
        filed.engine,
        f"DELETE FROM reservations WHERE filing_id = '{last}'",
        f"DELETE FROM open_filings WHERE filing_id = '{last}'",
        "DELETE FROM filings WHERE seq = 5",
    )
    careless = filed.verify()
    assert (careless.ok, careless.first_bad_seq) == (False, 5)
    assert careless.reason is not None and "truncated" in careless.reason
    _rewind_head(filed.engine, "a")
    assert filed.verify().ok  # without the checkpoint a careful cut looks like a shorter chain
    result = filed.verify(checkpoint=checkpoint)
    assert (result.ok, result.first_bad_seq) == (False, 5)
    assert result.reason is not None and "truncated" in result.reason


def test_a_rewritten_and_rehashed_suffix_is_caught_against_the_checkpoint(filed: Ledger) -> None:
    checkpoint = filed.head()
    run(filed.engine, "UPDATE filings SET identity = 'mallory' WHERE seq = 4")
    _rehash_from(filed.engine, 4)
    stale = filed.verify()  # the open set still names the filing as it was
    assert (stale.ok, stale.chain, stale.first_bad_seq) == (False, "open_filings", 4)
    run(filed.engine, "UPDATE open_filings SET identity = 'mallory' WHERE seq = 4")
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


def test_a_deleted_middle_event_or_a_broken_event_link_is_caught(filed: Ledger) -> None:
    run(filed.engine, "UPDATE filing_events SET prev_hash = '" + "d" * 64 + "' WHERE seq = 3")
    relinked = filed.verify()
    assert (relinked.ok, relinked.chain, relinked.first_bad_seq) == (False, "events", 3)
    assert relinked.reason is not None and "link" in relinked.reason
    run(filed.engine, "DELETE FROM filing_events WHERE seq = 2")
    result = filed.verify()
    assert (result.ok, result.chain, result.first_bad_seq) == (False, "events", 2)
    assert result.reason is not None and "missing" in result.reason


def test_a_rewritten_last_event_is_caught_against_the_events_checkpoint(filed: Ledger) -> None:
    pin = filed.event_head()
    with filed.engine.begin() as connection:
        row = connection.execute(
            text(
                "SELECT seq, filing_id, created_at, kind, status, prev_hash FROM filing_events "
                "WHERE seq = 3"
            )
        ).one()
        forged = chain_hash(row.prev_hash, event_body(3, row.filing_id, row.created_at,
                                                      row.kind, "forged", "{}"))  # fmt: skip
        connection.execute(
            text("UPDATE filing_events SET status = 'forged', detail = '{}', hash = :hash "
                 "WHERE seq = 3"),
            {"hash": forged},
        )  # fmt: skip
    assert filed.verify().ok
    result = filed.verify(event_checkpoint=pin)
    assert (result.ok, result.chain, result.first_bad_seq) == (False, "events", 3)
    assert result.reason is not None and "rewritten" in result.reason


def test_a_filing_relinked_and_rehashed_is_caught_where_its_link_breaks(filed: Ledger) -> None:
    run(filed.engine, "UPDATE filings SET prev_hash = '" + "e" * 64 + "' WHERE seq = 4")
    _rehash_from(filed.engine, 4)
    result = filed.verify()
    assert (result.ok, result.first_bad_seq) == (False, 4)
    assert result.reason is not None and "does not link" in result.reason


def test_a_checkpoint_is_read_back_from_its_printed_form() -> None:
    head = ChainHead(12, "AB" * 32)
    assert ChainHead.parse(f" {head} ") == ChainHead(12, "ab" * 32)
    for bad in ("12", "x:" + "a" * 64, "3:abc", "3:" + "z" * 64):
        with pytest.raises(ValueError):
            ChainHead.parse(bad)


def test_each_account_links_to_its_own_last_filing_and_the_head_covers_every_account(
    ledger: Ledger,
) -> None:
    a1, b1, a2 = (
        ledger.file_and_reserve(Filing("agent", {"n": n}, account=account), notional=Decimal(1),
                                caps=CAPS).record
        for n, account in enumerate(["a", "b", "a"])
    )  # fmt: skip
    assert (a1.seq, b1.seq, a2.seq) == (1, 2, 3)
    assert a1.prev_hash == b1.prev_hash == GENESIS
    assert a2.prev_hash == a1.hash
    assert ledger.filing(a2.id).prev_hash == a1.hash
    assert ledger.head() == ChainHead(3, heads_digest([("a", a2.hash), ("b", b1.hash)]))
    assert ledger.verify(checkpoint=ledger.head()).ok


def test_a_checkpoint_still_verifies_after_more_filings_on_every_account(ledger: Ledger) -> None:
    for account in ("a", "b"):
        ledger.file_and_reserve(
            Filing("agent", {}, account=account), notional=Decimal(1), caps=CAPS
        )
    checkpoint = ledger.head()
    for account in ("b", "c", "a", "b"):
        ledger.file_and_reserve(
            Filing("agent", {}, account=account), notional=Decimal(1), caps=CAPS
        )
    result = ledger.verify(checkpoint=checkpoint)
    assert result.ok and result.checked == 6
    assert ledger.head().seq == 6


def test_cutting_one_accounts_tail_below_the_checkpoint_is_caught(ledger: Ledger) -> None:
    for account in ("a", "b", "a", "b", "a"):
        ledger.file_and_reserve(
            Filing("agent", {}, account=account), notional=Decimal(1), caps=CAPS
        )
    checkpoint = ledger.head()
    # b's last filing (seq 4) goes, and b's head is put back to its first: every chain that is
    # left links up, and the ledger's last filing (a's, seq 5) is still there.
    victim = _id_at(ledger, 4)
    run(
        ledger.engine,
        f"DELETE FROM reservations WHERE filing_id = '{victim}'",
        f"DELETE FROM open_filings WHERE filing_id = '{victim}'",
        "DELETE FROM filings WHERE seq = 4",
    )
    _rewind_head(ledger.engine, "b")
    assert ledger.verify().ok
    result = ledger.verify(checkpoint=checkpoint)
    assert (result.ok, result.chain, result.first_bad_seq) == (False, "filings", 5)
    assert result.reason is not None and "cut off" in result.reason


def test_deleting_an_accounts_whole_chain_is_caught_by_the_heads_table_or_the_checkpoint(
    ledger: Ledger,
) -> None:
    for account in ("a", "b", "a"):
        ledger.file_and_reserve(
            Filing("agent", {}, account=account), notional=Decimal(1), caps=CAPS
        )
    checkpoint = ledger.head()
    victim = _id_at(ledger, 2)
    run(
        ledger.engine,
        f"DELETE FROM reservations WHERE filing_id = '{victim}'",
        f"DELETE FROM open_filings WHERE filing_id = '{victim}'",
        "DELETE FROM filings WHERE seq = 2",
    )
    careless = ledger.verify()
    assert (careless.ok, careless.first_bad_seq) == (False, 2)
    assert careless.reason is not None and "no filing" in careless.reason
    run(ledger.engine, "DELETE FROM chain_heads WHERE account = 'b'")
    assert ledger.verify().ok
    assert not ledger.verify(checkpoint=checkpoint).ok


def test_a_heads_table_naming_a_chain_the_filings_do_not_end_is_caught(filed: Ledger) -> None:
    run(filed.engine, "UPDATE chain_heads SET hash = '" + "c" * 64 + "' WHERE account = 'a'")
    result = filed.verify()
    assert (result.ok, result.chain, result.first_bad_seq) == (False, "filings", 5)
    run(filed.engine, "DELETE FROM chain_heads")
    result = filed.verify()
    assert (result.ok, result.first_bad_seq) == (False, 5)
    assert result.reason is not None and "does not name" in result.reason


def test_a_checkpoint_whose_own_filing_was_deleted_is_caught(ledger: Ledger) -> None:
    for account in ("a", "b", "c"):
        ledger.file_and_reserve(
            Filing("agent", {}, account=account), notional=Decimal(1), caps=CAPS
        )
    checkpoint = ledger.head()
    ledger.file_and_reserve(Filing("agent", {}, account="a"), notional=Decimal(1), caps=CAPS)
    victim = _id_at(ledger, 3)  # c's only filing, no longer the ledger's last
    run(
        ledger.engine,
        f"DELETE FROM reservations WHERE filing_id = '{victim}'",
        f"DELETE FROM open_filings WHERE filing_id = '{victim}'",
        "DELETE FROM filings WHERE seq = 3",
        "DELETE FROM chain_heads WHERE account = 'c'",
    )
    assert ledger.verify().ok
    result = ledger.verify(checkpoint=checkpoint)
    assert (result.ok, result.first_bad_seq) == (False, 3)
    assert result.reason is not None and "missing" in result.reason


def test_a_filing_repeating_its_accounts_place_is_caught(filed: Ledger) -> None:
    run(filed.engine, "UPDATE filings SET account_seq = 3 WHERE seq = 4")
    _rehash_from(filed.engine, 4)
    result = filed.verify()
    assert (result.ok, result.first_bad_seq) == (False, 4)
    assert result.reason is not None and "repeats" in result.reason


def _id_at(ledger: Ledger, seq: int) -> str:
    with ledger.engine.connect() as connection:
        value = connection.execute(
            text("SELECT id FROM filings WHERE seq = :seq"), {"seq": seq}
        ).scalar()
    assert isinstance(value, str)
    return value


def _rehash_from(engine: Engine, start: int) -> None:
    """What a careful forger does: recompute every hash of the account's chain from ``start``
    on, and its head."""
    with engine.begin() as connection:
        account = connection.execute(
            text("SELECT account FROM filings WHERE seq = :start"), {"start": start}
        ).scalar_one()
        rows = connection.execute(
            text(
                "SELECT seq, account_seq, id, identity, account, created_at, kind, status, "
                "decision, reasons, terms, notional, prev_hash FROM filings "
                "WHERE seq >= :start AND account = :account ORDER BY seq"
            ),
            {"start": start, "account": account},
        ).all()
        prev = rows[0].prev_hash
        for row in rows:
            digest = chain_hash(prev, linked_filing_body(*row[:12]))
            connection.execute(
                text("UPDATE filings SET prev_hash = :prev, hash = :hash WHERE seq = :seq"),
                {"prev": prev, "hash": digest, "seq": row.seq},
            )
            prev = digest
        connection.execute(
            text("UPDATE chain_heads SET hash = :hash WHERE account = :account"),
            {"hash": prev, "account": account},
        )


def _rewind_head(engine: Engine, account: str) -> None:
    """What a careful forger does after cutting an account's tail: point its head at the last
    filing left."""
    with engine.begin() as connection:
        last = connection.execute(
            text(
                "SELECT seq, account_seq, hash FROM filings WHERE account = :account "
                "ORDER BY seq DESC LIMIT 1"
            ),
            {"account": account},
        ).one()
        connection.execute(
            text(
                "UPDATE chain_heads SET seq = :seq, account_seq = :account_seq, hash = :hash "
                "WHERE account = :account"
            ),
            {"seq": last.seq, "account_seq": last.account_seq, "hash": last.hash,
             "account": account},
        )  # fmt: skip
