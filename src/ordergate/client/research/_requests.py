"""Request models of the research tools, exactly as their captured input schemas allow.

Allowed values the schemas state only in prose (periods, indicator types, filters) are passed
through as given: the venue refuses what it does not serve, naming the argument.
"""

from __future__ import annotations

from datetime import date

from pydantic import model_validator

from ordergate.client._decimals import IntegralNumber
from ordergate.client._fields import Instant, StrictInt, refuse
from ordergate.client._models import RequestModel
from ordergate.client.market._enums import Bounds, Interval

__all__ = [
    "EarningsCalendarRequest",
    "FactsCatalogRequest",
    "FinancialsRequest",
    "FundamentalsRequest",
    "NewsRequest",
    "PoliticianTradesRequest",
    "SecFilingIndexRequest",
    "SecFilingRequest",
    "TechnicalIndicatorsRequest",
]


class FundamentalsRequest(RequestModel):
    symbols: list[str]
    bounds: Bounds | None = None


class FinancialsRequest(RequestModel):
    symbols: list[str]
    period: str | None = None
    limit: StrictInt | None = None


class NewsRequest(RequestModel):
    symbol: str
    limit: StrictInt | None = None
    cursor: str | None = None


class EarningsCalendarRequest(RequestModel):
    start_date: date | None = None
    days: StrictInt | None = None
    filter: str | None = None


class PoliticianTradesRequest(RequestModel):
    equity_symbol: str | None = None
    politician_name: str | None = None


class TechnicalIndicatorsRequest(RequestModel):
    """``get_equity_technical_indicators``. ``num_std`` and ``multiplier`` are JSON numbers on
    the wire, so only whole values can be sent (see ``IntegralNumber``)."""

    symbol: str
    type: str
    interval: Interval
    start_time: Instant
    end_time: Instant | None = None
    bounds: Bounds | None = None
    method: str | None = None
    output: str | None = None
    adjustment_type: str | None = None
    period: StrictInt | None = None
    fast_period: StrictInt | None = None
    slow_period: StrictInt | None = None
    signal_period: StrictInt | None = None
    num_std: IntegralNumber | None = None
    multiplier: IntegralNumber | None = None

    @model_validator(mode="after")
    def _rules(self) -> TechnicalIndicatorsRequest:
        if self.end_time is not None and self.end_time <= self.start_time:
            raise refuse("end_time", "end_time must be after start_time", self.end_time)
        if (
            self.fast_period is not None
            and self.slow_period is not None
            and self.fast_period >= self.slow_period
        ):
            raise refuse("fast_period", "fast_period must be less than slow_period")
        return self


class SecFilingIndexRequest(RequestModel):
    symbol: str
    form_type: list[str] | None = None
    since: Instant | None = None
    until: Instant | None = None
    cursor: str | None = None

    @model_validator(mode="after")
    def _window(self) -> SecFilingIndexRequest:
        if self.since is not None and self.until is not None and self.since > self.until:
            raise refuse("since", "since must not be after until", self.since)
        return self


class SecFilingRequest(RequestModel):
    filing_id: str
    section: str | None = None


class FactsCatalogRequest(RequestModel):
    filing_id: str
    concept_contains: str | None = None
    axis_name_in: list[str] | None = None
    offset: StrictInt | None = None
