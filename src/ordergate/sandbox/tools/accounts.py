"""Account tools: ``get_accounts``, ``get_portfolio``, ``get_trade_approval_setting``,
``get_limited_margin_upgrade_info``.

The portfolio adds up every desk that values positions: a desk contributes by exposing
``portfolio_values(account_number) -> {"equity_value": …, "crypto_value": …}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ordergate.core import ZERO, wire_money, wire_time
from ordergate.sandbox.tools._registry import tool
from ordergate.sandbox.venue._accounts import Account

if TYPE_CHECKING:
    from ordergate.sandbox.venue import Venue

__all__ = [
    "PORTFOLIO_VALUE_FIELDS",
    "ValuedDesk",
    "get_accounts",
    "get_limited_margin_upgrade_info",
    "get_portfolio",
    "get_trade_approval_setting",
]

PORTFOLIO_VALUE_FIELDS = (
    "equity_value",
    "options_value",
    "futures_value",
    "event_contracts_value",
    "crypto_value",
    "mutual_funds_value",
    "fixed_income_value",
)
MARGIN_UPGRADE_URL = "https://robinhood.com/account/investing/margin"


@runtime_checkable
class ValuedDesk(Protocol):
    def portfolio_values(self, account_number: str) -> Mapping[str, Decimal]:
        """This desk's positions of ``account_number`` by portfolio field."""
        ...


def _account_wire(account: Account) -> dict[str, Any]:
    return {
        "account_number": account.account_number,
        "rhs_account_number": account.rhs_account_number,
        "type": account.type,
        "unsettled_funds": "0.00",
        "brokerage_account_type": account.brokerage_account_type,
        "nickname": account.nickname,
        "is_default": account.is_default,
        "agentic_allowed": account.agentic_allowed,
        "option_level": account.option_level,
        "user_option_level": account.option_level,
        "management_type": "self_directed",
        "affiliate": "rhf",
        "state": "active",
        "deactivated": False,
        "permanently_deactivated": False,
    }


@tool(
    "get_accounts",
    description="List every brokerage account; exactly one has agentic_allowed true.",
    guide="Only the account with agentic_allowed true can place orders. Use its "
    "account_number for equity and option tools and its rhs_account_number for crypto and "
    "P&L tools.",
)
def get_accounts(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    return {"accounts": [_account_wire(account) for account in venue.accounts.all()]}


@tool(
    "get_portfolio",
    description="Portfolio value of one account: cash, positions by asset class, buying power.",
    guide="total_value is cash plus every position at current prices; buying_power is cash "
    "minus what open buy orders hold.",
)
def get_portfolio(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    account = venue.accounts.get(args["account_number"])
    values = dict.fromkeys(PORTFOLIO_VALUE_FIELDS, ZERO)
    for desk in venue.desks:
        if isinstance(desk, ValuedDesk):
            for name, value in desk.portfolio_values(account.account_number).items():
                values[name] += value
    total = account.cash + sum(values.values(), ZERO)
    buying_power = wire_money(account.buying_power)
    data: dict[str, Any] = {"total_value": wire_money(total)}
    data.update({name: wire_money(value) for name, value in values.items()})
    data.update(
        {
            "cash": wire_money(account.cash),
            "pending_deposits": "0.00",
            "currency": "USD",
            "buying_power": {
                "buying_power": buying_power,
                "unleveraged_buying_power": buying_power,
                "intraday_buying_power": None,
                "off_intraday_buying_power": None,
                "display_currency": "USD",
            },
            "crypto_buying_power": {"buying_power": buying_power},
        }
    )
    return data


@tool(
    "get_trade_approval_setting",
    description="Whether the account holder must approve each trade an agent places.",
    guide="When human_must_approve_trades is true, place_* tools return an approval to be "
    "confirmed in the Robinhood app instead of an order.",
)
def get_trade_approval_setting(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    account = venue.accounts.get(args["account_number"])
    setting: dict[str, Any] = {
        "account_number": account.account_number,
        "human_must_approve_trades": account.human_must_approve_trades,
    }
    if account.approval_setting_updated_at is not None:
        setting["updated_at"] = wire_time(account.approval_setting_updated_at)
    return {"setting": setting}


@tool(
    "get_limited_margin_upgrade_info",
    description="Whether the account can upgrade to limited margin, with the link to do so.",
    guide="Margin is enabled only by the account holder in the Robinhood app; share the link, "
    "do not try to enable it.",
)
def get_limited_margin_upgrade_info(venue: Venue, args: dict[str, Any]) -> dict[str, Any]:
    account = venue.accounts.get(args["account_number"])
    retirement = account.is_retirement
    eligible = account.type == "cash" and not retirement
    if eligible:
        reason = "This cash account can upgrade to limited margin."
    elif retirement:
        reason = "Retirement accounts can use limited margin only for settlement, not borrowing."
    else:
        reason = "This account already trades on margin."
    return {
        "account_number": account.account_number,
        "account_type": account.type,
        "eligible": eligible,
        "enrolled": account.type == "margin",
        "upgrade_url": f"{MARGIN_UPGRADE_URL}?account_number={account.account_number}"
        if eligible
        else None,
        "message": reason,
    }
