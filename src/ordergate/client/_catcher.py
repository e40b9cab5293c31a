"""The loopback redirect catcher of RFC 8252 (OAuth 2.0 for Native Apps, §7.3).

A one-shot HTTP listener on 127.0.0.1 at a random port. The first request to its callback
path is *the* request: its query parameters are the authorization response, the browser gets
a short page, and the listener closes, so nothing else can ever be delivered to it. Requests
to other paths (a browser's ``/favicon.ico``) get a 404 meanwhile, and a connection that
never sends a request cannot hold it up: connections are served concurrently.
"""

from __future__ import annotations

import html
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from urllib.parse import parse_qs, urlsplit

import anyio
from anyio.abc import Listener, SocketAttribute, SocketStream

__all__ = ["Catcher", "catch_redirect"]

CALLBACK_PATH = "/callback"
_MAX_HEAD = 16 * 1024
# A browser sends its request right after connecting; a silent connection is dropped.
_READ_TIMEOUT_S = 10.0


class Catcher:
    """Where the authorization server sends the browser back, and what it carried."""

    def __init__(self, listener: Listener[SocketStream], *, port: int, name: str) -> None:
        self.redirect_uri = f"http://127.0.0.1:{port}{CALLBACK_PATH}"
        self._listener = listener
        self._name = name
        self._params: dict[str, str] | None = None
        self._arrived = anyio.Event()

    def __repr__(self) -> str:
        return f"Catcher({self.redirect_uri!r})"

    async def redirect(
        self, open_url: Callable[[str], Awaitable[None]], url: str, *, timeout_s: float
    ) -> dict[str, str] | None:
        """Serve while ``open_url(url)`` sends the person to sign in; the query parameters of
        the one redirect, or ``None`` if none came within ``timeout_s``. Then close."""
        failure: Exception | None = None
        async with anyio.create_task_group() as connections:
            connections.start_soon(self._listener.serve, self._handle, connections)
            # Nothing may be raised in here: a task group would wrap it in an ExceptionGroup.
            try:
                with anyio.move_on_after(timeout_s):
                    await open_url(url)
                    await self._arrived.wait()
            except Exception as error:
                failure = error
            connections.cancel_scope.cancel()
        await self._listener.aclose()  # also resyncs tracing after the cancelled join (3.11)
        if failure is not None:
            raise failure
        return self._params if self._arrived.is_set() else None

    async def _handle(self, stream: SocketStream) -> None:
        async with stream:
            try:
                with anyio.move_on_after(_READ_TIMEOUT_S):
                    head = await _read_head(stream)
                    await stream.send(
                        _page(431, "Too large", "Request too large.")
                        if head is None
                        else self._answer(head)
                    )
            except (OSError, anyio.BrokenResourceError, anyio.EndOfStream):
                pass  # the browser went away after asking; what it asked still counts
        if self._params is not None:
            # Only now: the page has been sent before the listener is torn down.
            self._arrived.set()

    def _answer(self, head: bytes) -> bytes:
        request_line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = request_line.split(" ")
        target = urlsplit(parts[1]) if len(parts) == 3 else None
        if (
            target is None
            or parts[0] != "GET"
            or target.path != CALLBACK_PATH
            or self._params is not None
        ):
            return _page(404, "Not found", "Nothing here.")
        self._params = {key: values[0] for key, values in parse_qs(target.query).items()}
        if "error" in self._params:
            return _page(
                400,
                f"{self._name}: sign-in not completed",
                f"Robinhood answered {self._params['error']}. You can close this tab.",
            )
        return _page(
            200,
            f"{self._name}: signed in",
            f"{self._name} is signed in to Robinhood. You can close this tab.",
        )


async def _read_head(stream: SocketStream) -> bytes | None:
    """The request line and headers; ``None`` when they run past ``_MAX_HEAD``."""
    head = b""
    while b"\r\n\r\n" not in head:
        head += await stream.receive(4096)
        if len(head) > _MAX_HEAD:
            return None
    return head


def _page(status: int, title: str, text: str) -> bytes:
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 431: "Too Large"}[status]
    body = (
        "<!doctype html><html><head><meta charset=utf-8>"
        f"<title>{html.escape(title)}</title></head>"
        f"<body><h1>{html.escape(title)}</h1><p>{html.escape(text)}</p></body></html>"
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Content-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Cache-Control: no-store\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    return head + body


@asynccontextmanager
async def catch_redirect(*, name: str) -> AsyncIterator[Catcher]:
    """A catcher bound to a random loopback port (so its ``redirect_uri`` can be registered
    before anything is served); ``name`` titles the page the browser lands on."""
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    async with listener:
        yield Catcher(listener, port=listener.extra(SocketAttribute.local_port), name=name)
