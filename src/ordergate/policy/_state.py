"""``AccountState``: everything the engine may look at besides the order, as plain values.

The caller (the Guard) assembles it for one evaluation: the account from the broker, the
rolling 24 h spend and op counts and the trading state from the ledger, the session from the
market calendar, the quote and tradability for the proposal's symbol, and ``now`` from its
injected clock. Every field may be missing (``None``); a check that needs a missing field
refuses with ``missing_data:<field>``. The engine never fetches anything itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from ordergate.core import Side
from ordergate.policy._config import MarketSession

__all__ = [
    "AccountState",
    "Cooldown",
    "OpenOrder",
    "Position",
    "Quote",
    "RecentOrders",
    "TradingState",
]


class TradingState(StrEnum):
    """As in NautilusTrader's risk engine. REDUCING and HALTED both let only orders that
    reduce a position through; HALTED is what the breakers and the operator set."""

    ACTIVE = "active"
    REDUCING = "reducing"
    HALTED = "halted"


@dataclass(frozen=True, slots=True)
class Position:
    """Signed quantity (negative = short) and signed market value in USD."""

    quantity: Decimal
    market_value: Decimal


@dataclass(frozen=True, slots=True)
class OpenOrder:
    """One of ordergate's own open orders: its remaining quantity (estimated for dollar
    orders). Pending sells count against what is held when deciding what "reduces"."""

    symbol: str
    side: Side
    quantity: Decimal


@dataclass(frozen=True, slots=True)
class Quote:
    """The quote for the proposal's symbol. Non-positive prices count as absent."""

    symbol: str
    bid: Decimal | None
    ask: Decimal | None
    last: Decimal | None
    as_of: datetime | None


@dataclass(frozen=True, slots=True)
class RecentOrders:
    """What the filer's recent accepted orders count, as the ledger reads them: the
    identity's and the account's in the rolling minute, and the identity's with the
    proposal's exact filed terms inside the policy's ``duplicate_window_s``."""

    identity_minute: int
    account_minute: int
    duplicates: int


@dataclass(frozen=True, slots=True)
class Cooldown:
    """What a cooldown counts from, as the ledger reads it: when a breaker was last found
    tripped (``None``: never), and when the filer's losing closed trades closed, oldest first
    (read only when the policy counts a ``loss_streak``)."""

    breaker_tripped_at: datetime | None
    losses: tuple[datetime, ...] = ()


@dataclass(frozen=True, slots=True)
class AccountState:
    """``buying_power`` is the broker's figure (it may include margin); ``cash`` is cash.
    ``unknown_broker_orders`` counts open orders at the broker that ordergate did not place.
    ``spent_24h`` is reserved plus filled notional in the rolling 24 h, ``orders_24h`` the
    op count there, both as the ledger reads them. ``tradable`` is for the quote's symbol.
    ``recent`` (stage A only) counts the filer's recent orders (``RecentOrders``).
    ``average_daily_volume`` is the quote's symbol's, in shares, over its recent sessions
    (read only when the policy sets ``max_adv_pct``). ``cooldown``: what the policy's
    ``[cooldown]`` counts from (``Cooldown``)."""

    now: datetime | None = None
    equity: Decimal | None = None
    high_water_mark: Decimal | None = None
    session_start_equity: Decimal | None = None
    cash: Decimal | None = None
    buying_power: Decimal | None = None
    positions: Mapping[str, Position] | None = None
    open_orders: tuple[OpenOrder, ...] | None = None
    unknown_broker_orders: int | None = None
    spent_24h: Decimal | None = None
    orders_24h: int | None = None
    trading_state: TradingState | None = None
    paused: bool | None = None
    session: MarketSession | None = None
    quote: Quote | None = None
    tradable: bool | None = None
    recent: RecentOrders | None = None
    average_daily_volume: Decimal | None = None
    cooldown: Cooldown | None = None
