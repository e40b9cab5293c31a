"""The typed account tools: against the venue over loopback, and against scripted answers."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import anyio
import pytest
from client_testkit import ScriptedCaller, json_rpc_caller
from venue_testkit import VenueClient

from ordergate.client._errors import BusinessError, ResponseParseError
from ordergate.client.accounts import AccountsClient
from ordergate.client.equity import EquityClient, EquityOrderRequest
from ordergate.core import OrderType, Side


@pytest.mark.anyio
async def test_the_agentic_account_is_the_one_that_allows_agents(sandbox: VenueClient) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            accounts = AccountsClient(caller)
            agentic = await accounts.agentic()
            assert agentic.agentic_allowed
            assert agentic.account_number == sandbox.agentic_account()["account_number"]
            portfolio = await accounts.portfolio(agentic.account_number)
            assert portfolio.cash > 0
            setting = await accounts.trade_approval_setting(agentic.account_number)
            assert setting.human_must_approve_trades is False


@pytest.mark.anyio
async def test_an_unknown_account_is_a_business_error_not_a_result(sandbox: VenueClient) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            with pytest.raises(BusinessError) as raised:
                await AccountsClient(caller).portfolio("000000000")
    assert (raised.value.code, raised.value.tool) == ("NOT_FOUND", "get_portfolio")


async def _round_trip(sandbox: VenueClient, equity: EquityClient, number: str) -> None:
    """Buy 4 MSFT, sell 3 of them: one closed trade, realised P&L booked."""
    for side, quantity in ((Side.BUY, 4), (Side.SELL, 3)):
        request = EquityOrderRequest(
            account_number=number,
            symbol="MSFT",
            side=side,
            type=OrderType.MARKET,
            quantity=quantity,
        )
        await equity.place_order(request)
        sandbox.step(5)


@pytest.mark.anyio
async def test_realised_pnl_and_trade_history_take_the_rhs_account_number(
    sandbox: VenueClient,
) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            accounts = AccountsClient(caller)
            agentic = await accounts.agentic()
            assert agentic.rhs_account_number is not None
            rhs = agentic.rhs_account_number
            await _round_trip(sandbox, EquityClient(caller), agentic.account_number)
            pnl = await accounts.realized_pnl(rhs, span="day", asset_classes=["equity"])
            history = await accounts.pnl_trade_history(rhs, symbol="MSFT")
            trades = [trade async for trade in accounts.iter_pnl_trades(rhs, span="all")]
            with pytest.raises(BusinessError) as raised:
                await accounts.realized_pnl(agentic.account_number)
    (equity_pnl,) = pnl.by_asset_class
    assert (pnl.account_number, pnl.span, equity_pnl.asset_class) == (rhs, "day", "equity")
    assert (equity_pnl.trade_count, pnl.total_realized_pnl) == (1, equity_pnl.realized_pnl)
    assert equity_pnl.proceeds is not None and equity_pnl.proceeds > 0
    (trade,) = history.trades
    assert (trade.symbol, trade.quantity, history.next) == ("MSFT", Decimal(3), None)
    assert trade.realized_pnl == history.realized_pnl == pnl.total_realized_pnl
    assert [t.id for t in trades] == [trade.id]
    assert (raised.value.code, raised.value.field) == ("INVALID_ARGUMENT", "account_number")


@pytest.mark.anyio
async def test_enrolment_tools_report_standing_and_the_link_for_the_account_holder(
    sandbox: VenueClient,
) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            accounts = AccountsClient(caller)
            agentic = await accounts.agentic()
            margin = await accounts.limited_margin_upgrade_info(agentic.account_number)
            options = await accounts.option_level_upgrade_info(agentic.account_number)
            crypto = await accounts.crypto_onboarding_info()
    assert (margin.account_number, margin.eligible, margin.enrolled) == (
        agentic.account_number,
        True,
        False,
    )
    assert margin.upgrade_url is not None and margin.upgrade_url.startswith("https://robinhood.com")
    assert (options.current_option_level, options.eligible_for_upgrade) == ("option_level_2", True)
    assert [level.option_level for level in options.available_upgrades] == ["option_level_3"]
    assert options.available_upgrades[0].strategies
    assert crypto.onboarded and crypto.crypto_account is not None
    assert crypto.crypto_account.rhs_account_number == agentic.rhs_account_number


@pytest.mark.anyio
async def test_pnl_arguments_go_out_by_their_wire_names_with_unset_ones_omitted() -> None:
    answer = {"total_realized_pnl": "0.00", "by_asset_class": None}
    caller = ScriptedCaller({"get_realized_pnl": answer})
    accounts = AccountsClient(caller)
    await accounts.realized_pnl("5PY78241")
    pnl = await accounts.realized_pnl(
        "5PY78241",
        start_date=date(2026, 11, 1),
        end_date=date(2026, 11, 30),
        asset_classes=("equity", "crypto"),
        display_currency="USD",
        timezone="America/New_York",
    )
    assert caller.calls == [
        ("get_realized_pnl", {"account_number": "5PY78241"}),
        (
            "get_realized_pnl",
            {
                "account_number": "5PY78241",
                "start_date": "2026-11-01",
                "end_date": "2026-11-30",
                "asset_classes": ["equity", "crypto"],
                "display_currency": "USD",
                "timezone": "America/New_York",
            },
        ),
    ]
    assert (pnl.total_realized_pnl, pnl.by_asset_class) == (Decimal(0), [])


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool", "data", "field"),
    [
        ("get_realized_pnl", {"total_realized_pnl": "n/a"}, "total_realized_pnl"),
        (
            "get_realized_pnl",
            {"total_realized_pnl": 1, "by_asset_class": [{"asset_class": "equity",
                                                          "realized_pnl": {}}]},
            "by_asset_class[0].realized_pnl",
        ),
        ("get_pnl_trade_history", {"trades": [{"id": "t", "symbol": "X", "quantity": True}]},
         "trades[0].quantity"),
        ("get_limited_margin_upgrade_info", {"account_number": "1"}, "eligible"),
        ("get_option_level_upgrade_info", {"account_number": "1", "eligible_for_upgrade": "maybe"},
         "eligible_for_upgrade"),
        ("get_crypto_account_onboarding_info", {"onboarded": True, "crypto_account": {}},
         "crypto_account.rhs_account_number"),
    ],
)  # fmt: skip
async def test_unreadable_answers_are_parse_errors_naming_the_field(
    tool: str, data: Any, field: str
) -> None:
    accounts = AccountsClient(ScriptedCaller({tool: data}))
    calls = {
        "get_realized_pnl": lambda: accounts.realized_pnl("1"),
        "get_pnl_trade_history": lambda: accounts.pnl_trade_history("1"),
        "get_limited_margin_upgrade_info": lambda: accounts.limited_margin_upgrade_info("1"),
        "get_option_level_upgrade_info": lambda: accounts.option_level_upgrade_info("1"),
        "get_crypto_account_onboarding_info": accounts.crypto_onboarding_info,
    }
    with pytest.raises(ResponseParseError) as raised:
        await calls[tool]()
    assert (raised.value.field, raised.value.tool) == (field, tool)


@pytest.mark.anyio
async def test_trade_history_pages_are_walked_with_the_cursor_each_page_hands_back() -> None:
    pages = {
        None: {"trades": [{"id": "t1", "symbol": "A", "realized_pnl": "1.5"}], "next": "p2"},
        "p2": {"trades": [{"id": "t2", "symbol": "B", "realized_pnl": 2}], "next": None},
    }
    caller = ScriptedCaller({"get_pnl_trade_history": lambda args: pages[args.get("cursor")]})
    trades = [t async for t in AccountsClient(caller).iter_pnl_trades("1", symbol="A")]
    assert [(t.id, t.realized_pnl) for t in trades] == [("t1", Decimal("1.5")), ("t2", Decimal(2))]
    assert [args for _, args in caller.calls] == [
        {"account_number": "1", "symbol": "A"},
        {"account_number": "1", "symbol": "A", "cursor": "p2"},
    ]


@pytest.mark.anyio
async def test_an_accounts_answer_that_is_not_an_object_is_a_parse_error() -> None:
    with pytest.raises(ResponseParseError) as raised:
        await AccountsClient(ScriptedCaller({"get_accounts": ["not", "an", "object"]})).accounts()
    assert raised.value.tool == "get_accounts"


@pytest.mark.anyio
@pytest.mark.parametrize("flags", [[], [True, True]])
async def test_anything_but_exactly_one_agentic_account_is_a_parse_error(
    flags: list[bool],
) -> None:
    rows = [
        {"account_number": str(i), "type": "cash", "agentic_allowed": flag}
        for i, flag in enumerate(flags)
    ]
    caller = ScriptedCaller({"get_accounts": {"accounts": rows}})
    with pytest.raises(ResponseParseError) as raised:
        await AccountsClient(caller).agentic()
    assert raised.value.field == "accounts"
