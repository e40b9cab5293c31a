"""``RemoteDesk``: the owner's desk of a running gateway, reached over its owner channel.

The same acts as ``OwnerDesk``, with the same answers and the same ``DeskError`` refusals,
sent as JSON over the gateway's Unix socket (``_channel``). Before anything is sent on a
connection, ``open_channel`` checks that the socket is the real gateway's — nothing, a code
least of all, goes to a socket that fails:

- the socket file and every directory above it are owned by root or by the peer (the
  process that accepted the connection, by its ``SO_PEERCRED``), and the socket's own
  directory is writable by nobody else (a directory above may be world-writable only with
  the sticky bit, like ``/tmp``: nobody else can then move what is in it);
- the socket file's owner is the peer's uid.

``NoChannel``: no socket there, or nothing listening (no gateway runs); ``ChannelRefused``: a
socket that fails a check, with the reason.
"""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import quote

import h11

from ordergate.gateway.desk._channel import peer_uid
from ordergate.gateway.desk._errors import DeskError
from ordergate.gateway.desk._routes import OWNER_PREFIX
from ordergate.store import blocking

__all__ = ["ChannelRefused", "NoChannel", "RemoteDesk", "open_channel"]

_TIMEOUT_S = 120.0  # an approval runs the whole order path (review, place) before it answers
_MAX_ANSWER = 4 * 1024 * 1024
_WRITABLE_BY_OTHERS = stat.S_IWGRP | stat.S_IWOTH


class NoChannel(Exception):
    """No gateway serves an owner channel at the path (no socket, or nothing listening)."""


class ChannelRefused(Exception):
    """A socket at the path is not one the owner's commands may talk to; says why."""


def open_channel(path: Path, *, timeout_s: float = _TIMEOUT_S) -> socket.socket:
    """A connection to the owner channel at ``path``, checked (nothing sent yet). Raises
    ``NoChannel`` or ``ChannelRefused``."""
    try:
        real = Path(os.path.realpath(path))
        info = os.lstat(real)
    except FileNotFoundError:
        raise NoChannel(f"no owner channel at {path}") from None
    except OSError as error:
        raise ChannelRefused(f"{path} cannot be read ({error.strerror})") from None
    if not stat.S_ISSOCK(info.st_mode):
        raise ChannelRefused(f"{path} is not a socket")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout_s)
    try:
        try:
            sock.connect(str(real))
        except (ConnectionRefusedError, FileNotFoundError):
            raise NoChannel(f"nothing listens at {path}") from None
        except OSError as error:
            raise ChannelRefused(f"cannot connect to {path} ({error.strerror})") from None
        peer = peer_uid(sock)
        if peer is None:
            raise ChannelRefused("the peer's credentials cannot be read (SO_PEERCRED)")
        _check_path(real, peer)
    except BaseException:
        sock.close()
        raise
    return sock


def _check_path(real: Path, peer: int) -> None:
    """``ChannelRefused`` unless the socket ``real`` and the directories above it are the
    peer's or root's, and nobody else can write where it is."""
    trusted = {0, peer}
    info = os.lstat(real)
    if info.st_uid != peer:
        raise ChannelRefused(
            f"{real} belongs to uid {info.st_uid}, but the process serving it runs as uid {peer}"
        )
    directory = real.parent
    first = True
    while True:
        here = os.lstat(directory)
        if here.st_uid not in trusted:
            raise ChannelRefused(
                f"{directory} belongs to uid {here.st_uid}, neither root nor the gateway's "
                f"uid {peer}: another user could have put the socket there"
            )
        open_to_others = here.st_mode & _WRITABLE_BY_OTHERS
        if open_to_others and (first or not here.st_mode & stat.S_ISVTX):
            raise ChannelRefused(
                f"{directory} is writable by group or others (mode "
                f"{stat.S_IMODE(here.st_mode):04o}): another user could have put the socket there"
            )
        if directory.parent == directory:
            return
        directory, first = directory.parent, False


def _exchange(path: Path, method: str, target: str, body: bytes | None) -> tuple[int, bytes]:
    """One request on a fresh, checked connection: the status and the body of the answer."""
    sock = open_channel(path)
    with sock:
        connection = h11.Connection(our_role=h11.CLIENT)
        headers = [("host", "owner-channel"), ("connection", "close")]
        if body is not None:
            headers += [("content-type", "application/json"), ("content-length", str(len(body)))]
        # The whole request in one write: the gateway answers (and, ``connection: close``,
        # closes) as soon as it has read it, so a later write, even an empty one, could meet
        # a closed socket.
        request = connection.send(h11.Request(method=method, target=target, headers=headers))
        if body is not None:
            request += connection.send(h11.Data(data=body)) or b""
        request += connection.send(h11.EndOfMessage()) or b""
        sock.sendall(request)
        status, chunks, size = 0, [], 0
        while True:
            event = connection.next_event()
            if event is h11.NEED_DATA:
                connection.receive_data(sock.recv(65536))
                continue
            if isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                size += len(event.data)
                if size > _MAX_ANSWER:
                    raise DeskError(502, "bad_answer", "The gateway's answer is too long.")
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                return status, b"".join(chunks)


class RemoteDesk:
    """The desk of the gateway serving the owner channel at ``path``
    (``async with RemoteDesk(path) as desk:``). Each act is one request on a connection of
    its own, checked before anything is sent (``open_channel``)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    async def __aenter__(self) -> RemoteDesk:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        return None

    async def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        payload = None if method == "GET" else json.dumps(body or {}).encode()
        try:
            status, raw = await blocking(_exchange, self.path, method, OWNER_PREFIX + path, payload)
        except (NoChannel, ChannelRefused) as error:
            raise DeskError(502, "gateway_unreachable", f"{error}; nothing was sent.") from None
        except (OSError, h11.ProtocolError) as error:
            raise DeskError(
                502,
                "gateway_unreachable",
                f"No answer from the gateway at {self.path} ({type(error).__name__}).",
            ) from None
        try:
            answer = json.loads(raw)
        except ValueError:
            answer = None
        if status >= 400:
            error_body = answer.get("error") if isinstance(answer, dict) else None
            if isinstance(error_body, dict):
                raise DeskError(
                    status,
                    str(error_body.get("code", "refused")),
                    str(error_body.get("message", "The gateway refused the act.")),
                )
            raise DeskError(status, "refused", f"The gateway answered HTTP {status}.")
        if not isinstance(answer, dict):
            raise DeskError(502, "bad_answer", "The gateway's answer was not JSON.")
        return answer

    async def status(self) -> dict[str, Any]:
        return dict(await self._call("GET", "/status"))

    async def approvals(self) -> list[dict[str, Any]]:
        return list((await self._call("GET", "/approvals"))["approvals"])

    async def connections(self) -> list[dict[str, Any]]:
        return list((await self._call("GET", "/connections"))["connections"])

    async def deny(self, approval_id: str) -> dict[str, Any]:
        return dict(await self._call("POST", f"/approvals/{approval_id}/deny"))

    async def pause(
        self, reason: str, *, cancel_open: bool = False, connection_id: str | None = None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"reason": reason, "cancel_open": cancel_open}
        if connection_id is not None:
            body["connection_id"] = connection_id
        return dict(await self._call("POST", "/pause", body))

    async def revoke(self, connection_id: str) -> dict[str, Any]:
        # A caller mint's id is ``caller:NAME#MINT``: "#" would end the path.
        return dict(await self._call("POST", f"/connections/{quote(connection_id)}/revoke"))

    async def connection_limits(self, connection_id: str) -> list[dict[str, Any]]:
        answer = await self._call("GET", f"/connections/{quote(connection_id)}/limits")
        return list(answer["limits"])

    async def tighten_limits(self, connection_id: str, limits: object) -> dict[str, Any]:
        path = f"/connections/{quote(connection_id)}/limits"
        return dict(await self._call("POST", path, {"limits": limits}))

    async def approval_mode(self, connection_id: str, on: bool) -> dict[str, Any]:
        path = f"/connections/{quote(connection_id)}/approval-mode"
        return dict(await self._call("POST", path, {"approval_mode": on}))

    async def prepare(self, act: str, params: dict[str, Any]) -> dict[str, Any]:
        return dict(await self._call("POST", "/prepare", {"act": act, "params": params}))

    async def authorize_act(self, act_id: str, digest: str, code: str | None) -> dict[str, Any]:
        body = {"act_id": act_id, "digest": digest, "owner_code": code}
        return dict(await self._call("POST", "/authorize", body))

    async def pending_acts(self) -> list[dict[str, Any]]:
        return list((await self._call("GET", "/delayed"))["delayed"])

    async def cancel_delayed(self, act_id: str | None) -> dict[str, Any]:
        return dict(await self._call("POST", "/delayed/cancel", {"id": act_id}))
