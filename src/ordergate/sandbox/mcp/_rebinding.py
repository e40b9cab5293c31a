"""DNS-rebinding protection for a loopback MCP server (MCP transports, "Security Warning").

A page on another site can make a browser resolve its own name to 127.0.0.1 and post to the
venue. Such a request still carries the attacker's name in ``Host`` (and its ``Origin``), so
the endpoint accepts only loopback names there: ``localhost``, ``127.0.0.1``, ``[::1]``, with
any port.
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["host_allowed", "origin_allowed"]

_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})


def _name(authority: str) -> str:
    authority = authority.strip().lower()
    if authority.startswith("["):
        end = authority.find("]")
        return authority[: end + 1] if end > 0 else authority
    return authority.split(":", 1)[0]


def host_allowed(host: bytes | None) -> bool:
    if not host:
        return False
    return _name(host.decode("latin-1")) in _LOOPBACK_NAMES


def origin_allowed(origin: bytes | None) -> bool:
    """No ``Origin`` (a non-browser client) is fine; a present one must be loopback http(s)."""
    if origin is None:
        return True
    parts = urlsplit(origin.decode("latin-1").strip())
    if parts.scheme not in ("http", "https"):
        return False
    return _name(parts.netloc) in _LOOPBACK_NAMES
