"""The SQLite ledger is private from its first byte (issue 12 §3): SQLite would create it with
the process umask (0644); ordergate creates it 0600, in a 0700 folder, before SQLite opens
it, and SQLite gives its ``-wal`` and ``-shm`` files the main file's mode."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ordergate.core import SteppedClock
from ordergate.ledger import open_ledger


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.req("owner.separation.files-private")
@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_a_new_sqlite_ledger_and_its_wal_and_shm_are_0600_in_a_0700_folder(
    tmp_path: Path, clock: SteppedClock, umask: int
) -> None:
    path = tmp_path / "home" / "ledger.db"
    previous = os.umask(umask)
    try:
        with open_ledger(f"sqlite:///{path}", clock=clock) as ledger:
            ledger.controls.pause("a write, so the WAL has frames", by="test")
            companions = [path.with_name(path.name + end) for end in ("-wal", "-shm")]
            assert all(companion.exists() for companion in companions)
            assert {mode(file) for file in (path, *companions)} == {0o600}
    finally:
        os.umask(previous)
    assert mode(path.parent) == 0o700


def test_an_existing_ledger_file_is_opened_as_it_is(tmp_path: Path, clock: SteppedClock) -> None:
    path = tmp_path / "ledger.db"
    with open_ledger(f"sqlite:///{path}", clock=clock):
        pass
    os.chmod(path, 0o640)  # the owner's choice; ordergate serve refuses it, opening does not
    with open_ledger(f"sqlite:///{path}", clock=clock):
        assert mode(path) == 0o640
