"""Which address a request comes from: the socket's peer, unless the operator named the proxy.

``X-Forwarded-For`` is whatever the sender wrote, so by default it is not read at all: the
per-IP limits count the socket's peer (uvicorn's own proxy-header rewriting, which trusts
127.0.0.1 — any local agent — is off in ``ordergate._serving``). Behind a reverse proxy the
operator names it (``ordergate serve --trusted-proxy ADDR``, an address or a network,
repeatable); a request whose peer is one of them is counted under the right-most
``X-Forwarded-For`` entry that is not itself a trusted proxy: the hop the trusted chain saw
first. Entries to the left of it were written by the client and are ignored. An entry that is
not an address stops the walk there and the last trusted hop is counted instead, so garbage
never makes a fresh client.

What the per-IP limits count is the client's **address class**, not the address
(``address_class``): any process on the machine can bind any of 127.0.0.0/8 (and ::1), so
every loopback address is one class, ``loopback``; otherwise an IPv4 address counts under its
/24 and an IPv6 address under its /64 (an IPv4-mapped IPv6 address as the IPv4 address it
maps), the blocks one party is commonly handed. Rotating addresses inside a class buys nothing.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any

from ordergate.core import ConfigError

__all__ = ["LOOPBACK", "TrustedProxies", "address_class"]

_Network = ipaddress.IPv4Network | ipaddress.IPv6Network
_Address = ipaddress.IPv4Address | ipaddress.IPv6Address

LOOPBACK = "loopback"
"""The one class of every loopback address (127.0.0.0/8 and ::1)."""


def address_class(host: str) -> str:
    """The class a client address is counted under: ``loopback`` for 127.0.0.0/8 and ::1,
    the /24 of any other IPv4 address, the /64 of any other IPv6 address; anything that is
    not an address (a Unix socket's peer, ``unknown``) as it is."""
    address = _address(host)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address is None:
        return host
    if address.is_loopback:
        return LOOPBACK
    prefix = 24 if address.version == 4 else 64
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))


def _address(text: str) -> _Address | None:
    """An ``X-Forwarded-For`` entry's address (``1.2.3.4``, ``1.2.3.4:5678``, ``2001:db8::1``,
    ``[2001:db8::1]:5678``), or ``None``."""
    text = text.strip(" \t")
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class TrustedProxies:
    """The proxies whose ``X-Forwarded-For`` is believed (none: the peer is always the client)."""

    networks: tuple[_Network, ...] = ()

    @classmethod
    def parse(cls, settings: Iterable[str]) -> TrustedProxies:
        """From ``--trusted-proxy`` values: addresses or networks (``10.0.0.0/8``). Raises
        ``ConfigError`` (key ``trusted-proxy``) naming one that is neither."""
        networks = []
        for setting in settings:
            try:
                networks.append(ipaddress.ip_network(setting.strip(), strict=False))
            except ValueError:
                raise ConfigError(
                    "trusted-proxy", f"{setting!r} is not an IP address or network"
                ) from None
        return cls(tuple(networks))

    def _trusted(self, address: _Address) -> bool:
        return any(address in network for network in self.networks)

    def client(self, scope: MutableMapping[str, Any]) -> str:
        """The address an ASGI request is counted under."""
        peer = scope.get("client")
        host = str(peer[0]) if peer else "unknown"
        if not self.networks:
            return host
        address = _address(host)
        if address is None or not self._trusted(address):
            return host
        hops = [
            value.decode("latin-1")
            for name, value in scope.get("headers", ())
            if name == b"x-forwarded-for"
        ]
        entries = [entry for entry in ",".join(hops).split(",") if entry.strip(" \t")]
        for entry in reversed(entries):
            hop = _address(entry)
            if hop is None:
                break  # not an address: count the last trusted hop, never a made-up client
            address = hop
            if not self._trusted(hop):
                break
        return str(address)

    def counted(self, scope: MutableMapping[str, Any]) -> str:
        """The address class (``address_class``) an ASGI request is counted under."""
        return address_class(self.client(scope))
