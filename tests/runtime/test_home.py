"""``check_home``: every way another OS user could read the gateway's secrets or change its
policy, one sentence each naming the file and the fix (issue 12 §3)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from home_testkit import SECRET_FILES, full_home

from ordergate.runtime import Settings, check_home


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    made = full_home(tmp_path)
    monkeypatch.setenv("ORDERGATE_HOME", str(made))
    monkeypatch.delenv("ORDERGATE_DB_URL", raising=False)
    return made


def settings(*, db: str | None = None, policy: Path | None = None) -> Settings:
    return Settings.resolve(sandbox=True, db=db, policy=policy)


SECRETS = ["", *SECRET_FILES]
GUARDED = ["policy.toml", "profiles", "profiles/cautious.yaml"]


def test_a_home_as_ordergate_writes_it_has_no_problem(home: Path) -> None:
    assert check_home(settings()) == []


def test_a_home_that_does_not_exist_yet_has_no_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORDERGATE_HOME", str(tmp_path / "fresh"))
    monkeypatch.delenv("ORDERGATE_DB_URL", raising=False)
    assert check_home(settings()) == []


def _loosened(path: Path, bits: int) -> None:
    os.chmod(path, (path.stat().st_mode & 0o777) | bits)


@pytest.mark.req("owner.separation.serve-refuses-open-home")
@pytest.mark.parametrize("name", SECRETS)
@pytest.mark.parametrize(
    ("bits", "said"), [(0o040, "readable by group"), (0o002, "writable by others")]
)
def test_a_secret_open_to_group_or_others_is_named_with_its_chmod(
    home: Path, name: str, bits: int, said: str
) -> None:
    path = home / name if name else home
    _loosened(path, bits)
    wanted = "700" if path.is_dir() else "600"
    [problem] = check_home(settings())
    assert problem.startswith(f"{path} is {said}")
    assert problem.endswith(f": chmod {wanted} {path}")


@pytest.mark.req("owner.separation.serve-refuses-open-home")
@pytest.mark.parametrize("name", SECRETS)
def test_a_secret_that_is_a_symbolic_link_is_named_with_the_way_back(
    home: Path, tmp_path: Path, name: str
) -> None:
    path = home / name if name else home
    elsewhere = tmp_path / "elsewhere" / (name or "home")
    elsewhere.parent.mkdir(mode=0o700, exist_ok=True)
    path.rename(elsewhere)
    path.symlink_to(elsewhere)
    problems = check_home(settings())
    assert f"{path} is a symbolic link to {elsewhere}: keep the file itself there " in problems[0]
    assert problems[0].endswith(f"(mv -T {elsewhere} {path})")


@pytest.mark.req("owner.separation.serve-refuses-open-home")
@pytest.mark.parametrize("name", GUARDED)
def test_the_policy_and_profiles_may_be_read_by_others_but_not_written(
    home: Path, name: str
) -> None:
    path = home / name
    _loosened(path, 0o044)
    assert check_home(settings()) == []
    _loosened(path, 0o002)
    assert check_home(settings()) == [
        f"{path} is writable by others (mode {path.stat().st_mode & 0o7777:04o}): chmod go-w {path}"
    ]


def test_a_policy_linked_from_elsewhere_is_judged_by_its_target_and_its_folder(
    home: Path, tmp_path: Path
) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir(mode=0o755)
    target = dotfiles / "policy.toml"
    (home / "policy.toml").rename(target)
    (home / "policy.toml").symlink_to(target)
    assert check_home(settings()) == []
    os.chmod(dotfiles, 0o777)
    assert check_home(settings()) == [
        f"{dotfiles} is writable by group and others (mode 0777): chmod go-w {dotfiles}"
    ]


@pytest.mark.req("owner.separation.serve-refuses-open-home")
def test_a_ledger_and_a_policy_outside_the_home_are_checked_and_so_are_their_folders(
    home: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o775)
    ledger = shared / "ledger.db"
    (home / "ledger.db").rename(ledger)
    policy = shared / "policy.toml"
    (home / "policy.toml").rename(policy)
    outside = settings(db=f"sqlite:///{ledger}", policy=policy)
    assert check_home(outside) == [
        f"{shared} is writable by group (mode 0775): chmod go-w {shared}"
    ]
    os.chmod(shared, 0o755)
    os.chmod(ledger, 0o644)
    assert check_home(outside) == [
        f"{ledger} is readable by group and others (mode 0644): chmod 600 {ledger}"
    ]


@pytest.mark.parametrize(
    "url", ["postgresql://ordergate@127.0.0.1/ledger", "not a database url", "sqlite://"]
)
def test_a_ledger_with_no_file_here_has_nothing_to_check(home: Path, url: str) -> None:
    (home / "ledger.db").chmod(0o644)  # not the ledger in use
    assert check_home(settings(db=url)) == []


def test_every_problem_is_one_sentence_in_a_stable_order(home: Path) -> None:
    loosen: list[tuple[str, Callable[[Path], None]]] = [
        ("", lambda path: os.chmod(path, 0o755)),
        ("robinhood-tokens.json", lambda path: os.chmod(path, 0o644)),
        ("owner.json", lambda path: os.chmod(path, 0o660)),
        ("profiles/cautious.yaml", lambda path: os.chmod(path, 0o666)),
    ]
    for name, change in loosen:
        change(home / name if name else home)
    problems = check_home(settings())
    assert [problem.split(" is ", 1)[0] for problem in problems] == [
        str(home),
        str(home / "robinhood-tokens.json"),
        str(home / "owner.json"),
        str(home / "profiles" / "cautious.yaml"),
    ]
    assert all("\n" not in problem for problem in problems)
