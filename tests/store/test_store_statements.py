"""``Statement``: a Core statement run on the driver's cursor gives what SQLAlchemy's own
execution gives (rows, counts, errors) on SQLite and Postgres, inside the open transaction,
and SQLAlchemy's ``before_cursor_execute`` listeners still see it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Engine,
    MetaData,
    String,
    Table,
    bindparam,
    delete,
    event,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError
from store_testkit import engine_with

from ordergate.store import Statement, reading, write_transaction

pytestmark = pytest.mark.req("store.statement-as-sqlalchemy")

_META = MetaData()
_ROWS = Table(
    "statement_rows",
    _META,
    Column("key", String(40), primary_key=True),
    Column("kind", String(20), nullable=False),
    Column("amount", BigInteger, nullable=False),
    Column("flag", Boolean, nullable=False),
    Column("note", String(200)),
)
_KEY = bindparam("b_key", type_=String)
_BY_KEY = Statement(select(_ROWS).where(_ROWS.c.key == _KEY))
_OF_KINDS = Statement(
    select(_ROWS.c.key, _ROWS.c.amount)
    .where(_ROWS.c.kind.in_(["open", "held"]), _ROWS.c.amount >= bindparam("least"))
    .order_by(_ROWS.c.key)
    .limit(10)
)
_TOTAL = Statement(select(func.coalesce(func.sum(_ROWS.c.amount), 0)))
_INSERT = Statement(insert(_ROWS))
_UPDATE = Statement(update(_ROWS).where(_ROWS.c.key == _KEY))
_DELETE = Statement(delete(_ROWS).where(_ROWS.c.key == _KEY))


@pytest.fixture
def engine(store_url: str) -> Iterator[Engine]:
    with engine_with(_META, store_url) as engine:
        yield engine


def _row(key: str, kind: str = "open", amount: int = 1, flag: bool = False) -> dict[str, Any]:
    return {"key": key, "kind": kind, "amount": amount, "flag": flag, "note": None}


def test_rows_read_as_sqlalchemy_reads_them_booleans_included(engine: Engine) -> None:
    with write_transaction(engine) as connection:
        _INSERT.run_many(
            connection, [_row("a", flag=True), _row("b", "held", 7), _row("c", "shut")]
        )
    with reading(engine) as connection:
        ours = _BY_KEY.first(connection, {"b_key": "a"})
        theirs = connection.execute(_BY_KEY.statement, {"b_key": "a"}).one()
        assert tuple(ours) == tuple(theirs)
        assert ours.flag is True and ours.key == "a" and ours[2] == 1
        assert [tuple(r) for r in _OF_KINDS.rows(connection, {"least": 1})] == [("a", 1), ("b", 7)]
        assert _TOTAL.scalar(connection) == 9
        assert _BY_KEY.first(connection, {"b_key": "missing"}) is None
        assert _BY_KEY.scalar(connection, {"b_key": "missing"}) is None
        assert _OF_KINDS.scalars(connection, {"least": 5}) == ["b"]


def test_an_update_sets_only_the_columns_it_is_given_and_counts_its_rows(engine: Engine) -> None:
    with write_transaction(engine) as connection:
        _INSERT.run(connection, _row("a"))
        assert _UPDATE.run(connection, {"b_key": "a", "amount": 5}) == 1
        assert _UPDATE.run(connection, {"b_key": "a", "note": "x", "flag": True}) == 1
        assert _UPDATE.run(connection, {"b_key": "missing", "amount": 1}) == 0
        row = _BY_KEY.first(connection, {"b_key": "a"})
        assert (row.amount, row.note, row.flag, row.kind) == (5, "x", True, "open")
        assert _DELETE.run(connection, {"b_key": "a"}) == 1


def test_statements_run_inside_the_open_transaction_and_roll_back_with_it(
    engine: Engine,
) -> None:
    with pytest.raises(RuntimeError), write_transaction(engine) as connection:
        _INSERT.run(connection, _row("undone"))
        assert _BY_KEY.first(connection, {"b_key": "undone"}) is not None
        raise RuntimeError("the step fails")
    with reading(engine) as connection:
        assert _BY_KEY.first(connection, {"b_key": "undone"}) is None


def test_a_driver_error_is_sqlalchemys_error_without_the_parameters(engine: Engine) -> None:
    secret = "do-not-print-this-value"
    with write_transaction(engine) as connection:
        _INSERT.run(connection, {**_row("dup"), "note": secret})
    with pytest.raises(IntegrityError) as raised, write_transaction(engine) as connection:
        _INSERT.run(connection, {**_row("dup"), "note": secret})
    assert secret not in str(raised.value)


def test_a_parameter_the_statement_does_not_take_is_refused_by_name(engine: Engine) -> None:
    with reading(engine) as connection, pytest.raises(TypeError, match="'b_kee'"):
        _BY_KEY.first(connection, {"b_kee": "a"})


def test_an_in_list_given_per_call_is_refused(engine: Engine) -> None:
    statement = Statement(select(_ROWS).where(_ROWS.c.key.in_(bindparam("keys", expanding=True))))
    with reading(engine) as connection, pytest.raises(TypeError, match="'keys'"):
        statement.rows(connection, {"keys": ["a"]})


def test_listeners_of_before_cursor_execute_see_every_statement(engine: Engine) -> None:
    seen: list[tuple[str, Any]] = []

    def capture(*args: Any) -> None:
        seen.append((args[2], args[3]))

    event.listen(engine, "before_cursor_execute", capture)
    try:
        with write_transaction(engine) as connection:
            _INSERT.run(connection, _row("seen"))
            _BY_KEY.first(connection, {"b_key": "seen"})
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    statements = [sql.split()[0] for sql, _ in seen]
    assert statements == ["INSERT", "SELECT"]
    assert seen[1][1]["b_key"] == "seen"


def test_a_text_statement_runs_with_its_named_parameters(engine: Engine) -> None:
    statement = Statement(text("SELECT :a + 1 AS n"))
    with reading(engine) as connection:
        assert statement.scalar(connection, {"a": 41}) == 42


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(
        st.tuples(
            st.text(alphabet="abcdef", min_size=1, max_size=6),
            st.sampled_from(["open", "held", "shut"]),
            st.integers(min_value=-(2**40), max_value=2**40),
            st.booleans(),
        ),
        max_size=12,
        unique_by=lambda row: row[0],
    ),
    least=st.integers(min_value=-(2**40), max_value=2**40),
)
def test_any_rows_read_back_as_sqlalchemy_reads_them(
    engine: Engine, rows: list[tuple[str, str, int, bool]], least: int
) -> None:
    with write_transaction(engine) as connection:
        connection.execute(delete(_ROWS))
        _INSERT.run_many(connection, [_row(k, kind, n, flag) for k, kind, n, flag in rows])
    with reading(engine) as connection:
        params = {"least": least}
        ours = [tuple(row) for row in _OF_KINDS.rows(connection, params)]
        theirs = [tuple(row) for row in connection.execute(_OF_KINDS.statement, params)]
        assert ours == theirs
        assert _TOTAL.scalar(connection) == connection.execute(_TOTAL.statement).scalar()
        for key, *_ in rows:
            mine = _BY_KEY.first(connection, {"b_key": key})
            assert tuple(mine) == tuple(connection.execute(_BY_KEY.statement, {"b_key": key}).one())
