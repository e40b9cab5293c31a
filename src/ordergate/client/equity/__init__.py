"""Typed equity trading tools: positions, tax lots, orders, tradability, review / place / cancel."""

from ordergate.client._orders import Amount, Approval, ApprovalLeg, PlaceResult, ProposedOrder
from ordergate.client.equity._client import EquityClient
from ordergate.client.equity._models import (
    AccountTypeTradability,
    EquityExecution,
    EquityOrder,
    EquityOrdersPage,
    EquityPosition,
    EquityPositionsPage,
    EquityReview,
    EquityTradability,
    OrderChecks,
    ReviewQuote,
    TaxLot,
    TaxLotsPage,
    TradabilityResult,
)
from ordergate.client.equity._requests import MAX_TAX_LOTS, EquityOrderRequest, TaxLotPick

__all__ = [
    "MAX_TAX_LOTS",
    "AccountTypeTradability",
    "Amount",
    "Approval",
    "ApprovalLeg",
    "EquityClient",
    "EquityExecution",
    "EquityOrder",
    "EquityOrderRequest",
    "EquityOrdersPage",
    "EquityPosition",
    "EquityPositionsPage",
    "EquityReview",
    "EquityTradability",
    "OrderChecks",
    "PlaceResult",
    "ProposedOrder",
    "ReviewQuote",
    "TaxLot",
    "TaxLotPick",
    "TaxLotsPage",
    "TradabilityResult",
]
