"""``ServiceUnit``: the systemd unit that runs the gateway as its own system user.

The unit's text is package data (``ordergate.service.in``), one template filled from the
user, the home, the port and the absolute path of the ``ordergate`` executable. It binds the
gateway to loopback and hardens the service the usual way: no new privileges, no
capabilities, the file system read-only but for the home, no view of ``/home``, ``/root`` or
``/run/user``, private ``/tmp`` and devices, and files created 0600 (``UMask=0077``). The
owner channel is ``/run/ordergate/owner.sock`` in the unit's ``RuntimeDirectory=`` (0750: the
service's user writes it, its group — the owner, added to it — reaches it).

Secrets reach the gateway through ``EnvironmentFile=`` (root-owned, 0600): systemd reads it as
root before dropping to the service's user, so that user cannot read the file itself, and
the gateway reads its secrets from its environment as it does everywhere else.
``LoadCredential=`` would also keep them off the process environment, but the gateway would
have to read ``$CREDENTIALS_DIRECTORY``, which it does not (yet).
"""

from __future__ import annotations

import re
import sysconfig
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template

from ordergate.core import ConfigError

__all__ = [
    "DEFAULT_HOME",
    "DEFAULT_USER",
    "ENVIRONMENT_FILE",
    "OWNER_SOCKET",
    "UNIT_PATH",
    "ServiceUnit",
    "installed_executable",
]

DEFAULT_USER = "ordergate"
DEFAULT_HOME = Path("/var/lib/ordergate")
UNIT_PATH = Path("/etc/systemd/system/ordergate.service")
ENVIRONMENT_FILE = Path("/etc/ordergate/ordergate.env")
OWNER_SOCKET = Path("/run/ordergate/owner.sock")
"""The owner channel of the service: in its ``RuntimeDirectory=`` (0750, the service's user and
group), where the owner's commands look for it when ``ORDERGATE_OWNER_SOCKET`` is not set."""
# useradd's own rule for portable names (shadow-utils, NAME_REGEX_SYSTEM): at most 32.
_USER_NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
# Written into the unit as they are: no spaces, quotes or '%' (a systemd specifier).
_PLAIN_PATH = re.compile(r"/[A-Za-z0-9/._+@-]*")
# ProtectHome=yes makes these empty and inaccessible to the service.
_HIDDEN = (Path("/home"), Path("/root"), Path("/run/user"))


@dataclass(frozen=True, slots=True)
class ServiceUnit:
    """What the unit says. ``ConfigError`` (naming ``--user``, ``--home``, ``--port`` or the
    path) when the user name is not one ``useradd`` takes, the home is not a plain absolute
    path or lies where ``ProtectHome=yes`` hides it, the port is not 1-65535, or the
    executable's path has a character the unit cannot hold as it is."""

    executable: Path
    user: str = DEFAULT_USER
    home: Path = DEFAULT_HOME
    port: int = 8787
    environment_file: Path = ENVIRONMENT_FILE

    def __post_init__(self) -> None:
        if not _USER_NAME.fullmatch(self.user):
            raise ConfigError("--user", "1-32 of a-z 0-9 _ -, starting with a letter or _")
        if not _PLAIN_PATH.fullmatch(str(self.home)) or ".." in self.home.parts:
            raise ConfigError(
                "--home",
                f"an absolute path of A-Z a-z 0-9 / . _ + @ - without '..', got {self.home}",
            )
        if _hidden(self.home):
            raise ConfigError(
                "--home", f"{self.home} is hidden from the service by ProtectHome=yes"
            )
        if not 1 <= self.port <= 65535:
            raise ConfigError("--port", "a port from 1 to 65535")
        for path in (self.executable, self.environment_file):
            if not _PLAIN_PATH.fullmatch(str(path)):
                raise ConfigError(str(path), "a unit names it as it is: no spaces, quotes or %")

    def render(self) -> str:
        """The unit file's text."""
        template = resources.files("ordergate.service").joinpath("ordergate.service.in")
        return Template(template.read_text(encoding="utf-8")).substitute(
            user=self.user,
            group=self.user,
            home=self.home,
            port=self.port,
            executable=self.executable,
            environment_file=self.environment_file,
            owner_socket=OWNER_SOCKET,
        )

    @property
    def hidden_executable(self) -> bool:
        """Whether ``ProtectHome=yes`` hides the executable, or the interpreter its ``#!``
        line names (links followed), from the service, which then could not start."""
        interpreter = _interpreter(self.executable)
        return _hidden(self.executable) or (interpreter is not None and _hidden(interpreter))


def installed_executable(scripts: Path | None = None) -> Path:
    """The absolute path of this installation's ``ordergate`` command, in the running
    interpreter's scripts folder (or ``scripts``). ``ConfigError`` when it is not there
    (ordergate imported from a source tree it was never installed from)."""
    folder = scripts if scripts is not None else Path(sysconfig.get_path("scripts"))
    command = folder.absolute() / "ordergate"
    if not command.is_file():
        raise ConfigError("ordergate", f"no ordergate command in {folder}: install ordergate")
    return command


def _interpreter(executable: Path) -> Path | None:
    try:
        with executable.open("rb") as script:
            first = script.readline(4096)
    except OSError:
        return None
    words = first[2:].split() if first.startswith(b"#!") else []
    return Path(words[0].decode(errors="replace")).resolve() if words else None


def _hidden(path: Path) -> bool:
    return any(path == hidden or hidden in path.parents for hidden in _HIDDEN)
