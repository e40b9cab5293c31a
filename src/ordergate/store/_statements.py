"""``Statement``: a SQLAlchemy Core statement compiled once and run on the driver's cursor.

SQLAlchemy stays what opens, begins, commits and pools connections, and what writes the
statements; on the order path it no longer runs them. Measured on the gateway's paper order
(about 57 statements in 11 connections): SQLAlchemy's execution layer (its cache lookup,
parameter processing, result objects, events) was the largest single cost of the gateway's
CPU, several times what SQLite itself spent running the statements; a warm prebuilt select
costs ~27 µs through ``Connection.execute`` and ~9 µs on the driver's cursor, and the gap is
wider on the order path's cold caches. ``ordergate.ledger._filing`` showed the same for the
filing's own statements (1.5× the filings per second).

A ``Statement`` is compiled once per dialect (an ``INSERT`` or ``UPDATE`` once per set of
columns given, as SQLAlchemy compiles them) with named parameters (``:name`` on SQLite,
``%(name)s`` on psycopg), so every call takes a dict:

- constants in the statement (a literal compared to, ``LIMIT 1``, a constant ``IN`` list) are
  rendered into its parameters once; a parameter the caller gives as a list (an ``IN`` list
  that varies per call) is refused (``TypeError``): build such a statement per call with
  SQLAlchemy instead;
- type processing is kept where a column type has any (``Boolean``: an ``int`` on SQLite is
  read back as ``bool``); ordergate's other types (text, integers) have none;
- rows come back as named tuples (``row.column`` and ``row[i]``, as SQLAlchemy's rows);
- listeners of SQLAlchemy's ``before_cursor_execute`` event still see every statement (the
  query-plan tests capture the order path's statements that way);
- a driver error is raised as SQLAlchemy raises it (``IntegrityError``, ``OperationalError``,
  each a ``DBAPIError``), without the parameters in its text.

It runs inside whatever transaction the connection has open: on SQLite ordergate issues
``BEGIN`` itself (``_engine``), and psycopg opens one at the first statement.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import Insert, Update
from sqlalchemy.sql.base import Executable
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ClauseElement

__all__ = ["Statement"]

_Processor = Callable[[Any], Any]
# Named parameters on SQLite too: one dict per call on both drivers.
_SQLITE_NAMED = sqlite.dialect(paramstyle="named")


class _Compiled:
    """One statement's SQL for one dialect, with what a call needs besides its parameters."""

    __slots__ = ("binds", "constants", "given", "results", "row", "sql")

    def __init__(
        self,
        sql: str,
        constants: dict[str, Any],
        given: frozenset[str],
        binds: dict[str, _Processor],
        row: Callable[..., Any] | None,
        results: tuple[_Processor | None, ...] | None,
    ) -> None:
        self.sql = sql
        self.constants = constants
        self.given = given
        self.binds = binds
        self.row = row
        self.results = results

    def parameters(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        params = dict(self.constants)
        if given:
            for key, value in given.items():
                if key not in self.given:
                    raise TypeError(f"the statement takes no parameter {key!r}")
                params[key] = value
        for key, process in self.binds.items():
            if key in params:
                params[key] = process(params[key])
        return params

    def shape(self, raw: list[Any], description: Any) -> list[Any]:
        """Driver rows as named tuples, with each column's result processing (a text
        statement's columns are named as the driver describes them)."""
        row, results = self.row, self.results
        if row is None:
            row = self.row = _row_type([column[0] for column in description])
        if results is None:
            return [row(*values) for values in raw]
        return [
            row(*(v if p is None else p(v) for v, p in zip(values, results, strict=True)))
            for values in raw
        ]


class Statement:
    """A Core statement run on the driver's cursor (see the module's notes). Built once at
    import time, like the statements it wraps, and safe to share between threads."""

    __slots__ = ("_compiled", "_dml", "_statement")

    def __init__(self, statement: Executable) -> None:
        self._statement = statement
        self._dml = isinstance(statement, (Insert, Update))
        self._compiled: dict[tuple[object, ...], _Compiled] = {}

    @property
    def statement(self) -> Executable:
        return self._statement

    def rows(self, connection: Connection, params: Mapping[str, Any] | None = None) -> list[Any]:
        """Every row the statement returns."""
        compiled = self._for(connection.dialect, params)
        cursor = _run(connection, compiled, compiled.parameters(params))
        try:
            return compiled.shape(cursor.fetchall(), cursor.description)
        finally:
            cursor.close()

    def first(self, connection: Connection, params: Mapping[str, Any] | None = None) -> Any:
        """The first row, or ``None``."""
        compiled = self._for(connection.dialect, params)
        cursor = _run(connection, compiled, compiled.parameters(params))
        try:
            found = cursor.fetchone()
            return None if found is None else compiled.shape([found], cursor.description)[0]
        finally:
            cursor.close()

    def scalar(self, connection: Connection, params: Mapping[str, Any] | None = None) -> Any:
        """The first column of the first row, or ``None`` when there is no row."""
        row = self.first(connection, params)
        return None if row is None else row[0]

    def scalars(self, connection: Connection, params: Mapping[str, Any] | None = None) -> list[Any]:
        """The first column of every row."""
        return [row[0] for row in self.rows(connection, params)]

    def run(self, connection: Connection, params: Mapping[str, Any] | None = None) -> int:
        """Run a statement that returns no rows; how many rows it changed."""
        compiled = self._for(connection.dialect, params)
        cursor = _run(connection, compiled, compiled.parameters(params))
        try:
            return int(cursor.rowcount)
        finally:
            cursor.close()

    def run_many(self, connection: Connection, rows: Iterable[Mapping[str, Any]]) -> None:
        """Run the statement once per parameter set in ``rows`` (all with the same keys)."""
        batch = list(rows)
        if not batch:
            return
        compiled = self._for(connection.dialect, batch[0])
        _run(connection, compiled, [compiled.parameters(row) for row in batch], many=True).close()

    def _for(self, dialect: Dialect, params: Mapping[str, Any] | None) -> _Compiled:
        columns = frozenset(params) if self._dml and params else frozenset()
        key = (dialect.name, dialect.server_version_info, columns)
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = self._compiled[key] = _compile(self._statement, dialect, columns)
        return compiled


def _compile(statement: Executable, dialect: Dialect, columns: frozenset[str]) -> _Compiled:
    target = _SQLITE_NAMED if dialect.name == "sqlite" else dialect
    assert isinstance(statement, ClauseElement)
    kwargs: dict[str, Any] = {"dialect": target}
    if columns:
        kwargs["column_keys"] = sorted(columns)
    compiled = statement.compile(**kwargs)
    assert isinstance(compiled, SQLCompiler)
    given: set[str] = set()
    for bind, name in compiled.bind_names.items():
        if bind.expanding and (bind.value is None or bind.callable is not None):
            raise TypeError(f"parameter {name!r} is an expanding list: not a Statement's")
        if bind.required or (bind.value is None and bind.callable is None):
            given.add(name)
    # Constant IN lists become one parameter per item, and every constant a parameter.
    expanded = compiled.construct_expanded_state(dict.fromkeys(given))
    constants = {k: v for k, v in expanded.parameters.items() if k not in given}
    binds: dict[str, _Processor] = {}
    for bind, name in compiled.bind_names.items():
        process = bind.type.bind_processor(target)
        if process is not None and name in given:
            binds[name] = process
    row: Callable[..., Any] | None = None
    results = None
    selected = getattr(statement, "selected_columns", None)
    if selected is not None:
        row = _row_type(list(selected.keys()))
        processors = tuple(column.type.result_processor(target, None) for column in selected)
        results = processors if any(p is not None for p in processors) else None
    return _Compiled(expanded.statement, constants, frozenset(given), binds, row, results)


def _row_type(names: list[str]) -> Callable[..., Any]:
    """A named tuple type for rows of these columns (a name that is no identifier, or taken
    twice, becomes ``_i``)."""
    return namedtuple("Row", names, rename=True)


def _run(connection: Connection, compiled: _Compiled, params: Any, *, many: bool = False) -> Any:
    driver = connection.connection.driver_connection
    assert driver is not None
    cursor = driver.cursor()
    listeners = connection.dispatch.before_cursor_execute
    if listeners:
        listeners(connection, cursor, compiled.sql, params, None, many)
    try:
        if many:
            cursor.executemany(compiled.sql, params)
        else:
            cursor.execute(compiled.sql, params)
    except connection.dialect.loaded_dbapi.Error as error:
        cursor.close()
        # As SQLAlchemy's own execution raises it, without the parameters in its text.
        raise DBAPIError.instance(
            None, None, error, connection.dialect.loaded_dbapi.Error, hide_parameters=True
        ) from None
    return cursor
