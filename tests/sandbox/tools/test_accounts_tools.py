"""Account tools report the venue's accounts, cash, holds and approval setting."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal

from equity_tools_testkit import START, build_harness


def test_get_accounts_lists_every_account_with_exactly_one_agentic() -> None:
    h = build_harness()
    accounts = h.call("get_accounts")["accounts"]
    assert len(accounts) == 2
    assert [a["agentic_allowed"] for a in accounts].count(True) == 1
    agentic = next(a for a in accounts if a["agentic_allowed"])
    assert agentic["account_number"] == h.agentic.account_number
    assert agentic["rhs_account_number"] == h.agentic.rhs_account_number
    assert all(a["rhs_account_number"] for a in accounts)
    assert len({a["account_number"] for a in accounts}) == 2


def test_get_portfolio_of_a_fresh_account_is_all_cash() -> None:
    h = build_harness()
    portfolio = h.call("get_portfolio", account_number=h.agentic.account_number)
    assert portfolio["total_value"] == portfolio["cash"] == "100000.00"
    assert portfolio["equity_value"] == "0.00"
    assert portfolio["buying_power"]["buying_power"] == "100000.00"
    assert portfolio["currency"] == "USD"
    ira = h.call("get_portfolio", account_number=h.ira.account_number)
    assert ira["total_value"] == "25000.00"


def test_get_portfolio_buying_power_is_cash_minus_holds() -> None:
    h = build_harness()
    h.place(symbol="MSFT", side="buy", type="limit", quantity="10", limit_price="390.00")
    portfolio = h.call("get_portfolio", account_number=h.agentic.account_number)
    assert portfolio["cash"] == "100000.00"
    assert portfolio["buying_power"]["buying_power"] == "96100.00"
    assert portfolio["buying_power"]["unleveraged_buying_power"] == "96100.00"
    assert portfolio["crypto_buying_power"] == {"buying_power": "96100.00"}


class _CryptoDesk:
    def sync(self, now: datetime) -> None:
        del now

    def portfolio_values(self, account_number: str) -> Mapping[str, Decimal]:
        del account_number
        return {"crypto_value": Decimal("250.50")}


def test_get_portfolio_adds_up_every_desk_that_values_positions() -> None:
    h = build_harness()
    h.venue.add_desk(_CryptoDesk())
    portfolio = h.call("get_portfolio", account_number=h.agentic.account_number)
    assert portfolio["crypto_value"] == "250.50"
    assert portfolio["total_value"] == "100250.50"


def test_get_portfolio_of_an_unknown_account_is_not_found() -> None:
    h = build_harness()
    error = h.error("get_portfolio", account_number="123")
    assert (error["code"], error["field"]) == ("NOT_FOUND", "account_number")


def test_trade_approval_setting_follows_the_account_flag() -> None:
    h = build_harness()
    setting = h.call("get_trade_approval_setting", account_number=h.agentic.account_number)
    assert setting == {
        "setting": {
            "account_number": h.agentic.account_number,
            "human_must_approve_trades": False,
        }
    }
    h.agentic.human_must_approve_trades = True
    h.agentic.approval_setting_updated_at = START
    setting = h.call("get_trade_approval_setting", account_number=h.agentic.account_number)
    assert setting["setting"]["human_must_approve_trades"] is True
    assert setting["setting"]["updated_at"] == "2026-12-01T15:00:00.000000Z"


def test_limited_margin_upgrade_info_offers_a_link_to_cash_accounts_only() -> None:
    h = build_harness()
    info = h.call("get_limited_margin_upgrade_info", account_number=h.agentic.account_number)
    assert info["eligible"] is True
    assert info["upgrade_url"].startswith("https://robinhood.com/")
    ira = h.call("get_limited_margin_upgrade_info", account_number=h.ira.account_number)
    assert ira["eligible"] is False
    assert ira["upgrade_url"] is None
    h.agentic.type = "margin"
    margin = h.call("get_limited_margin_upgrade_info", account_number=h.agentic.account_number)
    assert (margin["eligible"], margin["enrolled"]) == (False, True)
