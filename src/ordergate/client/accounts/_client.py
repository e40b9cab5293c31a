"""The account tools: accounts, portfolio, trade approval, realised P&L, enrolment links."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import date

from ordergate.client._arguments import iso_day, present
from ordergate.client._caller import Caller
from ordergate.client._errors import ResponseParseError
from ordergate.client._models import parse_list, parse_member, parse_model
from ordergate.client._pages import MAX_PAGES, walk_pages
from ordergate.client.accounts._enrollment import (
    CryptoOnboardingInfo,
    MarginUpgradeInfo,
    OptionLevelUpgradeInfo,
)
from ordergate.client.accounts._models import Account, Portfolio, TradeApprovalSetting
from ordergate.client.accounts._pnl import ClosedTrade, PnlTradesPage, RealizedPnl

__all__ = ["AccountsClient"]

TOOL_ACCOUNTS = "get_accounts"
TOOL_PORTFOLIO = "get_portfolio"
TOOL_TRADE_APPROVAL_SETTING = "get_trade_approval_setting"
TOOL_REALIZED_PNL = "get_realized_pnl"
TOOL_PNL_TRADE_HISTORY = "get_pnl_trade_history"
TOOL_LIMITED_MARGIN_UPGRADE_INFO = "get_limited_margin_upgrade_info"
TOOL_OPTION_LEVEL_UPGRADE_INFO = "get_option_level_upgrade_info"
TOOL_CRYPTO_ONBOARDING_INFO = "get_crypto_account_onboarding_info"


class AccountsClient:
    def __init__(self, caller: Caller) -> None:
        self._caller = caller

    async def accounts(self) -> list[Account]:
        """Every brokerage account (``get_accounts``)."""
        data = await self._caller.call(TOOL_ACCOUNTS, {})
        return parse_list(Account, data, "accounts", tool=TOOL_ACCOUNTS)

    async def agentic(self) -> Account:
        """The one account an agent may trade; ``ResponseParseError`` unless exactly one."""
        agentic = [a for a in await self.accounts() if a.agentic_allowed]
        if len(agentic) != 1:
            raise ResponseParseError(
                f"expected exactly one agentic account, found {len(agentic)}",
                tool=TOOL_ACCOUNTS,
                field="accounts",
            )
        return agentic[0]

    async def portfolio(self, account_number: str) -> Portfolio:
        """Totals, cash and buying power (``get_portfolio``)."""
        data = await self._caller.call(TOOL_PORTFOLIO, {"account_number": account_number})
        return parse_model(Portfolio, data, tool=TOOL_PORTFOLIO)

    async def trade_approval_setting(self, account_number: str) -> TradeApprovalSetting:
        """Whether a person must approve each trade (``get_trade_approval_setting``)."""
        data = await self._caller.call(
            TOOL_TRADE_APPROVAL_SETTING, {"account_number": account_number}
        )
        return parse_member(TradeApprovalSetting, data, "setting", tool=TOOL_TRADE_APPROVAL_SETTING)

    async def realized_pnl(
        self,
        rhs_account_number: str,
        *,
        span: str | None = None,
        start_date: date | None = None,
        end_date: date | None = None,
        asset_classes: Sequence[str] | None = None,
        display_currency: str | None = None,
        timezone: str | None = None,
    ) -> RealizedPnl:
        """Realised P&L over ``span`` (``day`` … ``all``) or dates (``get_realized_pnl``).

        As on Robinhood, the tool takes the account's *rhs* number in ``account_number``.
        """
        arguments = present(
            account_number=rhs_account_number,
            span=span,
            start_date=iso_day(start_date),
            end_date=iso_day(end_date),
            asset_classes=None if asset_classes is None else list(asset_classes),
            display_currency=display_currency,
            timezone=timezone,
        )
        data = await self._caller.call(TOOL_REALIZED_PNL, arguments)
        return parse_model(RealizedPnl, data, tool=TOOL_REALIZED_PNL)

    async def pnl_trade_history(
        self,
        rhs_account_number: str,
        *,
        span: str | None = None,
        symbol: str | None = None,
        cursor: str | None = None,
    ) -> PnlTradesPage:
        """One page of closed trades, newest first (``get_pnl_trade_history``; rhs number)."""
        arguments = present(
            account_number=rhs_account_number, span=span, symbol=symbol, cursor=cursor
        )
        data = await self._caller.call(TOOL_PNL_TRADE_HISTORY, arguments)
        return parse_model(PnlTradesPage, data, tool=TOOL_PNL_TRADE_HISTORY)

    async def iter_pnl_trades(
        self,
        rhs_account_number: str,
        *,
        span: str | None = None,
        symbol: str | None = None,
        max_pages: int = MAX_PAGES,
    ) -> AsyncIterator[ClosedTrade]:
        """Every closed trade across pages (bounded, see ``walk_pages``)."""

        async def fetch(cursor: str | None) -> PnlTradesPage:
            return await self.pnl_trade_history(
                rhs_account_number, span=span, symbol=symbol, cursor=cursor
            )

        async for page in walk_pages(fetch, tool=TOOL_PNL_TRADE_HISTORY, max_pages=max_pages):
            for trade in page.trades:
                yield trade

    async def limited_margin_upgrade_info(self, account_number: str) -> MarginUpgradeInfo:
        """Whether the account can move to limited margin, and the link the holder opens."""
        data = await self._caller.call(
            TOOL_LIMITED_MARGIN_UPGRADE_INFO, {"account_number": account_number}
        )
        return parse_model(MarginUpgradeInfo, data, tool=TOOL_LIMITED_MARGIN_UPGRADE_INFO)

    async def option_level_upgrade_info(self, account_number: str) -> OptionLevelUpgradeInfo:
        """The account's options level, the levels above it, and the link to apply."""
        data = await self._caller.call(
            TOOL_OPTION_LEVEL_UPGRADE_INFO, {"account_number": account_number}
        )
        return parse_model(OptionLevelUpgradeInfo, data, tool=TOOL_OPTION_LEVEL_UPGRADE_INFO)

    async def crypto_onboarding_info(self) -> CryptoOnboardingInfo:
        """Whether the crypto account is open, its rhs number, and the onboarding link."""
        data = await self._caller.call(TOOL_CRYPTO_ONBOARDING_INFO, {})
        return parse_model(CryptoOnboardingInfo, data, tool=TOOL_CRYPTO_ONBOARDING_INFO)
