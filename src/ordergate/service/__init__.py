"""Running the gateway as its own OS user, so the agent's user cannot read its secrets.

``ServiceUnit`` is the systemd unit (one template, package data: ``ordergate service install
--print`` shows it); ``install`` writes it with a root-only secrets file and creates the
dedicated system user and its 0700 home (``ordergate service install``); its owner channel is
``OWNER_SOCKET``. The container
image (``deploy/Dockerfile``) is the other supported way.
"""

from ordergate.service._install import Installed, ServiceError, install, require_root
from ordergate.service._unit import (
    DEFAULT_HOME,
    DEFAULT_USER,
    ENVIRONMENT_FILE,
    OWNER_SOCKET,
    UNIT_PATH,
    ServiceUnit,
    installed_executable,
)

__all__ = [
    "DEFAULT_HOME",
    "DEFAULT_USER",
    "ENVIRONMENT_FILE",
    "OWNER_SOCKET",
    "UNIT_PATH",
    "Installed",
    "ServiceError",
    "ServiceUnit",
    "install",
    "installed_executable",
    "require_root",
]
