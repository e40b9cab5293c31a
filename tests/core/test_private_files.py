"""Files only their owner can use (issue 12 §3): created 0700 and 0600 whatever the umask,
written whole or not at all, and checked with a sentence naming the file and the fix."""

from __future__ import annotations

import os
import pwd
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from separation_testkit import requires_root

from ordergate.core import (
    create_private,
    ensure_private_dir,
    private_problem,
    tamper_problem,
    write_private,
)

NOBODY = 65534
UNKNOWN_UID = 54321  # no account has it


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The most permissive umask: modes are then exactly what the code asked for."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def owned_by(tmp_path: Path, uid: int) -> Path:
    path = tmp_path / "theirs"
    create_private(path, b"x")
    os.chown(path, uid, uid)
    return path


@pytest.mark.usefixtures("open_umask")
@pytest.mark.req("owner.separation.files-private")
def test_a_missing_directory_and_each_missing_parent_are_created_0700(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b" / "home"
    assert ensure_private_dir(deep) == deep
    for folder in (tmp_path / "a", tmp_path / "a" / "b", deep):
        assert mode(folder) == 0o700


def test_an_existing_directory_is_left_as_it_is_and_a_file_in_the_way_refused(
    tmp_path: Path,
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    ensure_private_dir(shared)
    assert mode(shared) == 0o755
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError):
        ensure_private_dir(tmp_path / "file" / "below")
    with pytest.raises(NotADirectoryError):
        ensure_private_dir(tmp_path / "file")


@pytest.mark.usefixtures("open_umask")
@pytest.mark.req("owner.separation.files-private")
def test_a_private_write_is_0600_replaces_the_old_file_and_leaves_no_sibling(
    tmp_path: Path,
) -> None:
    path = tmp_path / "home" / "secret.json"
    write_private(path, b"old")
    write_private(path, b"new")
    assert path.read_bytes() == b"new"
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700
    assert [entry.name for entry in path.parent.iterdir()] == ["secret.json"]


@pytest.mark.usefixtures("open_umask")
@pytest.mark.req("owner.separation.files-private")
def test_a_private_creation_is_0600_and_never_replaces_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "home" / "policy.toml"
    create_private(path, b"first")
    assert mode(path) == 0o600
    with pytest.raises(FileExistsError):
        create_private(path, b"second")
    assert path.read_bytes() == b"first"
    assert [entry.name for entry in path.parent.iterdir()] == ["policy.toml"]


def test_a_creation_that_fails_while_writing_leaves_no_sibling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError):
        create_private(tmp_path / "ledger.db")
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


def test_a_private_file_a_private_directory_and_a_missing_path_have_no_problem(
    tmp_path: Path,
) -> None:
    create_private(tmp_path / "secret", b"x")
    ensure_private_dir(tmp_path / "home")
    assert private_problem(tmp_path / "secret") is None
    assert private_problem(tmp_path / "home") is None
    assert private_problem(tmp_path / "missing") is None


@pytest.mark.req("owner.separation.files-private")
@pytest.mark.parametrize(
    ("file_mode", "said"),
    [
        (0o640, "readable by group (mode 0640)"),
        (0o604, "readable by others (mode 0604)"),
        (0o602, "writable by others (mode 0602)"),
        (0o660, "readable by group, writable by group (mode 0660)"),
        (0o666, "readable by group and others, writable by group and others (mode 0666)"),
        (0o710, "executable by group (mode 0710)"),
    ],
)
def test_a_secret_open_to_group_or_others_is_a_problem_naming_it_and_chmod_600(
    tmp_path: Path, file_mode: int, said: str
) -> None:
    path = tmp_path / "ledger.db"
    create_private(path)
    os.chmod(path, file_mode)
    assert private_problem(path) == f"{path} is {said}: chmod 600 {path}"


def test_a_directory_open_to_others_is_a_problem_naming_it_and_chmod_700(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    os.chmod(home, 0o755)
    assert private_problem(home) == (
        f"{home} is readable by group and others, searchable by group and others (mode 0755): "
        f"chmod 700 {home}"
    )


@pytest.mark.req("owner.separation.files-private")
def test_a_secret_that_is_a_symbolic_link_is_a_problem_whatever_it_points_to(
    tmp_path: Path,
) -> None:
    real = tmp_path / "elsewhere"
    create_private(real, b"x")
    link = tmp_path / "robinhood-tokens.json"
    link.symlink_to(real)
    assert private_problem(link) == (
        f"{link} is a symbolic link to {real}: keep the file itself there (mv -T {real} {link})"
    )


@requires_root
def test_a_secret_owned_by_another_user_is_a_problem_naming_the_chown(tmp_path: Path) -> None:
    theirs = owned_by(tmp_path, NOBODY)
    problem = private_problem(theirs)
    assert problem is not None
    assert problem.startswith(f"{theirs} belongs to ")
    assert problem.endswith(f" who runs ordergate: chown {_me()} {theirs}")


def test_a_path_that_cannot_be_examined_is_a_problem(tmp_path: Path) -> None:
    too_long = tmp_path / ("x" * 300)
    assert private_problem(too_long) == (
        f"{too_long} cannot be examined (File name too long): check its directory's permissions"
    )
    assert tamper_problem(too_long) == (
        f"{too_long} cannot be examined (File name too long): check its directory's permissions"
    )


def test_a_file_others_may_read_but_not_write_is_not_a_tamper_problem(tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text("")
    os.chmod(policy, 0o644)
    assert tamper_problem(policy) is None
    assert tamper_problem(tmp_path / "missing.toml") is None


@pytest.mark.req("owner.separation.files-private")
@pytest.mark.parametrize(
    ("file_mode", "who"), [(0o664, "group"), (0o646, "others"), (0o666, "group and others")]
)
def test_a_file_group_or_others_may_write_is_a_tamper_problem_naming_it_and_chmod_go_w(
    tmp_path: Path, file_mode: int, who: str
) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text("")
    os.chmod(policy, file_mode)
    assert tamper_problem(policy) == (
        f"{policy} is writable by {who} (mode {file_mode:04o}): chmod go-w {policy}"
    )


def test_a_link_to_a_file_others_may_write_names_the_link_and_its_target(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles-policy.toml"
    real.write_text("")
    os.chmod(real, 0o666)
    link = tmp_path / "policy.toml"
    link.symlink_to(real)
    assert tamper_problem(link) == (
        f"{link} (a link to {real}) is writable by group and others (mode 0666): chmod go-w {real}"
    )
    os.chmod(real, 0o644)
    assert tamper_problem(link) is None


def test_a_sticky_directory_others_may_write_is_not_a_tamper_problem(tmp_path: Path) -> None:
    shared = tmp_path / "tmp"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    assert tamper_problem(shared) is None
    os.chmod(shared, 0o777)
    assert tamper_problem(shared) == (
        f"{shared} is writable by group and others (mode 0777): chmod go-w {shared}"
    )


def test_a_file_root_owns_is_not_a_tamper_problem() -> None:
    assert tamper_problem(Path("/etc/passwd")) is None  # only root could change it


@requires_root
def test_a_file_owned_by_another_user_is_a_tamper_problem(tmp_path: Path) -> None:
    theirs = owned_by(tmp_path, NOBODY)
    assert tamper_problem(theirs) == (
        f"{theirs} belongs to nobody, not to root who runs ordergate: chown root {theirs}"
    )


@requires_root
def test_an_owner_without_an_account_is_named_by_number(tmp_path: Path) -> None:
    theirs = owned_by(tmp_path, UNKNOWN_UID)
    assert private_problem(theirs) == (
        f"{theirs} belongs to {UNKNOWN_UID}, not to root who runs ordergate: chown root {theirs}"
    )


def _me() -> str:
    return pwd.getpwuid(os.geteuid()).pw_name
