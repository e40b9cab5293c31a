"""Response models of the alert tools.

Inventoried without an output schema: the models follow what the sandbox answers, keep every
field optional except identifiers, and keep unknown keys. Thresholds and triggering prices
follow the Decimal rules.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import Field

from ordergate.client._decimals import OptionalMoney
from ordergate.client._fields import NextCursor, NullableList, WireBool
from ordergate.client._models import WireModel

__all__ = [
    "Alert",
    "AlertDeletion",
    "AlertLogEntry",
    "AlertLogPage",
    "AlertsPage",
    "MarkedRead",
]


class Alert(WireModel):
    """An alert; a fired one is disabled until ``update(enabled=True)`` re-arms it."""

    id: str
    symbol: str | None = None
    asset_class: str | None = None
    condition_type: str | None = None
    threshold: OptionalMoney = None
    indicator: dict[str, Any] | None = None
    enabled: WireBool | None = None
    state: str | None = None
    trigger_count: int | None = None
    last_triggered_at: dt.datetime | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None


class AlertsPage(WireModel):
    alerts: NullableList[Alert] = Field(default_factory=list)
    next_cursor: NextCursor = None

    @property
    def next(self) -> str | None:
        return self.next_cursor


class AlertDeletion(WireModel):
    """``deleted`` is false and ``confirmation_required`` true until sent with confirm."""

    alert: Alert | None = None
    deleted: WireBool | None = None
    confirmation_required: WireBool | None = None


class AlertLogEntry(WireModel):
    """An alert that fired: the price (and compared value) that fired it, and whether read."""

    id: str
    alert_id: str | None = None
    symbol: str | None = None
    asset_class: str | None = None
    condition_type: str | None = None
    threshold: OptionalMoney = None
    triggered_price: OptionalMoney = None
    triggered_value: OptionalMoney = None
    triggered_at: dt.datetime | None = None
    message: str | None = None
    read: WireBool | None = None
    read_at: dt.datetime | None = None


class AlertLogPage(WireModel):
    """One page of the alert log, newest first."""

    entries: NullableList[AlertLogEntry] = Field(default_factory=list)
    next_cursor: NextCursor = None
    unread_count: int | None = None

    @property
    def next(self) -> str | None:
        return self.next_cursor


class MarkedRead(WireModel):
    marked_read: int | None = None
    unread_count: int | None = None
