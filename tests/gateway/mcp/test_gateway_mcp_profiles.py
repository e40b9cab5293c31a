"""A connection sees and calls only what its profile permits (issue 7 §1), over real sockets."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_gateway_kit import gateway

from ordergate.gateway.mcp import GATE_TOOLS

pytestmark = pytest.mark.anyio

GATE_NAMES = [str(tool["name"]) for tool in GATE_TOOLS]
BUY = {"symbol": "SPY", "side": "buy", "type": "market", "quantity": "1"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.req("profiles.tools-filtered")
async def test_a_monitor_sees_reads_only_and_cannot_place_review_or_cancel(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path, profile="monitor") as gw:
        names = {tool["name"] for tool in await gw.tools()}
        place = await gw.refusal("place_equity_order", {**BUY, "account_number": gw.account})
        review = await gw.refusal("review_equity_order", {**BUY, "account_number": gw.account})
        cancel = await gw.refusal("cancel_equity_order", {"order_id": "o-1"})
        quotes = await gw.call("get_equity_quotes", {"symbols": ["SPY"]})
        accounts = await gw.call("get_accounts")
        filings = gw.filings()
        forwarded = [name for name, _ in gw.backend.forwarded]
    assert {"get_equity_quotes", "get_portfolio", *GATE_NAMES} <= names
    assert not {"place_equity_order", "review_equity_order", "cancel_equity_order"} & names
    assert place == {
        "code": "PROFILE_REFUSED",
        "message": "This connection's profile 'monitor' does not permit placing orders "
        "(orders.place).",
    }
    assert review["code"] == cancel["code"] == "PROFILE_REFUSED"
    assert "(orders.cancel)" in cancel["message"]
    assert quotes["isError"] is False and accounts["isError"] is False
    # Nothing refused reached the record or the broker: the quote (market data, the paper
    # market adding no slippage) and the account list are the broker's.
    assert not quotes["structuredContent"]["guide"].startswith("Paper: ")
    assert filings == []
    assert forwarded == ["get_equity_quotes", "get_accounts"]


async def test_a_researcher_reads_the_market_but_no_account_data(tmp_path: Path) -> None:
    async with gateway(tmp_path, profile="researcher") as gw:
        names = {tool["name"] for tool in await gw.tools()}
        portfolio = await gw.refusal("get_portfolio")
        quotes = await gw.call("get_equity_quotes", {"symbols": ["SPY"]})
    assert "get_equity_quotes" in names
    assert not {"get_portfolio", "get_accounts", "place_equity_order"} & names
    assert portfolio["code"] == "PROFILE_REFUSED"
    assert "(account.read)" in portfolio["message"]
    assert quotes["isError"] is False


async def test_a_trader_places_through_the_guard(tmp_path: Path) -> None:
    async with gateway(tmp_path, profile="trader") as gw:
        placed = await gw.call("place_equity_order", {**BUY, "account_number": gw.account})
        filings = gw.filings()
    assert placed["isError"] is False
    assert len(filings) == 1


async def test_a_connection_whose_profile_is_not_defined_sees_and_calls_only_the_gateways_tools(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path, profile=None) as gw:
        names = [tool["name"] for tool in await gw.tools()]
        quotes = await gw.refusal("get_equity_quotes", {"symbols": ["SPY"]})
        how = await gw.call("gate_how")
        forwarded = gw.backend.forwarded
    assert names == GATE_NAMES
    assert quotes["code"] == "PROFILE_REFUSED"
    assert "not defined on this gateway" in quotes["message"]
    assert how["isError"] is False
    assert forwarded == []


CAUTIOUS = """name: cautious
description: A trader held to one-dollar orders.
permissions: [account.read, market.read, orders.read, orders.place]
system_prompt: Trade one dollar at a time.
policy:
  limits:
    max_order_usd: '1'
"""


async def test_a_profiles_policy_override_tightens_the_order_path_and_shows_in_gate_how(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    (home / "profiles").mkdir(parents=True)
    (home / "profiles" / "cautious.yaml").write_text(CAUTIOUS)
    async with gateway(tmp_path, profile="cautious", profiles_home=home) as gw:
        refused = await gw.call("place_equity_order", {**BUY, "account_number": gw.account})
        dollar = await gw.call(
            "place_equity_order",
            {**BUY, "account_number": gw.account, "quantity": None, "dollar_amount": "1"},
        )
        how = (await gw.call("gate_how"))["structuredContent"]["data"]
        unnarrowed = gw.guard.policy.max_order_usd
    assert refused["isError"] is True
    assert "MAX_ORDER_USD" in str(refused["structuredContent"]).upper()
    assert dollar["isError"] is False
    assert how["profile"]["name"] == "cautious"
    assert how["profile"]["system_prompt"] == "Trade one dollar at a time."
    assert "orders.place" in how["profile"]["permissions"]
    assert str(unnarrowed) == "5000"  # the account's own guard is untouched


async def test_the_handshake_instructions_carry_the_profile_and_its_system_prompt(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path, profile="trader") as gw:
        answer = await gw.rpc(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}},
        )
    instructions = answer["result"]["instructions"]
    assert "profile is 'trader'" in instructions
    assert "You are connected to a Robinhood account" in instructions
