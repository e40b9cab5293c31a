"""Typed alert tools: price, percent-change and indicator alerts, and the alert log."""

from ordergate.client.alerts._client import AlertsClient
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

__all__ = [
    "Alert",
    "AlertAssetClass",
    "AlertCondition",
    "AlertDeletion",
    "AlertIndicator",
    "AlertLogEntry",
    "AlertLogPage",
    "AlertLogRequest",
    "AlertsClient",
    "AlertsPage",
    "AlertsRequest",
    "CreateAlertRequest",
    "DeleteAlertRequest",
    "MarkAlertsReadRequest",
    "MarkedRead",
    "UpdateAlertRequest",
]
