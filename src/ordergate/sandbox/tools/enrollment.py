"""Enrolment-link tools: where a person upgrades their options level or opens a crypto account.

Both are ``enroll_link`` tools: they change nothing and move no money; they answer with the
account's current standing and a robinhood.com link the *person* must open, because Robinhood
keeps these agreements (options risk disclosures, crypto terms) out of an agent's reach.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from ordergate.sandbox.tools._registry import tool

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Account, Venue

__all__ = ["get_crypto_account_onboarding_info", "get_option_level_upgrade_info"]

_OPTION_LEVELS: dict[str, tuple[str, tuple[str, ...]]] = {
    "option_level_1": ("Level 1", ("covered_call", "cash_secured_put")),
    "option_level_2": ("Level 2", ("long_call", "long_put")),
    "option_level_3": ("Level 3", ("call_debit_spread", "put_credit_spread", "iron_condor")),
}
# Retirement accounts cannot hold spreads, so Robinhood caps them at level 2.
_MAX_LEVEL = {"ira_roth": "option_level_2", "ira_traditional": "option_level_2"}
_TOP_LEVEL = "option_level_3"


def _level_entry(level: str) -> dict[str, Any]:
    display_name, strategies = _OPTION_LEVELS[level]
    return {"option_level": level, "display_name": display_name, "strategies": list(strategies)}


def _enrol_url(path: str, **query: str) -> str:
    suffix = f"?{urlencode(query)}" if query else ""
    return f"https://robinhood.com/{path}{suffix}"


@tool(
    "get_option_level_upgrade_info",
    description=(
        "Show an account's options trading level, the levels it could move up to, and the "
        "robinhood.com link where the account holder applies for an upgrade."
    ),
    guide=(
        "An options level upgrade is an application the account holder completes on "
        "robinhood.com; share enrollment_url with them. The agent cannot apply on their behalf."
    ),
)
def get_option_level_upgrade_info(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    account: Account = venue.accounts.get(args["account_number"])
    levels = list(_OPTION_LEVELS)
    current = account.option_level if account.option_level in _OPTION_LEVELS else levels[0]
    ceiling = _MAX_LEVEL.get(account.brokerage_account_type, _TOP_LEVEL)
    available = levels[levels.index(current) + 1 : levels.index(ceiling) + 1]
    eligible = bool(available)
    return {
        "account_number": account.account_number,
        "brokerage_account_type": account.brokerage_account_type,
        "current_option_level": current,
        "max_option_level": ceiling,
        "eligible_for_upgrade": eligible,
        "status": "upgrade_available" if eligible else "at_max_level",
        "available_upgrades": [_level_entry(level) for level in available],
        "enrollment_url": _enrol_url(
            "account/investing/options/upgrade", account_number=account.account_number
        )
        if eligible
        else None,
        "message": (
            f"This account can apply for {_OPTION_LEVELS[available[0]][0]} options trading."
            if eligible
            else "This account already has the highest options level it can hold."
        ),
    }


@tool(
    "get_crypto_account_onboarding_info",
    description=(
        "Show whether the user's Robinhood Crypto account is open, its rhs_account_number, and "
        "the robinhood.com link where the account holder completes crypto onboarding."
    ),
    guide=(
        "Crypto onboarding is completed by the account holder on robinhood.com. Use the "
        "rhs_account_number shown here with the crypto tools."
    ),
)
def get_crypto_account_onboarding_info(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    account = venue.accounts.agentic
    return {
        "status": "approved",
        "onboarded": True,
        "crypto_account": {
            "rhs_account_number": account.rhs_account_number,
            "brokerage_account_number": account.account_number,
            "state": "active",
            "agentic_allowed": account.agentic_allowed,
        },
        "onboarding_url": _enrol_url("crypto/onboarding"),
        "message": "The Robinhood Crypto account is open and can trade.",
    }
