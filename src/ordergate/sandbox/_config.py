"""The sandbox venue's settings, validated once into a frozen config."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from ordergate.core import ClockMode, ConfigError
from ordergate.mcpserve import Framing
from ordergate.sandbox.venue import ACCOUNT_TYPES, OPTION_LEVELS

__all__ = ["DEFAULT_PORT", "SandboxConfig"]

DEFAULT_PORT = 8790
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_USER_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
MAX_USERS = 64


@dataclass(frozen=True, slots=True)
class SandboxConfig:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    seed: int = 0
    clock: ClockMode = ClockMode.REALTIME
    start: datetime | None = None
    speed: Decimal = Decimal(60)
    page_size: int = 20
    framing: Framing = Framing.JSON
    access_token_ttl: timedelta = timedelta(days=9)
    cash: Decimal = Decimal("100000.00")
    approval_required: bool = False
    account_type: str = "cash"
    """The agentic account's type: ``cash`` (multi-leg option orders refused) or ``margin``."""
    option_level: int = 2
    """The agentic account's option level: 1 (close, covered calls, cash-secured puts), 2 (one
    leg, buying to open too) or 3 (up to four legs: spreads; not on a cash account)."""
    admin: bool = True
    users: tuple[str, ...] = ()
    """Named users, each with their own accounts (the agentic one as set above) and a
    password drawn from the seed, who sign in on the venue's page with both. ``()``: the
    one unnamed user, who signs in with a click."""

    def __post_init__(self) -> None:
        # Accept the wire spelling of the enums ("sse", "stepped") and keep the enum.
        for key, kind in (("framing", Framing), ("clock", ClockMode)):
            try:
                object.__setattr__(self, key, kind(getattr(self, key)))
            except ValueError:
                choices = ", ".join(member.value for member in kind)
                raise ConfigError(key, f"must be one of {choices}") from None
        if self.host not in _LOOPBACK:
            raise ConfigError("host", "the sandbox venue listens on loopback only")
        if not 0 <= self.port <= 65535:
            raise ConfigError("port", "must be 0-65535 (0 picks a free port)")
        if self.page_size < 1:
            raise ConfigError("page_size", "must be at least 1")
        if self.access_token_ttl <= timedelta(0):
            raise ConfigError("access_token_ttl", "must be positive")
        if self.cash < 0:
            raise ConfigError("cash", "must not be negative")
        if self.account_type not in ACCOUNT_TYPES:
            raise ConfigError("account_type", f"must be one of {', '.join(ACCOUNT_TYPES)}")
        if isinstance(self.option_level, bool) or self.option_level not in OPTION_LEVELS:
            levels = ", ".join(str(level) for level in OPTION_LEVELS)
            raise ConfigError("option_level", f"must be one of {levels}")
        if self.speed <= 0:
            raise ConfigError("speed", "must be positive")
        if self.start is not None and self.start.tzinfo is None:
            raise ConfigError("start", "needs a timezone (e.g. 2026-11-30T14:30:00Z)")
        object.__setattr__(self, "users", tuple(self.users))
        if not all(isinstance(name, str) and _USER_NAME.fullmatch(name) for name in self.users):
            raise ConfigError("users", "each name is a-z first, then a-z, 0-9, _ or -, 32 at most")
        if len(set(self.users)) != len(self.users):
            raise ConfigError("users", "each name once")
        if len(self.users) > MAX_USERS:
            raise ConfigError("users", f"{MAX_USERS} at most")

    def base_url(self, port: int | None = None) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port if port is None else port}"
