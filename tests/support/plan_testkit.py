"""Query plans for tests: the statements a block of code runs, and how the database would run
each one.

SQLite answers ``EXPLAIN QUERY PLAN`` with one line per step (``SEARCH t USING INDEX ix (…)``
reads by an index, ``SCAN t`` reads the whole table). Postgres answers ``EXPLAIN`` with its
plan, asked with sequential scans disabled: on the tests' small tables a sequential scan would
often be cheapest, but with them disabled the planner still takes one only when no index can
serve the statement, which is what the tests look for.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, event

__all__ = ["Statement", "captured", "full_scans", "plan"]

Statement = tuple[str, Any]


@contextmanager
def captured(engine: Engine) -> Iterator[list[Statement]]:
    """Every statement ``engine`` sends through SQLAlchemy inside the block, with its
    parameters, once each (the first parameters seen)."""
    seen: dict[str, Any] = {}

    def capture(
        _connection: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, many: bool
    ) -> None:
        seen.setdefault(statement, parameters[0] if many else parameters)

    event.listen(engine, "before_cursor_execute", capture)
    found: list[Statement] = []
    try:
        yield found
    finally:
        event.remove(engine, "before_cursor_execute", capture)
        found.extend(seen.items())


def plan(engine: Engine, statement: str, parameters: Any = None) -> list[str]:
    """The plan of ``statement`` as lines of text (nothing is run)."""
    with engine.connect() as connection:
        driver = connection.connection.driver_connection
        assert driver is not None
        cursor = driver.cursor()
        try:
            if engine.dialect.name == "postgresql":
                cursor.execute("SET enable_seqscan = off")
                cursor.execute("EXPLAIN " + statement, parameters)
                return [row[0] for row in cursor.fetchall()]
            cursor.execute("EXPLAIN QUERY PLAN " + statement, parameters or ())
            return [row[3] for row in cursor.fetchall()]
        finally:
            cursor.close()
            connection.rollback()


def full_scans(engine: Engine, statements: list[Statement]) -> list[tuple[str, list[str]]]:
    """The reading statements (SELECT, UPDATE, DELETE) whose plan reads a whole table, each
    with its plan."""
    found = []
    for statement, parameters in statements:
        if not statement.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE")):
            continue
        lines = plan(engine, statement, parameters)
        if any(_scans(line) for line in lines):
            found.append((" ".join(statement.split()), lines))
    return found


def _scans(line: str) -> bool:
    text = line.strip()
    if text.startswith("SCAN "):
        return text != "SCAN CONSTANT ROW"
    return "Seq Scan on" in text
