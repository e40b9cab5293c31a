"""Wire vocabulary of the alert tools; each value is the string on the wire."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["AlertAssetClass", "AlertCondition"]


class AlertAssetClass(StrEnum):
    EQUITY = "equity"
    CRYPTO = "crypto"


class AlertCondition(StrEnum):
    """What an alert watches. Price and percent-change conditions take a ``threshold``;
    RSI conditions a threshold and an indicator; the crosses an indicator only."""

    PRICE_ABOVE = "price_above"
    PRICE_BELOW = "price_below"
    PERCENT_CHANGE_ABOVE = "percent_change_above"
    PERCENT_CHANGE_BELOW = "percent_change_below"
    RSI_ABOVE = "rsi_above"
    RSI_BELOW = "rsi_below"
    MOVING_AVERAGE_CROSS_ABOVE = "moving_average_cross_above"
    MOVING_AVERAGE_CROSS_BELOW = "moving_average_cross_below"
    MACD_CROSS_ABOVE = "macd_cross_above"
    MACD_CROSS_BELOW = "macd_cross_below"
    BOLLINGER_CROSS_ABOVE = "bollinger_cross_above"
    BOLLINGER_CROSS_BELOW = "bollinger_cross_below"

    @property
    def takes_threshold(self) -> bool:
        return self not in _CROSSES

    @property
    def takes_indicator(self) -> bool:
        return self not in _PRICE


_PRICE = frozenset(
    {
        AlertCondition.PRICE_ABOVE,
        AlertCondition.PRICE_BELOW,
        AlertCondition.PERCENT_CHANGE_ABOVE,
        AlertCondition.PERCENT_CHANGE_BELOW,
    }
)
_CROSSES = frozenset(
    {
        AlertCondition.MOVING_AVERAGE_CROSS_ABOVE,
        AlertCondition.MOVING_AVERAGE_CROSS_BELOW,
        AlertCondition.MACD_CROSS_ABOVE,
        AlertCondition.MACD_CROSS_BELOW,
        AlertCondition.BOLLINGER_CROSS_ABOVE,
        AlertCondition.BOLLINGER_CROSS_BELOW,
    }
)
