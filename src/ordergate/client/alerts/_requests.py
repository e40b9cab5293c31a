"""Request models of the alert tools, exactly as their captured input schemas allow.

``condition_type`` is text on the wire; the conditions in ``AlertCondition`` carry these
rules, each refusal a ``ValidationError`` located at the field (a condition the client does
not know is passed through for the venue to judge):

- a ``threshold`` only for conditions that compare with one, and then required on create
  (→ ``threshold``);
- an ``indicator`` only for indicator conditions, and then required on create
  (→ ``indicator``);
- ``update`` changes at least one thing (→ ``alert_id``);
- ``mark_read`` takes exactly one of ``alert_log_ids`` and ``all_through``
  (→ ``alert_log_ids``).
"""

from __future__ import annotations

from pydantic import StrictBool, model_validator

from ordergate.client._decimals import IntegralNumber, OptionalWireDecimal
from ordergate.client._fields import Instant, Int32, refuse
from ordergate.client._models import RequestModel
from ordergate.client.alerts._enums import AlertAssetClass, AlertCondition

__all__ = [
    "AlertIndicator",
    "AlertLogRequest",
    "AlertsRequest",
    "CreateAlertRequest",
    "DeleteAlertRequest",
    "MarkAlertsReadRequest",
    "UpdateAlertRequest",
]


class AlertIndicator(RequestModel):
    """The indicator an indicator alert watches, on bars of ``interval_secs`` seconds.
    ``std_dev`` is a JSON number on the wire, so only whole values can be sent."""

    interval_secs: Int32
    period: Int32 | None = None
    fast_period: Int32 | None = None
    slow_period: Int32 | None = None
    signal_period: Int32 | None = None
    ma_type: str | None = None
    std_dev: IntegralNumber | None = None


def _known(condition: str | None) -> AlertCondition | None:
    try:
        return None if condition is None else AlertCondition(condition)
    except ValueError:
        return None


def _check_fits(
    condition: AlertCondition,
    threshold: object,
    indicator: AlertIndicator | None,
    *,
    complete: bool,
) -> None:
    if threshold is not None and not condition.takes_threshold:
        raise refuse("threshold", f"{condition} alerts take no threshold", threshold)
    if indicator is not None and not condition.takes_indicator:
        raise refuse("indicator", f"{condition} alerts take no indicator")
    if complete and threshold is None and condition.takes_threshold:
        raise refuse("threshold", f"{condition} alerts need a threshold")
    if complete and indicator is None and condition.takes_indicator:
        raise refuse("indicator", f"{condition} alerts need an indicator")


class CreateAlertRequest(RequestModel):
    symbol: str
    condition_type: str
    threshold: OptionalWireDecimal = None
    asset_class: AlertAssetClass | None = None
    indicator: AlertIndicator | None = None

    @model_validator(mode="after")
    def _fits_condition(self) -> CreateAlertRequest:
        condition = _known(self.condition_type)
        if condition is not None:
            _check_fits(condition, self.threshold, self.indicator, complete=True)
        return self


class UpdateAlertRequest(RequestModel):
    alert_id: str
    condition_type: str | None = None
    threshold: OptionalWireDecimal = None
    indicator: AlertIndicator | None = None
    enabled: StrictBool | None = None

    @model_validator(mode="after")
    def _changes_something(self) -> UpdateAlertRequest:
        changes = (self.condition_type, self.threshold, self.indicator, self.enabled)
        if all(change is None for change in changes):
            raise refuse("alert_id", "give condition_type, threshold, indicator or enabled")
        condition = _known(self.condition_type)
        if condition is not None:
            # What is not given is kept from the alert, so nothing is required here.
            _check_fits(condition, self.threshold, self.indicator, complete=False)
        return self


class DeleteAlertRequest(RequestModel):
    """Without ``confirm=True`` the venue deletes nothing and asks for confirmation."""

    alert_id: str
    confirm: StrictBool | None = None


class AlertsRequest(RequestModel):
    symbol: str | None = None
    asset_class: AlertAssetClass | None = None
    cursor: str | None = None


class AlertLogRequest(RequestModel):
    since: Instant | None = None
    asset_class: AlertAssetClass | None = None
    limit: Int32 | None = None
    cursor: str | None = None


class MarkAlertsReadRequest(RequestModel):
    alert_log_ids: list[str] | None = None
    all_through: Instant | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> MarkAlertsReadRequest:
        if bool(self.alert_log_ids) == (self.all_through is not None):
            raise refuse("alert_log_ids", "give exactly one of alert_log_ids or all_through")
        return self
