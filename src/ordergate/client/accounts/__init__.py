"""Typed account tools: accounts, portfolio, trade approval, realised P&L, enrolment links."""

from ordergate.client.accounts._client import AccountsClient
from ordergate.client.accounts._enrollment import (
    CryptoAccount,
    CryptoOnboardingInfo,
    MarginUpgradeInfo,
    OptionLevel,
    OptionLevelUpgradeInfo,
)
from ordergate.client.accounts._models import Account, BuyingPower, Portfolio, TradeApprovalSetting
from ordergate.client.accounts._pnl import AssetClassPnl, ClosedTrade, PnlTradesPage, RealizedPnl

__all__ = [
    "Account",
    "AccountsClient",
    "AssetClassPnl",
    "BuyingPower",
    "ClosedTrade",
    "CryptoAccount",
    "CryptoOnboardingInfo",
    "MarginUpgradeInfo",
    "OptionLevel",
    "OptionLevelUpgradeInfo",
    "PnlTradesPage",
    "Portfolio",
    "RealizedPnl",
    "TradeApprovalSetting",
]
