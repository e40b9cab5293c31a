"""The token file: atomic 0600 writes, fail-closed reads, and the lock beside it."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import pytest

from ordergate.client import LoginRequired, TokenSet, read_token_file, write_token_file
from ordergate.client._lock import lock_path, token_file_lock
from ordergate.core import Secret, ToolError

NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
ACCESS = "access-value-that-must-stay-hidden"
REFRESH = "refresh-value-that-must-stay-hidden"


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The most permissive umask: file modes are then exactly what the code asked for."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def full_set() -> TokenSet:
    return TokenSet(
        access_token=Secret(ACCESS),
        refresh_token=Secret(REFRESH),
        expires_at=NOW + timedelta(days=9),
        token_endpoint="http://127.0.0.1:1/oauth2/token/",
        client_id="client-1",
        resource="http://127.0.0.1:1/mcp/trading",
        scope="internal",
    )


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_token_set_survives_the_round_trip_through_the_file(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    write_token_file(path, full_set())
    assert read_token_file(path) == full_set()


def test_a_token_set_without_refresh_or_expiry_round_trips_too(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    write_token_file(path, TokenSet(access_token=Secret(ACCESS)))
    tokens = read_token_file(path)
    assert tokens.access_token.reveal() == ACCESS
    assert (tokens.refresh_token, tokens.expires_at, tokens.token_endpoint) == (None, None, None)


def test_the_repr_of_a_token_set_never_shows_a_token() -> None:
    shown = repr(full_set()) + str(full_set())
    assert ACCESS not in shown
    assert REFRESH not in shown


@pytest.mark.usefixtures("open_umask")
@pytest.mark.req("client.tokens.file-0600-atomic")
def test_the_file_is_0600_and_a_new_directory_0700_even_with_an_open_umask(
    tmp_path: Path,
) -> None:
    path = tmp_path / "home" / "tokens.json"
    write_token_file(path, full_set())
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700
    write_token_file(path, full_set())  # rewriting keeps it so
    assert mode(path) == 0o600


@pytest.mark.usefixtures("open_umask")
@pytest.mark.req("client.tokens.file-0600-atomic")
def test_while_the_new_set_is_written_the_old_file_is_intact_and_the_new_one_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "tokens.json"
    write_token_file(path, TokenSet(access_token=Secret("old")))
    seen: list[tuple[str, list[tuple[str, int]]]] = []
    real_fsync = os.fsync

    def watching_fsync(fd: int) -> None:
        # The instant the new bytes hit the disk, before the rename.
        siblings = [(p.name, mode(p)) for p in sorted(tmp_path.iterdir())]
        seen.append((read_token_file(path).access_token.reveal(), siblings))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", watching_fsync)
    write_token_file(path, full_set())
    monkeypatch.undo()

    old_value, siblings = seen[0]
    assert old_value == "old"  # readers still see the complete old set
    temporary = [(name, m) for name, m in siblings if name.endswith(".tmp")]
    assert len(temporary) == 1
    assert temporary[0][1] == 0o600  # never readable by anyone else, not even briefly
    assert read_token_file(path) == full_set()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tokens.json"]


@pytest.mark.req("client.tokens.file-0600-atomic")
def test_a_write_that_fails_leaves_the_old_file_and_no_debris(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "tokens.json"
    write_token_file(path, TokenSet(access_token=Secret("old")))

    def failing_replace(source: object, target: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        write_token_file(path, full_set())
    monkeypatch.undo()
    assert read_token_file(path).access_token.reveal() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tokens.json"]


def test_a_missing_token_file_means_login_required(tmp_path: Path) -> None:
    with pytest.raises(LoginRequired) as raised:
        read_token_file(tmp_path / "nothing.json")
    assert raised.value.code == "login_required"
    assert "ordergate login" in str(raised.value)


def test_an_unreadable_token_file_means_login_required(tmp_path: Path) -> None:
    with pytest.raises(LoginRequired):
        read_token_file(tmp_path)  # a directory: reading it fails with an OSError


@pytest.mark.parametrize(
    "content",
    [
        b"not json at all",
        b"\xff\xfe",
        b"[]",
        b"{}",
        json.dumps({"access_token": ""}).encode(),
        json.dumps({"access_token": "a", "refresh_token": 7}).encode(),
        json.dumps({"access_token": "a", "expires_at": 17}).encode(),
        json.dumps({"access_token": "a", "expires_at": "tomorrow"}).encode(),
        json.dumps({"access_token": "a", "expires_at": "2026-12-01T15:00:00"}).encode(),
    ],
)
def test_a_damaged_token_file_means_login_required_without_echoing_it(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "tokens.json"
    path.write_bytes(content)
    with pytest.raises(LoginRequired) as raised:
        read_token_file(path)
    assert "damaged" in str(raised.value)


def test_expiry_is_judged_with_a_margin_and_never_when_unknown() -> None:
    tokens = full_set()
    assert not tokens.expires_within(NOW, timedelta(seconds=60))
    expiry = NOW + timedelta(days=9)
    assert tokens.expires_within(expiry - timedelta(seconds=60), timedelta(seconds=60))
    assert not tokens.expires_within(expiry - timedelta(seconds=61), timedelta(seconds=60))
    assert not TokenSet(access_token=Secret(ACCESS)).expires_within(NOW, timedelta(days=999))


def test_a_rotation_keeps_the_refresh_token_when_the_server_does_not_rotate_it() -> None:
    rotated = full_set().rotated(access_token=Secret("new"), refresh_token=None, expires_at=None)
    assert rotated.refresh_token == Secret(REFRESH)
    assert rotated.client_id == "client-1"


@pytest.mark.anyio
async def test_the_token_lock_excludes_a_second_holder_until_released(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    order: list[str] = []
    with anyio.fail_after(10):
        async with token_file_lock(path):
            assert mode(lock_path(path)) & 0o077 == 0
            with pytest.raises(ToolError) as raised:
                async with token_file_lock(path, timeout_s=0.05):
                    order.append("second holder got in")  # pragma: no cover
            assert raised.value.code == "token_lock"
            order.append("first released")
        async with token_file_lock(path, timeout_s=1):
            order.append("second holder")
    assert order == ["first released", "second holder"]
