"""Response models of the enrolment-link tools: margin, options level, crypto onboarding.

These tools change nothing: they report the account's standing and a robinhood.com link the
*account holder* must open. An agent shares the link; it cannot enrol on anyone's behalf.
"""

from __future__ import annotations

from pydantic import Field

from ordergate.client._fields import NullableList, WireBool
from ordergate.client._models import WireModel

__all__ = [
    "CryptoAccount",
    "CryptoOnboardingInfo",
    "MarginUpgradeInfo",
    "OptionLevel",
    "OptionLevelUpgradeInfo",
]


class MarginUpgradeInfo(WireModel):
    account_number: str
    account_type: str | None = None
    eligible: WireBool
    enrolled: WireBool | None = None
    upgrade_url: str | None = None
    message: str | None = None


class OptionLevel(WireModel):
    option_level: str
    display_name: str | None = None
    strategies: NullableList[str] = Field(default_factory=list)


class OptionLevelUpgradeInfo(WireModel):
    account_number: str
    brokerage_account_type: str | None = None
    current_option_level: str | None = None
    max_option_level: str | None = None
    eligible_for_upgrade: WireBool
    status: str | None = None
    available_upgrades: NullableList[OptionLevel] = Field(default_factory=list)
    enrollment_url: str | None = None
    message: str | None = None


class CryptoAccount(WireModel):
    rhs_account_number: str
    brokerage_account_number: str | None = None
    state: str | None = None
    agentic_allowed: WireBool | None = None


class CryptoOnboardingInfo(WireModel):
    status: str | None = None
    onboarded: WireBool
    crypto_account: CryptoAccount | None = None
    onboarding_url: str | None = None
    message: str | None = None
