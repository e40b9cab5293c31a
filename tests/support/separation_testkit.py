"""Two OS users on a real system (issue 12 §3): the gateway runs as one, an "agent" as the
other, and the tests show what the agent can and cannot reach.

Creating users needs root; CI runs as root, and ``requires_root`` skips the tests elsewhere
with a message saying so (in CI a skip fails: ``tests/conftest.py``). Each user is made with
``useradd --system`` and removed with
``userdel`` when its block ends, whatever the test did.

The project's own Python lives under ``/root`` (0700), which another user cannot run, so the
gateway's user runs the system's ``python3.11`` (the same minor version) with the project's
``site-packages`` and ``src`` on ``PYTHONPATH``; the agent needs only the standard library.
Users are switched with ``setpriv`` (which execs, so the process to stop is the one started).

Use:

    with os_user("og-gw") as gateway, os_user("og-agent") as agent, gateway_home(gateway) as home:
        with gateway_as(gateway, home) as url:
            result = python_as(agent, SNIPPET, {"mcp": url + "/mcp"})

``python_as`` runs a snippet that reads its JSON argument from ``sys.argv[1]`` and prints one
JSON object, which it returns.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import secrets
import shutil
import subprocess
import sysconfig
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import ordergate
from ordergate.bench._process import started

SYSTEM_PYTHON = Path("/usr/bin/python3.11")
START_BOUND_S = 60.0
RUN_BOUND_S = 60.0
USERADD_BOUND_S = 60.0
_BANNER = "(Ctrl+C stops)"
_URL = re.compile(r"point MCP clients at (http://127\.0\.0\.1:\d+)/mcp")


def _can_make_users() -> bool:
    return os.geteuid() == 0 and all(
        shutil.which(tool) for tool in ("useradd", "userdel", "setpriv")
    )


requires_root = pytest.mark.skipif(
    not _can_make_users(),
    reason="needs root with useradd, userdel and setpriv: run as root (CI does), with "
    "`apt-get install -y passwd util-linux`; it creates throwaway OS users",
)


@dataclass(frozen=True, slots=True)
class OsUser:
    name: str
    uid: int
    gid: int


@contextmanager
def os_user(prefix: str) -> Iterator[OsUser]:
    """A throwaway system user (no home, no login shell), removed when the block ends."""
    name = f"{prefix}-{secrets.token_hex(3)}"
    subprocess.run(
        [
            "useradd", "--system", "--user-group", "--no-create-home",
            "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", name,
        ],
        check=True, capture_output=True, timeout=USERADD_BOUND_S,
    )  # fmt: skip
    try:
        account = pwd.getpwnam(name)
        yield OsUser(name, account.pw_uid, account.pw_gid)
    finally:
        subprocess.run(["userdel", name], capture_output=True, timeout=USERADD_BOUND_S)


@contextmanager
def gateway_home(user: OsUser) -> Iterator[Path]:
    """A fresh ``ORDERGATE_HOME`` for ``user``: 0700 and its own, directly in the system's
    temporary folder (pytest's is root's, 0700, so no other user could reach into it);
    removed when the block ends."""
    home = Path(tempfile.mkdtemp(prefix="ordergate-separation-"))
    try:
        os.chown(home, user.uid, user.gid)
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


def give(path: Path, user: OsUser) -> Path:
    """``path`` (written by root, privately) handed to ``user``."""
    os.chown(path, user.uid, user.gid)
    return path


def _as(user: OsUser) -> list[str]:
    return [
        "setpriv", f"--reuid={user.uid}", f"--regid={user.gid}", "--init-groups", "--",
    ]  # fmt: skip


def ordergate_environment(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """What a process of another user needs to import ordergate with the system's Python:
    nothing of the test's own environment (no ``ORDERGATE_*``, no coverage hooks), plus
    ``extra``."""
    site_packages = sysconfig.get_paths()["purelib"]
    source = str(Path(ordergate.__file__).resolve().parents[1])
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "ORDERGATE_HOME": str(home),
        "PYTHONPATH": os.pathsep.join((source, site_packages)),
        "PYTHONDONTWRITEBYTECODE": "1",
        **(extra or {}),
    }


def _ordergate(*args: str) -> list[str]:
    return [str(SYSTEM_PYTHON), "-s", "-m", "ordergate", *args]


@contextmanager
def gateway_as(
    user: OsUser, home: Path, *args: str, env: dict[str, str] | None = None
) -> Iterator[str]:
    """``ordergate serve --sandbox`` on a free loopback port as ``user``, with ``home`` as its
    ``ORDERGATE_HOME`` (and ``env`` besides): its URL once it says it serves (within
    ``START_BOUND_S``); stopped when the block ends."""
    command = [*_as(user), *_ordergate("serve", "--sandbox", "--port", "0", *args)]
    environment = ordergate_environment(home, env)
    with started(command, ready_marker=_BANNER, timeout_s=START_BOUND_S, env=environment) as (
        _,
        banner,
    ):
        found = _URL.search(banner)
        assert found is not None, banner
        yield found.group(1)


def run_as(
    user: OsUser,
    command: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """``command`` run as ``user`` (from ``/``, ``stdin`` on its standard input), within
    ``RUN_BOUND_S``."""
    return subprocess.run(
        [*_as(user), *command],
        capture_output=True,
        text=True,
        timeout=RUN_BOUND_S,
        env=env if env is not None else {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        cwd="/",
        input=stdin,
    )


def ordergate_as(
    user: OsUser,
    home: Path,
    *args: str,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """``ordergate ARGS`` run once as ``user`` with ``home`` as its ``ORDERGATE_HOME`` (and
    ``env`` besides; ``stdin`` on its standard input), within ``RUN_BOUND_S``."""
    return run_as(user, _ordergate(*args), env=ordergate_environment(home, env), stdin=stdin)


def python_as(user: OsUser, snippet: str, argument: dict[str, Any]) -> dict[str, Any]:
    """The JSON object ``snippet`` prints, run as ``user`` by the system's isolated Python
    (standard library only) with ``argument`` as JSON in ``sys.argv[1]``."""
    result = run_as(user, [str(SYSTEM_PYTHON), "-I", "-c", snippet, json.dumps(argument)])
    assert result.returncode == 0, result.stderr
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer
