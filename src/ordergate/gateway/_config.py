"""``GatewayConfig``: where the gateway listens, what it calls itself, and its limits.

``public_url`` is the gateway's own URL as clients see it (the MCP resource is
``public_url + "/mcp"``); it defaults to ``http://<host>:<port>``. ``trusted_proxies`` names
the reverse proxies whose ``X-Forwarded-For`` the rate limits believe (``_proxies``);
``owner_socket`` is where the owner channel listens (the owner's commands; never on TCP). Bound
to anything but loopback, the gateway refuses to start until an owner is enrolled
(``ordergate owner init``): the consent page, which then asks for the owner code, must never
connect a stranger even to read.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta
from enum import StrEnum
from pathlib import Path

from ordergate.callers import CallerKey
from ordergate.core import ConfigError, Secret
from ordergate.gateway._proxies import TrustedProxies
from ordergate.gateway._seal import MIN_SECRET_LENGTH
from ordergate.gateway.keys import KeyProvider

__all__ = ["DEFAULT_PORT", "RATE_CLASSES", "Custody", "GatewayConfig", "RateLimits", "is_loopback"]

DEFAULT_PORT = 8787


class Custody(StrEnum):
    """Whose upstream session a connection acts on.

    ``owner``: the one session ``ordergate login`` (or the embedded sandbox) set up; each
    client the owner approves acts on it. ``sealed``: after approving, the person signs in at
    the upstream and the connection keeps that session of its own, sealed under a data key
    wrapped by the key provider's KEK (``ORDERGATE_MASTER_SECRET``'s, or a PKCS#11 token's).
    ``auto``: ``sealed`` for an upstream URL nobody has signed in to with ``ordergate login``,
    else ``owner``.
    """

    AUTO = "auto"
    OWNER = "owner"
    SEALED = "sealed"


RATE_CLASSES = (
    "register",
    "authorize",
    "token",
    "unauthenticated",
    "console",
    "owner",
    "mcp",
    "burst",
    "local",
    "local_burst",
)


@dataclass(frozen=True, slots=True)
class RateLimits:
    """The gateway's rate limits (``_limits`` per client IP, ``_budget`` per connection).

    Per client address class (every loopback address one; else a /24 or /64), requests a
    minute: ``register``, ``authorize``, ``token`` (the OAuth routes, which nobody is signed
    in to), ``unauthenticated`` (``/mcp`` and ``/api/…`` requests whose bearer token was
    refused), ``console`` (the owner's console, its static files aside) and ``owner`` (the
    owner's routes). Per connection: ``mcp`` calls a second on
    average, in bursts of up to ``burst`` — 4 and 8 by default, the pace Robinhood itself
    tolerates (about 4 calls a second passed; 8 a second drew ``RATE_LIMITED``). What the
    gateway answers itself, without the upstream (the handshake, the tool list from its
    cache, its own tools, paper reads of the book alone), spends a budget of its own:
    ``local`` calls a second in bursts of up to ``local_burst`` (20 and 60).
    """

    register: int = 3
    authorize: int = 10
    token: int = 10
    unauthenticated: int = 60
    console: int = 120
    owner: int = 60
    mcp: int = 4
    burst: int = 8
    local: int = 20
    local_burst: int = 60

    def __post_init__(self) -> None:
        for name in RATE_CLASSES:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"rate-limit {name}", "must be a whole number of requests ≥ 1")

    def overridden(self, settings: Sequence[str]) -> RateLimits:
        """These limits with ``CLASS=N`` settings applied (``mcp=10``). Raises
        ``ConfigError`` naming a setting that is malformed or names no class."""
        changes: dict[str, int] = {}
        classes = RATE_CLASSES
        for setting in settings:
            name, equals, value = setting.partition("=")
            name = name.strip()
            if not equals or name not in classes:
                raise ConfigError(
                    "rate-limit", f"{setting!r} is not CLASS=N (CLASS: {', '.join(classes)})"
                )
            try:
                changes[name] = int(value.strip())
            except ValueError:
                raise ConfigError(f"rate-limit {name}", "must be a whole number") from None
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class GatewayConfig:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    public_url: str = ""
    max_body: int = 8192
    limits: RateLimits = field(default_factory=RateLimits)
    access_ttl: timedelta = timedelta(hours=1)
    refresh_ttl: timedelta = timedelta(days=30)
    code_ttl: timedelta = timedelta(minutes=5)
    idle_erase: timedelta = timedelta(days=30)
    tools_cache: timedelta = timedelta(minutes=10)
    custody: Custody = Custody.AUTO
    master_secret: Secret | None = None
    key_provider: KeyProvider | None = None
    """Holds the key-encryption key that wraps each sealed connection's data key
    (``ordergate.gateway.keys``: ``--key-provider``); ``None``: the master secret's."""
    redis_url: str | None = None
    caller_key: CallerKey | None = None
    """The host's caller-token key; without it the gateway honours no caller token."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses or networks of reverse proxies whose ``X-Forwarded-For`` is believed
    (``--trusted-proxy``); none: the rate limits count the socket's peer."""
    public_record: bool = False
    """Serve the public record page (``/record``: hashed identities, counts, grades, ranks)."""
    owner_socket: Path | None = None
    """The owner channel's Unix socket (``--owner-socket``); ``None``: ``ORDERGATE_OWNER_SOCKET``,
    else ``$ORDERGATE_HOME/run/owner.sock`` (``ordergate.gateway.desk.owner_socket_path``)."""
    cimd_allow_private: bool = False
    """Fetch clients' metadata documents from private, loopback and link-local addresses too
    (``--cimd-allow-private``): only for clients on the owner's own network."""
    cimd_ca_file: Path | None = None
    """Trust the CAs in this PEM file, instead of the system's, for the TLS of clients'
    metadata documents (``--cimd-ca-file``)."""
    push_contact: str | None = None
    """On a hosted rail, send Web Push to the persons' phones with this contact as the VAPID
    ``sub`` (``--push-contact``: a ``mailto:`` or ``https:`` URI); ``None``: no pushes."""
    push_allow_private: bool = False
    """Accept push endpoints over http and on private, loopback and link-local addresses
    (``--push-allow-private``): only for a push service on the operator's own network."""

    def __post_init__(self) -> None:
        TrustedProxies.parse(self.trusted_proxies)  # a bad one is refused at startup
        if self.master_secret is not None and len(self.master_secret.reveal()) < MIN_SECRET_LENGTH:
            raise ConfigError(
                "ORDERGATE_MASTER_SECRET", f"must be at least {MIN_SECRET_LENGTH} characters"
            )
        if not 0 <= self.port <= 65535:
            raise ConfigError("port", "must be 0-65535 (0 picks a free port)")
        if self.public_url and not self.public_url.startswith(("http://", "https://")):
            raise ConfigError("public_url", "must be an http(s) URL")
        if self.push_contact is not None and not self.push_contact.startswith(
            ("mailto:", "https://")
        ):
            raise ConfigError("push_contact", "must be a mailto: or https:// URI")
        if self.cimd_ca_file is not None and not self.cimd_ca_file.is_file():
            raise ConfigError("cimd_ca_file", "must be a readable PEM file")
        if self.redis_url is not None and not self.redis_url.startswith(
            ("redis://", "rediss://", "unix://")
        ):
            raise ConfigError("redis", "must be a redis://, rediss:// or unix:// URL")

    def url_for(self, port: int) -> str:
        """The public URL once the listening port is known."""
        if self.public_url:
            return self.public_url.rstrip("/")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{port}"

    @property
    def proxies(self) -> TrustedProxies:
        return TrustedProxies.parse(self.trusted_proxies)

    @property
    def beyond_loopback(self) -> bool:
        """Whether the gateway listens beyond loopback (it then needs an enrolled owner)."""
        return not is_loopback(self.host)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
