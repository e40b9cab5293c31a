"""Writes nested in an open write transaction join it: one commit for the steps of one act,
a failed step undoes only its own writes, and reads inside see what the steps wrote."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Column, Engine, MetaData, String, Table, insert, select
from sqlalchemy.exc import IntegrityError
from store_testkit import engine_with

from ordergate.store import reading, step_memo, write_transaction

pytestmark = pytest.mark.req("store.steps-commit-together")

_META = MetaData()
_ROWS = Table("joining_rows", _META, Column("key", String(20), primary_key=True))


@pytest.fixture
def engine(store_url: str) -> Iterator[Engine]:
    with engine_with(_META, store_url) as engine:
        yield engine


def _committed(engine: Engine) -> set[str]:
    """The keys another connection sees (what is committed)."""
    with engine.connect() as other:
        return {row.key for row in other.execute(select(_ROWS.c.key))}


def test_a_nested_write_joins_the_open_one_and_commits_with_it(engine: Engine) -> None:
    with write_transaction(engine) as outer:
        outer.execute(insert(_ROWS).values(key="filing"))
        with write_transaction(engine) as inner:
            assert inner is outer
            inner.execute(insert(_ROWS).values(key="journal"))
        assert _committed(engine) == set()  # nothing is committed before the outer ends
    assert _committed(engine) == {"filing", "journal"}


def test_a_failed_step_undoes_only_its_own_writes(engine: Engine) -> None:
    with write_transaction(engine) as outer:
        outer.execute(insert(_ROWS).values(key="order"))
        with pytest.raises(IntegrityError), write_transaction(engine) as step:
            step.execute(insert(_ROWS).values(key="fill"))
            step.execute(insert(_ROWS).values(key="order"))  # already there: the step fails
        # The transaction is still usable (on Postgres too) and goes on.
        outer.execute(insert(_ROWS).values(key="status"))
    assert _committed(engine) == {"order", "status"}


def test_a_failure_of_the_outer_rolls_back_every_step(engine: Engine) -> None:
    with pytest.raises(RuntimeError), write_transaction(engine) as outer:
        with write_transaction(engine) as step:
            step.execute(insert(_ROWS).values(key="fill"))
        outer.execute(insert(_ROWS).values(key="status"))
        raise RuntimeError("the act fails after its steps")
    assert _committed(engine) == set()


def test_reads_inside_a_write_see_its_steps_and_nested_reads_share_one(engine: Engine) -> None:
    with write_transaction(engine) as outer:
        outer.execute(insert(_ROWS).values(key="fill"))
        with reading(engine) as read:
            assert read is outer
            assert read.execute(select(_ROWS.c.key)).scalars().all() == ["fill"]
    with reading(engine) as first, reading(engine) as second:
        assert second is first
        assert first.execute(select(_ROWS.c.key)).scalars().all() == ["fill"]
    with reading(engine) as later:
        assert later is not first  # each outermost read opens its own


def test_a_write_after_the_outer_one_ended_opens_its_own(engine: Engine) -> None:
    with write_transaction(engine) as first:
        first.execute(insert(_ROWS).values(key="one"))
    with write_transaction(engine) as second:
        assert second is not first
        second.execute(insert(_ROWS).values(key="two"))
    assert _committed(engine) == {"one", "two"}


def test_a_steps_memo_lives_with_its_write_and_empties_when_a_step_rolls_back(
    engine: Engine,
) -> None:
    with reading(engine) as read:
        assert step_memo(read) is None  # a read keeps nothing
    with write_transaction(engine) as outer:
        memo = step_memo(outer)
        assert memo == {}
        memo["filing"] = "on file"
        with write_transaction(engine) as step:
            assert step_memo(step) is memo
        assert memo == {"filing": "on file"}
        with pytest.raises(RuntimeError), write_transaction(engine):
            raise RuntimeError("the step fails: what it read may be undone")
        assert memo == {}
    with write_transaction(engine) as later:
        assert step_memo(later) == {}  # a new transaction starts with nothing


def test_steps_reuse_their_savepoints_names_so_the_driver_prepares_no_new_statement(
    engine: Engine,
) -> None:
    """Savepoints are named for their depth: the steps of one act and of the next send the
    same statements (on SQLite each new text would take a place in the driver's cache of
    prepared statements), and a nested step's name differs from its parent's."""
    sent: list[str] = []
    keys = iter(range(100))

    def act() -> None:
        with write_transaction(engine) as outer:
            driver = outer.connection.driver_connection
            assert driver is not None
            if engine.dialect.name == "sqlite":
                driver.set_trace_callback(sent.append)
            for key in ("a", "b"):
                with write_transaction(engine) as step:
                    step.execute(insert(_ROWS).values(key=f"{key}{next(keys)}"))
                    with write_transaction(engine) as nested:
                        nested.execute(insert(_ROWS).values(key=f"{key}n{next(keys)}"))
            if engine.dialect.name == "sqlite":
                driver.set_trace_callback(None)

    act()
    act()
    if engine.dialect.name != "sqlite":
        assert len(_committed(engine)) == 8
        return
    savepoints = [line for line in sent if "SAVEPOINT" in line]
    assert savepoints[:4] == [
        "SAVEPOINT ordergate_step_1",
        "SAVEPOINT ordergate_step_2",
        "RELEASE SAVEPOINT ordergate_step_2",
        "RELEASE SAVEPOINT ordergate_step_1",
    ]
    assert set(savepoints) == set(savepoints[:4])
    assert len(savepoints) == 16 and len(_committed(engine)) == 8
