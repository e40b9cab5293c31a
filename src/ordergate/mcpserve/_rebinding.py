"""DNS-rebinding protection for an MCP server (MCP transports, "Security Warning").

A page on another site can make a browser resolve its own name to the server's address and
post to it. Such a request still carries the attacker's name in ``Host`` (and its
``Origin``), so a server answers only names it knows: the loopback names (``localhost``,
``127.0.0.1``, ``[::1]``, any port) and, for a server with a public address, exactly that
address's host and port (``HostPolicy.for_url``). A request without ``Origin`` (not a
browser) is fine; one with an ``Origin`` must be a loopback origin or the server's own.

Both headers are parsed strictly (RFC 3986 §3.2.2–3.2.3, RFC 6454 §7) before anything is
compared, so nothing malformed is trimmed into a loopback name: an authority is a reg-name or
IPv4 address (letters, digits, ``.``, ``-``, ``_``), or one IPv6 address in brackets without
a zone, then optionally ``:`` and a port of 1–65535. ``[::1``, ``[::1]x``, ``[::1]:``,
``[::1]:99999``, ``[fe80::1%eth0]``, ``user@localhost`` and ``localhost:8787:1`` are all
refused; an ``Origin`` is ``scheme://authority`` and nothing more.

``HostCheck`` applies a policy to every route of an ASGI app (the gateway's and the venue's
OAuth endpoints, consent, metadata, metrics, broker and admin knobs); ``McpEndpoint`` applies
it itself when it is served alone.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

__all__ = ["HostCheck", "HostPolicy", "authority"]

_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_REG_NAME = re.compile(r"[a-z0-9._-]+")
_IPV6 = re.compile(r"[0-9a-f:.]+")
_PORT = re.compile(r"[0-9]{1,5}")
_ORIGIN = re.compile(r"(https?)://([^/?#]*)/?")

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def authority(text: str) -> tuple[str, int | None] | None:
    """``(host, port)`` of a ``Host``-style authority, the host lower-case (an IPv6 address
    in brackets, compressed), or ``None`` when ``text`` is not exactly one."""
    text = text.strip(" \t").lower()
    if text.startswith("["):
        end = text.find("]")
        inside, rest = text[1:end], text[end + 1 :]
        if end < 0 or _IPV6.fullmatch(inside) is None:
            return None  # unclosed, or a zone id ("%eth0"), an IPvFuture, a name
        try:
            host = f"[{ipaddress.IPv6Address(inside).compressed}]"
        except ValueError:
            return None
    else:
        host, colon, port_text = text.partition(":")
        rest = colon + port_text
        if _REG_NAME.fullmatch(host) is None:
            return None  # empty, userinfo ("@"), a path, a space, non-ASCII …
    if not rest:
        return host, None
    if rest[0] != ":" or _PORT.fullmatch(rest[1:]) is None or not 0 < int(rest[1:]) < 65536:
        return None
    return host, int(rest[1:])


def _spelled(host: str, port: int | None) -> str:
    return host if port is None else f"{host}:{port}"


@dataclass(frozen=True, slots=True)
class HostPolicy:
    """Which ``Host`` and ``Origin`` values the server answers.

    ``hosts`` are exact ``host[:port]`` authorities and ``origins`` exact ``scheme://host[:port]``
    origins accepted besides the loopback names (lower case, as ``authority`` spells them).
    ``speaker`` names the server in the refusal texts.
    """

    hosts: frozenset[str] = frozenset()
    origins: frozenset[str] = frozenset()
    speaker: str = "the server"

    @classmethod
    def for_url(cls, public_url: str, *, speaker: str = "the server") -> HostPolicy:
        """Loopback names plus the host and origin of ``public_url`` (``https://gw.example``
        also accepts ``gw.example:443``, the same address spelled with its default port)."""
        parts = urlsplit(public_url.strip())
        parsed = authority(parts.netloc.rpartition("@")[2]) if parts.hostname else None
        if parts.scheme not in _DEFAULT_PORTS or parsed is None:
            raise ValueError("the public URL must be an http(s) URL with a host")
        host, port = parsed
        default = _DEFAULT_PORTS[parts.scheme]
        spellings = {_spelled(host, port)}
        if port in (None, default):
            spellings |= {host, _spelled(host, default)}
        hosts = frozenset(spellings)
        origins = frozenset(f"{parts.scheme}://{spelling}" for spelling in spellings)
        return cls(hosts, origins, speaker)

    def host_allowed(self, host: bytes | None) -> bool:
        if not host:
            return False
        return _host_allowed(self.hosts, host)

    def origin_allowed(self, origin: bytes | None) -> bool:
        """No ``Origin`` (a non-browser client) is fine; a present one must be a loopback
        http(s) origin or one of ``origins``."""
        if origin is None:
            return True
        found = _ORIGIN.fullmatch(origin.decode("latin-1").strip(" \t").lower())
        parsed = authority(found.group(2)) if found is not None else None
        if found is None or parsed is None:
            return False
        return parsed[0] in _LOOPBACK_NAMES or f"{found.group(1)}://{_spelled(*parsed)}" in (
            self.origins
        )

    def refusal(self, headers: Iterable[tuple[bytes, bytes]]) -> tuple[int, bytes] | None:
        """``None`` when a request with these (ASGI, lower-case) headers may be answered, else
        the status and text to answer instead: 421 for its ``Host``, 403 for its ``Origin``.
        A request naming either twice is refused."""
        hosts: list[bytes] = []
        origins: list[bytes] = []
        for name, value in headers:
            if name == b"host":
                hosts.append(value)
            elif name == b"origin":
                origins.append(value)
        if len(hosts) != 1 or not self.host_allowed(hosts[0]):
            return 421, self.host_refusal
        if len(origins) > 1 or not self.origin_allowed(origins[0] if origins else None):
            return 403, self.origin_refusal
        return None

    @property
    def host_refusal(self) -> bytes:
        names = "its own host and loopback names" if self.hosts else "loopback names"
        return f"Host not allowed: {self.speaker} answers {names} only".encode()

    @property
    def origin_refusal(self) -> bytes:
        names = "its own origin and loopback origins" if self.origins else "loopback origins"
        return f"Origin not allowed: {self.speaker} answers {names} only".encode()


@functools.lru_cache(maxsize=256)  # every request names one of a few hosts: parse each once
def _host_allowed(hosts: frozenset[str], host: bytes) -> bool:
    parsed = authority(host.decode("latin-1"))
    if parsed is None:
        return False
    return parsed[0] in _LOOPBACK_NAMES or _spelled(*parsed) in hosts


class HostCheck:
    """ASGI middleware: ``policy`` checks every HTTP request's ``Host`` and ``Origin`` before
    ``app`` sees it (``HostPolicy.refusal``)."""

    def __init__(self, app: App, *, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refused = self.policy.refusal(scope["headers"])
            if refused is not None:
                status, text = refused
                headers = [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(text)).encode()),
                    (b"cache-control", b"no-store"),
                ]
                await send({"type": "http.response.start", "status": status, "headers": headers})
                await send({"type": "http.response.body", "body": text})
                return
        await self.app(scope, receive, send)
