"""``install``: the unit, the secrets file, the system user and its home, on a real system or
under a staging root. It never starts anything.

Every path written lies under ``root`` (``/`` on the machine itself; a staging folder for
packagers and tests), and so does the user database (``useradd --prefix ROOT``):

- the unit, ``etc/systemd/system/ordergate.service`` (0644, replaced on every install);
- the secrets file, ``etc/ordergate/ordergate.env`` (root's, 0600, in a 0700 folder; a
  commented template, kept when it exists);
- the system user (``useradd --system --user-group --home-dir HOME --shell
  /usr/sbin/nologin``), unless ``etc/passwd`` already has it;
- its home, 0700 and its own, unless it exists (then it is left alone, with the commands
  that would make it so when it is not).

Errors::

    OrdergateError
    └── ServiceError     not root, useradd missing or failing, something in the way
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ordergate.core import OrdergateError, create_private, ensure_private_dir, write_private
from ordergate.service._unit import UNIT_PATH, ServiceUnit

__all__ = ["Installed", "ServiceError", "install", "require_root"]

_USERADD_TIMEOUT_S = 60.0
_ENVIRONMENT_TEMPLATE = """\
# Secrets for ordergate.service, read by systemd (as root) before it starts the gateway.
# Keep this file root's and 0600. One NAME=value a line, for instance:
# ORDERGATE_MASTER_SECRET=...      at least 32 characters; seals each person's upstream session
# ORDERGATE_CALLER_TOKEN_KEY=...   signs caller tokens (else derived from the master secret)
"""


class ServiceError(OrdergateError):
    """The service could not be installed; the message says why and what to do."""

    code = "service_install"


@dataclass(frozen=True, slots=True)
class Installed:
    """What ``install`` did, and what the person runs next (the commands, in order)."""

    done: tuple[str, ...]
    next_steps: tuple[str, ...]


def install(unit: ServiceUnit, *, root: Path = Path("/")) -> Installed:
    """Install ``unit`` under ``root``. Raises ``ServiceError`` when not run as root, when
    ``useradd`` is missing or fails, or when a file stands where the home should be."""
    require_root(unit.user)
    done = [_write_unit(unit, root), _write_environment(unit, root)]
    account = _account(root, unit.user)
    if account is None:
        _useradd(unit, root)
        account = _account(root, unit.user)
        if account is None:
            raise ServiceError(f"useradd did not add {unit.user} to {root / 'etc/passwd'}")
        done.append(f"created the system user {unit.user}")
    else:
        done.append(f"kept the existing user {unit.user}")
    done += _make_home(unit, root, account)
    if unit.hidden_executable:
        done.append(
            f"warning: {unit.executable} (or the Python it runs) is under /home, /root or "
            "/run/user, which ProtectHome=yes hides from the service: install ordergate "
            "elsewhere (a virtual environment in /opt, say) and install the service again"
        )
    as_gateway = f"sudo -u {unit.user} env ORDERGATE_HOME={unit.home} {unit.executable}"
    steps = (
        "systemctl daemon-reload",
        "systemctl enable --now ordergate",
        f"{as_gateway} owner init",
    )
    return Installed(tuple(done), steps)


def require_root(user: str) -> None:
    """``ServiceError`` unless this process runs as root, saying what needs it."""
    if os.geteuid() != 0:
        raise ServiceError(
            f"writing {UNIT_PATH} and creating the system user {user} need root: "
            "run it with sudo, or add --print to see the unit"
        )


def _under(root: Path, path: Path) -> Path:
    return root / path.relative_to(path.anchor)


def _write_unit(unit: ServiceUnit, root: Path) -> str:
    path = _under(root, UNIT_PATH)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_private(path, unit.render().encode())
    # Not a secret, and systemctl run by any user reads it.
    os.chmod(path, 0o644)
    return f"wrote {path}"


def _write_environment(unit: ServiceUnit, root: Path) -> str:
    path = _under(root, unit.environment_file)
    ensure_private_dir(path.parent)
    try:
        create_private(path, _ENVIRONMENT_TEMPLATE.encode())
    except FileExistsError:
        return f"kept {path} (the gateway's secrets: root's, 0600)"
    return f"wrote {path}: put the gateway's secrets there (root's, 0600)"


def _account(root: Path, user: str) -> tuple[int, int] | None:
    """``user``'s uid and gid in ``root``'s ``etc/passwd``; ``None`` when it has none."""
    try:
        lines = (root / "etc" / "passwd").read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return None
    for line in lines:
        fields = line.split(":")
        if len(fields) >= 4 and fields[0] == user:
            return int(fields[2]), int(fields[3])
    return None


def _useradd(unit: ServiceUnit, root: Path) -> None:
    useradd = shutil.which("useradd")
    if useradd is None:
        raise ServiceError(
            f"useradd is not installed: create the system user {unit.user} (home {unit.home},"
            " no login shell) and install the service again"
        )
    command = [
        useradd, "--system", "--user-group", "--no-create-home",
        "--home-dir", str(unit.home), "--shell", "/usr/sbin/nologin",
        *(["--prefix", str(root)] if root != Path("/") else []),
        unit.user,
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=_USERADD_TIMEOUT_S)
    if result.returncode != 0:
        said = (result.stderr.strip().splitlines() or ["no message"])[-1]
        raise ServiceError(f"useradd could not create {unit.user}: {said}")


def _make_home(unit: ServiceUnit, root: Path, account: tuple[int, int]) -> list[str]:
    home = _under(root, unit.home)
    uid, gid = account
    if not home.exists():
        home.parent.mkdir(parents=True, exist_ok=True)
        home.mkdir(mode=0o700)
        os.chmod(home, 0o700)
        os.chown(home, uid, gid)
        return [f"created {home} (0700, {unit.user}'s)"]
    if not home.is_dir() or home.is_symlink():
        raise ServiceError(f"{home} is in the way of the home: it is not a directory")
    info = home.stat()
    fixes = []
    if info.st_uid != uid:
        fixes.append(f"chown -R {unit.user}:{unit.user} {home}")
    if stat.S_IMODE(info.st_mode) & 0o077:
        fixes.append(f"chmod 700 {home}")
    if not fixes:
        return [f"kept {home}"]
    return [f"kept {home}, which the gateway will refuse as it is: run {' and '.join(fixes)}"]
