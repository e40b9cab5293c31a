"""The alert tools: price, percent-change and indicator alerts, and the log of fired alerts."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from decimal import Decimal

from ordergate.client._caller import Caller
from ordergate.client._models import parse_member, parse_model
from ordergate.client._pages import MAX_PAGES, walk_pages
from ordergate.client.alerts._enums import AlertAssetClass, AlertCondition
from ordergate.client.alerts._models import (
    Alert,
    AlertDeletion,
    AlertLogEntry,
    AlertLogPage,
    AlertsPage,
    MarkedRead,
)
from ordergate.client.alerts._requests import (
    AlertIndicator,
    AlertLogRequest,
    AlertsRequest,
    CreateAlertRequest,
    DeleteAlertRequest,
    MarkAlertsReadRequest,
    UpdateAlertRequest,
)

__all__ = ["AlertsClient"]

TOOL_ALERTS = "get_alerts"
TOOL_CREATE = "create_alert"
TOOL_UPDATE = "update_alert"
TOOL_DELETE = "delete_alert"
TOOL_LOG = "get_alert_log"
TOOL_MARK_READ = "mark_alerts_read"


class AlertsClient:
    """Typed alert tools. Every method raises a ``ToolError`` subclass on failure
    (``BusinessError`` for a venue refusal such as an unknown alert, ``ResponseParseError``
    for an unreadable answer) and ``pydantic.ValidationError`` (a ``ValueError``) naming the
    field for a bad request."""

    def __init__(self, caller: Caller) -> None:
        self._caller = caller

    async def alerts(
        self,
        *,
        symbol: str | None = None,
        asset_class: AlertAssetClass | str | None = None,
        cursor: str | None = None,
    ) -> AlertsPage:
        """One page of the user's alerts (``get_alerts``)."""
        request = AlertsRequest.model_validate(
            {"symbol": symbol, "asset_class": asset_class, "cursor": cursor}
        )
        data = await self._caller.call(TOOL_ALERTS, request.arguments())
        return parse_model(AlertsPage, data, tool=TOOL_ALERTS)

    async def iter_alerts(
        self,
        *,
        symbol: str | None = None,
        asset_class: AlertAssetClass | str | None = None,
        max_pages: int = MAX_PAGES,
    ) -> AsyncIterator[Alert]:
        """Every alert matching the filters, across pages (bounded: see ``walk_pages``)."""

        async def fetch(cursor: str | None) -> AlertsPage:
            return await self.alerts(symbol=symbol, asset_class=asset_class, cursor=cursor)

        async for page in walk_pages(fetch, tool=TOOL_ALERTS, max_pages=max_pages):
            for alert in page.alerts:
                yield alert

    async def create(
        self,
        symbol: str,
        condition_type: AlertCondition | str,
        *,
        threshold: Decimal | int | str | None = None,
        asset_class: AlertAssetClass | str | None = None,
        indicator: AlertIndicator | None = None,
    ) -> Alert:
        """A new alert on an equity or crypto symbol (``create_alert``)."""
        request = CreateAlertRequest.model_validate(
            {
                "symbol": symbol,
                "condition_type": condition_type,
                "threshold": threshold,
                "asset_class": asset_class,
                "indicator": indicator,
            }
        )
        data = await self._caller.call(TOOL_CREATE, request.arguments())
        return parse_member(Alert, data, "alert", tool=TOOL_CREATE)

    async def update(
        self,
        alert_id: str,
        *,
        condition_type: AlertCondition | str | None = None,
        threshold: Decimal | int | str | None = None,
        indicator: AlertIndicator | None = None,
        enabled: bool | None = None,
    ) -> Alert:
        """Change an alert, or enable or disable it (``update_alert``)."""
        request = UpdateAlertRequest.model_validate(
            {
                "alert_id": alert_id,
                "condition_type": condition_type,
                "threshold": threshold,
                "indicator": indicator,
                "enabled": enabled,
            }
        )
        data = await self._caller.call(TOOL_UPDATE, request.arguments())
        return parse_member(Alert, data, "alert", tool=TOOL_UPDATE)

    async def delete(self, alert_id: str, *, confirm: bool | None = None) -> AlertDeletion:
        """Delete an alert (``delete_alert``); without ``confirm=True`` the venue only shows
        it and asks for confirmation."""
        request = DeleteAlertRequest.model_validate({"alert_id": alert_id, "confirm": confirm})
        data = await self._caller.call(TOOL_DELETE, request.arguments())
        return parse_model(AlertDeletion, data, tool=TOOL_DELETE)

    async def log(
        self,
        *,
        since: datetime | None = None,
        asset_class: AlertAssetClass | str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> AlertLogPage:
        """One page of fired alerts, newest first (``get_alert_log``)."""
        request = AlertLogRequest.model_validate(
            {"since": since, "asset_class": asset_class, "limit": limit, "cursor": cursor}
        )
        data = await self._caller.call(TOOL_LOG, request.arguments())
        return parse_model(AlertLogPage, data, tool=TOOL_LOG)

    async def iter_log(
        self,
        *,
        since: datetime | None = None,
        asset_class: AlertAssetClass | str | None = None,
        limit: int | None = None,
        max_pages: int = MAX_PAGES,
    ) -> AsyncIterator[AlertLogEntry]:
        """Every fired alert matching the filters, newest first, across pages (bounded)."""

        async def fetch(cursor: str | None) -> AlertLogPage:
            return await self.log(since=since, asset_class=asset_class, limit=limit, cursor=cursor)

        async for page in walk_pages(fetch, tool=TOOL_LOG, max_pages=max_pages):
            for entry in page.entries:
                yield entry

    async def mark_read(
        self,
        *,
        alert_log_ids: Sequence[str] | None = None,
        all_through: datetime | None = None,
    ) -> MarkedRead:
        """Mark log entries read, by id or everything up to a time (``mark_alerts_read``)."""
        request = MarkAlertsReadRequest.model_validate(
            {"alert_log_ids": alert_log_ids, "all_through": all_through}
        )
        data = await self._caller.call(TOOL_MARK_READ, request.arguments())
        return parse_model(MarkedRead, data, tool=TOOL_MARK_READ)
