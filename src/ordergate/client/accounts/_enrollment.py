"""Response models of the enrolment-link tools: margin, options level, crypto onboarding.

These tools change nothing: they report the account's standing and a robinhood.com link the
*account holder* must open. An agent shares the link; it cannot enrol on anyone's behalf.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ordergate.client._models import WireModel
from ordergate.client.equity._wire import NULL_AS_EMPTY

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
    eligible: bool
    enrolled: bool | None = None
    upgrade_url: str | None = None
    message: str | None = None


class OptionLevel(WireModel):
    option_level: str
    display_name: str | None = None
    strategies: Annotated[list[str], NULL_AS_EMPTY] = Field(default_factory=list)


class OptionLevelUpgradeInfo(WireModel):
    account_number: str
    brokerage_account_type: str | None = None
    current_option_level: str | None = None
    max_option_level: str | None = None
    eligible_for_upgrade: bool
    status: str | None = None
    available_upgrades: Annotated[list[OptionLevel], NULL_AS_EMPTY] = Field(default_factory=list)
    enrollment_url: str | None = None
    message: str | None = None


class CryptoAccount(WireModel):
    rhs_account_number: str
    brokerage_account_number: str | None = None
    state: str | None = None
    agentic_allowed: bool | None = None


class CryptoOnboardingInfo(WireModel):
    status: str | None = None
    onboarded: bool
    crypto_account: CryptoAccount | None = None
    onboarding_url: str | None = None
    message: str | None = None
