"""Typed crypto tools (24/7): pairs, quotes, holdings, orders, preview / place / cancel."""

from ordergate.client.crypto._client import CryptoClient
from ordergate.client.crypto._models import (
    CryptoExecution,
    CryptoOrder,
    CryptoOrderChecks,
    CryptoOrdersPage,
    CryptoPosition,
    CryptoPositionsPage,
    CryptoPreview,
    CryptoQuote,
    CryptoQuotes,
    Currency,
    CurrencyPair,
    CurrencyPairsPage,
)
from ordergate.client.crypto._requests import CryptoOrderRequest

__all__ = [
    "CryptoClient",
    "CryptoExecution",
    "CryptoOrder",
    "CryptoOrderChecks",
    "CryptoOrderRequest",
    "CryptoOrdersPage",
    "CryptoPosition",
    "CryptoPositionsPage",
    "CryptoPreview",
    "CryptoQuote",
    "CryptoQuotes",
    "Currency",
    "CurrencyPair",
    "CurrencyPairsPage",
]
