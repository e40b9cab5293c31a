"""Request models of the watchlist tools, exactly as their captured input schemas allow.

Cross-field rules (each refusal a ``ValidationError`` located at the field):

- ``update``: at least one of ``display_name``, ``display_description``, ``icon_emoji``
  (→ ``display_name``);
- ``add`` / ``remove``: at least one of ``symbols``, ``currency_pair_ids``, ``index_ids``
  (→ ``symbols``);
- option items: at least one option id (→ ``option_ids``).
"""

from __future__ import annotations

from pydantic import model_validator

from ordergate.client._fields import refuse
from ordergate.client._models import RequestModel
from ordergate.client.watchlists._enums import PositionType

__all__ = [
    "CreateWatchlistRequest",
    "OptionItemsRequest",
    "UpdateWatchlistRequest",
    "WatchlistItemsRequest",
]


class CreateWatchlistRequest(RequestModel):
    display_name: str
    display_description: str | None = None
    icon_emoji: str | None = None


class UpdateWatchlistRequest(RequestModel):
    list_id: str
    display_name: str | None = None
    display_description: str | None = None
    icon_emoji: str | None = None

    @model_validator(mode="after")
    def _changes_something(self) -> UpdateWatchlistRequest:
        changes = (self.display_name, self.display_description, self.icon_emoji)
        if all(change is None for change in changes):
            raise refuse(
                "display_name", "give display_name, display_description or icon_emoji to change"
            )
        return self


class WatchlistItemsRequest(RequestModel):
    """What ``add_to_watchlist`` / ``remove_from_watchlist`` take: equities by symbol, crypto
    pairs and indexes by id."""

    list_id: str
    symbols: list[str] | None = None
    currency_pair_ids: list[str] | None = None
    index_ids: list[str] | None = None

    @model_validator(mode="after")
    def _names_something(self) -> WatchlistItemsRequest:
        if not (self.symbols or self.currency_pair_ids or self.index_ids):
            raise refuse("symbols", "give at least one of symbols, currency_pair_ids or index_ids")
        return self


class OptionItemsRequest(RequestModel):
    """What ``add_option_to_watchlist`` / ``remove_option_from_watchlist`` take."""

    option_ids: list[str]
    position_type: PositionType | None = None

    @model_validator(mode="after")
    def _names_something(self) -> OptionItemsRequest:
        if not self.option_ids:
            raise refuse("option_ids", "give at least one option id")
        return self
