"""Request models of the market-data tools, exactly as their captured input schemas allow."""

from __future__ import annotations

from pydantic import model_validator

from ordergate.client._fields import Instant, StrictInt, refuse
from ordergate.client._models import RequestModel
from ordergate.client.market._enums import AssetType, Bounds, Interval

__all__ = ["HistoricalsRequest", "IndexHistoricalsRequest", "SearchRequest"]


class HistoricalsRequest(RequestModel):
    """``get_equity_historicals``: nothing is defaulted here; what is unset is not sent."""

    symbols: list[str]
    start_time: Instant
    end_time: Instant | None = None
    interval: Interval | None = None
    bounds: Bounds | None = None
    adjustment_type: str | None = None

    @model_validator(mode="after")
    def _end_after_start(self) -> HistoricalsRequest:
        if self.end_time is not None and self.end_time <= self.start_time:
            raise refuse("end_time", "end_time must be after start_time", self.end_time)
        return self


class IndexHistoricalsRequest(RequestModel):
    """``get_index_historicals`` (the interval is required by its schema)."""

    instrument_ids: list[str]
    start_time: Instant
    interval: Interval
    end_time: Instant | None = None

    @model_validator(mode="after")
    def _end_after_start(self) -> IndexHistoricalsRequest:
        if self.end_time is not None and self.end_time <= self.start_time:
            raise refuse("end_time", "end_time must be after start_time", self.end_time)
        return self


class SearchRequest(RequestModel):
    """``search``: a query, optionally narrowed to one asset type, ``limit`` per kind."""

    query: str
    asset_type: AssetType | None = None
    limit: StrictInt | None = None
