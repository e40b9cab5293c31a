"""The policy file's ``[crypto]`` table, validated into a frozen ``CryptoPolicy``.

Without the table every crypto order is refused (``crypto_not_enabled``); with it, every key
is optional and takes the conservative default in ``CryptoPolicy``. As everywhere in the
policy an unknown key is refused by name (``crypto.max_order``), money is a string or an
integer (never a TOML float) and a bad value names its key. It lives beside the policy file's
parser (``ordergate.policy._config``) so that the config needs nothing of the crypto engine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from ordergate.core import ConfigError

__all__ = ["CRYPTO_KEYS", "CryptoPolicy", "CryptoRoute"]

CRYPTO_KEYS = frozenset(
    {
        "pairs",
        "max_order_usd",
        "max_daily_usd",
        "max_position_pct",
        "price_collar_bps",
        "route",
        "split_daily_budget",
    }
)
_PAIR = re.compile(r"[A-Z0-9]{1,12}-USD")
_MAX_BPS = 10_000


class CryptoRoute(StrEnum):
    """Which lane a crypto order goes to: ``auto`` (the MCP's when the account offers it,
    else the REST API's), or always one of them."""

    AUTO = "auto"
    MCP = "mcp"
    REST = "rest"


@dataclass(frozen=True, slots=True)
class CryptoPolicy:
    """``[crypto]``: what an agent may do with crypto. Dollar figures are USD.

    ``pairs`` (default none): the pairs that may be traded, in the venue's ``BTC-USD`` form.
    ``max_order_usd`` (100): one order's dollars, a size in units converted at the far side
    of the best bid and ask. ``max_daily_usd`` (``None``: ``[limits] max_daily_usd`` alone):
    crypto orders spend the one rolling 24 h dollar budget with equities; this caps that
    budget lower when the order is crypto. ``max_position_pct`` (20): one pair's holding
    after the order, percent of the account's equity (crypto included).
    ``price_collar_bps`` (300): a limit (or the price weighed) at most this far from the mid
    of the best bid and ask. ``route`` (``auto``): the lane (``CryptoRoute``).
    ``split_daily_budget`` (false): true takes crypto off the shared budget: crypto orders
    then spend ``max_daily_usd`` alone (which must be set), and equities and options no
    longer count them.
    """

    pairs: frozenset[str] = frozenset()
    max_order_usd: Decimal = Decimal(100)
    max_daily_usd: Decimal | None = None
    max_position_pct: Decimal = Decimal(20)
    price_collar_bps: int = 300
    route: CryptoRoute = CryptoRoute.AUTO
    split_daily_budget: bool = False

    def __post_init__(self) -> None:
        for pair in self.pairs:
            if not isinstance(pair, str) or not _PAIR.fullmatch(pair):
                raise ConfigError("crypto.pairs", f"{pair!r} is not a pair like BTC-USD")
        for key in ("max_order_usd", "max_daily_usd", "max_position_pct"):
            value = getattr(self, key)
            if value is None and key == "max_daily_usd":
                continue
            if not isinstance(value, Decimal) or not value.is_finite() or value <= 0:
                raise ConfigError(f"crypto.{key}", "must be a positive decimal")
        if self.max_position_pct > 100:
            raise ConfigError("crypto.max_position_pct", "must be at most 100 (percent)")
        bps = self.price_collar_bps
        if isinstance(bps, bool) or not isinstance(bps, int) or not 0 < bps <= _MAX_BPS:
            raise ConfigError(
                "crypto.price_collar_bps", f"must be an integer from 1 to {_MAX_BPS} (basis points)"
            )
        if not isinstance(self.split_daily_budget, bool):
            raise ConfigError("crypto.split_daily_budget", "must be true or false")
        if self.split_daily_budget and self.max_daily_usd is None:
            raise ConfigError("crypto.max_daily_usd", "is required when split_daily_budget is true")
        if not isinstance(self.route, CryptoRoute):
            raise ConfigError("crypto.route", f"must be one of {', '.join(CryptoRoute)}")
