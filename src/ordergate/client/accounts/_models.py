"""Response models of the account tools."""

from __future__ import annotations

from ordergate.client._decimals import Money, OptionalMoney
from ordergate.client._fields import WireBool
from ordergate.client._models import WireModel

__all__ = ["Account", "BuyingPower", "Portfolio", "TradeApprovalSetting"]


class Account(WireModel):
    account_number: str
    rhs_account_number: str | None = None
    type: str
    brokerage_account_type: str | None = None
    nickname: str | None = None
    is_default: WireBool = False
    agentic_allowed: WireBool
    option_level: str | None = None
    state: str | None = None
    deactivated: WireBool = False
    unsettled_funds: OptionalMoney = None


class BuyingPower(WireModel):
    buying_power: Money
    unleveraged_buying_power: Money
    display_currency: str | None = None


class Portfolio(WireModel):
    total_value: Money
    equity_value: Money
    options_value: Money
    crypto_value: Money
    cash: Money
    currency: str | None = None
    buying_power: BuyingPower | None = None


class TradeApprovalSetting(WireModel):
    account_number: str
    human_must_approve_trades: WireBool
    updated_at: str | None = None
