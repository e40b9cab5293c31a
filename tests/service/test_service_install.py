"""``ordergate service install`` under a staging root (``--root``): the unit, the root-only
secrets file, the system user in the root's own user database and its 0700 home, the next
steps; nothing outside the root is touched and nothing is started (issue 12 §3)."""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import stat
from pathlib import Path

import pytest
from separation_testkit import requires_root
from typer.testing import CliRunner, Result

from ordergate.cli import app
from ordergate.service import ServiceUnit, installed_executable
from ordergate.service import install as install_service

pytestmark = requires_root

HOME = Path("/var/lib/ordergate-staged")


def staging_root(tmp_path: Path) -> Path:
    """A root whose user database is a copy of this machine's, as a packager's would be."""
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    for name in ("passwd", "group", "shadow", "gshadow"):
        shutil.copy2(Path("/etc") / name, root / "etc" / name)
    return root


def install(root: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(
        app, ["service", "install", "--root", str(root), "--home", str(HOME), *args], env=env
    )


def staged_account(root: Path, user: str) -> list[str] | None:
    for line in (root / "etc" / "passwd").read_text().splitlines():
        fields = line.split(":")
        if fields[0] == user:
            return fields
    return None


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def user() -> str:
    return f"og-svc-{secrets.token_hex(3)}"


@pytest.mark.req("owner.separation.own-user")
def test_install_writes_the_unit_and_a_private_secrets_file_and_creates_the_user_and_home(
    tmp_path: Path, user: str
) -> None:
    root = staging_root(tmp_path)
    result = install(root, "--user", user, "--port", "8799")
    assert result.exit_code == 0, result.output

    unit = root / "etc/systemd/system/ordergate.service"
    expected = ServiceUnit(executable=installed_executable(), user=user, home=HOME, port=8799)
    assert unit.read_text() == expected.render()
    assert mode(unit) == 0o644
    environment = root / "etc/ordergate/ordergate.env"
    assert (mode(environment), mode(environment.parent), environment.stat().st_uid) == (
        0o600,
        0o700,
        0,
    )
    account = staged_account(root, user)
    assert account is not None
    assert account[5:] == [str(HOME), "/usr/sbin/nologin"]
    home = root / HOME.relative_to("/")
    assert (mode(home), home.stat().st_uid, home.stat().st_gid) == (
        0o700,
        int(account[2]),
        int(account[3]),
    )
    with pytest.raises(KeyError):
        pwd.getpwnam(user)  # the machine's own user database is untouched

    lines = result.output.splitlines()
    assert f"wrote {unit}" in lines
    assert f"created the system user {user}" in lines
    next_steps = lines[lines.index("next:") + 1 :]
    assert next_steps == [
        "  systemctl daemon-reload",
        "  systemctl enable --now ordergate",
        f"  sudo -u {user} env ORDERGATE_HOME={HOME} {installed_executable()} owner init",
    ]


def test_installing_again_keeps_the_user_the_home_and_the_secrets(
    tmp_path: Path, user: str
) -> None:
    root = staging_root(tmp_path)
    assert install(root, "--user", user).exit_code == 0
    environment = root / "etc/ordergate/ordergate.env"
    environment.write_text("ORDERGATE_MASTER_SECRET=kept-as-the-owner-wrote-it\n")
    again = install(root, "--user", user)
    assert again.exit_code == 0, again.output
    assert f"kept the existing user {user}" in again.output
    assert f"kept {root / HOME.relative_to('/')}\n" in again.output
    assert "kept-as-the-owner-wrote-it" in environment.read_text()
    assert "kept-as-the-owner-wrote-it" not in again.output


def test_an_existing_home_the_gateway_would_refuse_is_kept_with_the_fix_named(
    tmp_path: Path, user: str
) -> None:
    root = staging_root(tmp_path)
    home = root / HOME.relative_to("/")
    home.mkdir(parents=True)
    os.chmod(home, 0o755)
    result = install(root, "--user", user)
    assert result.exit_code == 0, result.output
    assert (
        f"kept {home}, which the gateway will refuse as it is: run "
        f"chown -R {user}:{user} {home} and chmod 700 {home}"
    ) in result.output
    assert mode(home) == 0o755


def test_a_file_where_the_home_should_be_is_refused(tmp_path: Path, user: str) -> None:
    root = staging_root(tmp_path)
    home = root / HOME.relative_to("/")
    home.parent.mkdir(parents=True)
    home.write_text("")
    result = install(root, "--user", user)
    assert result.exit_code == 1
    assert result.output == f"service: {home} is in the way of the home: it is not a directory\n"


def test_without_useradd_the_install_says_to_create_the_user_by_hand(
    tmp_path: Path, user: str
) -> None:
    root = staging_root(tmp_path)
    result = install(root, "--user", user, env={"PATH": str(tmp_path)})
    assert result.exit_code == 1
    assert result.output.startswith(
        f"service: useradd is not installed: create the system user {user}"
    )


def test_a_useradd_that_fails_is_reported_with_its_own_words(tmp_path: Path, user: str) -> None:
    root = staging_root(tmp_path)
    with (root / "etc" / "group").open("a") as group:  # a group of that name, and no user
        group.write(f"{user}:x:54321:\n")
    result = install(root, "--user", user)
    assert result.exit_code == 1
    assert result.output.startswith(f"service: useradd could not create {user}: ")
    assert f"group {user} exists" in result.output


def test_print_writes_and_creates_nothing(tmp_path: Path, user: str) -> None:
    root = staging_root(tmp_path)
    before = sorted(path.name for path in root.rglob("*"))
    result = install(root, "--user", user, "--print")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("# ordergate's MCP gateway as its own system user")
    assert sorted(path.name for path in root.rglob("*")) == before


def test_a_root_without_a_user_database_gets_one_holding_the_user(
    tmp_path: Path, user: str
) -> None:
    root = tmp_path / "bare-root"
    root.mkdir()
    result = install(root, "--user", user)
    assert result.exit_code == 0, result.output
    assert staged_account(root, user) is not None


@pytest.mark.parametrize(
    ("executable", "warned"),
    [("/home/someone/bin/ordergate", True), ("/opt/ordergate/bin/ordergate", False)],
)
def test_an_executable_protect_home_hides_gets_a_warning(
    tmp_path: Path, executable: str, warned: bool
) -> None:
    unit = ServiceUnit(executable=Path(executable), user="root", home=HOME)
    installed = install_service(unit, root=staging_root(tmp_path))
    warnings = [line for line in installed.done if line.startswith(f"warning: {executable} ")]
    assert bool(warnings) is warned
