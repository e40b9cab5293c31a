"""DNS-rebinding protection for an MCP server (MCP transports, "Security Warning").

A page on another site can make a browser resolve its own name to the server's address and
post to it. Such a request still carries the attacker's name in ``Host`` (and its
``Origin``), so the endpoint answers only names it knows: the loopback names (``localhost``,
``127.0.0.1``, ``[::1]``, any port) and, for a server with a public address, exactly that
address's host and port (``HostPolicy.for_url``). A request without ``Origin`` (not a
browser) is fine; one with an ``Origin`` must be a loopback origin or the server's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["HostPolicy"]

_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _name(authority: str) -> str:
    authority = authority.strip().lower()
    if authority.startswith("["):
        end = authority.find("]")
        return authority[: end + 1] if end > 0 else authority
    return authority.split(":", 1)[0]


@dataclass(frozen=True, slots=True)
class HostPolicy:
    """Which ``Host`` and ``Origin`` values the endpoint answers.

    ``hosts`` are exact ``host[:port]`` authorities and ``origins`` exact ``scheme://host[:port]``
    origins accepted besides the loopback names (lower case). ``speaker`` names the server in
    the refusal texts.
    """

    hosts: frozenset[str] = frozenset()
    origins: frozenset[str] = frozenset()
    speaker: str = "the server"

    @classmethod
    def for_url(cls, public_url: str, *, speaker: str = "the server") -> HostPolicy:
        """Loopback names plus the host and origin of ``public_url`` (``https://gw.example``
        also accepts ``gw.example:443``, the same address spelled with its default port)."""
        parts = urlsplit(public_url.strip())
        if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
            raise ValueError("the public URL must be an http(s) URL with a host")
        netloc = parts.netloc.lower().rpartition("@")[2]
        hosts = {netloc}
        origins = {f"{parts.scheme}://{netloc}"}
        default = _DEFAULT_PORTS[parts.scheme]
        if parts.port is None:
            hosts.add(f"{netloc}:{default}")
            origins.add(f"{parts.scheme}://{netloc}:{default}")
        elif parts.port == default:
            bare = netloc.rsplit(":", 1)[0]
            hosts.add(bare)
            origins.add(f"{parts.scheme}://{bare}")
        return cls(frozenset(hosts), frozenset(origins), speaker)

    def host_allowed(self, host: bytes | None) -> bool:
        if not host:
            return False
        authority = host.decode("latin-1").strip().lower()
        return _name(authority) in _LOOPBACK_NAMES or authority in self.hosts

    def origin_allowed(self, origin: bytes | None) -> bool:
        """No ``Origin`` (a non-browser client) is fine; a present one must be a loopback
        http(s) origin or one of ``origins``."""
        if origin is None:
            return True
        text = origin.decode("latin-1").strip().lower()
        parts = urlsplit(text)
        if parts.scheme not in _DEFAULT_PORTS:
            return False
        return _name(parts.netloc) in _LOOPBACK_NAMES or text.rstrip("/") in self.origins

    @property
    def host_refusal(self) -> bytes:
        names = "its own host and loopback names" if self.hosts else "loopback names"
        return f"Host not allowed: {self.speaker} answers {names} only".encode()

    @property
    def origin_refusal(self) -> bytes:
        names = "its own origin and loopback origins" if self.origins else "loopback origins"
        return f"Origin not allowed: {self.speaker} answers {names} only".encode()
