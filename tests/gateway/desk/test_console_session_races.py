"""A console session read while another writer commits on the same SQLite database: the
read that then writes (``find`` moving ``seen_at`` on, ``take_challenge`` spending its
challenge) takes the write lock before it reads, so it waits its turn instead of failing
``database is locked`` when its snapshot went stale (the 500 a console page answered while
a push's journal entry was being written)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event, func, select

from ordergate.core import RealtimeClock
from ordergate.gateway.console._sessions import ConsoleSessions
from ordergate.gateway.console._tables import console_sessions
from ordergate.store import engine_for, migrate, normalise_url

# How long the session's transaction lets the other writer try to commit before it goes on:
# a writer that must wait for the session's lock has not committed by then.
OTHER_WRITER_BOUND_S = 1.0


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = engine_for(normalise_url(f"sqlite:///{tmp_path / 'console.db'}"))
    migrate(engine)
    yield engine
    engine.dispose()


class WriterAtTheUpdate:
    """Before the first ``UPDATE console_sessions`` a session transaction sends, ``write``
    runs in another thread (its own connection) and gets up to ``OTHER_WRITER_BOUND_S`` to
    commit; its failures, if any, are kept in ``failures``."""

    def __init__(self, engine: Engine, write: Callable[[], object]) -> None:
        self.failures: list[BaseException] = []
        self._write = write
        self._thread: threading.Thread | None = None
        event.listen(engine, "before_cursor_execute", self._before)

    def _other(self) -> None:
        try:
            self._write()
        except BaseException as error:  # kept for the test to assert on
            self.failures.append(error)

    def _before(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if self._thread is not None:
            return
        if not statement.lstrip().upper().startswith("UPDATE CONSOLE_SESSIONS"):
            return
        self._thread = threading.Thread(target=self._other)
        self._thread.start()
        self._thread.join(OTHER_WRITER_BOUND_S)

    def join(self) -> None:
        assert self._thread is not None, "no session transaction updated its row"
        self._thread.join(30)
        assert not self._thread.is_alive()


def _count(engine: Engine) -> int:
    with engine.connect() as db:
        return int(db.execute(select(func.count()).select_from(console_sessions)).scalar_one())


def test_a_session_found_while_another_writer_commits_is_found_and_seen(engine: Engine) -> None:
    sessions = ConsoleSessions(engine, clock=RealtimeClock())
    raw, _ = sessions.open_anonymous("csrf")
    writer = WriterAtTheUpdate(engine, lambda: sessions.open_anonymous("other"))
    found = sessions.find(raw, None)
    writer.join()
    assert found is not None
    assert writer.failures == []
    assert _count(engine) == 2


def test_a_challenge_taken_while_another_writer_commits_is_taken_once(engine: Engine) -> None:
    sessions = ConsoleSessions(engine, clock=RealtimeClock())
    _, session = sessions.open_anonymous("csrf")
    sessions.set_challenge(session, "challenge", "sign_in")
    writer = WriterAtTheUpdate(engine, lambda: sessions.open_anonymous("other"))
    taken = sessions.take_challenge(session, "sign_in")
    writer.join()
    assert taken == "challenge"
    assert sessions.take_challenge(session, "sign_in") is None
    assert writer.failures == []
    assert _count(engine) == 2
