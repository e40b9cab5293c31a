"""The user's lists desk: watchlists, the option watchlist, price alerts and saved scans.

None of this moves money, so the desk has no orders to work. Its ``sync`` does one job:
it watches the enabled price alerts against the market and, when a price (or the day's
percent change) crosses an alert's threshold between two observations, logs the alert and
disarms it, as Robinhood's one-shot price alerts do. Indicator alerts are stored and listed
but never fire in the sandbox (it keeps no indicator state between syncs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ordergate.calendar import CalendarError
from ordergate.sandbox.market import MarketError
from ordergate.sandbox.venue._ids import stable_uuid

if TYPE_CHECKING:
    from ordergate.sandbox.venue._venue import Venue

__all__ = [
    "PRICE_CONDITIONS",
    "Alert",
    "AlertLogEntry",
    "Lists",
    "Observation",
    "OptionWatchItem",
    "Scan",
    "Watchlist",
    "WatchlistItem",
]

PRICE_CONDITIONS = frozenset(
    {"price_above", "price_below", "percent_change_above", "percent_change_below"}
)


@dataclass(frozen=True, slots=True)
class Observation:
    """A price and the reference close its day change is measured from."""

    price: Decimal
    previous_close: Decimal

    @property
    def percent_change(self) -> Decimal:
        if self.previous_close == 0:
            return Decimal(0)
        return ((self.price - self.previous_close) * 100 / self.previous_close).quantize(
            Decimal("0.01")
        )


# How the desk reads the market: (symbol, asset_class) → observation, or None if unpriced.
Observer = Callable[[str, str], Observation | None]


@dataclass(slots=True)
class WatchlistItem:
    object_type: str  # instrument | currency_pair | index
    object_id: str
    symbol: str
    name: str
    created_at: datetime


@dataclass(slots=True)
class Watchlist:
    id: str
    display_name: str
    display_description: str
    icon_emoji: str
    created_at: datetime
    updated_at: datetime
    items: list[WatchlistItem] = field(default_factory=list)

    def has(self, object_id: str) -> bool:
        return any(item.object_id == object_id for item in self.items)


@dataclass(slots=True)
class OptionWatchItem:
    option_id: str
    position_type: str
    created_at: datetime


@dataclass(slots=True)
class Alert:
    id: str
    symbol: str
    asset_class: str
    condition_type: str
    threshold: Decimal | None
    indicator: dict[str, Any] | None
    enabled: bool
    created_at: datetime
    updated_at: datetime
    # The value the threshold is compared with at the last observation (price or percent).
    last_value: Decimal | None = None
    triggered_at: datetime | None = None
    trigger_count: int = 0

    @property
    def is_price_alert(self) -> bool:
        return self.condition_type in PRICE_CONDITIONS

    @property
    def state(self) -> str:
        if self.enabled:
            return "active"
        return "triggered" if self.triggered_at is not None else "disabled"


@dataclass(slots=True)
class AlertLogEntry:
    id: str
    alert_id: str
    symbol: str
    asset_class: str
    condition_type: str
    threshold: Decimal | None
    price: Decimal
    value: Decimal
    triggered_at: datetime
    message: str
    read_at: datetime | None = None


@dataclass(slots=True)
class Scan:
    id: str
    title: str
    preset: str | None
    filters: list[dict[str, Any]]
    columns: list[dict[str, Any]]
    sorting_column: str
    sorting_direction: str
    created_at: datetime
    updated_at: datetime


def _crossed(condition: str, before: Decimal, after: Decimal, threshold: Decimal) -> bool:
    if condition.endswith("_above"):
        return before < threshold <= after
    return before > threshold >= after


def alert_value(condition: str, observation: Observation) -> Decimal:
    """What an alert of ``condition`` compares with its threshold."""
    if condition.startswith("percent_change"):
        return observation.percent_change
    return observation.price


def _describe(alert: Alert, observation: Observation) -> str:
    threshold = alert.threshold
    if alert.condition_type == "price_above":
        return f"{alert.symbol} rose above ${threshold} (last ${observation.price})."
    if alert.condition_type == "price_below":
        return f"{alert.symbol} fell below ${threshold} (last ${observation.price})."
    direction = "up" if alert.condition_type == "percent_change_above" else "down"
    return (
        f"{alert.symbol} is {direction} {observation.percent_change}% today, past your "
        f"{threshold}% alert (last ${observation.price})."
    )


def _market_observer(venue: Venue) -> Observer:
    """Observe through ``venue.market``: an equity's last trade against its previous close,
    a crypto pair's mark against its price 24 hours earlier."""

    def observe(symbol: str, asset_class: str) -> Observation | None:
        try:
            if asset_class == "crypto":
                pair = venue.market.crypto_quote(symbol)
                return Observation(pair.mark_price, pair.open_price)
            quote = venue.market.quote(symbol)
            return Observation(quote.last_trade_price, quote.previous_close)
        except (MarketError, CalendarError):
            return None

    return observe


class Lists:
    """Per-venue watchlists, option watchlist, alerts, alert log and scans."""

    def __init__(self, venue: Venue, observe: Observer | None = None) -> None:
        self._venue = venue
        self._observe = observe if observe is not None else _market_observer(venue)
        now = venue.now()
        default = Watchlist(
            id=stable_uuid("watchlist", venue.seed, *filter(None, [venue.user]), "default"),
            display_name="My First List",
            display_description="",
            icon_emoji="💡",
            created_at=now,
            updated_at=now,
        )
        self.watchlists: dict[str, Watchlist] = {default.id: default}
        self.followed: list[str] = []
        self.option_items: dict[str, OptionWatchItem] = {}
        self.alerts: dict[str, Alert] = {}
        self.alert_log: list[AlertLogEntry] = []
        self.scans: dict[str, Scan] = {}

    @classmethod
    def of(cls, venue: Venue) -> Lists:
        """The lists desk attached to ``venue`` (see ``build_desks``)."""
        for desk in venue.desks:
            if isinstance(desk, Lists):
                return desk
        raise LookupError("the venue has no lists desk; attach one in build_desks")

    def arm(self, alert: Alert) -> None:
        """Take the alert's starting point, so only a later crossing fires it."""
        alert.last_value = None
        if alert.is_price_alert:
            observation = self._observe(alert.symbol, alert.asset_class)
            if observation is not None:
                alert.last_value = alert_value(alert.condition_type, observation)

    def idle(self, now: datetime) -> bool:
        """Never: an alert may fire at any look (the engine carries no lists)."""
        return False

    def sync(self, now: datetime) -> None:
        """Fire every enabled price alert whose threshold was crossed since the last look."""
        for alert in self.alerts.values():
            if not (alert.enabled and alert.is_price_alert and alert.threshold is not None):
                continue
            observation = self._observe(alert.symbol, alert.asset_class)
            if observation is None:
                continue
            value = alert_value(alert.condition_type, observation)
            before, alert.last_value = alert.last_value, value
            if before is None or not _crossed(alert.condition_type, before, value, alert.threshold):
                continue
            alert.enabled = False
            alert.triggered_at = now
            alert.trigger_count += 1
            alert.updated_at = now
            self.alert_log.append(
                AlertLogEntry(
                    id=self._venue.ids.next("alert_log"),
                    alert_id=alert.id,
                    symbol=alert.symbol,
                    asset_class=alert.asset_class,
                    condition_type=alert.condition_type,
                    threshold=alert.threshold,
                    price=observation.price,
                    value=value,
                    triggered_at=now,
                    message=_describe(alert, observation),
                )
            )
