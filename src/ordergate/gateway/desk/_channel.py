"""The owner channel: the owner's desk served on a Unix socket only the gateway can own.

The agent runs on the owner's machine and can bind any free loopback port (8787 while the
gateway restarts), so an owner route on TCP can be impersonated and the owner's code
collected. A Unix socket cannot, when it lives in a directory only the gateway's OS user (or
root) can write: nobody else can put a socket there, and the command line checks the peer's
credentials before it sends anything (``_remote``).

- ``owner_socket_path``: ``ORDERGATE_OWNER_SOCKET``, else ``$ORDERGATE_HOME/run/owner.sock``
  (the systemd unit sets ``/run/ordergate/owner.sock``, its ``RuntimeDirectory``).
- ``bind_owner_socket``: the directory is made 0700 when missing; one that exists must be
  the gateway user's and writable by nobody else (0750 lets its group connect); the socket
  is 0660 in it.
- ``channel_app``: the owner routes behind ``PeerCheck``: served are the gateway's own uid,
  root, and, when the directory lets its group in, that group's members; any other peer is
  refused (403 ``peer_refused``) and journalled. Each peer uid has its own rate class
  (``PEER_LIMIT`` requests a minute, 429 ``rate_limited``), so a flood cannot tie the
  gateway up; codes checked here are from the ``OWNER_CHANNEL`` source (its own lockout,
  never the global one).
- ``PeerProtocol``: uvicorn's h11 protocol with the peer's credentials (``SO_PEERCRED``,
  Linux) as the request's client: ``("uid", UID)``; a peer whose credentials cannot be read
  is never served.
"""

from __future__ import annotations

import asyncio
import contextlib
import grp
import json
import logging
import os
import pwd
import socket
import stat
import struct
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from ordergate._serving import _Server
from ordergate.core import Clock, ConfigError, RealtimeClock, ensure_private_dir
from ordergate.gateway._limits import MemoryCounter
from ordergate.gateway.desk._desk import OwnerDesk
from ordergate.gateway.desk._errors import DeskError
from ordergate.gateway.desk._routes import owner_routes
from ordergate.owner import OWNER_CHANNEL, acting_from
from ordergate.store import blocking

__all__ = [
    "ENV_OWNER_SOCKET",
    "PEER_LIMIT",
    "ChannelServer",
    "PeerCheck",
    "PeerProtocol",
    "bind_owner_socket",
    "channel_app",
    "owner_socket_path",
    "peer_uid",
]

logger = logging.getLogger(__name__)

ENV_OWNER_SOCKET = "ORDERGATE_OWNER_SOCKET"
PEER_LIMIT = 120
"""Requests a minute one peer uid may make on the owner channel."""
_PEER = "uid"
_WRITABLE_BY_OTHERS = stat.S_IWGRP | stat.S_IWOTH


def owner_socket_path(home: Path, environ: Mapping[str, str] | None = None) -> Path:
    """Where the owner channel is: ``ORDERGATE_OWNER_SOCKET``, else ``home/run/owner.sock``."""
    given = (os.environ if environ is None else environ).get(ENV_OWNER_SOCKET)
    return Path(given) if given else home / "run" / "owner.sock"


def peer_uid(sock: Any) -> int | None:
    """The uid of the process at the other end of a connected Unix socket (``SO_PEERCRED``),
    or ``None`` where the credentials cannot be read."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    except OSError:
        return None
    _pid, uid, _gid = struct.unpack("3i", raw)
    return int(uid)


def bind_owner_socket(path: Path) -> socket.socket:
    """A listening Unix socket at ``path``. Raises ``ConfigError`` when its directory is
    another user's or writable by group or others (a socket there could be someone else's)."""
    if not hasattr(socket, "SO_PEERCRED"):
        raise ConfigError(
            "owner_socket", "the owner channel needs SO_PEERCRED (Linux) to know its peers"
        )
    directory = path.parent
    try:
        ensure_private_dir(directory)  # 0700, and so is each missing parent
        info = directory.stat()
    except OSError as error:
        raise ConfigError(
            "owner_socket", f"cannot make {directory}: {error.strerror or error}"
        ) from None
    if info.st_uid != os.geteuid():
        raise ConfigError("owner_socket", f"{directory} belongs to another user")
    if info.st_mode & _WRITABLE_BY_OTHERS:
        raise ConfigError(
            "owner_socket",
            f"{directory} is writable by group or others (mode "
            f"{stat.S_IMODE(info.st_mode):04o}): chmod 750 {directory}",
        )
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a socket left by a gateway that stopped: in our own directory
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
        path.chmod(0o660)
        sock.listen(64)
    except OSError as error:
        sock.close()
        raise ConfigError(
            "owner_socket", f"cannot listen at {path}: {error.strerror or error}"
        ) from None
    return sock


class PeerProtocol(H11Protocol):
    """uvicorn's h11 protocol; each request's client is ``("uid", UID)`` of its peer (or
    ``("uid", -1)`` when the peer's credentials cannot be read)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        uid = peer_uid(transport.get_extra_info("socket"))
        self.client = (_PEER, -1 if uid is None else uid)


class PeerCheck:
    """Serves ``app`` to the peers the owner channel admits, each within its rate class."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        directory: Path,
        desk: OwnerDesk,
        clock: Clock | None = None,
        limit: int = PEER_LIMIT,
    ) -> None:
        self._app = app
        self._directory = directory
        self._desk = desk
        self._clock = clock or RealtimeClock()
        self._limit = limit
        self._counter = MemoryCounter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        client = scope.get("client") or ("", -1)
        uid = int(client[1]) if client[0] == _PEER else -1
        window = int(self._clock.now().timestamp() // 60)
        if await self._counter.hit(str(uid), window) > self._limit:
            refusal = DeskError(429, "rate_limited", "Too many requests on the owner channel.")
            await _send(send, refusal)
            return
        if not self._admits(uid):
            await blocking(self._journal, uid, str(scope.get("path", "")))
            refusal = DeskError(403, "peer_refused", "This user may not use the owner channel.")
            await _send(send, refusal)
            return
        # Codes typed here are the owner's own channel's: its failures lock only it, and a
        # stranger's wrong codes elsewhere (the consent page) never lock it.
        with acting_from(OWNER_CHANNEL):
            await self._app(scope, receive, send)

    def _admits(self, uid: int) -> bool:
        if uid < 0:
            return False
        if uid in (0, os.geteuid()):
            return True
        try:
            info = self._directory.stat()
        except OSError:
            return False
        if not info.st_mode & stat.S_IXGRP:
            return False
        return info.st_gid in _groups_of(uid)

    def _journal(self, uid: int, path: str) -> None:
        logger.warning("the owner channel refused a peer of uid %d", uid)
        self._desk.ledger.journal.append(
            identity="unverified",
            kind="owner_peer_refused",
            why=f"the owner channel refused a peer of uid {uid}",
            detail={"uid": uid, "path": path[:200]},
        )


def _groups_of(uid: int) -> set[int]:
    try:
        account = pwd.getpwuid(uid)
    except KeyError:
        return set()
    groups = {account.pw_gid}
    groups.update(g.gr_gid for g in grp.getgrall() if account.pw_name in g.gr_mem)
    return groups


async def _send(send: Send, error: DeskError) -> None:
    body = json.dumps(error.as_json()).encode()
    await send(
        {
            "type": "http.response.start",
            "status": error.status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"cache-control", b"no-store"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def channel_app(desk: OwnerDesk, *, directory: Path, clock: Clock | None = None) -> ASGIApp:
    """The owner routes as the owner channel serves them (behind ``PeerCheck``)."""
    return PeerCheck(
        Starlette(routes=owner_routes(desk)), directory=directory, desk=desk, clock=clock
    )


class ChannelServer(_Server):
    """The owner channel's server: uvicorn over ``PeerProtocol``, in the gateway's own event
    loop beside its TCP server, which owns the process's signals."""

    def __init__(self, app: ASGIApp) -> None:
        super().__init__(
            uvicorn.Config(
                app,
                log_level="warning",
                access_log=False,
                lifespan="off",
                proxy_headers=False,
                http=PeerProtocol,
            )
        )

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield
